#include "timer.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <thread>

namespace gpureduce {
namespace {
// A held stream waits at most this long for its sample to be enqueued; the bench enqueues one in
// microseconds, so only an enqueue that waits for the stream (or the device), or a launch that a
// tool such as compute-sanitizer serializes, reaches it: that sample is taken again, and the rest
// of the measurement, without the hold.
constexpr std::uint64_t hold_timeout_ns = 1'000'000'000;
// nvbench's defaults: a sample whose SM clock was below 80% of the peak is taken again after a
// pause of 50 ms, at most as many times as there are samples.
constexpr double throttle_fraction = 0.8;
constexpr auto throttle_pause = std::chrono::milliseconds(50);
}  // namespace

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// Twice the L2 size: a memset of that much leaves none of the measured data resident.
GpuTimer::GpuTimer(cudaStream_t stream, std::uint64_t l2_bytes)
    : stream_(stream), flush_(2 * l2_bytes), hold_(hold_timeout_ns) {
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

void GpuTimer::sample(const std::function<void(cudaStream_t)>& enqueue,
                      const std::function<void(cudaStream_t)>& before, HostWaits waits, Samples& to) {
  for (;;) {
    const bool held = waits == HostWaits::no && to.hold;
    if (held) hold_.hold(stream_);
    clock_.start(stream_);
    if (before)
      before(stream_);
    else
      flush_l2();
    GPUREDUCE_CUDA(cudaEventRecord(start_, stream_));
    enqueue(stream_);
    GPUREDUCE_CUDA(cudaEventRecord(stop_, stream_));
    clock_.stop(stream_);
    if (held) hold_.release();
    GPUREDUCE_CUDA(cudaStreamSynchronize(stream_));
    if (held && hold_.timed_out()) {
      std::cerr << "gpureduce: note: the stream could not be held while a sample was enqueued (a call that waits "
                   "for its stream, or launches serialized by a tool such as compute-sanitizer): timed without the "
                   "hold\n";
      to.hold = false;
      continue;
    }
    const double mhz = clock_.mhz();
    if (mhz > 0 && mhz < throttle_fraction * clock_.max_mhz() && to.discarded < to.reps) {
      ++to.discarded;
      std::this_thread::sleep_for(throttle_pause);
      continue;
    }
    float t = 0;
    GPUREDUCE_CUDA(cudaEventElapsedTime(&t, start_, stop_));
    to.ms.push_back(t);
    to.held += held;
    if (mhz > 0) to.mhz.push_back(mhz);
    return;
  }
}

TimingStats GpuTimer::stats(const Samples& s) {
  const auto [lo, hi] = std::minmax_element(s.ms.begin(), s.ms.end());
  if (s.discarded)
    std::cerr << "gpureduce: note: " << s.discarded << " samples taken again: the SM clock was below "
              << int(100 * throttle_fraction) << "% of its peak\n";
  return {median(s.ms), *lo, *hi, median(s.mhz), s.discarded, s.held == int(s.ms.size())};
}

TimingStats GpuTimer::measure(const std::function<void(cudaStream_t)>& enqueue, int reps, int warmup,
                              const std::function<void(cudaStream_t)>& before, HostWaits waits) {
  for (int i = 0; i < warmup; ++i) enqueue(stream_);
  GPUREDUCE_CUDA(cudaStreamSynchronize(stream_));
  Samples s(reps);
  for (int i = 0; i < reps; ++i) sample(enqueue, before, waits, s);
  return stats(s);
}

std::pair<TimingStats, TimingStats> GpuTimer::measure_pair(const std::function<void(cudaStream_t)>& a,
                                                           const std::function<void(cudaStream_t)>& b, int reps,
                                                           int warmup) {
  for (int i = 0; i < warmup; ++i) a(stream_), b(stream_);
  GPUREDUCE_CUDA(cudaStreamSynchronize(stream_));
  Samples sa(reps), sb(reps);
  for (int i = 0; i < reps; ++i) {
    if (i % 2 == 0) {
      sample(a, {}, HostWaits::no, sa);
      sample(b, {}, HostWaits::no, sb);
    } else {
      sample(b, {}, HostWaits::no, sb);
      sample(a, {}, HostWaits::no, sa);
    }
  }
  return {stats(sa), stats(sb)};
}

}  // namespace gpureduce
