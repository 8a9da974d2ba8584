// m3: many blocks, shared-memory tiles (m1's tiling on m2's grid). What changed from m2: each
// 32 x 32 block stages tiles of A and B in shared memory, so each element read from global memory
// serves 32 multiply-adds instead of one; the kernel moves from memory-bound towards
// shared-memory-bound (two shared loads per multiply-add).
#pragma once

#include <gpureduce/matmul/tiles.hpp>

namespace gpureduce::matmul::m3 {
using namespace gpureduce::detail;

inline constexpr unsigned edge = 32;

__global__ void __launch_bounds__(edge * edge)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  __shared__ std::int32_t as[edge][edge];
  __shared__ std::int32_t bs[edge][edge];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  const unsigned r = blockIdx.y * edge + ty, col = blockIdx.x * edge + tx;
  std::uint32_t acc = 0;
  for (unsigned k0 = 0; k0 < n; k0 += edge) {
    as[ty][tx] = at_or_zero(a, n, r, k0 + tx);
    bs[ty][tx] = at_or_zero(b, n, k0 + ty, col);
    __syncthreads();
#pragma unroll 8
    for (unsigned k = 0; k < edge; ++k) acc = mad_wrap(acc, as[ty][k], bs[k][tx]);
    __syncthreads();
  }
  if (r < n && col < n) c[std::uint64_t(r) * n + col] = std::int32_t(acc);
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  kernel<<<dim3(tiles_for(n, edge), tiles_for(n, edge)), dim3(edge, edge), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m3
