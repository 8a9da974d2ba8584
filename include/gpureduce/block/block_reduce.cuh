// Block-level reduction: each warp reduces by shuffles (the production kernels: in redux.sync or
// through shared memory), then warp 0 or thread 0 reduces the warp partials. One barrier in all. blockDim.x must be a multiple of 32 and at most 1024.
#pragma once

#include <gpureduce/warp/warp_redux.cuh>

namespace gpureduce {

// Thread 0 returns the block's reduction. warp_partials: shared, >= 32 elements; identity: the
// operator's identity. BlockThreads: the block size where the kernel fixes it at compile time (a
// power of two), so warp 0 reduces only that many partials (512 threads: 4 shuffle steps, not 5);
// 0 where it is chosen at launch (ladder rungs). Fast: the production kernels' warp steps
// (warp_reduce_fast: redux.sync where the partial's type and operator allow, then warp 0 over all
// its lanes, those beyond the warp count holding the identity; a fold by lane 0 from shared memory
// for other numbers, then thread 0 folds the warp partials). Both keep warp_reduce's order, so the
// result is the same bits as the ladder's shuffles. A caller that reuses warp_partials for a second
// reduction needs a __syncthreads() in between.
template <unsigned BlockThreads = 0, bool Fast = false, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity, T* warp_partials) {
  constexpr unsigned lanes = BlockThreads ? BlockThreads / warp_threads : warp_threads;
  static_assert(BlockThreads % warp_threads == 0 && lanes <= warp_threads);
  static_assert(!Fast || BlockThreads, "the fast steps need the block size at compile time");
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  if constexpr (Fast) {
    __shared__ WarpLanes<T> warp_lanes[lanes];
    v = warp_reduce_fast(v, op, warp_lanes[warp]);
  } else {
    v = warp_reduce(v, op);
  }
  if (lane == 0) warp_partials[warp] = v;
  __syncthreads();
  if constexpr (Fast && warp_method<T, Op> == WarpMethod::shared) {
    if (threadIdx.x == 0) {
      T w[lanes];
#pragma unroll
      for (unsigned i = 0; i < lanes; ++i) w[i] = warp_partials[i];
      v = fold_in_shuffle_order(w, op);
    }
  } else if (warp == 0) {
    v = lane < (BlockThreads ? lanes : blockDim.x / warp_threads) ? warp_partials[lane] : identity;
    if constexpr (Fast && warp_method<T, Op> == WarpMethod::redux) v = redux_reduce(v, op, WarpWordRedux{});
    else v = warp_reduce<lanes>(v, op);
  }
  return v;
}

template <unsigned BlockThreads = 0, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T* warp_partials) {
  return block_reduce<BlockThreads>(v, op, op.template identity<T>(), warp_partials);
}

}  // namespace gpureduce
