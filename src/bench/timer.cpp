#include "timer.hpp"

#include <algorithm>

namespace gpureduce {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Twice the L2 size: a memset of that much leaves none of the measured data resident.
GpuTimer::GpuTimer(cudaStream_t stream, std::uint64_t l2_bytes) : stream_(stream), flush_(2 * l2_bytes) {
  GPUREDUCE_CUDA(cudaEventCreate(&start_));
  GPUREDUCE_CUDA(cudaEventCreate(&stop_));
}

GpuTimer::~GpuTimer() {
  cudaEventDestroy(start_);
  cudaEventDestroy(stop_);
}

void GpuTimer::flush_l2() {
  if (flush_.size()) GPUREDUCE_CUDA(cudaMemsetAsync(flush_.get(), 0, flush_.size(), stream_));
}

double GpuTimer::sample_ms(const std::function<void(cudaStream_t)>& enqueue,
                           const std::function<void(cudaStream_t)>& before) {
  if (before)
    before(stream_);
  else
    flush_l2();
  GPUREDUCE_CUDA(cudaEventRecord(start_, stream_));
  enqueue(stream_);
  GPUREDUCE_CUDA(cudaEventRecord(stop_, stream_));
  GPUREDUCE_CUDA(cudaEventSynchronize(stop_));
  float t = 0;
  GPUREDUCE_CUDA(cudaEventElapsedTime(&t, start_, stop_));
  return t;
}

namespace {
TimingStats stats(const std::vector<double>& ms) {
  const auto [lo, hi] = std::minmax_element(ms.begin(), ms.end());
  return {median(ms), *lo, *hi};
}
}  // namespace

TimingStats GpuTimer::measure(const std::function<void(cudaStream_t)>& enqueue, int reps, int warmup,
                              const std::function<void(cudaStream_t)>& before) {
  for (int i = 0; i < warmup; ++i) enqueue(stream_);
  GPUREDUCE_CUDA(cudaStreamSynchronize(stream_));
  std::vector<double> ms;
  ms.reserve(reps);
  for (int i = 0; i < reps; ++i) ms.push_back(sample_ms(enqueue, before));
  return stats(ms);
}

std::pair<TimingStats, TimingStats> GpuTimer::measure_pair(const std::function<void(cudaStream_t)>& a,
                                                           const std::function<void(cudaStream_t)>& b, int reps,
                                                           int warmup) {
  for (int i = 0; i < warmup; ++i) a(stream_), b(stream_);
  GPUREDUCE_CUDA(cudaStreamSynchronize(stream_));
  std::vector<double> ms_a, ms_b;
  ms_a.reserve(reps);
  ms_b.reserve(reps);
  for (int i = 0; i < reps; ++i) {
    if (i % 2 == 0) {
      ms_a.push_back(sample_ms(a, {}));
      ms_b.push_back(sample_ms(b, {}));
    } else {
      ms_b.push_back(sample_ms(b, {}));
      ms_a.push_back(sample_ms(a, {}));
    }
  }
  return {stats(ms_a), stats(ms_b)};
}

}  // namespace gpureduce
