// Short runs sliced within one block (interleaved and narrow columns): up to `warps` slices of a
// run, a warp each, their partials combined in the block in slice order, so that a few short runs
// take one launch rather than a kernel and a combine. A slice is a multiple of `multiple` elements
// and about min_slice_elements or more; per block, warps / slices runs.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/arithmetic.hpp>

#include <cstdint>

namespace gpureduce::detail {

// Elements a warp takes at the least: four 16-byte float32 vectors a lane, one round of loads.
inline constexpr std::uint64_t min_slice_elements = 512;
// Runs of up to this many elements a warp are sliced within a block (8 warps: 2^14 elements and a
// narrow run's misfit, with room to spare).
inline constexpr std::uint64_t block_slice_reach = 2560;

struct BlockSlices {
  std::uint64_t slice = 0;   // elements a slice (the run's positions, a multiple of `multiple`)
  std::uint64_t slices = 0;  // of the run, 2 to warps; 0: the run is not sliced within a block
  unsigned runs = 0;         // runs a block
};

// The block slicing of a run of `reach` positions, or slices = 0 where it is longer than warps x
// block_slice_reach or too short to split.
GPUREDUCE_HD constexpr BlockSlices block_slices(std::uint64_t reach, std::uint64_t multiple, unsigned warps) {
  if (reach > warps * block_slice_reach) return {};
  const std::uint64_t want = min_u64(warps, ceil_div(reach, min_slice_elements));
  const std::uint64_t slice = ceil_div(ceil_div(reach, want), multiple) * multiple;
  const std::uint64_t slices = ceil_div(reach, slice);
  if (slices < 2) return {};
  return {slice, slices, unsigned(warps / slices)};
}

}  // namespace gpureduce::detail
