// m1: one block, shared memory (the seed's second basic case). What changed from m0: the block
// stages 32 x 32 tiles of A and B in shared memory and every thread reuses each staged element 32
// times, so global traffic drops 32-fold. Still one block: the point is the data reuse, not
// parallelism.
#pragma once

#include <gpureduce/matmul/tiles.hpp>

namespace gpureduce::matmul::m1 {
using namespace gpureduce::detail;

inline constexpr unsigned edge = 32;

__global__ void __launch_bounds__(edge * edge)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  __shared__ std::int32_t as[edge][edge];
  __shared__ std::int32_t bs[edge][edge];
  const unsigned tx = threadIdx.x, ty = threadIdx.y;
  for (unsigned r0 = 0; r0 < n; r0 += edge)
    for (unsigned c0 = 0; c0 < n; c0 += edge) {
      std::uint32_t acc = 0;
      for (unsigned k0 = 0; k0 < n; k0 += edge) {
        as[ty][tx] = at_or_zero(a, n, r0 + ty, k0 + tx);
        bs[ty][tx] = at_or_zero(b, n, k0 + ty, c0 + tx);
        __syncthreads();
        for (unsigned k = 0; k < edge; ++k) acc = mad_wrap(acc, as[ty][k], bs[k][tx]);
        __syncthreads();  // before the next tiles overwrite these
      }
      if (r0 + ty < n && c0 + tx < n) c[std::uint64_t(r0 + ty) * n + c0 + tx] = std::int32_t(acc);
    }
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  kernel<<<1, dim3(edge, edge), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m1
