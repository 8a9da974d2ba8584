// The merge path of CSR segments (grid/merge_path.hpp) against a walk of the path item by item:
// every diagonal's point, for ragged, empty and long segments; decreasing offsets stay in range.
// The warp shares' walk and carries against a direct fold of each segment.
#include <gpureduce/grid/merge_path.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <utility>
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

// The ends of fewer than `most` segments, each empty or up to 3, 39, 999 or 19,999 elements long
// (the first `kinds` of these).
std::vector<std::uint64_t> ragged_ends(std::mt19937_64& rng, int most, unsigned kinds) {
  static constexpr std::uint64_t longest[] = {0, 4, 40, 1000, 20000};
  std::vector<std::uint64_t> ends;
  std::uint64_t at = 0;
  const int segments = int(rng() % std::uint64_t(most));
  for (int s = 0; s < segments; ++s) {
    const unsigned kind = unsigned(rng() % kinds);
    at += kind == 0 ? 0 : rng() % longest[kind];
    ends.push_back(at);
  }
  return ends;
}

TEST(MergePath, EveryDiagonalOfRaggedSegments) {
  std::mt19937_64 rng(test::test_seed() ^ 0x6d70);
  for (int trial = 0; trial < 50; ++trial) expect_every_diagonal(ragged_ends(rng, 200, 4));
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

// The tuned paths by mean, and each forced one at every mean.
TEST(MergePath, CsrPathsByMean) {
  const std::pair<std::uint64_t, CsrPath> tuned[] = {
      {0, CsrPath::staged}, {7, CsrPath::staged},      {8, CsrPath::tiles},
      {63, CsrPath::tiles}, {64, CsrPath::warps},      {8191, CsrPath::warps},
      {8192, CsrPath::shares}, {std::uint64_t(1) << 40, CsrPath::shares}};
  const CsrMeans means{8, 8192, 64, 8192};
  for (const auto& [mean, path] : tuned) EXPECT_EQ(csr_path(mean, means, true), path) << "mean " << mean;
  EXPECT_EQ(csr_path(3, means, false), CsrPath::tiles);  // no stage: the tiles
  for (CsrPath path : {CsrPath::staged, CsrPath::tiles, CsrPath::warps, CsrPath::shares})
    for (const auto& [mean, unused] : tuned)
      EXPECT_EQ(csr_path(mean, forced_means(path, means), true), path) << "mean " << mean << ", path " << int(path);
  EXPECT_EQ(csr_path(3, forced_means(CsrPath::staged, means), false), CsrPath::tiles);
  EXPECT_EQ(csr_path(100, forced_means(CsrPath::automatic, means), true), CsrPath::warps);
}

// A segment's sum, its largest value and that value's first index within the segment, and its
// count of elements: what a share's parts of a segment fold to, in any split.
struct Folded {
  std::int64_t sum = 0, best = std::numeric_limits<std::int64_t>::min(), index = -1, count = 0;
  bool operator==(const Folded&) const = default;
};
Folded combine(const Folded& a, const Folded& b) {
  Folded r{a.sum + b.sum, a.best, a.index, a.count + b.count};
  if (b.count && (a.count == 0 || b.best > a.best)) {
    r.best = b.best;
    r.index = b.index;
  }
  return r;
}

// The warp shares of csr_segments_kernel on the host: the path cut into the blocks' shares
// (path_share), each cut among its warps, each warp's part walked (walk_share); each block's warps'
// carries folded in order (fold_carries, with the segment the block continues), then the blocks'
// carries over the grid, as the last block's scan by key folds them. Every segment comes out once,
// equal to its direct fold.
void expect_warp_shares(const std::vector<std::uint64_t>& ends, const std::vector<std::int64_t>& values,
                        std::uint64_t blocks, std::uint64_t warps, std::uint64_t tile) {
  const std::uint64_t segments = ends.size(), elements = values.size(), items = segments + elements;
  const auto end_of = [&](std::uint64_t x) { return ends[x]; };
  const auto begin_of = [&](std::uint64_t x) { return x == 0 ? std::uint64_t(0) : ends[x - 1]; };
  std::vector<Folded> got(segments);
  std::vector<int> emitted(segments, 0);
  const auto emit = [&](std::uint64_t x, const Folded& v) {
    ASSERT_LT(x, segments);
    got[x] = v;
    ++emitted[x];
  };
  const auto fold = [&](std::uint64_t begin, std::uint64_t at, std::uint64_t end) {
    Folded v;
    for (std::uint64_t k = at; k < end; ++k)
      v = combine(v, Folded{values[k], values[k], std::int64_t(k - begin), 1});
    return v;
  };
  const std::uint64_t share = path_share(items, blocks, tile);
  std::vector<PathCarry<Folded>> block_carries;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint64_t d0 = b * share, d1 = d0 + share < items ? d0 + share : items;
    if (d0 >= d1) break;
    const std::uint64_t part = (d1 - d0 + warps - 1) / warps;
    const auto point = [&](std::uint64_t w) {
      return merge_path_point(d0 + w * part < d1 ? d0 + w * part : d1, segments, elements, end_of);
    };
    std::vector<PathCarry<Folded>> warp_carries;
    for (std::uint64_t w = 0; w < warps && d0 + w * part < d1; ++w) {
      const PathPoint p0 = point(w), p1 = point(w + 1);
      std::uint64_t next = p0.segment;
      const auto end_at = [&](std::uint64_t x) {
        EXPECT_EQ(x, next++);  // asked for in order
        return end_of(x);
      };
      warp_carries.push_back(walk_share(p0, p1, segments, p0.segment < segments ? begin_of(p0.segment) : p0.element,
                                        Folded{}, end_at, fold, emit));
    }
    const PathPoint start = point(0);
    const bool continued = start.segment < segments && begin_of(start.segment) < start.element;
    block_carries.push_back(fold_carries(warp_carries.data(), warp_carries.size(),
                                         continued ? start.segment : no_segment, Folded{}, combine, emit));
  }
  const PathCarry<Folded> all =
      fold_carries(block_carries.data(), block_carries.size(), no_segment, Folded{}, combine, emit);
  EXPECT_EQ(all.open_segment, no_segment);
  EXPECT_EQ(all.head_segment, no_segment);
  for (std::uint64_t x = 0; x < segments; ++x) {
    ASSERT_EQ(emitted[x], 1) << "segment " << x << " of " << segments << ", " << blocks << " blocks of " << warps
                             << " warps";
    const Folded want = fold(begin_of(x), begin_of(x), ends[x]);
    ASSERT_EQ(got[x], want) << "segment " << x << " (" << begin_of(x) << ", " << ends[x] << "), " << blocks
                            << " blocks of " << warps << " warps";
  }
}

TEST(MergePath, WarpSharesFoldEverySegmentOnce) {
  std::mt19937_64 rng(test::test_seed() ^ 0x7773);
  for (int trial = 0; trial < 40; ++trial) {
    const std::vector<std::uint64_t> ends = ragged_ends(rng, 300, 5);
    std::vector<std::int64_t> values(ends.empty() ? 0 : ends.back());
    for (auto& v : values) v = std::int64_t(rng() % 101) - 50;
    for (std::uint64_t blocks : {1, 3, 17, 528})
      for (std::uint64_t warps : {1, 8})
        for (std::uint64_t tile : {1, 5376}) expect_warp_shares(ends, values, blocks, warps, tile);
  }
  // One segment over every block and warp; only empty segments; one element.
  expect_warp_shares({100000}, std::vector<std::int64_t>(100000, 3), 528, 8, 1);
  expect_warp_shares({0, 0, 0, 0}, {}, 3, 8, 1);
  expect_warp_shares({1}, {-7}, 528, 8, 5376);
}

}  // namespace
}  // namespace gpureduce::detail
