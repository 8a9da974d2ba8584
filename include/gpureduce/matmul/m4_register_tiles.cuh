// m4: register tiling. What changed from m3: a 16 x 16 block computes a 64 x 64 tile of C, each
// thread a 4 x 4 sub-tile held in registers. Per k step a thread reads 4 values of A and 4 of B
// from shared memory (two 16-byte loads) and does 16 multiply-adds with them: 8 shared loads per 16
// multiply-adds instead of m3's 2 per 1, so the arithmetic units, not shared memory, set the pace.
#pragma once

#include <gpureduce/matmul/tiles.hpp>

namespace gpureduce::matmul::m4 {
using namespace gpureduce::detail;

inline constexpr unsigned tile = 64;  // C tile per block
inline constexpr unsigned depth = 16;  // k per staged tile
inline constexpr unsigned side = 16;   // threads per block side; each computes 4 x 4

// The staged tiles: A transposed (as[k][row]) so that a thread's 4 rows are one 16-byte load.
struct Stage {
  alignas(16) std::int32_t as[depth][tile];
  alignas(16) std::int32_t bs[depth][tile];
};

// Thread t's share of a stage: 4 consecutive k of one row of A, 4 consecutive columns of one row
// of B (256 threads x 4 = 64 x 16 elements each).
__device__ __forceinline__ unsigned a_row(unsigned t) { return t / 4; }
__device__ __forceinline__ unsigned a_k(unsigned t) { return t % 4 * 4; }
__device__ __forceinline__ unsigned b_row(unsigned t) { return t / 16; }
__device__ __forceinline__ unsigned b_col(unsigned t) { return t % 16 * 4; }

__device__ __forceinline__ void store_stage(Stage& s, unsigned t, const int4& a4, const int4& b4) {
  s.as[a_k(t) + 0][a_row(t)] = a4.x;
  s.as[a_k(t) + 1][a_row(t)] = a4.y;
  s.as[a_k(t) + 2][a_row(t)] = a4.z;
  s.as[a_k(t) + 3][a_row(t)] = a4.w;
  *reinterpret_cast<int4*>(&s.bs[b_row(t)][b_col(t)]) = b4;
}

// acc[i][j] += sum over the stage's k of A(row 4ty+i, k) * B(k, col 4tx+j).
__device__ __forceinline__ void multiply_stage(const Stage& s, std::uint32_t (&acc)[4][4]) {
#pragma unroll
  for (unsigned k = 0; k < depth; ++k) {
    const int4 a = *reinterpret_cast<const int4*>(&s.as[k][threadIdx.y * 4]);
    const int4 b = *reinterpret_cast<const int4*>(&s.bs[k][threadIdx.x * 4]);
    const std::int32_t av[4] = {a.x, a.y, a.z, a.w}, bv[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = mad_wrap(acc[i][j], av[i], bv[j]);
  }
}

__device__ __forceinline__ void write_tile(std::int32_t* c, unsigned n, const std::uint32_t (&acc)[4][4]) {
  const unsigned r0 = blockIdx.y * tile + threadIdx.y * 4, c0 = blockIdx.x * tile + threadIdx.x * 4;
#pragma unroll
  for (unsigned i = 0; i < 4; ++i)
#pragma unroll
    for (unsigned j = 0; j < 4; ++j)
      if (r0 + i < n && c0 + j < n) c[std::uint64_t(r0 + i) * n + c0 + j] = std::int32_t(acc[i][j]);
}

__global__ void __launch_bounds__(side * side)
    kernel(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n) {
  __shared__ Stage s;
  const unsigned t = threadIdx.y * side + threadIdx.x;
  const unsigned ar = blockIdx.y * tile + a_row(t), bc = blockIdx.x * tile + b_col(t);
  std::uint32_t acc[4][4] = {};
  for (unsigned k0 = 0; k0 < n; k0 += depth) {
    const unsigned ak = k0 + a_k(t), br = k0 + b_row(t);
    const int4 a4{at_or_zero(a, n, ar, ak), at_or_zero(a, n, ar, ak + 1), at_or_zero(a, n, ar, ak + 2),
                  at_or_zero(a, n, ar, ak + 3)};
    const int4 b4{at_or_zero(b, n, br, bc), at_or_zero(b, n, br, bc + 1), at_or_zero(b, n, br, bc + 2),
                  at_or_zero(b, n, br, bc + 3)};
    store_stage(s, t, a4, b4);
    __syncthreads();
    multiply_stage(s, acc);
    __syncthreads();
  }
  write_tile(c, n, acc);
}

inline cudaError_t launch(const std::int32_t* a, const std::int32_t* b, std::int32_t* c, unsigned n, cudaStream_t s) {
  if (n == 0) return cudaSuccess;
  kernel<<<dim3(tiles_for(n, tile), tiles_for(n, tile)), dim3(side, side), 0, s>>>(a, b, c, n);
  return cudaGetLastError();
}

}  // namespace gpureduce::matmul::m4
