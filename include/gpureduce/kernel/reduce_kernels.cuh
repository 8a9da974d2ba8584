// The two kernels of the production path; dispatch picks one per call, so every reduction is a
// single launch.
//   single_block_kernel  small inputs: one block reads everything and writes the result. No
//                        workspace, no atomics: the shortest path from launch to result.
//   grid_kernel          a persistent grid (at most one wave of resident blocks). Each block
//                        publishes its partial; one block combines the partials in block order
//                        (the same bits on every run) and writes the result.
#pragma once

#include <gpureduce/agent/thread_partial.cuh>
#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/thread/accumulator.hpp>

#include <cuda/atomic>

#include <cstdint>
#include <cstring>

namespace gpureduce {

template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op>
__global__ void __launch_bounds__(BlockThreads) single_block_kernel(Source src, std::uint64_t n, Out* out, Op op) {
  __shared__ A warp_partials[warp_threads];
  const A identity = op.template identity<A>();
  A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), 0, 1, op, identity);
  acc = block_reduce(acc, op, identity, warp_partials);
  if (threadIdx.x == 0) *out = convert_result<Out>(acc);
}

// The grid workspace layout: see launch_plan.hpp.

struct alignas(16) FlaggedPartial {
  unsigned long long bits;
  unsigned long long epoch;
};

// One 16-byte access, so the partial and its epoch are seen together or not at all (as CUB's
// decoupled look-back relies on for its 16-byte tile descriptors).
__device__ __forceinline__ void store_flagged(FlaggedPartial* p, FlaggedPartial v) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.bits), "l"(v.epoch) : "memory");
}
__device__ __forceinline__ FlaggedPartial load_flagged(const FlaggedPartial* p) {
  FlaggedPartial v;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(v.bits), "=l"(v.epoch) : "l"(p) : "memory");
  return v;
}

template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op>
__global__ void __launch_bounds__(BlockThreads)
    grid_kernel(Source src, std::uint64_t n, Out* out, void* workspace, Op op) {
  __shared__ A warp_partials[warp_threads];
  auto* ws = static_cast<unsigned char*>(workspace);
  const A identity = op.template identity<A>();
  const bool is_last_block = blockIdx.x == gridDim.x - 1;

  if constexpr (sizeof(A) <= 8) {
    // Every block but the last publishes its partial flagged with this launch's epoch; the last
    // block (dispatched last, so every block it waits for is already resident) collects them in
    // block order. No fence and no atomic round trip: one store per block, polled from L2.
    auto* epoch_word = reinterpret_cast<unsigned long long*>(ws + 8);
    auto* partials = reinterpret_cast<FlaggedPartial*>(ws + grid_flagged_offset);
    // This launch's epoch, read before the input so that its round trip overlaps the loads.
    const unsigned long long epoch =
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*epoch_word).load(cuda::memory_order_relaxed) + 1;
    const A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), blockIdx.x, gridDim.x, op, identity);
    const A block_total = block_reduce(acc, op, identity, warp_partials);
    if (!is_last_block) {
      if (threadIdx.x == 0) {
        FlaggedPartial p{0, epoch};
        std::memcpy(&p.bits, &block_total, sizeof(A));
        store_flagged(partials + blockIdx.x, p);
      }
      return;
    }
    __shared__ A own_total;
    if (threadIdx.x == 0) own_total = block_total;
    __syncthreads();  // also frees warp_partials for the second reduction
    A v = identity;
    if (gridDim.x <= BlockThreads + 1) {
      // At most one partial per thread: poll it.
      if (threadIdx.x + 1 < gridDim.x) {
        FlaggedPartial p = load_flagged(partials + threadIdx.x);
        while (p.epoch != epoch) p = load_flagged(partials + threadIdx.x);
        std::memcpy(&v, &p.bits, sizeof(A));
      }
    } else {
      // Partials threadIdx.x, + BlockThreads, ... in chunks whose loads are all in flight at once
      // (polled one after another, each would cost a round trip to L2: +1 us at 2^24).
      constexpr unsigned chunk = 4;
      for (unsigned first = threadIdx.x; first + 1 < gridDim.x; first += chunk * BlockThreads) {
        FlaggedPartial p[chunk] = {};  // epoch 0: not yet seen (launch epochs start at 1)
        for (bool done = false; !done;) {
#pragma unroll
          for (unsigned k = 0; k < chunk; ++k) {
            const unsigned i = first + k * BlockThreads;
            if (i + 1 < gridDim.x && p[k].epoch != epoch) p[k] = load_flagged(partials + i);
          }
          done = true;
#pragma unroll
          for (unsigned k = 0; k < chunk; ++k) done &= first + k * BlockThreads + 1 >= gridDim.x || p[k].epoch == epoch;
        }
#pragma unroll
        for (unsigned k = 0; k < chunk; ++k) {
          if (first + k * BlockThreads + 1 < gridDim.x) {  // no break: p[] must stay in registers
            A x;
            std::memcpy(&x, &p[k].bits, sizeof(A));
            v = op(v, x);
          }
        }
      }
    }
    if (threadIdx.x == 0) v = op(v, own_total);
    v = block_reduce(v, op, identity, warp_partials);
    if (threadIdx.x == 0) {
      *out = convert_result<Out>(v);
      cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*epoch_word).store(epoch, cuda::memory_order_relaxed);
    }
  } else {
    // 16-byte accumulators do not fit beside a flag: each block writes its partial and draws a
    // ticket; the block that draws the last one combines the partials in block order.
    __shared__ bool is_last;
    unsigned* counter = reinterpret_cast<unsigned*>(ws);
    A* partials = reinterpret_cast<A*>(ws + grid_ticketed_offset);
    const A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), blockIdx.x, gridDim.x, op, identity);
    const A block_total = block_reduce(acc, op, identity, warp_partials);
    if (threadIdx.x == 0) {
      partials[blockIdx.x] = block_total;
      // acq_rel: releases this block's partial; the last block acquires everyone's.
      const unsigned ticket =
          cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).fetch_add(1, cuda::memory_order_acq_rel);
      is_last = ticket == gridDim.x - 1;
    }
    __syncthreads();
    if (!is_last) return;
    A v = identity;
    for (unsigned i = threadIdx.x; i < gridDim.x; i += BlockThreads) v = op(v, partials[i]);  // ordered by the acquire
    v = block_reduce(v, op, identity, warp_partials);
    if (threadIdx.x == 0) {
      *out = convert_result<Out>(v);
      cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0, cuda::memory_order_relaxed);
    }
  }
}

}  // namespace gpureduce
