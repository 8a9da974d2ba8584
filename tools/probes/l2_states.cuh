// What the probes put before each timed sample (tools/probes/one_block_probe.cu,
// exact_latency_probe.cu), as `gpureduce bench` times a call (CUDA events, 3 warm-ups, median of
// 30):
//   dirty   memset of 2x L2 (the bench's flush: L2 full of dirty lines, the kernel's code evicted)
//   code    as dirty, then the same call on another input: code and parameters warm, input cold
//   clean   a read of 2x L2 (L2 full of lines that need no write-back)
//   alt     another call (`other`, on another input), then the flush: as the bench's samples
//           alternate between the two calls it compares
#pragma once

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <functional>

enum State { dirty, code, clean, alt };
inline const char* const state_names[] = {"dirty", "code", "clean", "alt"};

struct Bench {
  gpureduce::GpuTimer timer;
  gpureduce::DeviceBuffer<int4> flush;
  gpureduce::DeviceBuffer<int> sink{1};

  Bench(cudaStream_t s, std::size_t l2_bytes) : timer(s, 0), flush(2 * l2_bytes / sizeof(int4)) {}
  // Median us of run(s, 0), each sample after `st` (input 1 for the call before it).
  double median_us(State st, const std::function<void(cudaStream_t, int)>& run,
                   const std::function<void(cudaStream_t, int)>& other = {}) {
    const auto before = [&](cudaStream_t s) {
      if (st == alt) other(s, 1);
      if (st != clean) GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush.size() * sizeof(int4), s));
      if (st == code) run(s, 1);
      if (st == clean) touch_kernel<<<1056, 256, 0, s>>>(flush.get(), flush.size(), sink.get());
    };
    const double ms = timer.measure([&](cudaStream_t s) { run(s, 0); }, 30, 3, before).median_ms;
    GPUREDUCE_CUDA(cudaGetLastError());
    return ms * 1e3;
  }
};
