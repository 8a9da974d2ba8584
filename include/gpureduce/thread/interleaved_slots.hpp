// A lane's accumulators over rows of 2^shift interleaved columns read as vectors of V elements by
// the 32 lanes of a warp (interleaved_rows_kernel), host and device (the CPU tests run a warp's
// worth). Lane k reads vectors k, k + 32, ...: each starts 32 x V elements (a multiple of the
// column count) past the last, so slot j of all of them holds one column, (k x V + j) mod 2^shift.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

// After fold_slots and a butterfly over the lanes down to column_writers: lanes 0 ..
// column_writers - 1 hold distinct columns, writer k's slots 0 .. column_slots - 1 columns
// k x V + j.
GPUREDUCE_HD constexpr unsigned column_writers(unsigned inner, unsigned V) { return inner > V ? inner / V : 1; }
GPUREDUCE_HD constexpr unsigned column_slots(unsigned inner, unsigned V) { return inner < V ? inner : V; }

// A lane's V slots folded into slots 0 .. column_slots - 1, one column each: slots j and j + W
// combine for W = V / 2, V / 4, ... down to the column count, a fixed tree. (One instantiation per
// level, as fold_pairwise, so that the slots stay in registers.)
GPUREDUCE_EXEC_CHECK_DISABLE
template <unsigned V, unsigned W = V / 2, class A, class Op>
GPUREDUCE_HD constexpr void fold_slots(A (&acc)[V], unsigned inner, const Op& op) {
  if constexpr (W > 0) {
    if (W >= inner) {
GPUREDUCE_UNROLL
      for (unsigned j = 0; j < W; ++j) acc[j] = op(acc[j], acc[j + W]);
      fold_slots<V, W / 2>(acc, inner, op);
    }
  }
}

}  // namespace gpureduce::detail
