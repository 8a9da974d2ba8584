// Timing as /work/.library/device/METHOD.md and nvbench's cold measurements do it: CUDA events
// around each sample, warm-up runs first, L2 flushed (a memset larger than L2) before every sample,
// the median of many samples reported.
#pragma once

#include "cuda_check.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace gpureduce {

struct TimingStats {
  double median_ms;
  double min_ms;
  double max_ms;
};

class GpuTimer {
 public:
  GpuTimer(cudaStream_t stream, std::uint64_t l2_bytes);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Runs enqueue(stream) `warmup` times untimed, then `reps` timed samples with a cold L2, or with
  // the L2 that `before` leaves (enqueued untimed before each sample, instead of the flush).
  TimingStats measure(const std::function<void(cudaStream_t)>& enqueue, int reps, int warmup = 3,
                      const std::function<void(cudaStream_t)>& before = {});

  // Two calls compared in one run: their samples alternate (a b, b a, a b, ...), each after an L2
  // flush, so that a disturbance of the GPU (another process, a clock change) lasting a few samples
  // falls on both rather than on whichever was being timed then.
  std::pair<TimingStats, TimingStats> measure_pair(const std::function<void(cudaStream_t)>& a,
                                                   const std::function<void(cudaStream_t)>& b, int reps,
                                                   int warmup = 3);

  cudaStream_t stream() const { return stream_; }

 private:
  void flush_l2();
  // One timed sample of enqueue, after `before` or, without one, an L2 flush.
  double sample_ms(const std::function<void(cudaStream_t)>& enqueue, const std::function<void(cudaStream_t)>& before);
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> flush_;
  cudaEvent_t start_{}, stop_{};
};

double median(std::vector<double> v);

}  // namespace gpureduce
