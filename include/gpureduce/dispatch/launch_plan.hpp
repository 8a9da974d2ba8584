// Launch arithmetic of the production path, host-testable: which kernel, how many blocks.
#pragma once

#include <gpureduce/grid/arithmetic.hpp>
#include <gpureduce/options.hpp>
#include <gpureduce/grid/vector_split.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail {

struct ReduceTuning {
  unsigned grid_threads;               // threads per block of grid_kernel
  int grid_unroll;                     // 16-byte vectors in flight per thread
  unsigned single_threads;             // threads of single_block_kernel
  int single_unroll;
  std::uint64_t single_block_max_bytes;  // inputs up to this size take the one-block kernel
  // __launch_bounds__ minimum blocks per SM of each kernel (0: none). A bound caps registers at
  // 64K / (blocks x threads), and it also moves ptxas's own register target, which is what it is
  // used for (tuning_sm90.hpp).
  unsigned grid_min_blocks = 0;
  unsigned single_min_blocks = 0;
  // The grid kernel's vector loads mark their lines evict-first in L2 for inputs of up to this
  // many times the L2 size, normal above (0: never).
  unsigned evict_first_max_l2 = 0;
  // Inputs up to this size take the one-block kernel with small_single_threads threads instead (0:
  // never): fewer warps to combine where the input is one batch of theirs.
  std::uint64_t small_single_max_bytes = 0;
  unsigned small_single_threads = 0;
  // Inputs up to this size take the one-block kernel with one vector per thread, not
  // single_unroll (0: never): no batch to pad or to load under tests (one_per_thread_threads).
  std::uint64_t one_per_thread_max_bytes = 0;
  // Inputs of up to this many vectors take the one-block kernel with one vector per thread and no
  // batch loop, on one_vector_threads() threads (0: never).
  unsigned one_vector_max_threads = 0;
  // Inputs of up to this many batches (grid_unroll x grid_threads vectors each) run on at most
  // polled_grid_blocks(), the largest grid whose last block polls one slot per thread; each block
  // then reads several batches (0: no such limit).
  std::uint64_t few_blocks_max_batches = 0;
  // Inputs of at least this many times the L2 size run on grid_waves whole waves of resident
  // blocks, as many as max_grid_blocks holds, rather than one (0: never).
  unsigned waves_min_l2 = 0;
  unsigned grid_waves = 1;
  // ... and only on devices whose DRAM bandwidth (dram_gbps) is at least this many GB/s (0: any).
  std::uint64_t waves_min_dram_gbps = 0;
};

// The largest grid whose last block polls one slot per thread: one slot per other block
// (kernel/reduce_kernels.cuh, fold_flagged).
GPUREDUCE_HD constexpr std::uint64_t polled_grid_blocks(const ReduceTuning& t) {
  return std::uint64_t(t.grid_threads) + 1;
}

// grid: the grid kernel the size calls for; waves: the grid kernel with plain loads on grids of
// several waves at any size (tests force it).
enum class Kernel : unsigned char { automatic, one_block, grid, waves };

// The grid workspace holds one partial per block; 4096 blocks cover 31 resident blocks per SM on a
// 132-SM H100. Layout (zero-filled once; every launch leaves it ready for the next on its stream):
//   [0, 4)    ticket counter, zero between launches (the grid kernel's for accumulators that are not
//             flaggable; long_segments_kernel's)
//   [8, 16)   the batch-invariant long segments' cursor (grid/long_segments.hpp), zero between
//             launches
//   [16, ...) flagged partials (grid/flagged_partial.hpp): 16 bytes per block, empty (zero)
//             between launches; an exact sum's packets take these slots too, several per block
//             (grid/exact_packets.hpp, exact_plan.hpp), and are emptied the same way
//   [...]     ticketed partials: one 16-byte accumulator per block
//   [...]     the atomic end's ticket word and, 128 bytes on (never on the ticket's line), its
//             published generation (grid/atomic_end.hpp): equal generations and no tickets drawn
//             between launches, the only words not zero then
inline constexpr std::uint64_t max_grid_blocks = 4096;
inline constexpr std::size_t grid_long_cursor_offset = 8;
inline constexpr std::size_t grid_flagged_offset = 16;
inline constexpr std::size_t grid_ticketed_offset = grid_flagged_offset + max_grid_blocks * 16;
inline constexpr std::size_t grid_ticketed_bytes = max_grid_blocks * 16;
inline constexpr std::size_t grid_generation_offset = grid_ticketed_offset + grid_ticketed_bytes;
inline constexpr std::size_t grid_published_offset = grid_generation_offset + 128;
inline constexpr std::size_t grid_workspace_bytes = grid_published_offset + 128;

// Grids of up to this many blocks end in a combiner block: the last block reads no input and, from
// its start, its warp 0 polls the other blocks' flagged partials (4 per lane, all in flight) and
// reduces them by shuffles (kernel/reduce_kernels.cuh), off the readers' critical path and with no
// block barrier after the poll (H100: 0.96-0.99x of the time at 2^15-2^18; int32 sum 2^16 5.28 ->
// 5.04 us). 8 slots per lane took the kernels to 47-64 registers and lost up to 129 blocks; more
// polling warps, or polling only the slots the grid needs, lost 1-2%.
inline constexpr unsigned combiner_slots_per_lane = 4;
inline constexpr std::uint64_t max_combiner_blocks = 1 + 32 * combiner_slots_per_lane;

struct LaunchPlan {
  Kernel kernel;  // never automatic
  unsigned threads;
  std::uint64_t blocks;
  // The grid has one block that reads nothing: the last one, which combines (max_combiner_blocks),
  // or for an atomic end block 0 (any grid).
  bool combiner = false;
};

// The block of the one-block kernel with one vector per thread (one_per_thread_max_bytes) for n
// elements of elem_bytes, each of them one vector: small_single_threads threads where they hold n,
// single_threads beyond; 0 where n is above the limit.
GPUREDUCE_HD constexpr unsigned one_per_thread_threads(std::uint64_t n, unsigned elem_bytes, const ReduceTuning& t) {
  if (t.one_per_thread_max_bytes == 0 || n > t.one_per_thread_max_bytes / elem_bytes) return 0;
  return n <= t.small_single_threads ? t.small_single_threads : t.single_threads;
}

// The block of the one-block kernel with at most one vector per thread (Batches::at_most_one) for
// an input of `vectors` whole vectors: 256 threads up to 256 of them, one_vector_max_threads up to
// that many; 0 beyond, or where the tuning has none.
GPUREDUCE_HD constexpr unsigned one_vector_threads(std::uint64_t vectors, const ReduceTuning& t) {
  if (t.one_vector_max_threads == 0 || vectors > t.one_vector_max_threads) return 0;
  return vectors <= 256 ? 256 : t.one_vector_max_threads;
}

// Whether n elements of elem_bytes take the one-block kernel. Where its limit is one batch of
// 16-byte vectors, a scalar tail of less than a vector rides along at any alignment (for elements
// that tile a vector) rather than costing the grid's hand-off (H200: int8 max of 32769 elements
// 4.70 -> 4.10 us). Past a limit of two batches the tail gained nothing or lost (int32 sum of 16385
// 4.51 -> 4.70), so there the limit is exact.
GPUREDUCE_HD constexpr bool takes_one_block(std::uint64_t n, unsigned elem_bytes, const ReduceTuning& t) {
  const std::uint64_t batch = std::uint64_t(t.single_threads) * unsigned(t.single_unroll) * 16;
  const bool tail = elem_bytes < 16 && 16 % elem_bytes == 0 && t.single_block_max_bytes <= batch;
  return n <= (t.single_block_max_bytes + (tail ? 16 - elem_bytes : 0)) / elem_bytes;
}

// The kernel by input size (force: a kernel chosen by the caller, for tests and benchmarks), and
// its block size and grid: the one-block kernel's block size by input size, forced or not;
// grid_blocks > 0 fixes the grid kernel's block count (capped at max_grid_blocks). combiner_ok: the
// call can end in a combiner block; a grid that then has room below max_combiner_blocks and the
// resident limit gets one block more than it has readers (forced: the combiner is one of them).
// atomic_end: the extra block is the atomic end's block 0 (grid/atomic_end.hpp), which no block
// polls for, so every grid takes it, a full wave with one reader fewer (H100: int32 sum of 2^24
// 29.89 -> 29.06 us against a grid that stopped at 258 blocks).
GPUREDUCE_HD constexpr LaunchPlan plan_launch(std::uint64_t n, std::uint64_t addr, unsigned elem_bytes,
                                              const ReduceTuning& t, std::uint64_t max_resident_blocks,
                                              Kernel force = Kernel::automatic, std::uint64_t grid_blocks = 0,
                                              bool combiner_ok = false, bool atomic_end = false) {
  Kernel k = force;
  if (k == Kernel::automatic) k = takes_one_block(n, elem_bytes, t) ? Kernel::one_block : Kernel::grid;
  if (k == Kernel::one_block) {
    const bool small = t.small_single_threads != 0 && n <= t.small_single_max_bytes / elem_bytes;
    return {k, small ? t.small_single_threads : t.single_threads, 1};
  }
  if (grid_blocks > 0) {
    const std::uint64_t blocks = min_u64(grid_blocks, max_grid_blocks);
    return {k, t.grid_threads, blocks, combiner_ok && blocks >= 2 && (atomic_end || blocks <= max_combiner_blocks)};
  }
  const VectorSplit split = VectorSplit::make(addr, n, elem_bytes);
  const std::uint64_t per_batch = std::uint64_t(t.grid_unroll) * t.grid_threads;
  const std::uint64_t batches = ceil_div(split.vectors, per_batch);
  const std::uint64_t cap = min_u64(max_resident_blocks, max_grid_blocks);
  const std::uint64_t limit = batches <= t.few_blocks_max_batches ? min_u64(cap, polled_grid_blocks(t)) : cap;
  const std::uint64_t readers = max_u64(1, min_u64(batches, limit));
  if (combiner_ok && atomic_end && cap >= 2) return {k, t.grid_threads, min_u64(readers, cap - 1) + 1, true};
  if (combiner_ok && readers + 1 <= min_u64(cap, max_combiner_blocks)) return {k, t.grid_threads, readers + 1, true};
  return {k, t.grid_threads, readers};
}

// A device's theoretical DRAM bandwidth in GB/s (1e9 bytes/s) from its attributes: two transfers
// per memory clock (cudaDevAttrMemoryClockRate, kHz) over the bus (cudaDevAttrGlobalMemoryBusWidth,
// bits). H100 80GB HBM3: 3352; H200: 4814.
GPUREDUCE_HD constexpr double dram_gbps(std::uint64_t memory_clock_khz, std::uint64_t bus_bits) {
  return 2.0 * double(memory_clock_khz) * 1e3 * (double(bus_bits) / 8.0) / 1e9;
}

// The tuning on a device of `device_dram_gbps`: no grids of several waves where the tuning asks
// for more bandwidth than it has (ReduceTuning::waves_min_dram_gbps).
GPUREDUCE_HD constexpr ReduceTuning on_device(ReduceTuning t, double device_dram_gbps) {
  if (device_dram_gbps < double(t.waves_min_dram_gbps)) t.waves_min_l2 = 0;
  return t;
}

// Whether n elements of `bytes_per_element` run on grids of several waves: at least t.waves_min_l2
// times l2_bytes.
GPUREDUCE_HD constexpr bool several_waves(std::uint64_t n, unsigned bytes_per_element, std::uint64_t l2_bytes,
                                          const ReduceTuning& t) {
  return t.waves_min_l2 != 0 && n >= std::uint64_t(t.waves_min_l2) * l2_bytes / bytes_per_element;
}

// The most blocks the grid kernel gets (plan_launch's max_resident_blocks): one wave of `resident`
// blocks, or where several_waves, t.grid_waves whole waves, as many as fit in max_grid_blocks (at
// least one).
GPUREDUCE_HD constexpr std::uint64_t grid_block_limit(std::uint64_t n, unsigned bytes_per_element,
                                                      std::uint64_t l2_bytes, std::uint64_t resident,
                                                      const ReduceTuning& t) {
  if (!several_waves(n, bytes_per_element, l2_bytes, t)) return resident;
  return resident * max_u64(1, min_u64(t.grid_waves, max_grid_blocks / max_u64(resident, 1)));
}

// Whether the grid kernel loads evict-first (Options::l2; docs/design.md, "Loads"), for n elements
// of `bytes_per_element` (all arrays read) on a device with l2_bytes of L2: under
// L2Policy::automatic up to ReduceTuning::evict_first_max_l2 times the L2 size, plainly above;
// L2Policy::normal keeps the default priority, for an input a later kernel reads again.
GPUREDUCE_HD constexpr bool evict_first_loads(L2Policy policy, std::uint64_t n, unsigned bytes_per_element,
                                              std::uint64_t l2_bytes, const ReduceTuning& t) {
  if (policy != L2Policy::automatic) return policy == L2Policy::evict_first;
  return n <= std::uint64_t(t.evict_first_max_l2) * l2_bytes / bytes_per_element;
}

}  // namespace gpureduce::detail
