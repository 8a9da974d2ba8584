// Warp-level reduction through register shuffles: five steps, no shared memory, no barrier.
#pragma once

#include <gpureduce/warp/shuffle.cuh>

namespace gpureduce {

// Lane 0 returns the reduction of the 32 lanes' values (other lanes return partial values). The
// combine order is fixed, so the result is the same bits on every run.
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2) v = op(v, shuffle_down(v, offset));
  return v;
}

}  // namespace gpureduce
