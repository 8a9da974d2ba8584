// r7 - several elements per thread: a capped grid with a grid-stride loop (Brent's theorem).
//
// Changed from r6: the grid is capped at the blocks the GPU can hold at once and each thread adds
// up n / (grid * block) elements in a register before the tree, instead of two. The tree, barriers
// and partial-sum write per block are paid once per resident block rather than once per 2*block
// elements, and the loop keeps several independent loads in flight per thread. The partial sums
// of the first pass shrink from n / (2*block) to at most a few thousand, so the second pass is
// tiny. The classic loop reads g_idata[i + blockSize] without checking it against n; here both loads
// are bounds-checked.
#pragma once

#include <gpureduce/dispatch/block_size.hpp>
#include <gpureduce/grid/grid_stride.hpp>
#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r6_complete_unroll.cuh>

namespace gpureduce::ladder::r7 {
using namespace gpureduce::detail;

// This thread's share of a grid-stride pass, reduced in a register. The grid was sized by
// GridStride, so gridDim.x is its own cap. Used by r7-r8.
template <class T, class Op>
__device__ __forceinline__ T grid_stride_reduce(const T* in, std::uint64_t n, Op op) {
  T v = Op::template identity<T>();
  GridStride<2>{n, blockDim.x, gridDim.x}.for_each(blockIdx.x, threadIdx.x, [&](std::uint64_t i) { v = op(v, in[i]); });
  return v;
}

template <unsigned BlockThreads, class T, class Op>
__global__ void __launch_bounds__(BlockThreads) grid_stride_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  sdata[threadIdx.x] = grid_stride_reduce(in, n, op);
  __syncthreads();
  r6::unrolled_tree_to_64<BlockThreads>(sdata, op);
  if (threadIdx.x < warp_threads) {
    const T v = r5::last_warp_reduce(sdata, op);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

inline GridStride<2> partition(std::uint64_t n, unsigned block, DeviceShape device) {
  return {n, block, device.max_resident_blocks(block)};
}

inline std::size_t workspace_bytes(std::uint64_t n, std::size_t elem_bytes, unsigned block, DeviceShape device) {
  return multipass_workspace_bytes(partition(n, block, device).grid(), elem_bytes);
}

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return dispatch_block_size(ctx.block, [&](auto block) {
    return launch_multipass(grid_stride_kernel<decltype(block)::value, T, Sum>, block * sizeof(T), in, n, out, ctx,
                            [&](std::uint64_t m) { return partition(m, block, ctx.device); });
  });
}

}  // namespace gpureduce::ladder::r7
