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

namespace gpureduce::detail {

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
  // ptxas did not overlap vector by vector (dot products, bfloat16, 8- and 16-bit integer sums, and
  // in the grid kernel transformed values and records of alignment below 4). H100: 0.79-0.96x of the
  // time where the last batch is partial (float16 dot of 14000 5.84 -> 5.28 us); the other sums and
  // min/max were 1.07-1.12x slower so, and keep by_vector.
  loads_first,
  // Loaded whole, as a full batch, its missing vectors replaced by repeats of its first: only for
  // a vector_sink for which a vector seen twice at the same index counts once (argmin/argmax),
  // whose sink branches, so that vector by vector it waited a round trip per vector.
  repeat,
};

// A loaded vector as a batch holds it until it is used: as loaded, or as 32-bit words (HeldWords)
// in a batch whose loads each have their own test (LastBatch::loads_first's last batch) of the
// sources held_as_words_v names. Held as loaded, a vector of 2-byte elements was split into 16-bit
// registers inside its load's test, and ptxas issued the batch's later loads after those moves: a
// round trip more per partial batch (H200: float16 dot of 8193 4.85 -> 4.34 us). Whole batches keep
// their vectors as loaded (as words, float16 sums of 2^16-2^18 took 1.05-1.08x the time).
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
  // One block's edges of elements over 4 bytes are used last (sums, min/max) or first by the last
  // threads, whose last batch is the shortest (argmin/argmax): used first by thread 0, they cost it a
  // round trip before its vectors (H100: float64 sum of 257 4.33 -> 4.10 us, argmax 4.66 -> 4.33).
  constexpr bool one_block = B != Batches::grid;
  constexpr bool edges_last = (one_block && (sizeof(Value) <= 4 || Last != LastBatch::repeat)) || Source::shifted;
  // A source of one element per vector (records read one per load, elements of 16 bytes and more)
  // has no edges (VectorSplit::make, RecordSource::split), so none is loaded or held (held unused,
  // they cost up to 1.9 us per call on an H200: 2048 records of 5 int8 fields 5.46 -> 4.30 us).
  constexpr bool has_edges = per_vec > 1 || Source::shifted;
  // In one block the edges of elements of up to 4 bytes go to its last threads rather than its
  // first: those have no vector in the last batch unless it holds more than BlockThreads - 32 (every
  // input of up to 7.5 KB). Their first use lands right after the load in the SASS (a sign extension,
  // bfloat16's widening), so the warp that held one waited a round trip before its vectors (H200:
  // int32 sum of 257 4.14 -> 3.71 us, CUB 4.19). 8-byte elements keep them first (1.06x slower so).
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
// to 8 loads; the others take one record per thread (tuning_sm90.hpp, one_per_load)
// (H100, record_probe: argmax of 5 int8 fields, 256 records 4.86 -> 4.38 us; of 11 fields at 1000
// records 5.09 -> 6.21, a spilling kernel).
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
  // key with the best so far rather than storing a winner's 16 doubles, which took the staged kernels
  // to 138-142 registers (H100, record_probe: argmax of 9 int8 fields at 2^28 0.79x of the time, 1.14x
  // CUB). So do the two-part staged kernels (13 and 15 int16 fields); not 8 keys nor integer keys.
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

}  // namespace gpureduce::detail
