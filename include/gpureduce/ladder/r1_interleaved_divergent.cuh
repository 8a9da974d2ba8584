// r1 - interleaved addressing in shared memory, divergent branch (`tid % (2*s)`).
//
// Changed from r0: each block loads its tile into shared memory once, and the tree runs there, so
// the log2(block) steps no longer go through L1/L2 - shared memory has far lower latency and every
// global element is read exactly once. Still slow: at stride s only threads with t % 2s == 0 work,
// so every warp stays active (divergent) while most of its lanes idle, and `%` costs an integer
// division per step. Elements past n load as the identity, so the tree needs no bounds checks.
#pragma once

#include <gpureduce/block/shared_memory.cuh>
#include <gpureduce/grid/block_tile.hpp>
#include <gpureduce/ladder/launch_context.hpp>
#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/thread/operators.hpp>

namespace gpureduce::ladder::r1 {
using namespace gpureduce::detail;

// One element per thread into shared memory, identity past the end. Used by r1-r3.
template <class T, class Op>
__device__ __forceinline__ void load_one_per_thread(const T* in, std::uint64_t n, T* sdata, Op) {
  T v = Op::template identity<T>();
  BlockTile<1>{n, blockDim.x}.for_each(blockIdx.x, threadIdx.x, [&](std::uint64_t i) { v = in[i]; });
  sdata[threadIdx.x] = v;
  __syncthreads();
}

template <class T, class Op>
__global__ void interleaved_divergent_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  const unsigned t = threadIdx.x;
  load_one_per_thread(in, n, sdata, op);
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0) sdata[t] = op(sdata[t], sdata[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

inline BlockTile<1> partition(std::uint64_t n, unsigned block) { return {n, block}; }

inline std::size_t workspace_bytes(std::uint64_t n, std::size_t elem_bytes, unsigned block, DeviceShape) {
  return multipass_workspace_bytes(partition(n, block).grid(), elem_bytes);
}

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(interleaved_divergent_kernel<T, Sum>, ctx.block * sizeof(T), in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block); });
}

}  // namespace gpureduce::ladder::r1
