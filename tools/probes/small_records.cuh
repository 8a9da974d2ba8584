// What the probes of records share (record_probe.cu, grid_waves_probe.cu, shifted_probe.cu,
// crossover_probe.cu): records, some of them of an alignment whose address need not reach a
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
struct Bytes5 {  // 5 bytes of 1-byte alignment: 16 of them span 80 bytes
  std::uint8_t v[5];
};
struct Bytes7 {  // 7 bytes of 1-byte alignment: 16 of them span 112 bytes
  std::uint8_t v[7];
};
struct Shorts5 {  // 10 bytes of 2-byte alignment: 8 of them span 80 bytes
  std::uint16_t v[5];
};
struct Bytes9 {  // 9 bytes of 1-byte alignment: 16 of them span 144 bytes
  std::uint8_t v[9];
};
struct Shorts7 {  // 14 bytes of 2-byte alignment: 8 of them span 112 bytes
  std::uint16_t v[7];
};
struct Shorts9 {  // 18 bytes of 2-byte alignment: 8 of them span 144 bytes
  std::uint16_t v[9];
};
struct Bytes11 {  // 11 bytes of 1-byte alignment: 16 of them span 176 bytes
  std::uint8_t v[11];
};
struct Bytes13 {  // 13 bytes of 1-byte alignment: 16 of them span 208 bytes
  std::uint8_t v[13];
};
struct Bytes15 {  // 15 bytes of 1-byte alignment: 16 of them span 240 bytes
  std::uint8_t v[15];
};
struct Shorts11 {  // 22 bytes of 2-byte alignment: 8 of them span 176 bytes
  std::uint16_t v[11];
};
struct Shorts13 {  // 26 bytes of 2-byte alignment: 8 of them span 208 bytes
  std::uint16_t v[13];
};
struct Shorts15 {  // 30 bytes of 2-byte alignment: 8 of them span 240 bytes
  std::uint16_t v[15];
};
struct Bytes17 {  // 17 bytes of 1-byte alignment: 16 of them would span 272 bytes
  std::uint8_t v[17];
};
struct Bytes23 {  // 23 bytes of 1-byte alignment: 16 of them would span 368 bytes
  std::uint8_t v[23];
};
struct Bytes31 {  // 31 bytes of 1-byte alignment: 16 of them would span 496 bytes
  std::uint8_t v[31];
};
struct Shorts17 {  // 34 bytes of 2-byte alignment: 8 of them would span 272 bytes
  std::uint16_t v[17];
};
struct Shorts23 {  // 46 bytes of 2-byte alignment: 8 of them would span 368 bytes
  std::uint16_t v[23];
};
struct Shorts31 {  // 62 bytes of 2-byte alignment: 8 of them would span 496 bytes
  std::uint16_t v[31];
};
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
