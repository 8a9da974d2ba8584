// Block-level reduction: each warp reduces by shuffles (or redux.sync) and warp 0 reduces the warp
// partials, or, where the caller asks and redux.sync cannot reduce the partials, every thread's
// partial is staged in shared memory for warp 0 (below). One barrier in all. blockDim.x must be a
// multiple of 32 and at most 1024.
#pragma once

#include <gpureduce/thread/pairwise_fold.hpp>
#include <gpureduce/warp/warp_reduce_staged.cuh>
#include <gpureduce/warp/warp_redux.cuh>

namespace gpureduce::detail {

// Whether block_reduce<BlockThreads, Redux, Staged> stages partials of type T under Op: every
// thread stores its partial, each lane of warp 0 loads BlockThreads / 32 of them at once and folds
// them in a pairwise tree, and the warp reduces through shared memory
// (warp/warp_reduce_staged.cuh). For 512 threads that is nine dependent combines in registers and
// three round trips to shared memory, against nine dependent shuffle-and-combine steps and one
// round trip. Partials of up to 8 bytes only: lane 0 holds 32 of them in registers, and the block's
// take BlockThreads slots.
template <unsigned BlockThreads, bool Staged, class T, class Op>
inline constexpr bool block_reduce_staged_v = Staged && BlockThreads != 0 && sizeof(T) <= 8 && !has_redux_v<T, Op>;

// The shared elements block_reduce<BlockThreads, Redux, Staged> needs for partials of type T
// under Op.
template <unsigned BlockThreads, bool Staged, class T, class Op>
inline constexpr unsigned block_reduce_scratch =
    block_reduce_staged_v<BlockThreads, Staged, T, Op> ? BlockThreads : warp_threads;

// Thread 0 returns the block's reduction. warp_partials: shared, at least block_reduce_scratch
// elements, 16-byte aligned where staged; identity: the operator's identity. BlockThreads: the
// block size where the kernel fixes it at compile time (a power of two), so warp 0 reduces only
// that many partials (512 threads: 4 shuffle steps, not 5); 0 where it is chosen at launch (ladder
// rungs). Redux: each warp reduces in redux.sync where the partial's type and operator allow
// (warp/warp_redux.cuh; the production kernels), warp 0 then over all its lanes, those beyond the
// warp count holding the identity; by shuffles elsewhere. Staged: every thread's partial staged for
// warp 0, where BlockThreads is fixed and redux.sync does not apply; the one-block kernel only (in
// the grid kernels ptxas then serialised a batch's loads: float16 and float64 sums 3-9% slower,
// H100). A caller that reuses warp_partials for a second reduction needs a __syncthreads() in
// between.
template <unsigned BlockThreads = 0, bool Redux = false, bool Staged = false, class T, class Op, unsigned Slots>
__device__ __forceinline__ T block_reduce(T v, Op op, T identity, T (&warp_partials)[Slots]) {
  constexpr unsigned lanes = BlockThreads ? BlockThreads / warp_threads : warp_threads;
  static_assert(BlockThreads % warp_threads == 0 && lanes <= warp_threads);
  static_assert(Slots >= block_reduce_scratch<BlockThreads, Staged, T, Op>, "warp_partials: see block_reduce_scratch");
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
  } else {
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
  }
  return v;
}

template <unsigned BlockThreads = 0, class T, class Op, unsigned Slots>
__device__ __forceinline__ T block_reduce(T v, Op op, T (&warp_partials)[Slots]) {
  return block_reduce<BlockThreads>(v, op, op.template identity<T>(), warp_partials);
}

}  // namespace gpureduce::detail
