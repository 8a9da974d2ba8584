// Warp-level reduction through shared memory: every lane stores its partial and lane 0 loads all
// 32 and combines them in a fixed pairwise tree. One store, one round trip to shared memory
// (16-byte loads) and five dependent combines in registers, against five dependent steps of a
// shuffle and a combine each (warp/warp_reduce.cuh): for partials redux.sync cannot reduce
// (floating sums and products, user operators).
#pragma once

#include <gpureduce/thread/pairwise_fold.hpp>

namespace gpureduce::detail {

// Lane 0 returns the reduction of lanes 0 .. 31 (the others return their own partial). scratch:
// shared, 32 elements, 16-byte aligned, not read by another lane of the warp until this returns
// (lane l may have read scratch[l] before: it writes only that one).
template <class T, class Op>
__device__ __forceinline__ T warp_reduce_staged(T v, Op op, T* scratch) {
  const unsigned lane = threadIdx.x % warp_threads;
  scratch[lane] = v;
  __syncwarp();
  if (lane == 0) {
    T x[warp_threads];
#pragma unroll
    for (unsigned k = 0; k < warp_threads; ++k) x[k] = scratch[k];
    v = fold_pairwise(x, op);
  }
  return v;
}

}  // namespace gpureduce::detail
