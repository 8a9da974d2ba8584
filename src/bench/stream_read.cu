#include "stream_read.hpp"

#include <gpureduce/grid/arithmetic.hpp>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

constexpr int read_threads = 256;
constexpr int read_unroll = 4;  // 16-byte vectors in flight per thread, as the library's grid

// Batches of read_unroll vectors per thread, one block's batches a grid apart; whole batches only.
__global__ void stream_read_kernel(const int4* __restrict__ in, std::uint64_t batches, unsigned* sink) {
  constexpr std::uint64_t batch = std::uint64_t(read_threads) * read_unroll;
  unsigned acc = 0;
  for (std::uint64_t b = blockIdx.x; b < batches; b += gridDim.x) {
    const int4* p = in + b * batch + threadIdx.x;
    int4 v[read_unroll];
#pragma unroll
    for (int k = 0; k < read_unroll; ++k) v[k] = p[k * read_threads];
#pragma unroll
    for (int k = 0; k < read_unroll; ++k) acc ^= unsigned(v[k].x ^ v[k].y ^ v[k].z ^ v[k].w);
  }
  if (acc == 0x9e3779b9u) sink[blockIdx.x] = acc;  // practically never taken; keeps the loads live
}

// Grid-stride 16-byte stores, four in flight per thread.
__global__ void stream_write_kernel(int4* __restrict__ out, std::uint64_t batches, int value) {
  constexpr std::uint64_t batch = std::uint64_t(read_threads) * read_unroll;
  const int4 v{value, value, value, value};
  for (std::uint64_t b = blockIdx.x; b < batches; b += gridDim.x) {
    int4* p = out + b * batch + threadIdx.x;
#pragma unroll
    for (int k = 0; k < read_unroll; ++k) p[k * read_threads] = v;
  }
}

}  // namespace

// The time of the faster of one and three waves of `kernel`'s resident blocks, launch(grid, stream)
// enqueuing it.
template <class Kernel, class Launch>
double fastest_waves_ms(GpuTimer& timer, Kernel kernel, int reps, Launch&& launch) {
  int device = 0, sms = 0, per_sm = 0;
  GPUREDUCE_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  GPUREDUCE_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, read_threads, 0));
  double best_ms = 0;
  for (const int waves : {1, 3}) {
    const unsigned grid = unsigned(sms * per_sm * waves);
    const TimingStats t = timer.measure([&](cudaStream_t s) { launch(grid, s); }, reps);
    GPUREDUCE_CUDA(cudaGetLastError());
    if (best_ms == 0 || t.median_ms < best_ms) best_ms = t.median_ms;
  }
  return best_ms;
}

// The faster of one and three waves of resident blocks (H200, 4 GB after the bench's flush,
// median of 25, tools/probes/read_ceiling_probe.cu: 4496 GB/s on one wave, 4509 on three, 4489
// with 8 vectors per thread, 4458 with 2). One vector per thread on one wave read 4409-4414, and
// the library's sums of 4 GB outran it by 6-7%.
double measure_read_gbps(GpuTimer& timer, std::uint64_t bytes, int reps) {
  constexpr std::uint64_t batch_bytes = std::uint64_t(read_threads) * read_unroll * sizeof(int4);
  const std::uint64_t batches = bytes / batch_bytes;
  DeviceBuffer<int4> buf(batches * batch_bytes / sizeof(int4));
  GPUREDUCE_CUDA(cudaMemsetAsync(buf.get(), 1, batches * batch_bytes, timer.stream()));
  DeviceBuffer<unsigned> sink(1 << 16);  // one word per block: more than three waves' blocks
  const double ms = fastest_waves_ms(timer, stream_read_kernel, reps, [&](unsigned grid, cudaStream_t s) {
    stream_read_kernel<<<grid, read_threads, 0, s>>>(buf.get(), batches, sink.get());
  });
  return double(batches * batch_bytes) / (ms * 1e6);
}

// The write ceiling the same way: a kernel that only stores.
double measure_write_gbps(GpuTimer& timer, std::uint64_t bytes, int reps) {
  constexpr std::uint64_t batch_bytes = std::uint64_t(read_threads) * read_unroll * sizeof(int4);
  const std::uint64_t batches = bytes / batch_bytes;
  DeviceBuffer<int4> buf(batches * batch_bytes / sizeof(int4));
  const double ms = fastest_waves_ms(timer, stream_write_kernel, reps, [&](unsigned grid, cudaStream_t s) {
    stream_write_kernel<<<grid, read_threads, 0, s>>>(buf.get(), batches, int(grid));
  });
  return double(batches * batch_bytes) / (ms * 1e6);
}

}  // namespace gpureduce
