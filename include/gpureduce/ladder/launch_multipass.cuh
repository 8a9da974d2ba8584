// Launches a rung kernel of the common signature kernel(in, n, out, op) through the multi-pass
// driver. partition_of(n) gives the pass's partition (BlockTile, GridStride); the workspace starts
// with the two ping-pong buffers, sized for the first (largest) pass.
#pragma once

#include <gpureduce/ladder/launch_context.hpp>
#include <gpureduce/ladder/multipass_driver.hpp>
#include <gpureduce/thread/operators.hpp>

namespace gpureduce::ladder {
using namespace gpureduce::detail;

template <class T, class PartitionOf>
cudaError_t launch_multipass(void (*kernel)(const T*, std::uint64_t, T*, Sum), std::size_t smem_bytes,
                             const T* in, std::uint64_t n, T* out, const LaunchContext& ctx,
                             PartitionOf&& partition_of) {
  T* a = static_cast<T*>(ctx.workspace);
  T* b = a + partition_of(n).grid();
  return run_multipass(
      in, n, out, a, b, [&](std::uint64_t m) { return partition_of(m).grid(); },
      [&](const T* src, std::uint64_t m, T* dst, std::uint64_t grid) {
        kernel<<<unsigned(grid), ctx.block, smem_bytes, ctx.stream>>>(src, m, dst, Sum{});
        return cudaGetLastError();
      });
}

}  // namespace gpureduce::ladder
