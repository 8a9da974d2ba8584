// Logical lanes held by one thread. The batch-invariant fold (kernel/axis_kernels.cuh,
// invariant_fold) runs 32 logical lanes on G threads, thread l holding lanes l, l + G, ... in
// acc[0, 32 / G). fold_held_lanes combines them as the 32-lane butterfly's steps of offsets 16 down
// to G would, the lower lane's value first; the butterfly over the G threads then gives each of
// them the 32-lane butterfly's result, so the bits do not depend on G. Host and device code, so
// that the CPU tests check it.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

template <unsigned M, class A, class Op>
GPUREDUCE_HD void fold_held_lanes(A (&acc)[M], const Op& op) {
  static_assert(M >= 1 && (M & (M - 1)) == 0);
GPUREDUCE_UNROLL
  for (unsigned s = M / 2; s > 0; s >>= 1)
GPUREDUCE_UNROLL
    for (unsigned m = 0; m < M; ++m)
      if ((m & s) == 0) {
        const A both = op(acc[m], acc[m | s]);
        acc[m] = both;
        acc[m | s] = both;
      }
}

}  // namespace gpureduce::detail
