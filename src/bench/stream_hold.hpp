// Two small kernels around each timed sample (timer.cpp), as nvbench's cold measurements use them.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpureduce {

// Holds a stream until the host releases it (nvbench's blocking kernel), so that the L2 flush, the
// timed call and the events around it reach the GPU together and run back to back: the host's
// time to enqueue them, or a pause of the host thread, stays out of the events' interval. A
// sample's enqueue must not wait for its own stream while held; the hold ends by itself after
// `timeout_ns` and says so, so that such an enqueue costs time, not a deadlock.
class StreamHold {
 public:
  explicit StreamHold(std::uint64_t timeout_ns);
  ~StreamHold();
  StreamHold(const StreamHold&) = delete;
  StreamHold& operator=(const StreamHold&) = delete;

  void hold(cudaStream_t s);  // enqueues the waiting kernel
  void release();             // lets it return
  bool timed_out() const;     // once the stream has drained: whether it stopped waiting by itself

 private:
  volatile int* flags_ = nullptr;  // mapped host memory: [0] released, [1] timed out
  int* device_flags_ = nullptr;
  std::uint64_t timeout_ns_;
};

// The SM clock over an interval of a stream's work, as nvbench measures it: a one-thread-per-block
// kernel over every SM whose block on SM 0 stamps %globaltimer and clock64 (one SM, so both clock
// counts are one counter's), enqueued at the interval's start and end.
class SmClock {
 public:
  SmClock();
  ~SmClock();
  SmClock(const SmClock&) = delete;
  SmClock& operator=(const SmClock&) = delete;

  void start(cudaStream_t s);
  void stop(cudaStream_t s);
  // Once the stream has drained: the mean SM clock over the interval in MHz; 0 when no block of
  // either stamp ran on SM 0.
  double mhz() const;
  double max_mhz() const { return max_mhz_; }  // the device's peak (cudaDevAttrClockRate)

 private:
  volatile std::uint64_t* stamps_ = nullptr;  // mapped host memory: ns and clock at start, then at stop
  std::uint64_t* device_stamps_ = nullptr;
  int sms_ = 0;
  double max_mhz_ = 0;
};

}  // namespace gpureduce
