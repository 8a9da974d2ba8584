// r8 - warp shuffle with a shared array of warp partials.
//
// Changed from r7: after the grid-stride loop, each warp reduces its 32 values in registers with
// __shfl_down_sync (five steps, no shared memory, no barrier), lane 0 of each warp writes one
// partial to shared memory, and warp 0 reduces those partials with shuffles again. The tree's
// shared-memory traffic shrinks from block values to block/32, and one __syncthreads() replaces
// log2(block) - 5 of them. Shuffles are warp-synchronous by construction (the _sync mask), so none
// of r5's care is needed.
#pragma once

#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r7_grid_stride.cuh>

namespace gpureduce::ladder::r8 {
using namespace gpureduce::detail;

template <class T, class Op>
__global__ void warp_shuffle_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  __shared__ T warp_partials[warp_threads];
  const T v = block_reduce(r7::grid_stride_reduce(in, n, op), op, warp_partials);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

using r7::partition;
using r7::workspace_bytes;

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(warp_shuffle_kernel<T, Sum>, 0, in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block, ctx.device); });
}

}  // namespace gpureduce::ladder::r8
