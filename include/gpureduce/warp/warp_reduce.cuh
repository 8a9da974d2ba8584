// Warp-level reduction through register shuffles: five steps, no shared memory, no barrier.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce {

// Lane 0 returns the reduction of the 32 lanes' values (other lanes return partial values).
template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
#pragma unroll
  for (int offset = warp_threads / 2; offset > 0; offset /= 2) v = op(v, __shfl_down_sync(0xffffffffu, v, offset));
  return v;
}

}  // namespace gpureduce
