// The three kernels of the production path; dispatch picks one per call, so every reduction is a
// single launch.
//   single_block_kernel  small inputs: one block reads everything and writes the result. No
//                        workspace, no atomics: the shortest path from launch to result.
//   cluster_kernel       mid-size inputs (sm_90): one thread-block cluster. Its blocks meet at the
//                        cluster barrier and block 0 reads their totals from their shared memory
//                        (DSMEM): many SMs' worth of loads in flight without the global-memory
//                        hand-off of the grid kernel.
//   grid_kernel          a persistent grid (at most one wave of resident blocks). Each block
//                        writes its partial; the block that draws the last ticket combines the
//                        partials in block order (the same bits on every run) and writes the result.
#pragma once

#include <gpureduce/agent/thread_partial.cuh>
#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/thread/accumulator.hpp>

#include <cooperative_groups.h>
#include <cuda/atomic>
#include <nv/target>

#include <cstdint>

namespace gpureduce {

// Grid workspace: a ticket counter (zero between launches), then one accumulator per block.
inline constexpr std::size_t grid_partials_offset = 16;

template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op>
__global__ void __launch_bounds__(BlockThreads) single_block_kernel(Source src, std::uint64_t n, Out* out, Op op) {
  __shared__ A warp_partials[warp_threads];
  const A identity = op.template identity<A>();
  A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), 0, 1, op, identity);
  acc = block_reduce(acc, op, identity, warp_partials);
  if (threadIdx.x == 0) *out = convert_result<Out>(acc);
}

// Launched as exactly one cluster (gridDim.x = cluster size, at most 32 blocks).
template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op>
__global__ void __launch_bounds__(BlockThreads) cluster_kernel(Source src, std::uint64_t n, Out* out, Op op) {
  NV_IF_TARGET(NV_PROVIDES_SM_90, (
    namespace cg = cooperative_groups;
    __shared__ A warp_partials[warp_threads];
    __shared__ A block_total;
    const A identity = op.template identity<A>();
    A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), blockIdx.x, gridDim.x, op, identity);
    acc = block_reduce(acc, op, identity, warp_partials);
    if (threadIdx.x == 0) block_total = acc;
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // release/acquire: every block's total is visible to block 0
    if (cluster.block_rank() == 0 && threadIdx.x < warp_threads) {
      A v = threadIdx.x < cluster.num_blocks() ? *cluster.map_shared_rank(&block_total, threadIdx.x) : identity;
      v = warp_reduce(v, op);
      if (threadIdx.x == 0) *out = convert_result<Out>(v);
    }
    cluster.sync();  // the other blocks' shared memory must outlive block 0's reads
  ), (__trap();))
}

template <unsigned BlockThreads, int Unroll, class A, class Out, class Source, class Op>
__global__ void __launch_bounds__(BlockThreads)
    grid_kernel(Source src, std::uint64_t n, Out* out, void* workspace, Op op) {
  __shared__ A warp_partials[warp_threads];
  __shared__ bool is_last_block;
  unsigned* counter = static_cast<unsigned*>(workspace);
  A* partials = reinterpret_cast<A*>(static_cast<unsigned char*>(workspace) + grid_partials_offset);
  const A identity = op.template identity<A>();

  const A acc = thread_partial<BlockThreads, Unroll>(src, src.split(n), blockIdx.x, gridDim.x, op, identity);
  const A block_total = block_reduce(acc, op, identity, warp_partials);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    // acq_rel: releases this block's partial; the last block acquires everyone's.
    const unsigned ticket =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).fetch_add(1, cuda::memory_order_acq_rel);
    is_last_block = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;

  A v = identity;
  for (unsigned i = threadIdx.x; i < gridDim.x; i += BlockThreads) v = op(v, partials[i]);  // ordered by the acquire above and the barrier
  v = block_reduce(v, op, identity, warp_partials);
  if (threadIdx.x == 0) {
    *out = convert_result<Out>(v);
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0, cuda::memory_order_relaxed);
  }
}

}  // namespace gpureduce
