// Launch arithmetic of the production path, host-testable: which kernel, how many blocks.
#pragma once

#include <gpureduce/grid/arithmetic.hpp>
#include <gpureduce/grid/vector_split.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce {

struct ReduceTuning {
  unsigned grid_threads;               // threads per block of grid_kernel
  int grid_unroll;                     // 16-byte vectors in flight per thread
  unsigned single_threads;             // threads of single_block_kernel
  int single_unroll;
  std::uint64_t single_block_max_bytes;  // inputs up to this size take the one-block kernel
};

// The grid workspace holds one partial per block; 4096 blocks of 16-byte partials (the largest
// accumulator) cover 31 resident blocks per SM on a 132-SM H100.
inline constexpr std::uint64_t max_grid_blocks = 4096;

struct LaunchPlan {
  bool single_block;
  unsigned threads;
  std::uint64_t blocks;
};

// forced_blocks: 0 picks by size; 1 forces the one-block kernel; k > 1 forces a grid of k blocks
// (capped at max_grid_blocks). Used by tests and the benchmark to compare paths on the same input.
GPUREDUCE_HD constexpr LaunchPlan plan_launch(std::uint64_t n, std::uint64_t addr, unsigned elem_bytes,
                                              const ReduceTuning& t, std::uint64_t max_resident_blocks,
                                              std::uint64_t forced_blocks = 0) {
  if (forced_blocks == 1 || (forced_blocks == 0 && n <= t.single_block_max_bytes / elem_bytes))
    return {true, t.single_threads, 1};
  if (forced_blocks > 1) return {false, t.grid_threads, min_u64(forced_blocks, max_grid_blocks)};
  const VectorSplit split = VectorSplit::make(addr, n, elem_bytes);
  const std::uint64_t per_batch = std::uint64_t(t.grid_unroll) * t.grid_threads;
  const std::uint64_t cap = min_u64(max_resident_blocks, max_grid_blocks);
  return {false, t.grid_threads, max_u64(1, min_u64(ceil_div(split.vectors, per_batch), cap))};
}

}  // namespace gpureduce
