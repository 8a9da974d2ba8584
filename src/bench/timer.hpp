// Timing as /work/.library/device/METHOD.md and nvbench's cold measurements do it: CUDA events
// around each sample, warm-up runs first, L2 flushed (a memset larger than L2) before every sample,
// the stream held until all of a sample is enqueued, samples taken while the SM clock was below 80%
// of its peak discarded and taken again, the median of many samples reported.
#pragma once

#include "cuda_check.hpp"
#include "stream_hold.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace gpureduce {

struct TimingStats {
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  double sm_mhz = 0;   // the median SM clock over the kept samples (0: not known)
  int discarded = 0;   // samples taken again because the SM clock was below 80% of its peak
  bool held = false;   // every kept sample was enqueued while its stream was held
};

// Whether a timed call waits for its stream on the host (thrust::reduce returning the value): the
// stream is then not held while it is enqueued.
enum class HostWaits { no, yes };

class GpuTimer {
 public:
  GpuTimer(cudaStream_t stream, std::uint64_t l2_bytes);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;

  // Runs enqueue(stream) `warmup` times untimed, then `reps` timed samples with a cold L2, or with
  // the L2 that `before` leaves (enqueued untimed before each sample, instead of the flush).
  TimingStats measure(const std::function<void(cudaStream_t)>& enqueue, int reps, int warmup = 3,
                      const std::function<void(cudaStream_t)>& before = {}, HostWaits waits = HostWaits::no);

  // Two calls compared in one run: their samples alternate (a b, b a, a b, ...), each after an L2
  // flush, so that a disturbance of the GPU (another process, a clock change) lasting a few samples
  // falls on both rather than on whichever was being timed then.
  std::pair<TimingStats, TimingStats> measure_pair(const std::function<void(cudaStream_t)>& a,
                                                   const std::function<void(cudaStream_t)>& b, int reps,
                                                   int warmup = 3);

  cudaStream_t stream() const { return stream_; }

 private:
  struct Samples {
    explicit Samples(int reps) : reps(reps) { ms.reserve(reps); }
    int reps;
    std::vector<double> ms, mhz;
    int discarded = 0;  // at most reps
    int held = 0;       // kept samples enqueued while the stream was held
    bool hold = true;   // false once a held sample timed out
  };
  void flush_l2();
  // One timed sample of enqueue, after `before` or, without one, an L2 flush, added to `to`.
  void sample(const std::function<void(cudaStream_t)>& enqueue, const std::function<void(cudaStream_t)>& before,
              HostWaits waits, Samples& to);
  static TimingStats stats(const Samples& s);
  cudaStream_t stream_;
  DeviceBuffer<unsigned char> flush_;
  cudaEvent_t start_{}, stop_{};
  StreamHold hold_;
  SmClock clock_;
};

double median(std::vector<double> v);

}  // namespace gpureduce
