// What record_probe.cu reads: records, some of them of an alignment whose address need not reach a
// 16-byte boundary, and fills whose sums are exact in any order (so two kernels, or gpureduce and
// CUB, agree bit for bit).
#pragma once

#include <cstdint>

struct Doubles {  // 16 bytes, 8-byte aligned
  double a, b;
};
struct Pair {  // 8 bytes, 4-byte aligned
  float a, b;
};
struct Rgba {  // 4 bytes, 1-byte aligned
  std::uint8_t r, g, b, a;
};
struct Pixel {  // 3 bytes: vectors of 48
  std::uint8_t r, g, b;
};
struct Point {  // 24 bytes: vectors of 48
  double x, y, z;
};
struct Five {  // 20 bytes: 4 of them span 80 bytes
  float v[5];
};
// N fields of 1 or 2 bytes (1- and 2-byte alignment): N odd, 16 records of N bytes or 8 of 2N
// span 16N bytes (grid/vector_split.hpp): read in vectors of 80 bytes for 5 fields, one per load
// for 7-43 (agent/sources.cuh).
template <class F, unsigned N>
struct FieldsOf {
  F v[N];
};
template <unsigned N>
using Bytes = FieldsOf<std::uint8_t, N>;
template <unsigned N>
using Shorts = FieldsOf<std::uint16_t, N>;
struct Seven {  // 28 bytes: 4 of them span 112 bytes
  float v[7];
};
struct Nine {  // 36 bytes: 4 of them would span 144 bytes
  float v[9];
};

template <class T>
__global__ void fill_small(T* p, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += gridDim.x * 1ull * blockDim.x)
    p[i] = T(int((i * 0x9E3779B97F4A7C15ull) >> 61) - 3);
}

// Zeros and ones, one in 64 a one: sums exact in any order (below 2^24 in every float component).
template <class T>
__global__ void fill_sparse_ones(T* p, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += gridDim.x * 1ull * blockDim.x)
    p[i] = T(((i * 0x9E3779B97F4A7C15ull) >> 58) == 0);
}
