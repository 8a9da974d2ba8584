// How fast a plain kernel can stream device memory: the bench's "% of ceiling" (src/bench/
// stream_read.cu) needs a read that the reductions do not outrun. Reads of 1 and 4 GB through
// 16-byte loads, one per thread in flight over a grid-stride loop (the bench's read up to f4adc02)
// or batches of 2, 4 or 8 per thread, on one or three waves of resident blocks; each after a
// memset of 2x L2, CUDA events, median and best of 25. Run by `tools/device-run COMMIT ceiling`.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <vector>

#define CHECK(x)                                                           \
  do {                                                                     \
    if (const cudaError_t e = (x); e != cudaSuccess) {                     \
      std::printf("%s: %s\n", #x, cudaGetErrorString(e));                  \
      return 1;                                                            \
    }                                                                      \
  } while (0)

namespace {

__global__ void one_per_thread(const int4* __restrict__ in, std::uint64_t vectors, unsigned* sink) {
  unsigned acc = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const int4 v = in[i];
    acc ^= unsigned(v.x ^ v.y ^ v.z ^ v.w);
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;
}

// Batches of U vectors per thread, a block's batches a grid apart; the sizes here are whole
// batches.
template <int U>
__global__ void batched(const int4* __restrict__ in, std::uint64_t vectors, unsigned* sink) {
  unsigned acc = 0;
  const std::uint64_t batch = std::uint64_t(blockDim.x) * U;
  for (std::uint64_t b = blockIdx.x; b < vectors / batch; b += gridDim.x) {
    const int4* p = in + b * batch + threadIdx.x;
    int4 v[U];
#pragma unroll
    for (int k = 0; k < U; ++k) v[k] = p[k * blockDim.x];
#pragma unroll
    for (int k = 0; k < U; ++k) acc ^= unsigned(v[k].x ^ v[k].y ^ v[k].z ^ v[k].w);
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;
}

}  // namespace

int main() {
  int sms = 0, l2 = 0;
  CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  const std::uint64_t max_bytes = std::uint64_t(4) << 30;
  int4* buf = nullptr;
  unsigned* sink = nullptr;
  void* flush = nullptr;
  CHECK(cudaMalloc(&buf, max_bytes));
  CHECK(cudaMalloc(&sink, 1 << 20));
  CHECK(cudaMalloc(&flush, 2 * std::size_t(l2)));
  CHECK(cudaMemset(buf, 1, max_bytes));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  const auto run = [&](const char* name, auto kernel, int waves, std::uint64_t bytes) {
    int per_sm = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 256, 0);
    const unsigned grid = unsigned(sms * per_sm * waves);
    std::vector<float> t;
    for (int r = 0; r < 28; ++r) {
      cudaMemsetAsync(flush, r, 2 * std::size_t(l2));
      cudaEventRecord(start);
      kernel<<<grid, 256>>>(buf, bytes / 16, sink);
      cudaEventRecord(stop);
      cudaEventSynchronize(stop);
      float ms = 0;
      cudaEventElapsedTime(&ms, start, stop);
      if (r >= 3) t.push_back(ms);  // 3 warm-up runs
    }
    std::sort(t.begin(), t.end());
    const float median = t[t.size() / 2];
    std::printf("%-22s %5llu MB grid %5u: median %8.1f us  %6.0f GB/s (best %6.0f)\n", name,
                (unsigned long long)(bytes >> 20), grid, median * 1e3, bytes / (median * 1e6), bytes / (t[0] * 1e6));
  };
  for (int round = 0; round < 2; ++round)
    for (const std::uint64_t bytes : {std::uint64_t(1) << 30, max_bytes}) {
      run("one per thread, 1 wave", one_per_thread, 1, bytes);
      run("batched x4, 1 wave", batched<4>, 1, bytes);
      run("batched x4, 3 waves", batched<4>, 3, bytes);
      run("batched x8, 1 wave", batched<8>, 1, bytes);
      run("batched x2, 1 wave", batched<2>, 1, bytes);
    }
  CHECK(cudaGetLastError());
  return 0;
}
