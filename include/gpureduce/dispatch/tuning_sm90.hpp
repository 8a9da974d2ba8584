// Launch constants for sm_90, per element size. Measured on an NVIDIA H100 80GB HBM3 (CUDA 13.0,
// cold L2, median of 20-30 event-timed runs); the figures are in bench/results/.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>

#include <cstddef>

namespace gpureduce {

template <std::size_t ElemBytes>
struct TuningSm90 {
  // Grid: 256 threads x 4 vectors of 16 B = 64 B in flight per thread, 128 KB per SM at full
  // occupancy: ladder rung r9 read 3028 GB/s with it at 2^28 int32 (101% of a plain streaming read).
  // One block: 512 threads x 4 vectors = 32 KB read in one round trip.
  static constexpr ReduceTuning value{256, 4, 512, 4, 32 * 1024};
};

}  // namespace gpureduce
