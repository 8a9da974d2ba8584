// m2: many blocks, one thread per output, global memory (2D grid of 16 x 16 blocks). What changed
// from m1: every SM works; consecutive threads of a warp compute consecutive columns, so their
// reads of B are coalesced and their read of A is one broadcast. No reuse beyond what L1 and L2
// catch: each output still reads 2N elements.
#pragma once

#include <gpureduce/matmul/tiles.hpp>

namespace gpureduce::matmul::m2 {
using namespace gpureduce::detail;

inline constexpr unsigned edge = 16;

__global__ void __launch_bounds__(edge * edge)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  const unsigned r = blockIdx.y * edge + threadIdx.y, col = blockIdx.x * edge + threadIdx.x;
  if (r >= n || col >= n) return;
  std::uint32_t acc = 0;
  for (unsigned k = 0; k < n; ++k) acc = mad_wrap(acc, a[std::uint64_t(r) * n + k], b[std::uint64_t(k) * n + col]);
  c[std::uint64_t(r) * n + col] = std::int32_t(acc);
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  kernel<<<dim3(tiles_for(n, edge), tiles_for(n, edge)), dim3(edge, edge), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m2
