// Is CUB's gpu_to_gpu (RFA) float sum right at large counts? The exact-sum bench (`gpureduce bench
// --mode exact`) found its float32 result at 2^30 outside any error bound (docs/exact.md). Not
// part of the library: values in [-1, 1) from a hash of the index, CUB's DeviceReduce::Sum under
// determinism::gpu_to_gpu against gpureduce's exact sum of the same data (rounded once to double),
// at the counts given, or with `bisect LO HI` the first count where they differ by more than 1
// (LO right, HI wrong). Built only against a CCCL that has gpu_to_gpu (tools/fetch-cccl,
// -DGPUREDUCE_CCCL_INCLUDE).
#include "probe_setup.cuh"

#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/stream_ref>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

__global__ void fill_kernel(float* x, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + 1) * 0x9e3779b97f4a7c15ull;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    x[i] = float(std::int32_t(h >> 40) - (1 << 23)) / float(1 << 23);
  }
}

struct Sums {
  float cub;
  double exact;
};

Sums sums(const float* x, std::uint64_t n, float* d_cub, double* d_exact, cudaStream_t s) {
  GPUREDUCE_CUDA(cudaMemsetAsync(d_cub, 0xff, sizeof(float), s));  // poison: a NaN
  const auto env = cuda::std::execution::env{cuda::stream_ref{s},
                                             cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)};
  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(x, d_cub, static_cast<std::int64_t>(n), env));
  gpureduce::exact_sum(x, n, d_exact, s);
  Sums r{};
  GPUREDUCE_CUDA(cudaMemcpyAsync(&r.cub, d_cub, sizeof(float), cudaMemcpyDeviceToHost, s));
  GPUREDUCE_CUDA(cudaMemcpyAsync(&r.exact, d_exact, sizeof(double), cudaMemcpyDeviceToHost, s));
  GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  return r;
}

double miss(const Sums& r) { return std::fabs(double(r.cub) - r.exact); }

}  // namespace

int main(int argc, char** argv) {
  const bool bisect = argc == 4 && std::string(argv[1]) == "bisect";
  std::vector<std::uint64_t> counts;
  for (int a = bisect ? 2 : 1; a < argc; ++a) counts.push_back(std::strtoull(argv[a], nullptr, 0));
  if (counts.empty()) counts = {1ull << 28, 1ull << 29, 3ull << 28, (1ull << 30) - 1, 1ull << 30, (1ull << 31) - 1};
  std::uint64_t max_n = 0;
  for (const std::uint64_t n : counts) max_n = std::max(max_n, n);
  const ProbeSetup p = probe_setup();
  std::printf("%s\n", device_line().c_str());
  float* x = nullptr;
  float* d_cub = nullptr;
  double* d_exact = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&x, max_n * sizeof(float)));
  GPUREDUCE_CUDA(cudaMalloc(&d_cub, sizeof(float)));
  GPUREDUCE_CUDA(cudaMalloc(&d_exact, sizeof(double)));
  fill_kernel<<<1024, 256, 0, p.stream>>>(x, max_n);
  GPUREDUCE_CUDA(cudaGetLastError());
  if (bisect) {
    std::uint64_t lo = counts[0], hi = counts[1];
    const Sums at_lo = sums(x, lo, d_cub, d_exact, p.stream), at_hi = sums(x, hi, d_cub, d_exact, p.stream);
    if (miss(at_lo) > 1 || !(miss(at_hi) > 1)) {
      std::printf("bisect needs LO right and HI wrong: %.3g at LO, %.3g at HI\n", miss(at_lo), miss(at_hi));
      return 1;
    }
    while (hi - lo > 1) {
      const std::uint64_t mid = lo + (hi - lo) / 2;
      (miss(sums(x, mid, d_cub, d_exact, p.stream)) > 1 ? hi : lo) = mid;
    }
    counts = {lo, hi};
  }
  for (const std::uint64_t n : counts) {
    const Sums r = sums(x, n, d_cub, d_exact, p.stream);
    std::printf("n = %llu (%.2f GB): CUB gpu_to_gpu %.9g, gpureduce exact %.17g, difference %.3g\n",
                static_cast<unsigned long long>(n), double(n) * sizeof(float) / 1e9, r.cub, r.exact,
                double(r.cub) - r.exact);
  }
}
