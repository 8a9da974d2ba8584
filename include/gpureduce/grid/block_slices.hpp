// Short runs sliced within one block (interleaved and narrow columns): up to `warps` slices of a
// run, a warp each, their partials combined in the block in slice order, so that a few short runs
// take one launch rather than a kernel and a combine. A slice is a multiple of `multiple` elements
// and about min_slice_elements or more; slices are a power of two, no more than the `most` that
// fill the device (more would only add each warp's fold of its lanes); per block, warps / slices
// runs.
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
// block_slice_reach or too short to split. `warps` is a power of two.
GPUREDUCE_HD constexpr BlockSlices block_slices(std::uint64_t reach, std::uint64_t multiple, unsigned warps,
                                                std::uint64_t most) {
  if (reach > warps * block_slice_reach) return {};
  const std::uint64_t cap = min_u64(min_u64(warps, most), ceil_div(reach, min_slice_elements));
  std::uint64_t want = 1;
  while (want * 2 <= cap) want *= 2;
  const std::uint64_t slice = ceil_div(ceil_div(reach, want), multiple) * multiple;
  const std::uint64_t slices = ceil_div(reach, slice);
  if (slices < 2) return {};
  return {slice, slices, unsigned(warps / slices)};
}

}  // namespace gpureduce::detail
