// r4 - first add during the global load: half the blocks.
//
// Changed from r3: each thread loads two elements, one block apart, and adds them before storing to
// shared memory. The tiles double to 2*block elements, so the grid halves, and the first tree step
// - where r3 left half the threads idle - is done in registers at load time. Each block now moves
// twice the bytes for the same fixed cost of its tree and barriers.
#pragma once

#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r3_sequential_addressing.cuh>

namespace gpureduce::ladder::r4 {
using namespace gpureduce::detail;

// Two elements per thread (b*2B + t and b*2B + t + B), added in registers. Used by r4-r6.
template <class T, class Op>
__device__ __forceinline__ void load_two_per_thread(const T* in, std::uint64_t n, T* sdata, Op op) {
  T v = Op::template identity<T>();
  BlockTile<2>{n, blockDim.x}.for_each(blockIdx.x, threadIdx.x, [&](std::uint64_t i) { v = op(v, in[i]); });
  sdata[threadIdx.x] = v;
  __syncthreads();
}

template <class T, class Op>
__global__ void first_add_during_load_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  load_two_per_thread(in, n, sdata, op);
  r3::sequential_tree(sdata, blockDim.x / 2, 1, op);
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

inline BlockTile<2> partition(std::uint64_t n, unsigned block) { return {n, block}; }

inline std::size_t workspace_bytes(std::uint64_t n, std::size_t elem_bytes, unsigned block, DeviceShape) {
  return multipass_workspace_bytes(partition(n, block).grid(), elem_bytes);
}

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(first_add_during_load_kernel<T, Sum>, ctx.block * sizeof(T), in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block); });
}

}  // namespace gpureduce::ladder::r4
