// What the probes of records off 16-byte boundaries share (shifted_probe.cu, crossover_probe.cu):
// records whose address need not reach one, and a fill of small integers, whose sums are exact in
// any order (so two kernels, or gpureduce and CUB, agree bit for bit).
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

template <class T>
__global__ void fill_small(T* p, unsigned long long n) {
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += gridDim.x * 1ull * blockDim.x)
    p[i] = T(int((i * 0x9E3779B97F4A7C15ull) >> 61) - 3);
}
