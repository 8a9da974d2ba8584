// m5: m4 with 16-byte global loads and double-buffered stages. What changed from m4: a thread's 4
// elements of A and of B arrive in one 16-byte load each (when N is a multiple of 4, so that rows
// stay 16-byte aligned; otherwise element by element, as m4), and the next stage's loads are
// issued before the current stage is multiplied, into registers, then stored into the other of two
// shared buffers: one barrier per stage instead of two, and the global latency hides behind the
// multiply-adds. A = B (the seed's case) needs no separate path: both operands are the same array,
// which L2 holds once.
#pragma once

#include <gpureduce/matmul/m4_register_tiles.cuh>

namespace gpureduce::matmul::m5 {
using namespace gpureduce::detail;

using m4::depth;
using m4::side;
using m4::tile;

// Thread t's 4 elements of row r from column k (zero outside the matrix).
__device__ __forceinline__ int4 load4(const std::int32_t* m, unsigned n, unsigned r, unsigned k, bool vector) {
  if (vector && r < n && k < n) return *reinterpret_cast<const int4*>(m + std::uint64_t(r) * n + k);
  return {at_or_zero(m, n, r, k), at_or_zero(m, n, r, k + 1), at_or_zero(m, n, r, k + 2), at_or_zero(m, n, r, k + 3)};
}

__global__ void __launch_bounds__(side * side)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  __shared__ m4::Stage s[2];
  const unsigned t = threadIdx.y * side + threadIdx.x;
  const unsigned ar = blockIdx.y * tile + m4::a_row(t), bc = blockIdx.x * tile + m4::b_col(t);
  const bool vector = n % 4 == 0;
  std::uint32_t acc[4][4] = {};
  int4 a4 = load4(a, n, ar, m4::a_k(t), vector), b4 = load4(b, n, m4::b_row(t), bc, vector);
  m4::store_stage(s[0], t, a4, b4);
  __syncthreads();
  unsigned cur = 0;
  for (unsigned k0 = 0; k0 < n; k0 += depth) {
    const bool more = k0 + depth < n;
    if (more) {  // in flight while this stage is multiplied
      a4 = load4(a, n, ar, k0 + depth + m4::a_k(t), vector);
      b4 = load4(b, n, k0 + depth + m4::b_row(t), bc, vector);
    }
    m4::multiply_stage(s[cur], acc);
    if (more) m4::store_stage(s[cur ^ 1], t, a4, b4);  // the other buffer: nobody reads it now
    __syncthreads();
    cur ^= 1;
  }
  m4::write_tile(c, n, acc);
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  kernel<<<dim3(tiles_for(n, tile), tiles_for(n, tile)), dim3(side, side), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m5
