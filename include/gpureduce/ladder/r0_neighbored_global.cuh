// r0 - neighbored pairing in global memory, in place (the classic "original" kernel).
//
// The baseline. Each block copies its tile of the input into a global work buffer (so the caller's
// input survives), then pairs neighbours in place: at stride s, thread t with t % 2s == 0 adds
// element t + s into element t. Every step re-reads and re-writes global memory (through L1/L2),
// half the threads of every warp sit idle at the first step and more at each later one, and the
// `%` is an integer division. Bounds: a thread adds t + s only when that element exists, and no
// thread returns before a barrier (the classic early `return` deadlocks or races on a partial tile).
#pragma once

#include <gpureduce/grid/block_tile.hpp>
#include <gpureduce/ladder/launch_context.hpp>
#include <gpureduce/ladder/multipass_driver.hpp>
#include <gpureduce/thread/operators.hpp>

namespace gpureduce::ladder::r0 {
using namespace gpureduce::detail;

template <class T, class Op>
__global__ void neighbored_global_kernel(const T* in, T* work, std::uint64_t n, T* out, Op op) {
  const BlockTile<1> tile{n, blockDim.x};
  const unsigned t = threadIdx.x;
  const std::uint64_t first = blockIdx.x * tile.tile();
  tile.for_each(blockIdx.x, t, [&](std::uint64_t i) { work[i] = in[i]; });
  __syncthreads();  // also orders the block's global-memory writes before the reads below
  T* w = work + first;
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    if (t % (2 * s) == 0 && first + t + s < n) w[t] = op(w[t], w[t + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = first < n ? w[0] : Op::template identity<T>();
}

inline BlockTile<1> partition(std::uint64_t n, unsigned block) { return {n, block}; }

// Ping-pong buffers, then the work buffer of the first (largest) pass.
inline std::size_t workspace_bytes(std::uint64_t n, std::size_t elem_bytes, unsigned block, DeviceShape) {
  return multipass_workspace_bytes(partition(n, block).grid(), elem_bytes) + n * elem_bytes;
}

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  const std::uint64_t first_grid = partition(n, ctx.block).grid();
  T* a = static_cast<T*>(ctx.workspace);
  T* work = a + 2 * first_grid;
  return run_multipass(
      in, n, out, a, a + first_grid, [&](std::uint64_t m) { return partition(m, ctx.block).grid(); },
      [&](const T* src, std::uint64_t m, T* dst, std::uint64_t grid) {
        neighbored_global_kernel<<<unsigned(grid), ctx.block, 0, ctx.stream>>>(src, work, m, dst, Sum{});
        return cudaGetLastError();
      });
}

}  // namespace gpureduce::ladder::r0
