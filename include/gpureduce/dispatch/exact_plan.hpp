// Launch arithmetic of the exact sum, host-testable: workspace per block, grid size, limits.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/dispatch/tuning_sm90.hpp>
#include <gpureduce/exact/format.hpp>
#include <gpureduce/grid/arithmetic.hpp>
#include <gpureduce/grid/exact_packets.hpp>
#include <gpureduce/grid/vector_split.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail::exact {

// Reading blocks whose packets (grid/exact_packets.hpp) fit the grid workspace's flagged slots,
// one slot per packet; a grid has these and its combiner block. The flagged slots are empty
// between launches (every packet is emptied by the combiner), as the plain grids need them; the
// ticketed region and the atomic end's words after them are left as they are.
GPUREDUCE_HD constexpr std::uint64_t max_readers(int words) { return max_grid_blocks / packets(words); }
GPUREDUCE_HD constexpr std::uint64_t max_blocks(int words) { return max_readers(words) + 1; }

// Elements per thread are capped so that no shared word takes more than 2^30 deposits
// (32 lanes x 2^24 + the final ones).
inline constexpr std::uint64_t max_elements_per_thread = std::uint64_t(1) << 24;

// 512 threads x 4 vectors in flight per block: one block per SM already has 32 KB in flight, and
// the double accumulator's 23 packets leave room for 178 readers, more than the 132 SMs.
inline constexpr unsigned threads = 512;
inline constexpr int unroll = 4;

// Up to this many bytes one block does everything: no workspace, no hand-off. A grid costs about
// 8 us whatever its size up to 128 KB, one block a time that grows with the input (H100, each
// forced: float64 72 KB 8.37 us one block, 8.29 grid; float32 40 KB 7.58 against 7.90).
GPUREDUCE_HD constexpr std::uint64_t single_block_max_bytes(int words) {
  return (words >= sum_terms<double>().words() ? 72 : 40) * 1024;
}

// Evict-first loads in L2 (thread/vector_load.cuh) from 16 MB up to 4x the L2 size, where the
// plain grids take them from the smallest size (H100: float32 2^24 39.95 -> 36.14 us; below 16 MB
// 0.99-1.06x of the plain loads' time).
inline constexpr std::uint64_t evict_first_min_bytes = std::uint64_t(16) << 20;
GPUREDUCE_HD constexpr bool evict_first(L2Policy policy, std::uint64_t bytes, std::uint64_t l2_bytes) {
  if (policy != L2Policy::automatic) return policy == L2Policy::evict_first;
  return bytes >= evict_first_min_bytes && bytes <= evict_first_max_l2_sm90 * l2_bytes;
}

// A grid's blocks: a combiner block and one batch per reading block at most, no more blocks than
// are resident or than the workspace holds packets for, rounded down to whole waves over the SMs
// where there are more blocks than SMs. A full wave: the combiner takes one reader's place, except
// where each reader takes 64 batches or more and the wave fills every resident slot; then the
// combiner comes after the wave, once a reader exits (H100: float32 2^30 1415.4 -> 1397.2 us).
// Where the wave leaves slots free (double: 2 resident per SM) the combiner after it would share an
// SM with a reader from the start (float64 2^30 1.015x the time).
GPUREDUCE_HD constexpr std::uint64_t grid_blocks(std::uint64_t vectors, unsigned block_threads, std::uint64_t resident,
                                                 std::uint64_t sms, int words) {
  std::uint64_t g = min_u64(resident, max_blocks(words));
  if (g > sms) g -= g % sms;
  const std::uint64_t batches = ceil_div(vectors, std::uint64_t(block_threads) * unroll);
  if (batches >= 64 * g && g == resident && g < max_blocks(words)) return g + 1;
  return max_u64(2, min_u64(g, batches + 1));
}

// The launch's blocks: one for small inputs, else the grid.
GPUREDUCE_HD constexpr std::uint64_t plan_blocks(std::uint64_t vectors, unsigned block_threads, std::uint64_t resident,
                                                 std::uint64_t sms, int words) {
  if (vectors * vector_bytes <= single_block_max_bytes(words)) return 1;
  return grid_blocks(vectors, block_threads, resident, sms, words);
}

// The blocks of a grid that read the input: all but the combiner.
GPUREDUCE_HD constexpr std::uint64_t readers(std::uint64_t blocks) { return blocks > 1 ? blocks - 1 : 1; }

}  // namespace gpureduce::detail::exact
