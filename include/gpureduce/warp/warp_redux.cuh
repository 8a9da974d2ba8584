// The warp's reduction of a partial in redux.sync instructions where its type and operator allow
// (warp/redux_steps.hpp), by shuffles otherwise. Every lane of the warp must call it; every lane
// it reduces must hold a partial (the identity where it has none): redux.sync has no partial
// widths.
#pragma once

#include <gpureduce/warp/redux_steps.hpp>
#include <gpureduce/warp/warp_reduce.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// One word over the whole warp.
struct WarpWordRedux {
  template <class W>
  __device__ __forceinline__ W operator()(ReduxOp op, W x) const {
    static_assert(std::is_same_v<W, std::int32_t> || std::is_same_v<W, std::uint32_t>);
    constexpr unsigned all = ~0u;
    switch (op) {
      case ReduxOp::add: return __reduce_add_sync(all, x);
      case ReduxOp::min: return __reduce_min_sync(all, x);
      case ReduxOp::max: return __reduce_max_sync(all, x);
      case ReduxOp::bit_and: return W(__reduce_and_sync(all, std::uint32_t(x)));
      case ReduxOp::bit_or: return W(__reduce_or_sync(all, std::uint32_t(x)));
      default: return W(__reduce_xor_sync(all, std::uint32_t(x)));
    }
  }
};

// Lane 0 (with redux.sync, every lane) returns the reduction of the warp's lanes: all 32 in
// redux.sync, lanes 0 .. Lanes-1 by shuffles (log2(Lanes) steps).
template <unsigned Lanes = warp_threads, class T, class Op>
__device__ __forceinline__ T warp_reduce_redux(T v, Op op) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (has_redux_v<T, Op>) return redux_reduce(v, op, WarpWordRedux{});
#endif
  return warp_reduce<Lanes>(v, op);
}

// The same for a number, returned in every lane (below sm_80, lane 0's result broadcast).
template <class T, class Op>
__device__ __forceinline__ T warp_allreduce(T v, Op op) {
  static_assert(std::is_arithmetic_v<T>);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (has_redux_v<T, Op>) return redux_reduce(v, op, WarpWordRedux{});
#endif
  return __shfl_sync(~0u, warp_reduce(v, op), 0);
}

}  // namespace gpureduce::detail
