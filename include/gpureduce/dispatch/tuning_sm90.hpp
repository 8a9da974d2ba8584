// Launch constants for sm_90, per element size. Measured on an NVIDIA H100 80GB HBM3 (CUDA 13.0,
// cold L2, median of 20-30 event-timed runs); the figures are in bench/results/.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>

#include <cstddef>

namespace gpureduce {

template <std::size_t ElemBytes>
struct TuningSm90 {
  // Grid: 256 threads x 4 vectors of 16 B = 64 B in flight per thread, 128 KB per SM at full
  // occupancy: ladder rung r9 read 3028 GB/s with it at 2^28 int32 (101% of a plain streaming
  // read).
  // One block: 512 threads x 4 vectors = 32 KB per round trip. It beats the grid kernel (whose
  // hand-off between blocks costs ~0.5 us: 4.5-4.9 us at n = 2^10 against 4.2-4.4) up to 64 KB
  // (2^13 float32: 4.5 us one block, 5.1 grid; 2^15 float16: 5.2 against 6.3; 2^13 float64: 5.0
  // against 5.7) except for 1-byte elements, whose per-element work slows the block past 32 KB
  // (2^15 int8: 5.4 us both; 2^16 int8: 7.0 against 5.4). Sum, commit 8cb472e,
  // bench/results/20261122_NVIDIA_H100_80GB_HBM3_tune.txt. Again at 0e9a614, with the warp steps
  // in redux.sync (*_tune_0e9a614.txt, each kernel forced, one block / grid, us): at 64 KB within
  // 0.1 us of each other (int32 sum 2^14 4.78 / 4.82, int32 max 4.62 / 4.64, float64 sum 2^13
  // 4.86 / 4.92, int64 max 2^13 4.80 / 4.72, float16 sum 2^15 4.96 / 4.86), one block ahead below
  // and the grid above (int32 sum 2^15 5.89 / 4.82); int8 max 32 KB 4.30 / 4.81, 64 KB 5.14 / 4.89.
  // int8 sums too, since the grid's hand-off got cheaper: from 92c562f to fd36ece they took one
  // block up to 64 KB (dp4a, thread/packed_sum.hpp; H100 then: 40000 elements 5.11 -> 4.78 us, 2^16
  // 5.38 -> 4.86), but on the H200 at fd36ece the grid was faster there (the bench CLI, three
  // rounds alternating, in two builds, us, one block / grid: 40000 4.54 / 4.38, 50001 5.06 / 4.45,
  // 2^16 4.69 / 4.42; bench/results/*_H200_ab_one_batch_experiment_vs_fd36ece.txt). One batch for
  // every number (32 KB and a scalar tail) was no better: integer sums and argmax 1-3% faster in
  // 32-64 KB, float sums and max 2-6% slower just past the batch (float32 sum 8196 4.45 -> 4.64
  // us).
  //
  // Grid loads evict-first in L2 up to 4x its size (H100: 200 MB), plain above
  // (thread/vector_load.cuh). A read of int32 with the production shape after the bench's flush (a
  // memset of 2x L2, whose dirty lines plain loads evict): 16 MB 11.8 -> 11.0 us, 64 MB 33.1 ->
  // 28.5, 192 MB 77.4 -> 75.8, 256 MB 98.6 -> 99.1 (even), 1 GB 357 -> 370 (4% slower: why the
  // limit). After a memset of the input itself (a producer's output): 64 MB 27.1 -> 19.0 us, 192 MB
  // 76.3 -> 67.2. Still ahead when the next kernel's time is counted, which pays the write-back
  // deferred: 64 MB 66.1 -> 62.3 us. Clean L2: no change at any size (tools/probes/
  // l2_policy_probe.cu, bench/results/*_l2policy_ab38181.txt). int32 sum against f7af4c8 in one
  // run: 2^22 13.3 -> 12.7 us, 2^24 34.4 -> 30.0, 2^25 57.4 -> 53.7; 0.99-1.00x above the limit,
  // 0.97-1.01x for most rows below 16 MB (bench/results/*_ab_evict_first_14fafbd_vs_f7af4c8.txt).
  static constexpr unsigned evict_first_max_l2 = 4;
  // Up to 2048 batches (32 MB of one array) the grid has at most 257 blocks, each reading several
  // batches, rather than one block per batch: a last block that polls one slot per thread beat
  // larger grids (whose last block polls chunks of slots) by 0.3-1.4 us from 8 to 32 MB, H100,
  // each block count forced in one run, us, tuned -> 257: int32 sum 2^21 9.66 -> 9.12, 2^22
  // 12.74 -> 12.10, 2^23 18.45 -> 17.95; int32 argmax 2^22 13.76 -> 12.48; float64 sum 2^20 9.84
  // -> 9.09; int8 argmax 2^23 12.67 -> 10.88. At 64 MB mixed (int32 sum 30.10 -> 29.82, int64 sum
  // 30.14 -> 30.80), from 128 MB 1-2% slower (int32 sum 2^25 53.25 -> 54.11, 2^28 354.2 -> 362.0).
  // A combiner block with 8 polling warps (up to 1025 blocks) was as fast as 257 blocks from 8 MB
  // up but, in one kernel with the 1-warp combiner, slowed int8 sums by 4-8% below that (ptxas:
  // 35 registers, not 32) (bench/results/*_grid_blocks_0fe9297_5d8f9cf.txt and
  // *_ab_combiner_8_warps_5d8f9cf_vs_0fe9297.txt); a combiner polling one slot per thread up to
  // 257 blocks slowed float16 sums at 2^16-2^19 by 5-7% (*_ab_combiner_one_slot_per_thread_
  // fb571a3_vs_0f005a7.txt).
  static constexpr std::uint64_t few_blocks_max_batches = 2048;
  // Records whose vectors span more than 16 bytes (grid/vector_split.hpp: 32, 48, 64 or 80) keep
  // about as many bytes in flight per thread in fewer vectors: 2 of 32 bytes, 1 of 48, 64 or 80
  // (32, 64 and 80 chosen by that count, not measured). For 48 bytes, H100,
  // tools/probes/record_probe.cu, one 48-byte vector per thread against two, each in one run
  // against CUB (bench/results/*_records_unroll1_4f0a584.txt, *_records_4f0a584.txt), us: float3
  // sum 2^14 5.79 / 6.34, 2^16 6.11 / 6.67; three doubles 2^12 4.70 / 5.31, 2^16 5.82 / 6.18
  // (the grid has twice the blocks); 2^28 float3 1061.7 / 1055.7, three doubles 2101.8 / 2095.7,
  // 3-byte pixels 275.2 / 285.5.
  static constexpr int unroll = vector_span_bytes(ElemBytes) == 16 ? 4 : vector_span_bytes(ElemBytes) == 32 ? 2 : 1;
  // Up to 512 vectors one block holds at most one vector per thread, with no batch loop
  // (one_vector_threads: 256 threads up to 256 vectors, 512 up to 512). The library's one-warp
  // kernel took 0.2 us more than a hand-written one whose lanes load one vector each, all of it in
  // thread_partial (its wait, parameters, block reduction and 512 threads cost nothing:
  // tools/probes/one_block_probe.cu, bench/results/*_H200_oneblock_small_warp_steps_55bd976.txt);
  // one vector per thread and no loop were 0.1-0.3 us faster than 512 x 4 at up to 8 KB, 128 and
  // 256 threads alike, 1024 at 16 KB no faster, 4 vectors per thread without the loop up to 1 us
  // slower (float16 sum 1000: *_oneblock_small_one_{vector,batch}_experiment_55bd976.txt). H200,
  // the bench CLI against 55bd976, four rounds alternating (*_H200_ab_one_vector_per_thread_vs_
  // 55bd976.txt), us, before -> after (CUB): float16 dot 256 4.18 -> 3.81 (3.87), float32 sum 32
  // 3.87 -> 3.54 (3.66), int32 sum 33 3.68 -> 3.41 (3.65), int64 argmax 1024 4.14 -> 3.90 (4.22),
  // float16 sum 4096 4.08 -> 3.90 (4.06); up to 256 vectors 0.94x of the time (median), 257-512
  // 0.95-0.97x, larger rows 0.99x; rows below 0.98x CUB up to 256 vectors 101 -> 2 of 516.
  static constexpr ReduceTuning value{.grid_threads = 256,
                                      .grid_unroll = unroll,
                                      .single_threads = 512,
                                      .single_unroll = unroll,
                                      .single_block_max_bytes = ElemBytes >= 2 ? 64 * 1024 : 32 * 1024,
                                      .evict_first_max_l2 = evict_first_max_l2,
                                      .one_vector_max_threads = 512,
                                      .few_blocks_max_batches = few_blocks_max_batches};
  // Values that cost more than a load and an operator each (a transform, a record's fields): one
  // block up to one of its batches (512 threads x single_unroll vectors: 32 KB, 24 KB for vectors
  // of 48 bytes, 40 KB for 80, 2048 records read one per load), 16 KB for elements of 1 byte, never
  // above the operator's own limit. One SM does all of that work in one block; beyond a batch the
  // grid spreads it and is faster. Only where the grid's blocks hand over flagged partials
  // (dispatch decides): with the ticket (accumulators of 9-16 bytes but argmin/argmax) the grid
  // costs about 0.9 us more, and a float3 sum of 48 KB took 5.66-5.68 us in the grid against
  // 4.74-4.83 in one block (bench/results/*_records_551c0cc_round*.txt against
  // *_records_c16923c_beside_551c0cc_ round*.txt). H100, each kernel forced, one run
  // (tools/probes/crossover_probe.cu, bench/results/*_crossover_6b23743.txt), one block / grid, us:
  // 4-byte pixels summed by field 32 KB 4.96 / 4.93, 64 KB 6.27 / 4.96; 3-byte pixels 24 KB 4.51 /
  // 4.74, 32 KB 5.18 / 4.75; int8 squared 16 KB 4.93 / 4.93, 32 KB 5.12 / 4.93; float16 squared 32
  // KB 4.30 / 4.74, 64 KB 4.96 / 4.74; pairs of floats read one per load 16 KB 4.26 / 4.70, 24 KB
  // 4.90 / 4.70; pairs of doubles 32 KB 4.27 / 4.74, 64 KB 4.74 / 4.83. Sums of plain numbers keep
  // the limits above (int32 40-64 KB: 4.75-4.83 / 4.74-4.78, the same).
  static constexpr ReduceTuning with_element_work(ReduceTuning t) {
    const std::uint64_t batch =
        std::uint64_t(t.single_threads) * unsigned(t.single_unroll) * vector_span_bytes(ElemBytes);
    const std::uint64_t limit = ElemBytes == 1 ? 16 * 1024 : batch;
    if (limit < t.single_block_max_bytes) t.single_block_max_bytes = limit;
    return t;
  }
  // Arrays of records (structs read in vectors or one per load; not complex numbers) from 16x L2
  // (800 MB on an H100 or H200) run on 6 waves of resident blocks (3960 on 132 SMs at 5 blocks per
  // SM), not one: each block reads a sixth as much, and blocks that start as others finish even out
  // SMs whose loads come back later, where one wave waits for its slowest SM (CUB's first pass runs
  // up to 5 waves, cub/util_arch.cuh subscription_factor). The grid kernel forced to several sizes,
  // each against the one-wave grid in one run (tools/probes/grid_waves_probe.cu), time over one
  // wave's at 512 MB / 1 GB / 4 GB, 3960 blocks; H100
  // (bench/results/*_waves_experiment_a800104.txt): two doubles 8 bytes past a 16-byte boundary
  // (one per load) 0.977 / 0.964 / 0.930, two floats 4 bytes past an 8-byte one 1.000 / 0.986 /
  // 0.972, 20-byte records 0.981 / 0.979 / 0.983, float3 0.987 / 0.983 / 0.988, three doubles 0.989
  // / 0.985 / 0.991, 3-byte pixels 0.980 / 0.982 / 0.993; H200, two rounds (*_waves_
  // experiment_a800104_round*.txt): 0.986 / 0.973 / 0.934, 1.015 / 1.003 / 0.973, 0.985 / 0.969 /
  // 0.971, 1.008 / 1.001 / 0.993, 1.005 / 0.998 / 0.991, 0.994 / 0.991 / 0.988. Below 16x L2 the
  // pairs of floats lose (H200 256 MB 1.034-1.040); 4 waves (2640) were within 1% of 6, 4096 blocks
  // (a partial last wave) up to 2% behind on the H200. Sums of numbers stay on one wave: at 1 to 4
  // GB 3960 blocks took 1.003-1.009 of the time on the H100 (int32, int8, float64), 0.992-0.997 on
  // the H200; complex<float> 2 GB 1.005-1.008 on the H100 (record_probe). Through the library,
  // H100, tools/probes/record_probe.cu against a800104, two rounds (bench/results/
  // *_records_2c10d3b_round*.txt), time at 2^26 / 2^28 records: two doubles from byte 8 0.963-0.966
  // / 0.930-0.931 (CUB's time over ours 0.967-0.971 -> 1.005-1.006, 0.931-0.933 -> 1.001-1.003),
  // 20- byte records 0.978-0.979 / 0.984 (0.984 -> 1.006-1.008, 0.974 -> 0.990-0.991), two floats
  // from byte 4 at 2^28 0.981-0.985, three doubles 0.985-0.992, two aligned doubles 0.988-0.990.
  static constexpr ReduceTuning with_record_waves(ReduceTuning t) {
    // Records keep their one-block kernels: without its loop, the one of one record per thread
    // was 0.99-1.00x of the time against CUB (H200, *_records_ab_records_at_most_one_experiment_
    // vs_77c0675.txt).
    t.one_vector_max_threads = 0;
    t.waves_min_l2 = 16;
    t.grid_waves = 6;
    t.waves_min_dram_gbps = 0;
    return t;
  }
  // Sums, min/max and argmin/argmax of 4- and 8-byte numbers from 16x L2 take as many waves, up to
  // 6 (3 for the sums' and min/max's 8 blocks per SM: 3168 blocks; argmin/argmax 3960 or 3168),
  // on devices of at least 4.5 TB/s only: the H200 (4.8 TB/s), not the H100 80GB HBM3 (3.35 TB/s,
  // where 3960 blocks took 1.003-1.009 of the time of sums at 1-4 GB, above); devices in between
  // are not measured. H200, each grid forced, three rounds (bench/results/*_H200_waves_numbers_
  // f4adc02.txt): 2640-3960 blocks ahead of one wave for 4- and 8-byte types, 2112 behind. A/B
  // against f4adc02, three rounds alternating (*_H200_ab_number_waves_on_f4adc02.txt), 42 rows of 1
  // to 8 GB: median 0.995 of the time (0.992-1.003; int32 sum 4 GB 940.0 -> 933.5 us, CUB 936.8;
  // float32 sum 940.3 -> 932.9, CUB 934.5; int32 max 1.003-0.999, no gain); smaller rows, whose
  // code is the same, 0.995-1.013 (median 1.001). Not for 1- and 2-byte elements: int8 max and
  // argmax 1-4% slower on several waves, float16 within 0.5%; nor dot products (3168 blocks forced
  // within 0.3% of one wave either way at 512 MB - 8 GB per array, *_H200_dot_waves_f4adc02.txt).
  static constexpr ReduceTuning with_number_waves(ReduceTuning t) {
    if constexpr (ElemBytes == 4 || ElemBytes == 8) {
      t.waves_min_l2 = 16;
      t.grid_waves = 6;
      t.waves_min_dram_gbps = 4500;
    }
    return t;
  }
  // Records read one per load (a load per word of each: agent/sources.cuh, RecordSource) of more
  // than 8 bytes, or of 1- and 2-byte alignment (a load per 1 or 2 bytes), dispatch decides:
  // - keep the few-blocks grid (at most polled_grid_blocks, each block reading several batches)
  //   up to 4096 batches rather than 2048: 4M records, 64 MB of 16 bytes, 151 MB of 36. Fewer
  //   warps per SM share its L1, where a record's later loads find the sectors its first load
  //   brought. H100, tools/probes/record_probe.cu, 4096 against 2048 in one build of d31f91e
  //   each, three rounds alternating (bench/results/*_records_few_blocks_4096_experiment_d31f91e_
  //   round*.txt against *_records_d31f91e_beside_records_few_blocks_4096_round*.txt), time at
  //   2.5M-4M records: 36-byte structs of floats 0.930-0.944 (2^22: CUB's time over ours 1.041 ->
  //   1.108), 20-byte 0.930-0.954, 28-byte 0.947-0.964, pairs of doubles 8 bytes past a 16-byte
  //   boundary 0.960-0.980, 7-byte records 0.951-0.999; pairs of floats (8 bytes, 4-byte
  //   aligned) 0.986-1.020, at 2^22 1.012-1.016, so they keep 2048. 8192 and 16384 batches, two
  //   rounds (*_records_few_blocks_{8192,16384}_experiment_d31f91e_round*.txt): pairs of floats
  //   1.03-1.05x and 28-byte structs 1.015x at 2^23 (8192); 16384 up to 1.08x at 2^24 (1.20x in
  //   single rounds).
  // - run on grid_waves waves from 4x L2 (where the loads turn plain), not 16x. Against 4ccf2ab,
  //   two rounds (*_records_waves_from_4x_l2_experiment_4ccf2ab_round*.txt against *_records_
  //   4ccf2ab_beside_records_waves_from_4x_l2_round*.txt), time from 4x L2 to 16x: 7-byte
  //   records 2^25 and 2^26 0.941-0.946 (2^26: CUB's time over ours 0.969 -> 1.029), 20-byte
  //   0.979-0.984 (2^25: 0.995 -> 1.015), 36-byte 0.979-0.989, 28-byte 0.986-1.001, pairs of
  //   doubles 0.977-0.992 (2^25: 0.988 -> 1.011); pairs of floats at 2^25 (256 MB) 1.011-1.013,
  //   as on the H200 in grid_waves_probe (above).
  // Records in staged vectors of 112-240 bytes (agent/sources.cuh, reads_wide_vectors_v) take
  // the same, as measured (bench/results/*_records_staged_experiment_1eccd93_round*.txt): 4x
  // the L2 size is where their loads turn plain as well. Not measured without it.
  static constexpr ReduceTuning with_record_loads(ReduceTuning t) {
    t.few_blocks_max_batches = 2 * few_blocks_max_batches;
    t.waves_min_l2 = evict_first_max_l2;
    return t;
  }
  // Of those, records whose staged vectors span 208 bytes and more (13-43 int8 fields, 17-43
  // int16: agent/sources.cuh, reads_wide_vectors_v; not 13 and 15 int16, which take two parts)
  // run the most threads whose warps' vectors the stage holds in one part (agent/sources.cuh,
  // one_part_threads: 128 up to 352 bytes, 64 above), and on a full grid from the start. 256
  // threads would need 52-60 KB for 13 and 15 int8, and in two parts those spilled (255
  // registers). ptxas: 92, 110 and 110 registers for 13, 15 and 17 int8 (128 threads), 142, 180,
  // 184 and 255 for 23, 31, 33 and 43 (64), 102, 136, 174, 168 and 254 for 17, 23, 31, 33 and 43
  // int16, none spilling. The few-blocks grid of 129 blocks of 128 threads, one per SM, took
  // 1.24-1.43x the time of one record per load at 4-8M records of 13 and 15 int8. H100,
  // tools/probes/record_probe.cu, two rounds alternating, time staged over one per load (CUB's
  // time over ours at 2^28, before -> after):
  // - against 729f129 (bench/results/*_records_t128nofew_experiment_729f129_round*.txt against
  //   *_records_729f129_beside_t128nofew_round*.txt, and *_t128_* with the few-blocks grid), 13 /
  //   15 int8 fields: 2^20 1.07-1.09 / 1.05-1.06, 2^21 1.07-1.10 / 0.97-0.98, 2^22 0.96 /
  //   0.90-0.91, 2^23 0.89-0.90 / 0.86, 2^24 0.82-0.83 / 0.82, 2^26 0.79 / 0.81, 2^28 0.78 / 0.80
  //   (0.890 -> 1.146, 0.891 -> 1.117). 13 and 15 int16 in one part on 128 threads took
  //   1.00-1.01x the time of their two parts on 256 from 2^24 up, so they keep those.
  // - against f1a499e (*_records_wide2_experiment_f1a499e_round*.txt against *_records_f1a499e_
  //   beside_wide2_round*.txt), at 2^22 / 2^24 / 2^28 records (2^27 for int16 of 46 and 62
  //   bytes): 17 int8 0.91 / 0.68 / 0.66 (0.774 -> 1.176), 23 int8 0.89-0.91 / 0.77 / 0.71 (0.773
  //   -> 1.091), 31 int8 0.81-0.83 / 0.74-0.75 / 0.71 (0.848 -> 1.205), 17 int16 0.97-0.98 / 0.93
  //   / 0.90 (0.982 -> 1.092), 23 int16 0.97-0.98 / 0.93 / 0.89 (0.971 -> 1.092), 31 int16 0.90 /
  //   0.84 / 0.82 (1.015 -> 1.244).
  // - 33-43 int8 and int16 fields against 57f9223: agent/sources.cuh, above reads_wide_vectors_v.
  static constexpr ReduceTuning with_narrow_staged_blocks(ReduceTuning t, unsigned threads) {
    t.grid_threads = threads;
    t.few_blocks_max_batches = 0;
    return t;
  }
  // Of those, records of under 24 bytes loaded in words of 1, 2 or 4 bytes (`word`) keep 8 in
  // flight per thread rather than 4 (under 96 bytes) in those grids of several waves, a kernel of
  // their own (plain loads; 44-64 registers, 4-5 blocks per SM): from 4x L2 for words of 1 and 2
  // bytes, from 32x (1.6 GB) for words of 4. Two rounds alternating against b20f80e (tools/probes/
  // record_probe.cu; bench/results/*_records_waves8_experiment_b20f80e_round*.txt and *_records_
  // 903879f_round*.txt, against *_records_b20f80e_beside_{waves8,903879f}_round*.txt), time at 2^24
  // / 2^25 / 2^26 / 2^27 / 2^28 records:
  // - 7-byte records, H100: below 4x L2 / 0.989-0.993 / 0.990-0.993 / 0.985-0.986 / 0.980-0.983
  //   (2^28: CUB's time over ours 1.004 -> 1.021-1.025); H200 (two rounds at 903879f, 8 in flight
  //   from 4x L2): 0.999-1.000 at 2^25, 0.984-0.986, 0.976-0.978, 0.976-0.978.
  // - 20-byte structs of floats, H100: 1.008-1.013 / 1.006-1.009 / 0.998-1.001 / 0.992-0.995 /
  //   0.987-0.988 (2^28: 0.990-0.992 -> 1.003-1.005); H200: 1.017-1.018 / 1.016-1.027 / 1.008 /
  //   0.995-0.996 / 0.987-0.989 (2^24-2^25: 1.011-1.022 -> 0.995-1.001): hence 32x.
  // - 9 int8 and 7 int16 fields, H100 (*_records_dca33c7_round*.txt): 0.962-0.978 (one round at
  //   2^27: 1.016) and 0.984-0.998 from 2^25 up; still 0.978x CUB at 2^28 and 0.981-0.992x at
  //   2^26-2^28. 16 in flight for words of 1 and 2 bytes took 1.06-1.29x the time (*_records_
  //   unroll16_experiment_dca33c7_round*.txt).
  // - Pairs of doubles (8-byte words), H100: 1.001-1.003 at 2^26-2^28; 28- and 36-byte structs
  //   1.000 and 1.002-1.006. They keep 4.
  static constexpr ReduceTuning with_small_record_loads(ReduceTuning t, std::size_t word) {
    t.waves_unroll = 2 * t.grid_unroll;
    t.waves_unroll_min_l2 = word < 4 ? evict_first_max_l2 : 32;
    return t;
  }
  // Of those, records of more than 16 int8 or int16 fields (17 loads and more each) keep one record
  // in flight per thread, not 4, and take the one-block kernel, of 256 threads, up to 256 records
  // only, with no register floor for argmin/argmax (with_record_keys). A thread's 4 records were
  // up to 188 loads: the one-block kernel of 512 threads spilled (ptxas: 24-1052 bytes for 23-43
  // fields at 128 registers; none at 256 threads x 1, 78-200 registers), and one SM issuing a load
  // per field of 512-2048 records, or a few blocks each of 1024, ran at 0.82-1.00x CUB at 2^11 (43
  // int8 fields 13.9 us against 12.3) and at 0.68-0.80x below 2^9 for 41-47 fields. One record per
  // thread spreads them over 4x the blocks. H100,
  // tools/probes/record_probe.cu, two rounds alternating against eb33a62 (bench/results/*_records_
  // gu1s256_experiment_eb33a62_round*.txt, *_records_gu1{,_mid}_experiment_eb33a62_round*.txt:
  // this grid with no one-block kernel), CUB's time over ours, before -> after, 17-33 fields /
  // 41-47:
  // - 2^5-2^8 records: 0.90-1.00 -> 0.95-1.04 / 0.68-0.80 -> 0.94-1.03.
  // - 2^9: 1.00-1.07 -> 1.06-1.17 / 0.78-0.93 -> 1.16-1.35; 2^10: 1.04-1.11 -> 1.28-1.61 /
  //   0.89-1.00 -> 1.60-1.91.
  // - 2^11-2^19 (the grid of gu1), 17-47 fields: 2^11 0.82-1.00 -> 1.37-2.63, 2^12 1.67-2.07 ->
  //   2.30-3.32, 2^16 1.61-1.92 -> 1.86-2.12, 2^18 1.10-1.50 -> 1.18-1.57, 2^19 0.99-1.32 ->
  //   1.04-1.41.
  // - 2^20-2^21, where 17-31 fields were still read one per load (17-31 int16 are staged from
  //   2^21 since: agent/sources.cuh): 17 int8 1.20 -> 1.13 and 17 int16 1.25-1.27 -> 1.18-1.23
  //   (the few-blocks grid's 257 blocks, a record per thread in flight), 23 and 31 int8
  //   1.10-1.19 -> 1.13-1.28. 47 int8 and int16, never staged: 2^21-2^26 0.95-1.07 -> 1.00-1.11
  //   (2^26 int8 0.95 -> 1.03; 2^21 int16 1.06 -> 1.00).
  // Records of 9-15 fields so (*_records_gu1b_experiment_eb33a62_round*.txt) took 0.75-0.92 of the
  // time at 2^10-2^14 but 1.02-1.29 at 2^18-2^21 (9 int8 at 2^20: 1.24 -> 0.94x CUB); a
  // grid of one record per thread with no few-blocks limit, or with 1024 batches (*_records_
  // gu1f{0,1k}_experiment_eb33a62_round*.txt) was mixed at 2^20-2^21 (17 int8 at 2^20 1.18x CUB
  // against 1.13, 31 int16 1.21 against 1.29) and lost at 2^17-2^19 (43 int16 at 2^19 1.08 against
  // 1.22).
  static constexpr ReduceTuning with_many_narrow_fields(ReduceTuning t) {
    t.grid_min_blocks = 0;
    t.single_min_blocks = 0;
    t.grid_unroll = 1;
    t.single_threads = 256;
    t.single_unroll = 1;
    t.single_block_max_bytes = 256 * ElemBytes;
    return t;
  }
  // argmin/argmax of records (a key per record, from the caller's transform) read in vectors,
  // staged or not: no register floor. arg_extreme's, measured on numbers, held them to 64
  // registers (4 blocks of 256 threads per SM; 2 of 512 in one block) and ptxas spilled 376-2288
  // bytes for 5-13 int8 or int16 fields in staged vectors; with none they take 96-142, no spills.
  // Records read one per load keep the floor (37-44 registers without it, where ptxas issues a
  // batch's loads one after another again), but those of many narrow fields
  // (with_many_narrow_fields). H100, tools/probes/record_probe.cu, two rounds alternating against
  // the floor everywhere (bench/results/*_records_keysA_experiment_stagefix_round*.txt against
  // *_records_stagefix_beside_keysA_keysB_round*.txt; stagefix: 05b3f84), CUB's time over ours
  // before -> after, argmax of the fields' sum in double:
  // - 13 and 15 int16 fields (208 and 240 bytes in two parts): 2^22 0.52-0.56 -> 1.17-1.21,
  //   2^24-2^28 0.27-0.31 -> 1.01-1.08;
  // - 5-11 int8 and 5-11 int16 fields: 2^24 0.89-1.08 -> 1.03-1.34, 2^26 0.67-0.99 -> 0.88-1.08,
  //   2^28 0.70-1.02 -> 0.90-1.08 (9 int8 0.74 -> 0.90, 11 int8 0.70 -> 0.97, 11 int16 0.89 ->
  //   1.07);
  // - below 2^22 0.82-1.06 of the time (5 int8 fields 0.82-0.89: 2^12-2^20 1.02-1.21 -> 1.23-1.46;
  //   17 int8 at 2^10 1.33 and 9 floats at 2^12 1.18 in one round each, CUB's time with them);
  // - many narrow fields (with_many_narrow_fields): 47 int8 at 2^22-2^26 0.91-0.98 -> 1.01-1.05.
  // No floor for one per load as well (*_records_keys_experiment_stagefix_round*.txt) lost up to
  // 0.2x CUB at 2^12-2^16 (5 floats 2^12 1.57 -> 1.35, 13 int8 1.58 -> 1.34); a floor of 3 blocks
  // for them (keysB: 85 registers) was mixed, 9 floats at 2^28 0.95 -> 0.99 but 15 int8 at 2^20
  // 1.16 -> 1.09.
  static constexpr ReduceTuning with_record_keys(ReduceTuning t) {
    t.grid_min_blocks = 0;
    t.single_min_blocks = 0;
    return t;
  }
  // argmin/argmax of records read one per load in more than 8 words of 4 bytes or more (9 floats):
  // a register floor of 3 blocks, not arg_extreme's 4 (78 registers against 64). ncu at 2^26 (H100,
  // bench/results/*_ncu_9floats_e8520da.txt): the sum of the same records reads 2418 MB from DRAM
  // in 788 us, argmax 2497 MB in 811 (L2 hit rate 10.8% against 8.7%: sectors read from DRAM
  // twice), with this 796 us. tools/probes/record_probe.cu (its rows of floats, float3, pixels and
  // points), three rounds alternating against e8520da (*_records_B_experiment_e8520da_round*.txt
  // against *_records_e8520da_beside_A_B_C_round*.txt), argmax of 9 floats, CUB's time over ours
  // before -> after: 2^26 0.978 -> 0.995, 2^27 0.962 -> 0.988, 2^28 0.954 -> 0.985 (3326 -> 3220
  // us, CUB 3172); 0.98-1.00 of the time from 2^12 to 2^24. No floor (A) 0.967-0.986x at
  // 2^26-2^28 and 1.07-1.10x the time at 2^12-2^16; two records in flight per thread (C)
  // 0.967-0.992x, 1.024x the time at 2^22. The floor of 3 for every record read one per load was
  // mixed (with_record_keys, keysB).
  static constexpr ReduceTuning with_wide_record_keys(ReduceTuning t) {
    t.grid_min_blocks = 3;
    return t;
  }
  // Records read one per load, up to `records` of them (256, or 512 for argmin/argmax of records of
  // more than 8 loads), take the one-block kernel with one record in flight per thread, on 256
  // threads up to 256 records and on single_threads (512) beyond: with 4 per thread, a thread over
  // one record loaded its fields four times over (LastBatch::repeat) or each under a test
  // (loads_first, argmin/argmax of up to 8 loads: agent/thread_partial.cuh). H100,
  // tools/probes/record_probe.cu, three rounds alternating, the fields' sum in double, us, before
  // -> after (CUB):
  // - argmin/argmax up to 256 records, against c360a11 (bench/results/*_records_one_per_thread_
  //   experiment_c360a11_round*.txt): 13 int16 fields 256 5.28 -> 4.46 (4.47), 15 int8 200 5.12
  //   -> 4.34 (4.61), 11 int8 256 4.94 -> 4.34 (4.29), 9 floats 256 4.93 -> 4.48 (4.42), 15 int16
  //   64 4.77 -> 4.35 (4.30); up to 8 loads 0.14 us faster to 0.03 slower.
  // - sums up to 256 records, against 536a558 (*_records_S_experiment_536a558_round*.txt against
  //   *_records_536a558_beside_S_round*.txt; S: this for sums): 5 int8 256 4.42 -> 4.06 (3.95),
  //   7 floats 256 4.54 -> 4.21 (4.22), 5 int16 200 4.42 -> 4.00 (4.00), 13 int8 256 4.42 -> 4.22
  //   (4.10), 3-byte pixels' luma 64 3.90 -> 3.71 (3.94); rows above 256 as before.
  // - argmin/argmax of records of 9-15 loads at 257-512, which 256 threads x 4 take with repeats,
  //   against S (*_records_T_experiment_S_round*.txt against *_records_S_beside_T_round*.txt; T:
  //   512 threads for every operator up to 512 records): 13 int8 300 5.17 -> 4.54 (4.74), 15 int16
  //   384 5.38 -> 4.77 (4.99), 9 floats 257 4.86 -> 4.54 (4.75), 11 int8 450 4.96 -> 4.54 (4.86).
  //   Not for the others: argmax of up to 8 loads 0.98-1.05 of the time (7 floats 300 4.50 ->
  //   4.74), sums 0.95-1.03.
  static constexpr ReduceTuning with_one_record_per_thread(ReduceTuning t, unsigned records) {
    if (t.small_single_threads == 0) t.small_single_threads = 256;
    t.one_per_thread_max_bytes = std::uint64_t(records < t.single_threads ? records : t.single_threads) * ElemBytes;
    return t;
  }
  // Dot products: one block up to 32 KB per array (64 KB read for elements of 2 bytes and more),
  // the grid above. Each kernel forced, same run (tools/device-run tune, bench/results/
  // *_tune_bee5e7a.txt), one block against grid, us: float64 2^13 6.18 / 5.73 (32 KB: 5.04 /
  // 5.72), float32 2^14 5.92 / 5.72, float16 2^15 6.83 / 5.49 (2^14 even). int8: 32 KB per array,
  // as before (2^15: 4.48 / 5.26). The 64 KB per array of the other operators sent these to one
  // block; before the grid's hand-off polled warp-uniform (b3dea9e), one block was still ahead at
  // int32 2^14 and float64 2^13 (5.95 / 6.29 and 5.98 / 6.18 us at 3a37041).
  static constexpr ReduceTuning dot = [] {
    ReduceTuning t = value;
    t.single_block_max_bytes = 32 * 1024;
    return t;
  }();
  // Dot products whose second array lies at another offset from a 16-byte boundary than the
  // first: read in shifted vectors (thread/shifted_load.cuh) for 1-byte elements at every size,
  // for 2-byte ones from 16 MB per array and, floating, where one block reads them; element by
  // element otherwise, as 4- and 8-byte elements always (agent/sources.cuh, with_product_source).
  // H100, dot(a, b + 1, n), both sources in one run, samples alternating, two rounds (bench/
  // results/*_half_dot_element_vs_shifted_experiment_fcecf77_round*.txt), element / shifted, us:
  // 2^14 (one block) float16 5.34 / 4.70, bfloat16 5.34 / 5.02, int16 5.60 / 6.00; float16 2^20
  // 7.30 / 7.55, 2^22 12.54 / 12.58, 2^23 19.58 / 18.59, 2^24 34.13 / 30.37; bfloat16 2^16 5.22 /
  // 5.78, 2^20 7.23 / 7.71; int16 2^16 5.44 / 6.18, 2^23 19.74 / 18.86. int8's shifted vectors
  // reach dp4a whole and were ahead at every size (2^16 6.34 -> 5.47 us, *_shifted_c0e739c_
  // round*.txt).
  static constexpr bool shifted_dot_b(std::uint64_t n, bool floating) {
    const std::uint64_t bytes = n * ElemBytes;
    if (ElemBytes == 1 || bytes >= (std::uint64_t(16) << 20)) return true;
    return floating && takes_one_block(n, ElemBytes, dot);
  }
  // argmin/argmax: the same shapes with a register floor. Left to itself ptxas held the float and
  // half argmax kernels to 40 registers by issuing the last of a batch's four loads only after the
  // first vector arrived (two round trips per batch). At least 5 resident blocks per SM (4 for 1-
  // and 8-byte elements, where 5 still spilled or split the loads; 2 for the one-block kernel) lets
  // it take 43-54, issue the four loads together and not spill (SASS of all 48 argmin/argmax
  // kernels checked with nvdisasm; again at 0ce1f2a for the argmax kernels of the 7 bench types:
  // 45-64 registers). H100: float32 argmax 2^16 7.6 -> 7.3 us, 2^18 8.0 -> 7.5
  // (bench/results/*_argmax_a6e9093.txt against the bench at 7c2d9d4).
  // One block up to 56 KB, 32 KB for 1-byte elements. Since the trees run on integer keys
  // (thread/tree_key.hpp) the grid wins at 64 KB, one block still at 48 KB; each forced, same run
  // (*_tune_argmax_dcfd835.txt), one block against grid, us: float32 2^14 5.37 / 5.25, 12289 5.36
  // / 5.46; int32 2^14 5.09 / 5.04, 12289 5.10 / 5.14; float16 2^15 5.55 / 5.34, 20001 5.42 /
  // 5.47; float64 2^13 5.49 / 5.34, 2^12 4.88 / 5.25. int8, since its vectors are compared as
  // words (thread/vector_winner.hpp; *_tune_int8_f2b57dc.txt): 2^15 5.28 / 5.41, 20001 5.25 /
  // 5.40, 40000 6.09 / 5.41 (before: 2^15 6.40 / 6.13, *_tune_bee5e7a.txt).
  // Up to 16 KB (one batch of 256 threads x 4 vectors) the one-block kernel runs 256 threads, not
  // 512: half the warps to combine 16-byte value-and-index pairs, fewer repeated vectors in the
  // padded batch. The shapes forced in one run (tools/probes/one_block_probe.cu, bench/results/
  // *_oneblock_f9c5bf5.txt), 512x4 against 256x4, us: int64 argmax 2^10 4.64 -> 4.32 (CUB 4.32),
  // float64 2^10 4.83 -> 4.64, float32 2^12 4.83 -> 4.56, float16 2^13 4.99 -> 4.64, int8 2^14
  // 6.14 -> 5.23; beyond one batch 256 threads were slower (float64 2^13: 5.68 -> 6.50).
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

}  // namespace gpureduce
