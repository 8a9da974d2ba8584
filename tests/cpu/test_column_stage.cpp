// The stage of invariant_columns_kernel (grid/column_stage.hpp), a block's chunk copied and read
// on the host: for every column count the kernel takes (2 up) and every vector width, the copies
// fill each piece's slots exactly once, 16-byte aligned, within the kernel's stage; each folding
// thread finds row k of its column at its slot; and a warp's reads of 4-byte elements meet at most
// two to a bank.
#include <gpureduce/grid/column_stage.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace gpureduce::detail {
namespace {

void expect_stage(unsigned inner, unsigned V, unsigned threads) {
  const unsigned elem_bytes = 16 / V;
  const unsigned lanes = threads * 4 / std::max(4u, elem_bytes);  // invariant_column_lanes
  const unsigned pieces = lanes / inner;
  const std::string what = std::to_string(inner) + " columns, V " + std::to_string(V);
  const ColumnStage layout{inner, V};
  ASSERT_EQ(layout.piece_vectors() * V, column_stage_rows * inner) << what;
  ASSERT_EQ(layout.stride() * elem_bytes % 16, 0u) << what;
  ASSERT_LE(pieces * layout.stride(), lanes * (column_stage_rows + V)) << what;  // the kernel's stage
  // Element (piece, e) copied to each slot; -1: none.
  std::vector<long> stage(lanes * (column_stage_rows + V), -1);
  for (unsigned t = 0; t < threads; ++t)
    for (ColumnCopies v(t, threads, layout.piece_vectors()); v.q < pieces; v.next()) {
      ASSERT_LT(v.w, layout.piece_vectors()) << what;
      const unsigned at = layout.slot(v.q, 0, v.w * V);
      ASSERT_EQ(at * elem_bytes % 16, 0u) << what;
      for (unsigned j = 0; j < V; ++j) {
        ASSERT_EQ(stage[at + j], -1) << what << ": slot " << at + j << " copied twice";
        stage[at + j] = long(v.q) * 100000 + long(v.w * V + j);
      }
    }
  for (unsigned q = 0; q < pieces; ++q)
    for (unsigned k = 0; k < column_stage_rows; ++k)
      for (unsigned c = 0; c < inner; ++c)
        ASSERT_EQ(stage[layout.slot(q, k, c)], long(q) * 100000 + long(k * inner + c))
            << what << ": piece " << q << ", row " << k << ", column " << c;
  // Folding thread t is column t % inner of piece t / inner; a warp reads one row at a time.
  if (elem_bytes != 4) return;
  for (unsigned w0 = 0; w0 < pieces * inner; w0 += 32)
    for (unsigned k = 0; k < column_stage_rows; ++k) {
      std::vector<unsigned> per_bank(32, 0);
      for (unsigned t = w0; t < std::min(w0 + 32, pieces * inner); ++t)
        ++per_bank[layout.slot(t / inner, k, t % inner) % 32];
      ASSERT_LE(*std::max_element(per_bank.begin(), per_bank.end()), 2u)
          << what << ", warp at " << w0 << ", row " << k;
    }
}

TEST(ColumnStage, CopiesAndReadsEveryColumnCount) {
  for (unsigned V : {2u, 4u, 8u, 16u}) {
    const unsigned lanes = 256 * 4 / std::max(4u, 16 / V);
    for (unsigned inner = 2; inner <= lanes / 8; ++inner) expect_stage(inner, V, 256);
  }
}

}  // namespace
}  // namespace gpureduce::detail
