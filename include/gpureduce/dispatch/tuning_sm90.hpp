// Launch constants for sm_90: one table of ReduceTuning rows (launch_plan.hpp), keyed by what
// selects them: the input's kind, the operator's class and the element size. Each row names the GPU
// and the figure it was chosen on; times are `gpureduce bench` medians (events, cold L2), and
// `tools/device-run COMMIT tune` (each kernel forced) or the probe named re-measures them.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/grid/merge_path.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail {

// What a reduction reads, as the table tells inputs apart (dispatch_reduce.cuh, input_kind).
enum class InputKind : unsigned char {
  numbers,                    // an array of numbers, as loaded
  complex,                    // an array of complex numbers, as loaded
  transformed,                // an array of numbers under a transform
  dot,                        // the products of two arrays
  records_in_vectors,         // records (structs) read in whole vectors (agent/sources.cuh)
  records_in_staged_vectors,  // records of 1- and 2-byte fields in vectors of 112-688 bytes, staged
  records_in_words,           // records read one per load, as one or two words of 4 bytes or more
  records_in_loads,           // records read one per load, in up to 8 loads
  records_in_more_loads,      // records read one per load, in 9 or more
  records_of_narrow_fields,   // records read one per load, of more than 16 fields of 1 or 2 bytes
};

// argmin/argmax, or any other operator.
enum class OpClass : unsigned char { fold, arg_extreme };

struct TuningRow {
  InputKind input;
  OpClass op;
  std::size_t bytes;  // the element size the row is for (0: every other)
  ReduceTuning tuning;
};

// Evict-first loads up to 4x the L2 size, plain above (H100, 2^24 int32 read after the flush:
// 33.1 -> 28.5 us evict-first; 1 GB: 357 -> 370 us, hence the limit).
inline constexpr unsigned evict_first_max_l2_sm90 = 4;

namespace sm90 {
constexpr std::uint64_t kb = 1024;
// Grid: 256 threads x 4 vectors of 16 B in flight (H100: ladder r9 read 3028 GB/s with it at 2^28
// int32, 101% of a plain streaming read). One block: 512 threads x 4 vectors up to 64 KB (H200,
// each forced: int32 sum of 2^14 one block 4.61 us, grid 4.35). Up to 2048 batches (32 MB) at most
// 257 blocks, each reading several batches (H100: int32 sum of 2^22 12.74 -> 12.10 us). Up to 512
// vectors one block holds at most one per thread, with no batch loop (H200: float32 sum of 32
// 3.87 -> 3.54 us, CUB 3.66).
constexpr ReduceTuning fold{.grid_threads = 256,
                            .grid_unroll = 4,
                            .single_threads = 512,
                            .single_unroll = 4,
                            .single_block_max_bytes = 64 * kb,
                            .evict_first_max_l2 = evict_first_max_l2_sm90,
                            .one_vector_max_threads = 512,
                            .few_blocks_max_batches = 2048};
// 4- and 8-byte numbers from 16x L2 on 6 waves of resident blocks on devices of at least 4.5 TB/s
// (H200: int32 sum of 4 GB 940.0 -> 933.5 us, CUB 936.8; the H100 lost 0.3-0.9% so).
constexpr ReduceTuning with_waves(ReduceTuning t) {
  t.waves_min_l2 = 16;
  t.grid_waves = 6;
  t.waves_min_dram_gbps = 4500;
  return t;
}
// argmin/argmax: at least 5 resident blocks per SM (`min_blocks`; 4 for 1- and 8-byte elements) so
// that ptxas issues a batch's four loads together (H100: float32 argmax 2^18 8.0 -> 7.5 us). One
// block up to 56 KB (the grid wins at 64 KB: float32 2^14 5.37 one block, 5.25 grid), of 256
// threads up to 16 KB (H100: int64 argmax 2^10 4.64 -> 4.32 us, CUB 4.32).
constexpr ReduceTuning arg(unsigned min_blocks) {
  ReduceTuning t = fold;
  t.single_block_max_bytes = 56 * kb;
  t.grid_min_blocks = min_blocks;
  t.single_min_blocks = 2;
  t.small_single_max_bytes = 16 * kb;
  t.small_single_threads = 256;
  return t;
}
// Dot products: one block up to 32 KB per array (H100, each forced: float16 2^15 one block 6.83
// us, grid 5.49; float64 2^12 5.04 / 5.72).
constexpr ReduceTuning dot = [] {
  ReduceTuning t = fold;
  t.single_block_max_bytes = 32 * kb;
  return t;
}();
// Records from 16x L2 on 6 waves of resident blocks, on every device: blocks that start as others
// finish even out slow SMs (H100, record_probe: two doubles at 2^28 0.93x of one wave's time); no
// one-vector block (it bought them nothing).
constexpr ReduceTuning records(ReduceTuning t) {
  t.one_vector_max_threads = 0;
  t.waves_min_l2 = 16;
  t.grid_waves = 6;
  return t;
}
// argmin/argmax of records read in vectors: no register floor (with it ptxas spilled 376-2288
// bytes; H100, record_probe: 13 int16 fields at 2^22 0.52x CUB -> 1.17x).
constexpr ReduceTuning arg_in_vectors = [] {
  ReduceTuning t = records(arg(0));
  t.single_min_blocks = 0;
  return t;
}();
// Records in vectors staged through shared memory (of 1- and 2-byte fields, 112-688 bytes): the
// few-blocks grid up to 4096 batches and several waves from 4x L2, as records of many loads (H100,
// record_probe: 7-byte records at 2^26 0.94x of the time).
constexpr ReduceTuning staged(ReduceTuning t) {
  t.few_blocks_max_batches = 4096;
  t.waves_min_l2 = 4;
  return t;
}
// Records read one per load: one record per thread in one block up to `records` of them, 256
// threads up to 256 (H100, record_probe: 5 int8 fields, 256 records 4.42 -> 4.06 us); one record
// is one 16-byte unit of the split (RecordSource::split_bytes).
constexpr ReduceTuning one_per_load(ReduceTuning t, unsigned records) {
  t = sm90::records(t);
  if (t.small_single_threads == 0) t.small_single_threads = 256;
  t.one_per_thread_max_bytes = std::uint64_t(records < t.single_threads ? records : t.single_threads) * 16;
  return t;
}
// Those of several loads each: the few-blocks grid up to 4096 batches (fewer warps share an SM's
// L1, where a record's later loads hit) and several waves from 4x L2 (H100, record_probe: 36-byte
// structs at 2^22 0.93-0.94x of the time; 7-byte records at 2^26 0.94x).
constexpr ReduceTuning in_loads(ReduceTuning t, unsigned records) {
  t = one_per_load(t, records);
  t.few_blocks_max_batches = 4096;
  t.waves_min_l2 = 4;
  return t;
}
// Of more than 16 fields of 1 or 2 bytes: one record in flight per thread, one block of 256
// threads up to 256 records (H100, record_probe: 43 int8 fields at 2^11 0.82x CUB -> 1.37x).
constexpr ReduceTuning narrow_fields(ReduceTuning t) {
  t.grid_min_blocks = 0;
  t.single_min_blocks = 0;
  t.grid_unroll = 1;
  t.single_threads = 256;
  t.single_unroll = 1;
  t.single_block_max_bytes = 256 * 16;
  return in_loads(t, 256);
}
}  // namespace sm90

// argmin/argmax of records of 9 loads or more take 512 records in one block one per thread: their
// partial batch is loaded with repeats (agent/thread_partial.cuh, keys_last_batch_by_record_v).
inline constexpr TuningRow tuning_sm90[] = {
    {InputKind::numbers, OpClass::fold, 4, sm90::with_waves(sm90::fold)},
    {InputKind::numbers, OpClass::fold, 8, sm90::with_waves(sm90::fold)},
    {InputKind::numbers, OpClass::fold, 0, sm90::fold},
    {InputKind::numbers, OpClass::arg_extreme, 2, sm90::arg(5)},
    {InputKind::numbers, OpClass::arg_extreme, 4, sm90::with_waves(sm90::arg(5))},
    {InputKind::numbers, OpClass::arg_extreme, 8, sm90::with_waves(sm90::arg(4))},
    {InputKind::numbers, OpClass::arg_extreme, 0, sm90::arg(4)},
    {InputKind::complex, OpClass::fold, 0, sm90::fold},
    {InputKind::transformed, OpClass::fold, 0, sm90::fold},
    {InputKind::transformed, OpClass::arg_extreme, 2, sm90::arg(5)},
    {InputKind::transformed, OpClass::arg_extreme, 4, sm90::arg(5)},
    {InputKind::transformed, OpClass::arg_extreme, 0, sm90::arg(4)},
    {InputKind::dot, OpClass::fold, 0, sm90::dot},
    {InputKind::records_in_vectors, OpClass::fold, 0, sm90::records(sm90::fold)},
    {InputKind::records_in_vectors, OpClass::arg_extreme, 0, sm90::arg_in_vectors},
    {InputKind::records_in_staged_vectors, OpClass::fold, 0, sm90::staged(sm90::records(sm90::fold))},
    {InputKind::records_in_staged_vectors, OpClass::arg_extreme, 0, sm90::staged(sm90::arg_in_vectors)},
    {InputKind::records_in_words, OpClass::fold, 0, sm90::one_per_load(sm90::fold, 256)},
    {InputKind::records_in_words, OpClass::arg_extreme, 0, sm90::one_per_load(sm90::arg(4), 256)},
    {InputKind::records_in_loads, OpClass::fold, 0, sm90::in_loads(sm90::fold, 256)},
    {InputKind::records_in_loads, OpClass::arg_extreme, 0, sm90::in_loads(sm90::arg(4), 256)},
    {InputKind::records_in_more_loads, OpClass::fold, 0, sm90::in_loads(sm90::fold, 256)},
    {InputKind::records_in_more_loads, OpClass::arg_extreme, 0, sm90::in_loads(sm90::arg(4), 512)},
    {InputKind::records_of_narrow_fields, OpClass::fold, 0, sm90::narrow_fields(sm90::fold)},
    {InputKind::records_of_narrow_fields, OpClass::arg_extreme, 0, sm90::narrow_fields(sm90::arg(4))},
};

// The row for an input, its operator and element size (`elem_bytes`, its vector spanning
// `span_bytes`: grid/vector_split.hpp), scaled as every row is:
// - about 64 bytes in flight per thread: 4 vectors of 16 bytes, 2 of 32, 1 wider (H100,
//   record_probe: float3 sum 2^14 5.79 us with one 48-byte vector per thread, 6.34 with two);
// - one block up to 32 KB of 1-byte elements (H200, each forced: 32 KB one block ahead in every
//   row);
// - values that cost more than a load and an operator each (`element_work`: a transform, a
//   record's fields) in one block up to one of its batches (16 KB of 1-byte elements), the grid
//   beyond, where the grid's blocks hand over flagged partials (H100, each forced: 4-byte pixels of
//   64 KB one block 6.27 us, grid 4.96);
// - staged vectors of 208 bytes and more in grid blocks of `staged_threads` (128 or 64: the most
//   whose vectors the stage holds in one part; 0 for others), on a full grid (H100, record_probe: 17
//   int8 fields at 2^28 0.66x of one per load's time; 256 threads spilled).
constexpr ReduceTuning tuning_sm90_for(InputKind input, OpClass op, std::size_t elem_bytes, unsigned span_bytes,
                                       bool element_work, unsigned staged_threads = 0) {
  ReduceTuning t{};
  for (const TuningRow& r : tuning_sm90)
    if (r.input == input && r.op == op && (r.bytes == elem_bytes || r.bytes == 0)) {
      t = r.tuning;
      break;
    }
  const auto scaled = [&](int unroll) { return unroll * 16 / int(span_bytes) > 1 ? unroll * 16 / int(span_bytes) : 1; };
  t.grid_unroll = scaled(t.grid_unroll);
  t.single_unroll = scaled(t.single_unroll);
  if (elem_bytes == 1 && t.single_block_max_bytes > 32 * sm90::kb) t.single_block_max_bytes = 32 * sm90::kb;
  if (element_work) {
    const std::uint64_t batch = std::uint64_t(t.single_threads) * unsigned(t.single_unroll) * span_bytes;
    const std::uint64_t limit = elem_bytes == 1 ? 16 * sm90::kb : batch;
    if (limit < t.single_block_max_bytes) t.single_block_max_bytes = limit;
  }
  if (staged_threads != 0) {
    t.grid_threads = staged_threads;
    t.few_blocks_max_batches = 0;
  }
  return t;
}

// A dot product's second array at another offset than the first: shifted vectors for 1-byte
// elements, for 2-byte ones from 16 MB per array and, floating, in one block; element by element
// otherwise (H100: float16 2^14 5.34 -> 4.70 us shifted, 2^20 7.30 -> 7.55).
template <std::size_t ElemBytes>
constexpr bool shifted_dot_b(std::uint64_t n, bool floating) {
  const std::uint64_t bytes = n * ElemBytes;
  if (ElemBytes == 1 || bytes >= (std::uint64_t(16) << 20)) return true;
  constexpr ReduceTuning dot = tuning_sm90_for(InputKind::dot, OpClass::fold, ElemBytes, 16, false);
  return floating && takes_one_block(n, ElemBytes, dot);
}

// Merge-path segments (kernel/csr_segments_kernel.cuh): block size, the bytes of a tile's stage
// (elements and ends; csr_items picks the items per thread), and the blocks per SM the registers
// are held to.
struct CsrTuning {
  unsigned threads;
  unsigned stage_bytes;
  unsigned min_blocks;
};
inline constexpr CsrTuning csr_tuning{256, 44 * 1024, 4};
// The CSR paths by mean segment length (CsrMeans, grid/merge_path.hpp; H100, tools/device-run
// csrpaths: bench --axis --csr-path forcing each, float32 at 2^28, ms). A thread each, staged
// (kernel/staged_rows_kernel.cuh), below 32 (sum: mean 3 1.04 against the tiles' 1.73, mean 15
// 0.81 against 1.12; mean 147 2.39 against a warp each 0.50). 8 lanes each from 64 to 1023 (mean
// 147 sum 0.50 against warp shares 0.59; argmax 1.00 against a warp each 1.39). Warp shares from
// 1024 (mean 1684 sum 0.42 against a warp each 0.45, argmax 0.48 against 0.52; mean 78,490 sum 0.39
// against 1.00). The tiles take 32 to 63.
inline constexpr CsrMeans csr_means{32, 1024, 64, 1024};
// Staged tiles fill `fill_percent` of the stage at the mean length.
// Batch-invariant CSR segments are staged below a mean of `invariant_below` (H100, mean 15 staged
// 0.97 ms against 3.15 a warp each), at most `tile_segments` a tile (their ends staged beside the
// elements; those longer than 32 elements a warp each from the stage), through a stage of
// `invariant_stage_bytes` (H200, a warp per segment: mean 147 0.55 ms against 0.65 with 32 KB, mean
// 1684 0.37 against 0.45; staged mean 3 0.94 against 1.06). Below a mean of `invariant_groups_below`
// a warp takes V segments at once, those of up to `invariant_group_most` elements on 32 / V lanes
// each (H100, bench --axis at 2^28 against the default mode: mean 147 float32 0.97x, up to 512
// 0.89x, a warp each 0.79x; bfloat16 0.70x, 0.54x, 0.52x; means 1684 and 78,490 lost 1-13% so).
struct CsrStagedTuning {
  unsigned fill_percent;
  unsigned tile_segments;
  std::uint64_t invariant_below;
  unsigned invariant_stage_bytes;
  std::uint64_t invariant_groups_below;
  std::uint64_t invariant_group_most;
};
inline constexpr CsrStagedTuning csr_staged_tuning{75, 2048, 64, 16 * 1024, 1024, 128};
// Rows of at most `most` elements back to back take a thread each, staged
// (kernel/staged_rows_kernel.cuh), in blocks of `threads` and tiles of up to `stage_bytes` (H100,
// bench --axis float32 at 2^28: rows of 3 sum 0.65 against 1.44 ms on the merge path; rows of 100 a
// warp each from the stage sum 0.68, max 0.98, against the rows kernel's 0.38 and 0.38),
// `min_blocks` resident a multiprocessor (H200, rows of 3 sum 0.50 against 0.60 ms at 2,
// batch-invariant rows of 4 0.41 against 0.50; 4 blocks of 16 KB stages 0.49 and 0.43).
struct StagedRowsTuning {
  std::uint64_t most;
  unsigned threads;
  unsigned stage_bytes;
  unsigned min_blocks;
};
inline constexpr StagedRowsTuning staged_rows_tuning{32, 256, 32 * 1024, 3};
// Rows of more than 32 elements up to 16 vectors a lane of a warp (rows_kernel, 16-byte vectors):
// 4 lanes a row up to `four_upto` vectors, 8 up to `eight_upto`, a warp beyond; argmin/argmax,
// whose shuffles move 16-byte pairs, on fewer lanes (H100, bench --axis at 2^28, each forced:
// float32 sums of rows of 33 4 lanes 479 us, 8 740, a warp 866; of 256 8 lanes 360, a warp 382; of
// 1024 8 lanes 358, a warp 354; argmax of rows of 100 4 lanes 424, 8 540, a warp 1,593).
struct RowLanesTuning {
  std::uint64_t four_upto;
  std::uint64_t eight_upto;
};
inline constexpr RowLanesTuning row_lanes_fold{24, 64};
inline constexpr RowLanesTuning row_lanes_arg{64, 128};

// Rows that a warp's lanes would slice into pieces of `warp_slice` elements, then combine in a
// second launch, take a block each instead where rows are fewer than `target_blocks` (two waves of
// blocks): a block folds such a row in one launch (H100, bench --axis: bfloat16 sums of 4 x 4096
// 8.38 -> 4.86 us, of 1024 x 4096 12.69 -> 11.78). Rows of more than 16 vectors a lane of a warp
// always take a block.
inline constexpr std::uint64_t warp_slice = 1024;
constexpr bool block_per_row(std::uint64_t rows, std::uint64_t length, unsigned vector_elements,
                             std::uint64_t target_blocks) {
  return length > 16 * std::uint64_t(warp_threads) * vector_elements || (rows < target_blocks && length > warp_slice);
}

// Lanes per row for rows of `vectors` 16-byte vectors: 4, 8 or 32.
constexpr unsigned row_lanes(std::uint64_t vectors, bool arg_extreme) {
  const RowLanesTuning t = arg_extreme ? row_lanes_arg : row_lanes_fold;
  return vectors <= t.four_upto ? 4 : vectors <= t.eight_upto ? 8 : 32;
}

// Rows of a power-of-two length back to back and 16-byte aligned that dense_rows_kernel reads as
// one stream of vectors: up to `fold` vectors a row (sums, min, max), `arg` (argmin/argmax); longer
// ones are staged or take rows_kernel, whose lanes shuffle less per vector (H100, bench --axis at
// 2^28 against up to 32 vectors: bfloat16 sums of rows of 256 188 us against 234, argmax 274
// against 681; float32 argmax of rows of 16 528 against 641, of 32 445 against 733).
struct DenseRowsTuning {
  unsigned fold;
  unsigned arg;
};
inline constexpr DenseRowsTuning dense_rows_vectors{8, 1};

// Batch-invariant slices (dispatch_axis.cuh): elements of a row, rows of a column.
inline constexpr std::uint64_t invariant_row_slice = 16384;
inline constexpr std::uint64_t invariant_column_slice = 256;
// Slices whose partials one block of the batch-invariant combine folds (launch_combine): 8 a
// thread, one round of loads (H100, bench --axis at 2^28: columns 2-16 wide 0.94-0.98x the default
// mode's speed, 0.66-0.92x with a block per output alone).
inline constexpr std::uint64_t invariant_combine_group = 2048;
// Batch-invariant runs of at least this many elements that a warp folds 32 elements apart (small
// elements' rows, segments) are read through its stage (staged_warp_run); shorter ones by scalar
// loads, or rows from 16-byte vectors on 32 / V lanes (H100, bench --axis at 2^28, against the
// default mode: bfloat16 rows of 256 0.29x staged, 0.74x scalar, 0.81x on 4 lanes; of 1024 0.98x
// staged, 0.88x scalar; CSR segments of mean 147 0.71x, 0.83x; of mean 1684 0.98x, 0.91x).
inline constexpr std::uint64_t invariant_staged_from = 1024;

}  // namespace gpureduce::detail
