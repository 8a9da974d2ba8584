// The classic multi-level host driver, without their in-place race: each pass reads one buffer and
// writes another (pass 1: input -> a, pass 2: a -> b, pass 3: b -> a, ...), and the last pass, the
// one with a single block, writes the caller's output. kernel(d, d) relaunched in place would let a
// block overwrite partial sums that another block of the same pass has not read yet.
#pragma once

#include <gpureduce/ladder/launch_context.hpp>

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpureduce::ladder {

// grid_of(n): blocks of a pass over n values (>= 1, < n for n > 1).
// launch_pass(src, n, dst, grid): enqueues one pass; returns the launch's error.
// a and b hold at least grid_of(n) values each.
template <class T, class GridOf, class LaunchPass>
cudaError_t run_multipass(const T* in, std::uint64_t n, T* out, T* a, T* b, GridOf&& grid_of,
                          LaunchPass&& launch_pass) {
  const T* src = in;
  for (;;) {
    const std::uint64_t grid = grid_of(n);
    if (grid > 0x7fffffffu) return cudaErrorInvalidConfiguration;  // gridDim.x limit
    T* dst = grid == 1 ? out : (src == a ? b : a);
    if (const cudaError_t e = launch_pass(src, n, dst, grid); e != cudaSuccess) return e;
    if (grid == 1) return cudaSuccess;
    src = dst;
    n = grid;
  }
}

// Bytes of the two ping-pong buffers for a first pass of first_grid blocks.
constexpr std::size_t multipass_workspace_bytes(std::uint64_t first_grid, std::size_t elem_bytes) {
  return 2 * first_grid * elem_bytes;
}

}  // namespace gpureduce::ladder
