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
  // One block: 512 threads x 4 vectors = 32 KB per round trip. It beats the grid kernel (whose
  // last-block hand-off costs ~1.2 us: 5.2-5.5 us at any grid of 2-132 blocks for n <= 2^14)
  // up to 64 KB of 4- and 8-byte elements (2^14 int32: 5.1 us one block, 5.6 grid) and 32 KB of
  // 1-byte ones, where the per-element work makes the block slower (2^16 int8: 6.6 us, grid 5.9).
  static constexpr ReduceTuning value{256, 4, 512, 4, ElemBytes >= 4 ? 64 * 1024 : 32 * 1024};
};

}  // namespace gpureduce
