// What the L2 probes share (tools/probes): a stream of their own, the device's L2 size, and a
// kernel that reads a buffer (an L2 full of clean lines).
#pragma once

#include "../../src/bench/cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

struct ProbeSetup {
  cudaStream_t stream{};
  std::size_t l2_bytes = 0;
};

inline ProbeSetup probe_setup() {
  int dev = 0, l2 = 0;
  GPUREDUCE_CUDA(cudaGetDevice(&dev));
  GPUREDUCE_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
  ProbeSetup p;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&p.stream, cudaStreamNonBlocking));
  p.l2_bytes = std::size_t(l2);
  return p;
}

// Reads p[0, vectors) and keeps the result alive (sink is written only for an impossible value).
__global__ void touch_kernel(const int4* p, unsigned long long vectors, int* sink) {
  int v = 0;
  for (unsigned long long i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < vectors;
       i += gridDim.x * 1ull * blockDim.x)
    v ^= p[i].x;
  if (v == 0x7fffffff) *sink = v;
}

// "NAME (driver API VERSION)" of the current device, for a probe's first line.
inline std::string device_line() {
  cudaDeviceProp prop{};
  int dev = 0, driver = 0;
  GPUREDUCE_CUDA(cudaGetDevice(&dev));
  GPUREDUCE_CUDA(cudaGetDeviceProperties(&prop, dev));
  GPUREDUCE_CUDA(cudaDriverGetVersion(&driver));
  return std::string(prop.name) + " (driver API " + std::to_string(driver) + ")";
}

// Ends a table row: the median of each way's samples (us), `width` characters each.
inline void print_medians(std::vector<std::vector<double>> us, int width) {
  for (auto& v : us) {
    std::sort(v.begin(), v.end());
    std::printf(" %*.2f", width, v.empty() ? 0.0 : v[v.size() / 2]);
  }
  std::printf("\n");
}
