// The pairwise tree of the staged block and warp reductions (thread/pairwise_fold.hpp), run on the
// host: its fixed order, and every partial combined exactly once in the two stages of
// block_reduce's staged path (warp 0's lanes, then the lanes through shared memory).
#include <gpureduce/thread/pairwise_fold.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

const auto bracket = [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; };

template <unsigned N>
std::string fold_names() {
  std::string x[N];
  for (unsigned k = 0; k < N; ++k) x[k] = std::to_string(k);
  return fold_pairwise(x, bracket);
}

TEST(test_pairwise_fold, order_is_the_fixed_halving_tree) {
  EXPECT_EQ(fold_names<1>(), "0");
  EXPECT_EQ(fold_names<2>(), "(0 1)");
  EXPECT_EQ(fold_names<4>(), "((0 2) (1 3))");
  EXPECT_EQ(fold_names<8>(), "(((0 4) (2 6)) ((1 5) (3 7)))");
}

// The staged path for BlockThreads threads, indexed as block_reduce indexes it (device code, so
// mirrored here): lane l folds the partials of threads l, l + 32, ..., then lane 0 folds the 32
// lanes' results. Each thread's partial counts that thread once; the
// result must count every thread once.
template <unsigned BlockThreads>
void expect_staged_block_covers_every_thread_once() {
  using Counts = std::vector<int>;
  const auto add = [](Counts a, const Counts& b) {
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    return a;
  };
  constexpr unsigned lanes = 32, per_lane = BlockThreads / lanes;
  Counts lane_totals[lanes];
  for (unsigned l = 0; l < lanes; ++l) {
    Counts x[per_lane];
    for (unsigned k = 0; k < per_lane; ++k) {
      x[k] = Counts(BlockThreads, 0);
      x[k][l + k * lanes] = 1;
    }
    lane_totals[l] = fold_pairwise(x, add);
  }
  EXPECT_EQ(fold_pairwise(lane_totals, add), Counts(BlockThreads, 1)) << BlockThreads << " threads";
}

TEST(test_pairwise_fold, staged_block_combines_every_thread_once) {
  expect_staged_block_covers_every_thread_once<32>();
  expect_staged_block_covers_every_thread_once<64>();
  expect_staged_block_covers_every_thread_once<128>();
  expect_staged_block_covers_every_thread_once<256>();
  expect_staged_block_covers_every_thread_once<512>();
  expect_staged_block_covers_every_thread_once<1024>();
}

}  // namespace
}  // namespace gpureduce
