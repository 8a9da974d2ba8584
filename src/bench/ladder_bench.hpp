// The ladder benchmark: every rung and reference at one or more sizes, verified, timed cold.
#pragma once

#include "device_info.hpp"
#include "timer.hpp"

#include "../common/dtype.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpureduce {

struct BenchRow {
  std::string variant;
  std::string adds;
  DType type;
  std::uint64_t n;
  TimingStats time;
  double gbps;      // bytes read once (n * element size) / median time
  double pct_peak;  // of the measured streaming-read bandwidth
  bool verified;
};

struct LadderRun {
  DType type = DType::int32;
  std::vector<std::uint64_t> sizes;
  unsigned block = 256;
  int reps = 30;
  std::uint64_t seed = 1;
};

// progress(done, total, n) is called before each size (the sweep's indicator on stderr).
std::vector<BenchRow> run_ladder(const DeviceInfo& device, double peak_gbps, GpuTimer& timer, const LadderRun& run,
                                 const std::function<void(std::size_t, std::size_t, std::uint64_t)>& progress);

}  // namespace gpureduce
