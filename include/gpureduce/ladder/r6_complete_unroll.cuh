// r6 - completely unrolled with a compile-time block size.
//
// Changed from r5: the block size is a template parameter, so the block-wide steps (512, 256, 128,
// 64) are unrolled with `if constexpr`: no loop counter, no loop branch, and the `t < s` tests
// compare against constants. Steps that cannot apply to the chosen size vanish at compile time.
// What limits it: every thread still reduces only two elements, so each block spends as long in its
// tree and barriers as in its loads.
#pragma once

#include <gpureduce/dispatch/block_size.hpp>
#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r5_unrolled_last_warp.cuh>

namespace gpureduce::ladder::r6 {
using namespace gpureduce::detail;

// sdata[0, 64) ends up holding the reduction of sdata[0, BlockThreads). Used by r6-r7.
template <unsigned BlockThreads, class T, class Op>
__device__ __forceinline__ void unrolled_tree_to_64(T* sdata, Op op) {
  const unsigned t = threadIdx.x;
  if constexpr (BlockThreads >= 1024) { if (t < 512) sdata[t] = op(sdata[t], sdata[t + 512]); __syncthreads(); }
  if constexpr (BlockThreads >= 512) { if (t < 256) sdata[t] = op(sdata[t], sdata[t + 256]); __syncthreads(); }
  if constexpr (BlockThreads >= 256) { if (t < 128) sdata[t] = op(sdata[t], sdata[t + 128]); __syncthreads(); }
  if constexpr (BlockThreads >= 128) { if (t < 64) sdata[t] = op(sdata[t], sdata[t + 64]); __syncthreads(); }
}

template <unsigned BlockThreads, class T, class Op>
__global__ void __launch_bounds__(BlockThreads) complete_unroll_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  r4::load_two_per_thread(in, n, sdata, op);
  unrolled_tree_to_64<BlockThreads>(sdata, op);
  if (threadIdx.x < warp_threads) {
    const T v = r5::last_warp_reduce(sdata, op);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

using r4::partition;
using r4::workspace_bytes;

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return dispatch_block_size(ctx.block, [&](auto block) {
    return launch_multipass(complete_unroll_kernel<decltype(block)::value, T, Sum>, block * sizeof(T), in, n, out, ctx,
                            [&](std::uint64_t m) { return partition(m, block); });
  });
}

}  // namespace gpureduce::ladder::r6
