// Block-level reduction: each warp reduces by shuffles (or redux.sync), warp 0 reduces the warp
// partials; or, for partials redux.sync cannot reduce, staged through shared memory (below). One
// barrier in all. blockDim.x must be a multiple of 32 and at most 1024.
#pragma once

#include <gpureduce/thread/pairwise_fold.hpp>
#include <gpureduce/warp/warp_reduce_staged.cuh>
#include <gpureduce/warp/warp_redux.cuh>

namespace gpureduce {

// Whether block_reduce<BlockThreads, Redux> stages partials of type T under Op through shared
// memory: every thread stores its partial, warp 0 folds BlockThreads / 32 of them per lane in a
// pairwise tree and then its lanes' through shared memory (warp/warp_reduce_staged.cuh). For 512
// threads that is two round trips to shared memory and nine dependent combines, against nine
// dependent shuffle steps and one round trip.
template <unsigned BlockThreads, bool Staged, class T, class Op>
inline constexpr bool block_reduce_staged_v = Staged && BlockThreads != 0 && !has_redux_v<T, Op>;

// The shared elements block_reduce<BlockThreads, Redux> takes for partials of type T under Op
// (declare them alignas(16)).
template <unsigned BlockThreads, bool Staged, class T, class Op>
inline constexpr unsigned block_reduce_scratch =
    block_reduce_staged_v<BlockThreads, Staged, T, Op> ? BlockThreads : warp_threads;

// Thread 0 returns the block's reduction. warp_partials: shared, block_reduce_scratch elements
// (16-byte aligned); identity: the
// operator's identity. BlockThreads: the block size where the kernel fixes it at compile time (a
// power of two), so warp 0 reduces only that many partials (512 threads: 4 shuffle steps, not 5);
// 0 where it is chosen at launch (ladder rungs). Redux: each warp reduces in redux.sync where the
// partial's type and operator allow (warp/warp_redux.cuh; the production kernels), warp 0 then
// over all its lanes, those beyond the warp count holding the identity; by shuffles elsewhere, as
// without. A caller that reuses warp_partials for a second reduction needs a __syncthreads() in
// between.
template <unsigned BlockThreads = 0, bool Redux = false, bool Staged = false, class T, class Op>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity, T* warp_partials) {
  constexpr unsigned lanes = BlockThreads ? BlockThreads / warp_threads : warp_threads;
  static_assert(BlockThreads % warp_threads == 0 && lanes <= warp_threads);
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  if constexpr (block_reduce_staged_v<BlockThreads, Staged, T, Op>) {
    warp_partials[threadIdx.x] = v;
    __syncthreads();
    if (warp == 0) {
      T x[lanes];
#pragma unroll
      for (unsigned k = 0; k < lanes; ++k) x[k] = warp_partials[lane + k * warp_threads];
      v = warp_reduce_staged(fold_pairwise(x, op), op, warp_partials);
    }
    return v;
  }
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
