// Block-level reduction: each warp reduces by shuffles, warp 0 reduces the warp partials. One
// barrier in all. blockDim.x must be a multiple of 32 and at most 1024.
#pragma once

#include <gpureduce/warp/warp_redux.cuh>

namespace gpureduce {

// Thread 0 returns the block's reduction. warp_partials: shared, >= 32 elements; identity: the
// operator's identity. BlockThreads: the block size where the kernel fixes it at compile time (a
// power of two), so warp 0 reduces only that many partials (512 threads: 4 shuffle steps, not 5);
// 0 where it is chosen at launch (ladder rungs). Redux: each warp reduces in redux.sync where the
// partial's type and operator allow (warp/warp_redux.cuh; the production kernels), warp 0 then
// over all its lanes, those beyond the warp count holding the identity; by shuffles elsewhere, as
// without. A caller that reuses warp_partials for a second reduction needs a __syncthreads() in
// between.
template <unsigned BlockThreads = 0, bool Redux = false, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity, T* warp_partials) {
  constexpr unsigned lanes = BlockThreads ? BlockThreads / warp_threads : warp_threads;
  static_assert(BlockThreads % warp_threads == 0 && lanes <= warp_threads);
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  const auto reduce_warp = [&]<unsigned Lanes>(T x) {
    if constexpr (Redux) return warp_reduce_redux<Lanes>(x, op);
    else return warp_reduce<Lanes>(x, op);
  };
  v = reduce_warp.template operator()<warp_threads>(v);
  if (lane == 0) warp_partials[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < (BlockThreads ? lanes : blockDim.x / warp_threads) ? warp_partials[lane] : identity;
    v = reduce_warp.template operator()<lanes>(v);
  }
  return v;
}

template <unsigned BlockThreads = 0, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T* warp_partials) {
  return block_reduce<BlockThreads>(v, op, op.template identity<T>(), warp_partials);
}

}  // namespace gpureduce
