// The slots of narrow_columns_kernel (thread/narrow_slots.hpp), a warp run on the host: for every
// column count that is not a power of two, vector width and misfit, each slot holds one column
// and knows its rows, and the fold over the warp's slots of a column meets each of its elements
// exactly once.
#include <gpureduce/thread/narrow_slots.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gpureduce::detail {
namespace {

void expect_columns(unsigned inner, unsigned V, unsigned misfit, std::uint64_t rows) {
  const std::string what = std::to_string(inner) + " columns, V " + std::to_string(V) + ", misfit " +
                           std::to_string(misfit) + ", " + std::to_string(rows) + " rows";
  const unsigned lanes = narrow_lanes(inner);
  ASSERT_EQ(lanes % inner, 0u) << what;
  ASSERT_GT(lanes, warp_threads - inner) << what;
  ASSERT_LE(lanes, unsigned(warp_threads)) << what;
  const std::uint64_t end = misfit + rows * inner;
  // The elements (position in the run) each slot folds.
  std::vector<std::vector<std::uint64_t>> slot(lanes * V);
  for (unsigned lane = 0; lane < lanes; ++lane)
    for (std::uint64_t w = lane; w * V < end; w += lanes)
      for (unsigned j = 0; j < V; ++j) {
        const std::uint64_t p = w * V + j;
        if (p < misfit || p >= end) continue;
        const std::uint64_t e = p - misfit;
        ASSERT_EQ(e % inner, narrow_slot_column(lane, j, V, misfit, inner)) << what << ", lane " << lane;
        const std::int64_t first_row = std::int64_t((w - lane) * V / inner);
        ASSERT_EQ(std::int64_t(e / inner), first_row + narrow_slot_row(lane, j, V, misfit, inner)) << what;
        slot[lane * V + j].push_back(e);
      }
  for (unsigned c = 0; c < inner; ++c) {
    std::vector<std::uint64_t> got;
    for (unsigned p = narrow_first_slot(c, misfit, inner); p < lanes * V; p += inner) {
      ASSERT_EQ(narrow_slot_column(p / V, p % V, V, misfit, inner), c) << what;
      got.insert(got.end(), slot[p].begin(), slot[p].end());
    }
    std::sort(got.begin(), got.end());
    std::vector<std::uint64_t> want;
    for (std::uint64_t r = 0; r < rows; ++r) want.push_back(r * inner + c);
    EXPECT_EQ(got, want) << what << ", column " << c;
  }
}

TEST(NarrowSlots, EveryColumnOnceAtEveryMisfit) {
  for (unsigned inner : {3u, 5u, 6u, 7u, 9u, 12u, 17u, 24u, 31u})
    for (unsigned V : {1u, 2u, 4u, 8u, 16u})
      for (unsigned misfit = 0; misfit < V; ++misfit)
        for (std::uint64_t rows : {1u, 7u, 100u, 1001u}) expect_columns(inner, V, misfit, rows);
}

TEST(NarrowSlots, SlotsBeforeTheRunAreRowMinusOne) {
  // Lane 0's first vector from 3 elements before a run of 5 columns: slots 0-2 lie before it.
  EXPECT_EQ(narrow_slot_row(0, 0, 4, 3, 5), -1);
  EXPECT_EQ(narrow_slot_row(0, 2, 4, 3, 5), -1);
  EXPECT_EQ(narrow_slot_row(0, 3, 4, 3, 5), 0);
  EXPECT_EQ(narrow_slot_column(0, 3, 4, 3, 5), 0u);
  EXPECT_EQ(narrow_first_slot(0, 3, 5), 3u);
}

}  // namespace
}  // namespace gpureduce::detail
