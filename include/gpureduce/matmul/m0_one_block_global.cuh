// m0: one block, global memory only (the seed's basic case, N = 8). Thread (x, y) of a 32 x 32
// block computes C[y][x], and every further output at strides of 32 in both directions, reading
// its row of A and column of B straight from global memory. Simple and correct for any N; one SM
// does all the work and every operand comes from L1/L2, so it is the baseline, not a contender.
#pragma once

#include <gpureduce/matmul/tiles.hpp>

namespace gpureduce::matmul::m0 {
using namespace gpureduce::detail;

inline constexpr unsigned edge = 32;

__global__ void __launch_bounds__(edge * edge)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  for (unsigned r = threadIdx.y; r < n; r += edge)
    for (unsigned col = threadIdx.x; col < n; col += edge) {
      std::uint32_t acc = 0;
      for (unsigned k = 0; k < n; ++k) acc = mad_wrap(acc, a[std::uint64_t(r) * n + k], b[std::uint64_t(k) * n + col]);
      c[std::uint64_t(r) * n + col] = std::int32_t(acc);
    }
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  kernel<<<1, dim3(edge, edge), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m0
