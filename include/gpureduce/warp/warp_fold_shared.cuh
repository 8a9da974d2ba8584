// A warp's reduction through shared memory, for partials that redux.sync cannot take (float sums,
// products and dot products): every lane stores its partial, lanes 0-7 fold four each, and lane 0
// folds their eight, both in the shuffle tree's order (warp/shuffle_order.hpp), so the result is
// warp_reduce's, bit for bit. Two store-to-load round trips replace five dependent steps of a
// shuffle and the combine, and no thread holds more than eight partials (lane 0 folding all 32
// gave the float64 and float16 sum kernels 46-50 registers instead of 32).
#pragma once

#include <gpureduce/warp/shuffle_order.hpp>

#include <type_traits>

namespace gpureduce {

// Numbers of up to 8 bytes.
template <class T>
inline constexpr bool warp_fold_shared_v = std::is_arithmetic_v<T> && sizeof(T) <= 8;

// One warp's lanes in shared memory, aligned for 16-byte loads.
template <class T>
struct alignas(16) WarpLanes {
  T lane[warp_threads];
};

// Lane 0 returns the reduction of the warp's 32 partials. Every lane must call it. A caller that
// reuses s needs a __syncwarp() in between.
template <class T, class Op>
__device__ __forceinline__ T warp_fold_shared(T v, Op op, WarpLanes<T>& s) {
  static_assert(warp_fold_shared_v<T>);
  constexpr unsigned stop = 8;
  const unsigned lane = threadIdx.x % warp_threads;
  s.lane[lane] = v;
  __syncwarp();
  if (lane < stop) {  // lane i reads lanes i, i + 8, ...: slot i is its own to overwrite
    v = fold_lane_in_shuffle_order<warp_threads, stop, T>(lane, [&](unsigned j) { return s.lane[j]; }, op);
    s.lane[lane] = v;
  }
  __syncwarp();
  if (lane == 0) {
    T w[stop];
#pragma unroll
    for (unsigned i = 0; i < stop; ++i) w[i] = s.lane[i];
    v = fold_in_shuffle_order(w, op);
  }
  return v;
}

}  // namespace gpureduce
