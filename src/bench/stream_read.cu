#include "stream_read.hpp"

#include <gpureduce/grid/arithmetic.hpp>

namespace gpureduce {
namespace {

__global__ void stream_read_kernel(const int4* __restrict__ in, std::uint64_t vectors, unsigned* sink) {
  unsigned acc = 0;
  const std::uint64_t stride = std::uint64_t(gridDim.x) * blockDim.x;
  for (std::uint64_t i = std::uint64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < vectors; i += stride) {
    const int4 v = in[i];
    acc ^= unsigned(v.x ^ v.y ^ v.z ^ v.w);
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;  // practically never taken; keeps the loads live
}

}  // namespace

double measure_read_gbps(GpuTimer& timer, std::uint64_t bytes, int reps) {
  const std::uint64_t vectors = bytes / sizeof(int4);
  DeviceBuffer<int4> buf(vectors);
  GPUREDUCE_CUDA(cudaMemsetAsync(buf.get(), 1, vectors * sizeof(int4), timer.stream()));
  int device = 0, sms = 0, per_sm = 0;
  GPUREDUCE_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  constexpr int block = 256;
  GPUREDUCE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, stream_read_kernel, block, 0));
  const unsigned grid = unsigned(sms * per_sm);
  DeviceBuffer<unsigned> sink(grid);
  const TimingStats t = timer.measure(
      [&](cudaStream_t s) { stream_read_kernel<<<grid, block, 0, s>>>(buf.get(), vectors, sink.get()); }, reps);
  GPUREDUCE_CUDA(cudaGetLastError());
  return double(vectors * sizeof(int4)) / (t.median_ms * 1e6);
}

}  // namespace gpureduce
