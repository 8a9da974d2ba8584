// Warp-level reduction through register shuffles: five steps (fewer over fewer lanes), no shared
// memory, no barrier.
#pragma once

#include <gpureduce/warp/shuffle.cuh>

namespace gpureduce::detail {

// Lane 0 returns the reduction of lanes 0 .. Lanes-1 (other lanes return partial values):
// log2(Lanes) steps. The combine order is fixed, so the result is the same bits on every run.
template <unsigned Lanes = warp_threads, class T, class Op>
__device__ __forceinline__ T warp_reduce(T v, Op op) {
  static_assert(Lanes >= 1 && Lanes <= warp_threads && (Lanes & (Lanes - 1)) == 0, "Lanes: a power of two up to 32");
#pragma unroll
  for (unsigned offset = Lanes / 2; offset > 0; offset /= 2) v = op(v, shuffle_down(v, offset));
  return v;
}

}  // namespace gpureduce::detail
