// A lane's slots over rows of `inner` interleaved columns, any count up to 32, read as vectors of
// V elements by the first narrow_lanes(inner) lanes of a warp (narrow_columns_kernel), host and
// device (the CPU tests run a warp's worth). Positions count from the run's first 16-byte
// boundary at or before it; the run starts `misfit` elements past it. Lane k reads vectors k,
// k + L, ... (L = narrow_lanes): each starts L x V elements (a multiple of inner) past the last,
// so slot j of all of them holds one column and, in the m-th, one row m x L x V / inner past the
// first's.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

// The lanes that read: the most whole sets of `inner` lanes in a warp.
GPUREDUCE_HD constexpr unsigned narrow_lanes(unsigned inner) { return inner * (warp_threads / inner); }

// The column of slot j of lane `lane`: (lane x V + j - misfit) mod inner, for misfit < V.
GPUREDUCE_HD constexpr unsigned narrow_slot_column(unsigned lane, unsigned j, unsigned V, unsigned misfit,
                                                   unsigned inner) {
  return (lane * V + j + inner * V - misfit) % inner;
}

// The row of slot j of lane `lane` in its first vector: floor((lane x V + j - misfit) / inner),
// -1 for a slot before the run.
GPUREDUCE_HD constexpr int narrow_slot_row(unsigned lane, unsigned j, unsigned V, unsigned misfit, unsigned inner) {
  return int((lane * V + j + inner * V - misfit) / inner) - int(V);
}

// The warp's slots in position order (lane x V + j, L x V of them): those of column c are
// narrow_first_slot(c, misfit, inner), then every inner-th.
GPUREDUCE_HD constexpr unsigned narrow_first_slot(unsigned c, unsigned misfit, unsigned inner) {
  return (c + misfit) % inner;
}

}  // namespace gpureduce::detail
