// The per-thread part of a reduction: one thread's share of the scalar head and tail, then its
// share of the 16-byte vector body, Unroll vectors in flight before any is used.
#pragma once

#include <gpureduce/agent/sources.cuh>
#include <gpureduce/grid/vector_split.hpp>
#include <gpureduce/thread/packed_sum.hpp>
#include <gpureduce/thread/vector_winner.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpureduce {

// Hands thread threadIdx.x's elements (block `block` of a grid of `grid` blocks of BlockThreads)
// to sink(value, index) (scalar head and tail) and vector_sink(values, first_index) (the body,
// loaded by `load`: thread/vector_load.cuh), Unroll vectors in flight before any is used.
//   B           where the thread's batches lie (Batches). In one block (one_block, at_most_one)
//               the one-block kernel's path, where every instruction before the first load and
//               after the last one is on the critical path. The scalar head and tail are loaded
//               first and used last, so a thread that has one issues its body loads without
//               waiting for it (a round trip: float32 sum of 3001 elements 4.40 -> 4.08 us on the
//               H100), and go to the block's last threads for elements of up to 4 bytes, where
//               the compiler still puts a first use of them before the body's loads (below). For
//               argmin/argmax of elements over 4 bytes (LastBatch::repeat) they are used first,
//               as in the grid kernel, by the block's last threads. And the batch loop stays
//               rolled (VectorGrid), or is left out where the input is at most one batch.
//               Sources loaded shifted (Source::shifted) always have a head and a tail
//               (VectorSplit::shifted) and use them last in every kernel.
//   Last        how a thread reads its last, partial batch (LastBatch).
enum class LastBatch : unsigned char {
  // Vector by vector: ptxas predicates the loads of sinks it can predicate whole, so they overlap.
  by_vector,
  // Each vector's load under its own test, all before any vector is used, for the sinks whose loads
  // ptxas did not overlap vector by vector (dot products, bfloat16, 8- and 16-bit integer sums).
  // H100, one-block kernel, A/B in one run against by_vector for every operator
  // (bench/results/*_ab_loads_first_8e82aec_vs_8ecb22a.txt, 1000 to 30000 elements): those
  // 0.79-0.96x of the time where the last batch is partial (float16 dot 14000 5.84 -> 5.28 us,
  // bfloat16 max 14000 5.42 -> 4.70, int8 sum 28000 5.28 -> 4.58), the other sums and min/max
  // 1.07-1.12x (float32 sum 7000 4.26 -> 4.61). For those sinks alone
  // (*_ab_loads_first_selected_3d6245c_vs_8ecb22a.txt): 0.80-0.93x there, every row at most 1.03x,
  // median 0.994. In the grid kernel as well (*_ab_grid_loads_first_6cca188_vs_c6ca33f.txt, 273
  // rows, 2^14 to 2^24 and odd sizes): those rows median 0.981x, 0.83-0.93x where the input ends in
  // a batch's last quarter (int8 dot 276144 6.34 -> 5.26 us, bfloat16 max 531288 6.30 -> 5.54), and
  // the int32 and float32 dot kernels 0.87-0.93x at every size from 2^14 to 2^18, whole batches too
  // (the change moved ptxas's code for the whole kernel, SASS not compared); float64 dot 34518
  // 1.05x, every other row at most 1.03x. And in the grid kernel for transformed values and records
  // of alignment below 4 (int8 or float16 through a transform, byte pixels): A/B in one run,
  // tools/probes/crossover_probe.cu (*_crossover_e8d3ffa_round*.txt against
  // *_crossover_9359ba7_beside_e8d3ffa_round*.txt), 0.90-0.95x of the grid's time where its last
  // batch is partial (float16 squared 8 KB 4.99 -> 4.52 us, 40 KB 5.06 -> 4.68; 4-byte pixels 40 KB
  // 5.05 -> 4.69), whole batches within 2%. In the one-block kernel the same slowed float16 squared
  // of 16-24 KB by 10% (4.06 -> 4.49 us, *_crossover_1717496_round*.txt), so it keeps by_vector
  // there.
  loads_first,
  // Loaded whole, as a full batch, its missing vectors replaced by repeats of its first: only for
  // a vector_sink for which a vector seen twice at the same index counts once (argmin/argmax),
  // whose sink branches, so that vector by vector it waited a round trip per vector.
  repeat,
};

// A loaded vector as a batch holds it until it is used: as loaded, or as 32-bit words (HeldWords)
// in a batch whose loads each have their own test (LastBatch::loads_first's last batch) of the
// sources held_as_words_v names. Held as loaded, a vector of 2-byte elements was split into 16-bit
// registers inside its load's test (PTX), and ptxas issued the batch's later loads after those
// moves, which wait for the data: one round trip more wherever a thread's last batch holds two
// vectors or more (the one-block float16 dot's SASS: bench/results/*_H200_sass_dot_half_one_block_
// 54c9f24.txt). H200, the bench CLI, four rounds alternating against 54c9f24
// (*_H200_ab_held_words_tested_batch_2_vs_54c9f24.txt; these kernels since then as fast,
// *_H200_ab_held_words_plain_and_dots_vs_6e768ab.txt), us, before -> after (CUB): float16 dot 8193
// 4.85 -> 4.34 (7.72), bfloat16 sum 16383 5.06 -> 4.34 (8.96), bfloat16 max 8191 4.53 -> 4.13
// (6.34); int32, int64 and float64 dots 0.91-0.94 of the time from 4097 to 2^16 elements (int32
// dot 16383 5.02 -> 4.55), whose PTX had no such move (SASS not compared); no changed kernel's row
// slower than 1.04x, the unchanged kernels' rows median 1.006. Whole batches keep their vectors as
// loaded: as words, float16 sums of 2^16-2^18 took 1.05-1.08x of the time relative to CUB's in the
// same runs (*_H200_ab_held_words_vs_af9cbeb.txt).
template <class V>
struct HeldWords {
  static_assert(sizeof(V) % 4 == 0);
  std::uint32_t w[sizeof(V) / 4];
  HeldWords() = default;
  __device__ __forceinline__ HeldWords(const V& x) { __builtin_memcpy(w, &x, sizeof x); }
};
template <class V>
__device__ __forceinline__ const V& loaded(const V& x) {
  return x;
}
template <class V>
__device__ __forceinline__ V loaded(const HeldWords<V>& h) {
  V x;
  __builtin_memcpy(&x, h.w, sizeof x);
  return x;
}

// The sources whose tested batches hold their vectors as words: arrays of numbers and the two
// arrays of a dot product, which the bench CLI measured. Records, transformed values and shifted
// loads keep theirs as loaded (not measured; a record of 7 bytes is no whole number of words).
template <class Source>
inline constexpr bool held_as_words_v = !Source::shifted && (plain_values_v<Source> || Source::arrays == 2);

template <unsigned BlockThreads, int Unroll, Batches B, LastBatch Last = LastBatch::by_vector, class Source,
          class Load, class Sink, class VectorSink>
__device__ __forceinline__ void for_each_thread_value(const Source& src, const VectorSplit& split, std::uint64_t block,
                                                      std::uint64_t grid, const Load& load, Sink&& sink,
                                                      VectorSink&& vector_sink) {
  constexpr unsigned per_vec = Source::per_vector;
  using Value = decltype(src.load(0));
  // One block's edges of elements over 4 bytes were used first by thread 0, which waited a round
  // trip for its tail before loading its vectors. H100, A/B in one run against c325bce, four rounds
  // (bench/results/*_ab_one_block_edges_2_{R1,E,G}_vs_c325bce.txt, int64 and float64 at 257-8193
  // elements), time before -> after:
  //   used last (E, G): sums and max 0.94-0.97 at 257-513 elements (float64 sum 257 4.33 -> 4.10
  //   us), 0.95-1.00 at odd sizes to 4097; argmax unchanged (it gained nothing there);
  //   used first by the last threads (ScalarEdges::from_end, R1), whose last batch is the
  //   shortest: argmax 0.93-0.95 at 257 (float64 4.66 -> 4.33), sums and max 0.94-0.96 at 257-513
  //   but 0.97-1.03 at 1001-4097.
  // G takes E for sums and min/max, R1 for argmin/argmax. In the grid kernel R1 gained nothing
  // (*_ab_edges_from_end_R2_vs_c325bce.txt). Holding 8-byte edges across the loop had once made
  // ptxas split int64 max's batches (2^12 4.64 -> 4.91 us at bb754c7); at 2^12 E and G now take
  // 1.00-1.03 of the time, as an unchanged float32 control does (1.00-1.02).
  constexpr bool one_block = B != Batches::grid;
  constexpr bool edges_last = (one_block && (sizeof(Value) <= 4 || Last != LastBatch::repeat)) || Source::shifted;
  // A source of one element per vector (records read one per load, elements of 16 bytes and more)
  // has no edges (VectorSplit::make, RecordSource::split; tests/cpu/test_grid_partition.cpp), so
  // none is loaded or held. From 7ae46b5/3a38362 (bisected to the pair) to da9a51b the one-block
  // kernel held two such records across its batches (edges_last), unused: up to 1.9 us per call on
  // an H200 (the A/B below; the bisect of the sums, record_probe at 536a558, 8a9b163, ae89b23 and
  // da9a51b: bench/results/*_H200_records_bisect_*_round*.txt). Edges of other
  // records over 8 bytes used first rather than held gained nothing more
  // (*_H200_records_f2_experiment_da9a51b_round*.txt). Against da9a51b, four rounds
  // alternating (*_H200_records_ab_{small,full}_edges_fix_vs_da9a51b.txt), us, before -> after
  // (CUB): 2048 records of 5 int8 fields 5.46 -> 4.30 (4.45), 7 floats 5.93 -> 4.77 (4.84), argmax
  // of 7 floats at 1500 6.70 -> 4.81 (7.82); 4096 float3 5.53 -> 4.62 (6.84); 2048 pairs of
  // doubles 4.48 -> 4.04 (4.04). 328 of 1224 rows of 64-4096 records faster by 2% or more in
  // every round, none slower; at 2^10-2^28, 12 of 698 faster, none slower.
  constexpr bool has_edges = per_vec > 1 || Source::shifted;
  // In one block the edges of elements of up to 4 bytes go to its last threads rather than its
  // first: those have no vector in the last batch unless it holds more than BlockThreads - 32
  // (every input of up to 7.5 KB). Loaded first and used last in the source, their first use
  // still lands before the vector loads in the SASS (bench/results/*_H200_sass_one_block_edges_
  // ef609dd.txt): int32 sums' sign extension and bfloat16's widening right after the load (nvcc
  // folds them into it), float argmax's compare of the head hoisted above the last batch by ptxas.
  // So the warp that held an edge waited a round trip before its vectors. H200, the bench
  // CLI, four rounds alternating against ef609dd (*_H200_ab_edges_to_last_threads_vs_ef609dd.txt,
  // 1 to 2^20 elements), us, before -> after (CUB): int32 sum 33 4.06 -> 3.66 (3.74), 257 4.14 ->
  // 3.71 (4.19); int32 dot 257 4.38 -> 3.90 (4.26); bfloat16 dot 33 4.58 -> 4.11 (3.86); int32
  // argmax 31 4.18 -> 3.77 (3.92); int8 sum 4097 3.98 -> 3.73 (6.50); rows below 0.98x CUB 125 ->
  // 46 of 896, none more than 1.036x slower (int8 sum 8191, whose last warp holds vectors either
  // way), the grid's rows 0.995 (median). For 8-byte elements too, float64 sums of 4096-8191 took
  // 1.06x (*_H200_ab_edges_from_end_all_experiment_vs_ef609dd.txt), as ptxas's batches once split.
  const ScalarEdges edges = !has_edges ? ScalarEdges{}
                            : one_block && (sizeof(typename Source::element_type) <= 4 || !edges_last)
                                ? ScalarEdges::from_end(split, per_vec, BlockThreads, threadIdx.x)
                                : ScalarEdges::of(split, per_vec, block * BlockThreads + threadIdx.x);
  Value head_value{}, tail_value{};
  if (edges.has_head) head_value = src.load(edges.head_index);
  if (edges.has_tail) tail_value = src.load(edges.tail_index);
  const auto use_edges = [&] {
    if (edges.has_head) src.consume(head_value, edges.head_index, sink);
    if (edges.has_tail) src.consume(tail_value, edges.tail_index, sink);
  };
  if constexpr (!edges_last) use_edges();

  const std::uint64_t head = split.head, vectors = split.vectors;
  const auto every = [](int) { return true; };
  // One batch: vector at(k) for each k < Unroll where in(k), all loaded before any is used.
  const auto batch = [&](auto at, auto in, const auto& ld) {
    using Loaded = decltype(src.load_vector(0, ld));
    constexpr bool tested = !std::is_same_v<std::remove_cvref_t<decltype(in)>, std::remove_cvref_t<decltype(every)>>;
    std::conditional_t<tested && held_as_words_v<Source>, HeldWords<Loaded>, Loaded> x[Unroll];
#pragma unroll
    for (int k = 0; k < Unroll; ++k)
      if (in(k)) x[k] = src.load_vector(head + at(k) * per_vec, ld);
#pragma unroll
    for (int k = 0; k < Unroll; ++k)
      if (in(k)) src.consume_vector(loaded(x[k]), head + at(k) * per_vec, vector_sink);
  };
  const VectorGrid<Unroll> g{vectors, BlockThreads, grid};
  const auto at_stride = [&](std::uint64_t v) { return [&, v](int k) { return v + std::uint64_t(k) * BlockThreads; }; };
  // Whole batches: every lane of a warp runs each of them, lane l + 1 on the vectors after lane l's
  // (for shifted loads, thread/shifted_load.cuh, and staged ones, agent/sources.cuh).
  const WarpContiguous<Load, one_block ? 0u : BlockThreads / warp_threads> whole{load};
  const auto full = [&](std::uint64_t v) { batch(at_stride(v), every, whole); };
  if constexpr (Last == LastBatch::repeat) {
    g.template for_each_batch<B>(block, threadIdx.x, full, [&](std::uint64_t v) {
      if (v < vectors) batch([&](int k) { return g.padded(v, k); }, every, load);
    });
  } else if constexpr (Last == LastBatch::loads_first) {
    g.template for_each_batch<B>(block, threadIdx.x, full, [&](std::uint64_t v) {
      if (v < vectors) batch(at_stride(v), [&](int k) { return v + std::uint64_t(k) * BlockThreads < vectors; }, load);
    });
  } else {
    g.template for_each<B>(block, threadIdx.x, full, [&](std::uint64_t v) {
      src.consume_vector(src.load_vector(head + v * per_vec, load), head + v * per_vec, vector_sink);
    });
  }
  if constexpr (edges_last) use_edges();
}

// The accumulator of thread threadIdx.x's elements combined into `acc`. The kernels hand it an
// operator whose NaN policy is a constant (with_kernel_nan, kernel/reduce_kernels.cuh).
template <unsigned BlockThreads, int Unroll, Batches B, class A, class Source, class Load, class Op>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, const Load& load, Op op, A acc) {
  using T = typename Source::element_type;
  constexpr LastBatch last = Source::arrays == 2 || Source::shifted || std::is_same_v<T, __nv_bfloat16> ||
                                     (B == Batches::grid && !plain_values_v<Source> && alignof(T) < 4)
                                 ? LastBatch::loads_first
                                 : LastBatch::by_vector;
  for_each_thread_value<BlockThreads, Unroll, B, last>(
      src, split, block, grid, load, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
      [&](const auto& y, std::int64_t first) {
#pragma unroll
        for (unsigned k = 0; k < std::extent_v<std::remove_cvref_t<decltype(y)>>; ++k)
          acc = op(acc, op.template lift<A>(y[k], first + k));
      });
  return acc;
}

// Whether a reduction takes the packed-sum overload below.
template <class A, class Source, class Op>
inline constexpr bool packs_sum_v = false;
template <class A, class T>
inline constexpr bool packs_sum_v<A, ArraySource<T>, Sum> = is_packed_summable_v<T> && std::is_integral_v<A>;

// Integer sums of 8- and 16-bit arrays: each vector is summed in 32 bits from its loaded words
// (thread/packed_sum.hpp: 4 dot-product instructions), then added once into `acc`, which gives the
// same value modulo the accumulator's width, whatever its integer type.
template <unsigned BlockThreads, int Unroll, Batches B, class A, class T, class Load>
  requires(packs_sum_v<A, ArraySource<T>, Sum>)
__device__ __forceinline__ A thread_partial(const ArraySource<T>& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, const Load& load, Sum op, A acc) {
  for_each_thread_value<BlockThreads, Unroll, B, LastBatch::loads_first>(
      PackedWordSource<T>{src}, split, block, grid, load,
      [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
      [&](const T(&y)[Vector<T>::size], std::int64_t first) {
        acc = op(acc, op.template lift<A>(packed_sum(y), first));
      });
  return acc;
}

// min/max of 8- and 16-bit integer arrays: each vector's extreme from its loaded words
// (thread/vector_winner.hpp, extreme_of_words: 16-bit SIMD min/max), then one pick into `acc`.
template <class A, class Source, class Op>
inline constexpr bool packs_extreme_v = false;
template <class A, class T, bool Less>
inline constexpr bool packs_extreme_v<A, ArraySource<T>, detail::Extreme<Less>> =
    is_packed_summable_v<T> && std::is_integral_v<A>;

template <unsigned BlockThreads, int Unroll, Batches B, class A, class T, class Load, bool Less>
  requires(packs_extreme_v<A, ArraySource<T>, detail::Extreme<Less>>)
__device__ __forceinline__ A thread_partial(const ArraySource<T>& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, const Load& load, detail::Extreme<Less> op, A acc) {
  for_each_thread_value<BlockThreads, Unroll, B>(
      PackedWordSource<T>{src}, split, block, grid, load,
      [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
      [&](const T(&y)[Vector<T>::size], std::int64_t first) {
        std::uint32_t words[4];
        std::memcpy(words, y, sizeof words);
        acc = op(acc, op.template lift<A>(detail::extreme_of_words<Less, T>(words), first));
      });
  return acc;
}

// Whether a reduction takes the packed-dot overload below.
template <class A, class Source, class Op>
inline constexpr bool packs_dot_v = false;
template <class A, class T, bool ShiftedB>
inline constexpr bool packs_dot_v<A, ProductSource<T, A, ShiftedB>, Sum> =
    is_packed_dottable_v<T> && std::is_integral_v<A>;

// Integer dot products of 8-bit arrays: each pair of vectors is multiplied and summed in 32 bits
// (packed_dot: four dp4a), then added once into `acc`, the same value modulo the accumulator's
// width.
template <unsigned BlockThreads, int Unroll, Batches B, class A, class T, bool ShiftedB, class Load>
  requires(packs_dot_v<A, ProductSource<T, A, ShiftedB>, Sum>)
__device__ __forceinline__ A thread_partial(const ProductSource<T, A, ShiftedB>& src, const VectorSplit& split,
                                            std::uint64_t block, std::uint64_t grid, const Load& load, Sum op, A acc) {
  using Pair = typename ProductSource<T, A, ShiftedB>::Pair;
  for_each_thread_value<BlockThreads, Unroll, B, LastBatch::loads_first>(
      PackedProductSource<T, A, ShiftedB>{src}, split, block, grid, load, [&](A x, std::int64_t) { acc = op(acc, x); },
      [&](const Pair& x, std::int64_t) { acc = op(acc, A(packed_dot(x.a.v, x.b.v))); });
  return acc;
}

// Whether one block of argmin/argmax over records read one per load takes its partial batch's
// records each under its own test (LastBatch::loads_first), not the batch whole with repeats: a
// thread of 256 over 256 records computed the key of its one record four times. Only records of up
// to 8 loads (the others take one record per thread up to 512 records instead: dispatch/
// tuning_sm90.hpp, with_one_record_per_thread). In a translation unit of many record types
// (record_probe), those of 9-15 loads took up to 1.1 us longer at 1000-1500 records (ptxas: the
// kernel of 512 threads for 11 fields spilled 408 bytes), though a probe of 7 of them had shown
// none. H100, record_probe, three rounds alternating against 40e5ec3
// (bench/results/*_records_9220c08_experiment_40e5ec3_round*.txt: 9220c08 took every record so),
// argmax of the fields' sum in double, us, before -> after (CUB): 5 int8 fields 256 4.86 -> 4.38
// (4.22), 7 int8 256 4.67 -> 4.45 (4.34), 7 int16 256 4.77 -> 4.51 (4.22), 7 floats 512 4.86 ->
// 4.67 (4.99); 11 int8 256 4.90 -> 4.51 but 1000 5.09 -> 6.21, 9 floats 1500 5.60 -> 6.08.
template <class Source>
inline constexpr bool keys_last_batch_by_record_v =
    reads_one_per_load_v<Source> && record_loads_v<typename Source::element_type> <= 8;

// argmin/argmax: the body's vectors go through a VectorWinner (thread/vector_winner.hpp), whose
// per-vector work is one min/max chain; the NaN policy becomes a template argument so that chain
// has no runtime test in it. A vector repeated at the same index never replaces the winner (the
// compare is strict), so the partial last batch is loaded whole (LastBatch::repeat; in one block
// of small records read one per load, record by record: keys_last_batch_by_record_v). 8- and
// 16-bit integers reach it as the loaded words (PackedWordSource), which it keeps and compares as
// they are (extreme_of_words).
template <unsigned BlockThreads, int Unroll, Batches B, class A, class Source, class Load, bool Less>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, const Load& load, detail::ArgExtreme<Less> op, A acc) {
  using T = typename Source::element_type;
  using V = typename source_value<Source>::type;
  constexpr int N = Source::per_vector;
  using Value = decltype(acc.value);
  const auto source = [&] {
    if constexpr (std::is_same_v<Source, ArraySource<T>> && is_packed_summable_v<T>) return PackedWordSource<T>{src};
    else return src;
  }();
  // Records whose vectors hold 16 floating keys (int8 fields, a transform's key each) compare each
  // key with the best so far: a winner's store of 16 doubles took the staged kernels of 9 and 11
  // int8 fields to 138-142 registers (64-78 without it), one block of 256 threads per SM. H100,
  // tools/probes/record_probe.cu, argmax of the fields' sum in double, two rounds alternating
  // against 7b2714f (bench/results/*_records_pairs_experiment_keysA_round*.txt), time at 2^24 /
  // 2^26 / 2^28: 9 int8 0.90 / 0.80 / 0.79 (CUB's time over ours at 2^28 0.90 -> 1.14), 11 int8
  // 0.91 / 0.82 / 0.82 (0.97 -> 1.18), 5 and 7 int8 1.00-1.04 / 0.95-0.96 / 0.91-0.95, 23 int8
  // 0.93-0.95 from 2^24, 41 and 43 int8 0.91-0.95 at 2^22-2^26; 13-17 int8 at 2^22 1.03-1.07,
  // 0.96-0.99 above; 0.95-1.04 below 2^22. Not so for 8 keys (int16 fields: 33 int16 1.04-1.05 at
  // 2^22-2^26) nor integer keys (3-byte pixels' int64 luma: 1.03-1.14 from 2^20), but where a grid
  // kernel stages vectors in two parts (13 and 15 int16 fields, 128 registers): against 2b9f45e
  // (*_records_twopart_experiment_2b9f45e_round*.txt), 15 int16 at 2^24-2^28 0.88-0.89 of the time
  // on an H200 (CUB's time over ours 0.90-0.94 -> 1.02-1.05), 1.04-1.05x CUB against 1.01-1.04 on
  // the H100; 13 int16 1.04-1.10x CUB on both, as before.
  constexpr bool two_parts = [] {
    if constexpr (requires { Source::one_part_threads; })
      return B == Batches::grid && Source::vector_words >= 5 && BlockThreads > Source::one_part_threads;
    else return false;
  }();
  if constexpr (!is_element_v<T> && is_floating_v<Value> && (N >= 16 || two_parts)) {
    for_each_thread_value<BlockThreads, Unroll, B, LastBatch::repeat>(
        src, split, block, grid, load, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
        [&](const V(&y)[N], std::int64_t first) {
#pragma unroll
          for (int k = 0; k < N; ++k) acc = op(acc, op.template lift<A>(y[k], first + k));
        });
    return acc;
  }
  constexpr LastBatch last =
      B != Batches::grid && keys_last_batch_by_record_v<Source> ? LastBatch::loads_first : LastBatch::repeat;
  const auto run = [&]<NanPolicy Nan>() {
    detail::VectorWinner<Less, Nan, Value, V, N> winner;
    for_each_thread_value<BlockThreads, Unroll, B, last>(
        source, split, block, grid, load, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
        [&](const V(&y)[N], std::int64_t first) { winner.add(y, first); });
    return winner.fold_into(acc, op);
  };
  if constexpr (is_floating_v<Value>)
    if (op.nan == NanPolicy::ignore) return run.template operator()<NanPolicy::ignore>();
  return run.template operator()<NanPolicy::propagate>();
}

}  // namespace gpureduce
