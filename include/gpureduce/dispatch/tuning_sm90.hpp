// Launch constants for sm_90, per element size, as rows of ReduceTuning (launch_plan.hpp). Each
// constant names the GPU and the figure it was chosen on; times are `gpureduce bench` medians
// (events, cold L2), and `tools/device-run COMMIT tune` (each kernel forced) or the probe named
// re-measures them.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>

#include <cstddef>

namespace gpureduce::detail {

template <std::size_t ElemBytes>
struct TuningSm90 {
  // Grid: 256 threads x 4 vectors of 16 B in flight (H100: ladder r9 read 3028 GB/s with it at
  // 2^28 int32, 101% of a plain streaming read). One block: 512 threads x 4 vectors, up to 64 KB,
  // 32 KB for 1-byte elements (H200, each forced: 32 KB one block ahead in every row; int32 sum of
  // 2^14 one block 4.61 us, grid 4.35).
  //
  // Evict-first loads up to 4x the L2 size, plain above (H100, 2^24 int32 read after the flush:
  // 33.1 -> 28.5 us evict-first; 1 GB: 357 -> 370 us, hence the limit).
  static constexpr unsigned evict_first_max_l2 = 4;
  // Up to 2048 batches (32 MB) at most 257 blocks, each reading several batches: the largest grid
  // whose last block polls one slot per thread (H100: int32 sum of 2^22 12.74 -> 12.10 us).
  static constexpr std::uint64_t few_blocks_max_batches = 2048;
  // Records in vectors of more than 16 bytes keep about 64 B in flight in fewer vectors (H100,
  // record_probe: float3 sum 2^14 5.79 us with one 48-byte vector per thread, 6.34 with two).
  static constexpr int unroll = vector_span_bytes(ElemBytes) == 16 ? 4 : vector_span_bytes(ElemBytes) == 32 ? 2 : 1;
  // Up to 512 vectors one block holds at most one vector per thread, with no batch loop (H200:
  // 0.94x of the time up to 256 vectors; float32 sum of 32 3.87 -> 3.54 us, CUB 3.66).
  static constexpr ReduceTuning value{.grid_threads = 256,
                                      .grid_unroll = unroll,
                                      .single_threads = 512,
                                      .single_unroll = unroll,
                                      .single_block_max_bytes = ElemBytes >= 2 ? 64 * 1024 : 32 * 1024,
                                      .evict_first_max_l2 = evict_first_max_l2,
                                      .one_vector_max_threads = 512,
                                      .few_blocks_max_batches = few_blocks_max_batches};
  // Values that cost more than a load and an operator each (a transform, a record's fields): one
  // block up to one of its batches (16 KB for 1-byte elements), the grid beyond, where the grid's
  // blocks hand over flagged partials (H100, each forced: 4-byte pixels of 64 KB one block 6.27
  // us, grid 4.96; tools/probes/record_probe.cu re-measures the record rows).
  static constexpr ReduceTuning with_element_work(ReduceTuning t) {
    const std::uint64_t batch =
        std::uint64_t(t.single_threads) * unsigned(t.single_unroll) * vector_span_bytes(ElemBytes);
    const std::uint64_t limit = ElemBytes == 1 ? 16 * 1024 : batch;
    if (limit < t.single_block_max_bytes) t.single_block_max_bytes = limit;
    return t;
  }
  // Arrays of records from 16x L2 run on 6 waves of resident blocks, not one: blocks that start as
  // others finish even out slow SMs (H100: two doubles from byte 8 at 2^28 0.93x of one wave's
  // time). Records keep their own one-block kernels (one vector per thread bought them nothing).
  static constexpr ReduceTuning with_record_waves(ReduceTuning t) {
    t.one_vector_max_threads = 0;
    t.waves_min_l2 = 16;
    t.grid_waves = 6;
    t.waves_min_dram_gbps = 0;
    return t;
  }
  // 4- and 8-byte numbers from 16x L2 take several waves on devices of at least 4.5 TB/s (H200:
  // int32 sum of 4 GB 940.0 -> 933.5 us, CUB 936.8); on the H100 (3.35 TB/s) they lost 0.3-0.9%.
  static constexpr ReduceTuning with_number_waves(ReduceTuning t) {
    if constexpr (ElemBytes == 4 || ElemBytes == 8) {
      t.waves_min_l2 = 16;
      t.grid_waves = 6;
      t.waves_min_dram_gbps = 4500;
    }
    return t;
  }
  // Records read one per load of more than 8 bytes or of 1- and 2-byte alignment, and records in
  // staged vectors: the few-blocks grid up to 4096 batches (fewer warps share an SM's L1, where a
  // record's later loads hit), and several waves from 4x L2 (H100, record_probe: 36-byte structs
  // at 2^22 0.93-0.94x of the time; 7-byte records at 2^26 0.94x).
  static constexpr ReduceTuning with_record_loads(ReduceTuning t) {
    t.few_blocks_max_batches = 2 * few_blocks_max_batches;
    t.waves_min_l2 = evict_first_max_l2;
    return t;
  }
  // Of those, records whose staged vectors span 208 bytes or more: the most threads whose vectors
  // the stage holds in one part (128 or 64), on a full grid (H100, record_probe: 17 int8 fields at
  // 2^28 0.66x of one per load's time; 256 threads spilled).
  static constexpr ReduceTuning with_narrow_staged_blocks(ReduceTuning t, unsigned threads) {
    t.grid_threads = threads;
    t.few_blocks_max_batches = 0;
    return t;
  }
  // Of those, records of under 24 bytes in words of 1, 2 or 4 bytes: 8 in flight per thread, not 4,
  // on grids of several waves, from 4x L2 (words of 1-2 bytes) or 32x (H100, record_probe: 7-byte
  // records at 2^28 0.98x of the time; 20-byte structs lost below 32x on the H200).
  static constexpr ReduceTuning with_small_record_loads(ReduceTuning t, std::size_t word) {
    t.waves_unroll = 2 * t.grid_unroll;
    t.waves_unroll_min_l2 = word < 4 ? evict_first_max_l2 : 32;
    return t;
  }
  // Of those, records of more than 16 int8 or int16 fields: one record in flight per thread and one
  // block of 256 threads up to 256 records (4 per thread spilled; H100, record_probe: 43 int8
  // fields at 2^11 0.82x CUB before, 1.37x after).
  static constexpr ReduceTuning with_many_narrow_fields(ReduceTuning t) {
    t.grid_min_blocks = 0;
    t.single_min_blocks = 0;
    t.grid_unroll = 1;
    t.single_threads = 256;
    t.single_unroll = 1;
    t.single_block_max_bytes = 256 * ElemBytes;
    return t;
  }
  // argmin/argmax of records read in vectors: no register floor (with it ptxas spilled 376-2288
  // bytes; H100, record_probe: 13 int16 fields at 2^22 0.52x CUB -> 1.17x).
  static constexpr ReduceTuning with_record_keys(ReduceTuning t) {
    t.grid_min_blocks = 0;
    t.single_min_blocks = 0;
    return t;
  }
  // argmin/argmax of records read one per load in more than 8 words of 4 bytes or more: a floor of
  // 3 blocks, not 4 (H100, record_probe: 9 floats at 2^28 0.954x CUB -> 0.985x).
  static constexpr ReduceTuning with_wide_record_keys(ReduceTuning t) {
    t.grid_min_blocks = 3;
    return t;
  }
  // Records read one per load, up to `records` of them: the one-block kernel with one record in
  // flight per thread, 256 threads up to 256 records, 512 beyond (4 per thread loaded a thread's
  // lone record four times over; H100, record_probe: 5 int8 fields, 256 records 4.42 -> 4.06 us).
  static constexpr ReduceTuning with_one_record_per_thread(ReduceTuning t, unsigned records) {
    if (t.small_single_threads == 0) t.small_single_threads = 256;
    t.one_per_thread_max_bytes = std::uint64_t(records < t.single_threads ? records : t.single_threads) * ElemBytes;
    return t;
  }
  // Dot products: one block up to 32 KB per array (H100, each forced: float16 2^15 one block 6.83
  // us, grid 5.49; float64 2^12 5.04 / 5.72).
  static constexpr ReduceTuning dot = [] {
    ReduceTuning t = value;
    t.single_block_max_bytes = 32 * 1024;
    return t;
  }();
  // A dot product's second array at another offset than the first: shifted vectors for 1-byte
  // elements, for 2-byte ones from 16 MB per array and, floating, in one block; element by element
  // otherwise (H100: float16 2^14 5.34 -> 4.70 us shifted, 2^20 7.30 -> 7.55).
  static constexpr bool shifted_dot_b(std::uint64_t n, bool floating) {
    const std::uint64_t bytes = n * ElemBytes;
    if (ElemBytes == 1 || bytes >= (std::uint64_t(16) << 20)) return true;
    return floating && takes_one_block(n, ElemBytes, dot);
  }
  // argmin/argmax: at least 5 resident blocks per SM (4 for 1- and 8-byte elements) so that ptxas
  // issues a batch's four loads together (H100: float32 argmax 2^18 8.0 -> 7.5 us). One block up to
  // 56 KB, 32 KB for 1 byte (the grid wins at 64 KB: float32 2^14 5.37 one block, 5.25 grid), and
  // 256 threads up to 16 KB (H100: int64 argmax 2^10 4.64 -> 4.32 us, CUB 4.32).
  static constexpr ReduceTuning arg_extreme = [] {
    ReduceTuning t = value;
    t.single_block_max_bytes = ElemBytes == 1 ? 32 * 1024 : 56 * 1024;
    t.grid_min_blocks = ElemBytes == 2 || ElemBytes == 4 ? 5u : 4u;
    t.single_min_blocks = 2;
    t.small_single_max_bytes = 16 * 1024;
    t.small_single_threads = 256;
    return t;
  }();
};

}  // namespace gpureduce::detail
