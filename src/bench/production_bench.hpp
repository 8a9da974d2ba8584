// `gpureduce bench`: the production path against CUB, same inputs, same run, every element type
// and operator of the sweep.
#pragma once

#include "device_info.hpp"
#include "../common/elem_type.hpp"

#include <gpureduce/dispatch/launch_plan.hpp>
#include "timer.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;

struct ProductionRun {
  std::vector<ElemType> types;
  std::vector<BenchOp> ops;
  std::vector<std::uint64_t> sizes;  // sizes beyond the free device memory are skipped
  int reps = 20;
  std::uint64_t seed = 1;
  Kernel kernel = Kernel::automatic;  // forced for the gpureduce rows (detail::testing::ForceLaunch)
  std::uint64_t grid_blocks = 0;
  L2Policy l2 = L2Policy::automatic;  // Options::l2 for the gpureduce rows
  bool exact = false;  // sum rows: the exact sum ("ours") against gpureduce's plain sum (in "cub")
};

struct ProductionRow {
  BenchOp op;
  ElemType type;
  std::uint64_t n;
  TimingStats ours, cub;  // exact mode: the exact sum, the plain sum
  double ours_gbps, cub_gbps;  // input bytes / median time
  TimingStats g2g{};           // exact mode, float and double, when built with GPUREDUCE_CCCL_INCLUDE:
  double g2g_gbps = 0;         // CUB's gpu_to_gpu reproducible sum (median_ms 0: not measured),
  bool g2g_verified = false;   // within the summation error bound of the exact sum
  bool verified;               // gpureduce's result agrees with CUB's (exactly, or within the sum bound);
                               // exact mode: the exact sum has the host implementation's bits
};

// The exact mode's accuracy example: an ill-conditioned float32 sum (cancelling pairs of large
// values among small positive ones, shuffled), summed by gpureduce's plain float sum and exact sum
// on the GPU and in double, left to right, on the host; `reference` is the exact sum rounded once
// to double.
struct ExactAccuracy {
  std::uint64_t n;
  double reference, plain_float, exact_float, host_double;
};
ExactAccuracy exact_accuracy(std::uint64_t seed);

// Sizes an input of which would take more than 40% of device memory are not run: `skipped(type,
// n, largest)` tells the caller, with the largest count of that type that is run.
std::vector<ProductionRow> run_production(
    const DeviceInfo& device, GpuTimer& timer, const ProductionRun& run,
    const std::function<void(std::size_t, std::size_t)>& progress,
    const std::function<void(ElemType, std::uint64_t, std::uint64_t)>& skipped);

}  // namespace gpureduce
