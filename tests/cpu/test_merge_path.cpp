// The merge path of CSR segments (grid/merge_path.hpp) against a walk of the path item by item:
// every diagonal's point, for ragged, empty and long segments; decreasing offsets stay in range.
#include <gpureduce/grid/merge_path.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gpureduce::detail {
namespace {

// Points at every diagonal by walking the path: an end when the next element is past it.
std::vector<PathPoint> walk(const std::vector<std::uint64_t>& ends, std::uint64_t elements) {
  std::vector<PathPoint> points{{0, 0}};
  PathPoint p;
  while (p.segment < ends.size() || p.element < elements) {
    if (p.segment < ends.size() && ends[p.segment] <= p.element) ++p.segment;
    else ++p.element;
    points.push_back(p);
  }
  return points;
}

void expect_every_diagonal(const std::vector<std::uint64_t>& ends) {
  const std::uint64_t elements = ends.empty() ? 0 : ends.back();
  const auto points = walk(ends, elements);
  ASSERT_EQ(points.size(), ends.size() + elements + 1);
  for (std::uint64_t d = 0; d < points.size(); ++d) {
    const PathPoint p = merge_path_point(d, ends.size(), elements, [&](std::uint64_t x) { return ends[x]; });
    ASSERT_EQ(p.segment, points[d].segment) << "diagonal " << d;
    ASSERT_EQ(p.element, points[d].element) << "diagonal " << d;
  }
}

TEST(MergePath, EveryDiagonalOfRaggedSegments) {
  std::mt19937_64 rng(test::test_seed() ^ 0x6d70);
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<std::uint64_t> ends;
    std::uint64_t at = 0;
    const int segments = int(rng() % 200);
    for (int s = 0; s < segments; ++s) {
      const unsigned kind = unsigned(rng() % 4);
      at += kind == 0 ? 0 : kind == 1 ? rng() % 4 : kind == 2 ? rng() % 40 : rng() % 1000;
      ends.push_back(at);
    }
    expect_every_diagonal(ends);
  }
}

TEST(MergePath, EmptyAndSingleSegments) {
  expect_every_diagonal({});
  expect_every_diagonal({0});
  expect_every_diagonal({0, 0, 0});
  expect_every_diagonal({5});
  expect_every_diagonal({0, 0, 7, 7, 7});
}

// Decreasing offsets break the path's order; the point stays within the path's bounds.
TEST(MergePath, DecreasingOffsetsStayInRange) {
  const std::vector<std::uint64_t> ends{9, 2, 7, 0, 9};
  for (std::uint64_t d = 0; d <= ends.size() + 9; ++d) {
    const PathPoint p = merge_path_point(d, ends.size(), 9, [&](std::uint64_t x) { return ends[x]; });
    EXPECT_LE(p.segment, ends.size());
    EXPECT_LE(p.element, 9u);
    EXPECT_EQ(p.segment + p.element, d);
  }
}

// Counts past 2^32: the search takes 64-bit diagonals.
TEST(MergePath, PastTwoToThe32) {
  const std::uint64_t segments = std::uint64_t(3) << 31, elements = std::uint64_t(5) << 31;
  const auto end = [](std::uint64_t x) { return x + x / 2; };  // lengths 1 and 2 alternating
  const std::uint64_t d = std::uint64_t(7) << 31;
  const PathPoint p = merge_path_point(d, segments, elements, end);
  EXPECT_EQ(p.segment + p.element, d);
  EXPECT_LT(end(p.segment - 1) + (p.segment - 1), d);
  EXPECT_GE(end(p.segment) + p.segment, d);
}

TEST(MergePath, SharesAreWholeTiles) {
  EXPECT_EQ(path_share(1, 528, 2048), 2048u);
  EXPECT_EQ(path_share(2048u * 528, 528, 2048), 2048u);
  EXPECT_EQ(path_share(2048u * 528 + 1, 528, 2048), 4096u);
  EXPECT_EQ(path_share(std::uint64_t(1) << 40, 528, 2048) * 528 >= (std::uint64_t(1) << 40), true);
}

}  // namespace
}  // namespace gpureduce::detail
