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

namespace gpureduce::exact {

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
// 7.9-8.7 us whatever its size up to 128 KB, one block a time that grows with the input. H100,
// 107fbdf, one block forced against a grid of one batch per reader, three rounds
// (bench/results/*_exact_one_block_limit{,_between}_107fbdf.txt), us:
//   float64  64 KB 7.84 against 8.74, 72 KB 8.21 against 8.45, 80 KB 8.80 against 8.54,
//            96 KB 8.61 against 8.42, 128 KB 9.30 against 8.66
//   float32  32 KB 7.06 against 8.00, 40 KB 7.58 against 7.90, 48 KB 8.10 against 7.94
//   float16 and bfloat16  40 KB 7.94-8.10 against 8.26-8.45, 48 KB 8.50-8.82 against 8.29-8.48
// (at 307420d, before the words went unnormalized into the packets, a double grid took 10 us and
// one block ran up to 128 KB for double, 64 KB for float, 48 KB for the half types). Since
// ea7875d a double grid takes 0.3-0.5 us less (kernel/exact_kernel.cuh, combine_packets); at
// 92d53df (*_exact_one_block_limit_double_92d53df.txt) 64 KB 7.90 against 8.26, 72 KB 8.37
// against 8.29, 80 KB 8.80 against 8.24: 72 KB stays.
GPUREDUCE_HD constexpr std::uint64_t single_block_max_bytes(int words) {
  return (words >= sum_terms<double>().words() ? 72 : 40) * 1024;
}

// Evict-first loads in L2 (thread/vector_load.cuh) from 16 MB up to 4x the L2 size, where the
// plain grids take them from the smallest size (tuning_sm90.hpp). H100, A/B in one run, two
// rounds, exact sums against plain loads (bench/results/*_ab_exact_narrow_ef_ac66a79.txt, "new"
// and "ef"), time ratio: float32 2^24 0.904 (39.95 -> 36.14 us), float64 2^22-2^24 0.92-0.93,
// float16 and bfloat16 2^24-2^26 0.91-0.95; from 256 MB up 1.00; below 16 MB 0.99-1.06 (float16
// 2^20 1.04, bfloat16 2^22 1.05, float32 2^16-2^20 1.01).
inline constexpr std::uint64_t evict_first_min_bytes = std::uint64_t(16) << 20;
GPUREDUCE_HD constexpr bool evict_first(L2Policy policy, std::uint64_t bytes, std::uint64_t l2_bytes) {
  if (policy != L2Policy::automatic) return policy == L2Policy::evict_first;
  return bytes >= evict_first_min_bytes && bytes <= TuningSm90<4>::evict_first_max_l2 * l2_bytes;
}

// A grid's blocks: a combiner block and one batch per reading block at most, no more blocks than
// are resident or than the workspace holds packets for, rounded down to whole waves over the SMs
// where there are more blocks than SMs. A full wave: the combiner takes one reader's place, except
// where each reader takes 64 batches or more and the wave fills every resident slot; then the
// combiner comes after the wave, once a reader exits. H100, A/B in one run, three rounds
// (bench/results/*_ab_exact_combiner_beyond_wave_experiment_832a619.txt), time: float32 2^28 0.990
// and 2^30 0.987 (1415.4 -> 1397.2 us), float16 and bfloat16 2^30 0.994-0.997. Where the wave
// leaves slots free (double: 132 blocks of 179 allowed, 2 resident per SM) the combiner after it
// shares an SM with a reader from the start and polls through its whole run: float64 2^30 1.015.
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

}  // namespace gpureduce::exact
