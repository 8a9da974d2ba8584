// The per-thread part of a reduction: one thread's share of the scalar head and tail, then its
// share of the 16-byte vector body, Unroll vectors in flight before any is used.
#pragma once

#include <gpureduce/agent/sources.cuh>
#include <gpureduce/grid/vector_split.hpp>
#include <gpureduce/thread/vector_winner.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce {

// Hands thread threadIdx.x's elements (block `block` of a grid of `grid` blocks of BlockThreads)
// to sink(value, index) (scalar head and tail) and vector_sink(values, first_index) (the body),
// Unroll vectors in flight before any is used.
//   EdgesLast          the scalar head and tail are loaded first and used last, so a thread that
//                      has one issues its body loads without waiting for it (one round trip of a
//                      single-block reduction). Off in the grid kernel: the two values held across
//                      the loop raise the sum kernel from 32 to 40 registers, 6 blocks per SM not 8.
//   LastBatchTogether  the loads of the last, partial batch are all issued before any vector is
//                      used, as in a full batch; for a vector_sink that branches (argmin/argmax),
//                      which otherwise waits a round trip per vector. Without, vector by vector:
//                      ptxas predicates and overlaps those itself for sinks without branches, in
//                      fewer registers.
template <unsigned BlockThreads, int Unroll, bool EdgesLast, bool LastBatchTogether = false, class Source, class Sink,
          class VectorSink>
__device__ __forceinline__ void for_each_thread_value(const Source& src, const VectorSplit& split, std::uint64_t block,
                                                      std::uint64_t grid, Sink&& sink, VectorSink&& vector_sink) {
  using T = typename Source::element_type;
  constexpr unsigned per_vec = Vector<T>::size;
  const ScalarEdges edges = ScalarEdges::of(split, per_vec, block * BlockThreads + threadIdx.x);
  decltype(src.load(0)) head_value{}, tail_value{};
  if (edges.has_head) head_value = src.load(edges.head_index);
  if (edges.has_tail) tail_value = src.load(edges.tail_index);
  const auto use_edges = [&] {
    if (edges.has_head) src.consume(head_value, edges.head_index, sink);
    if (edges.has_tail) src.consume(tail_value, edges.tail_index, sink);
  };
  if constexpr (!EdgesLast) use_edges();
  const std::uint64_t head = split.head, vectors = split.vectors;
  const auto first = [&](std::uint64_t v, int k) { return head + (v + std::uint64_t(k) * BlockThreads) * per_vec; };
  const auto batch = [&](std::uint64_t v, auto in_range) {
    decltype(src.load_vector(0)) x[Unroll];
#pragma unroll
    for (int k = 0; k < Unroll; ++k)
      if (in_range(k)) x[k] = src.load_vector(first(v, k));
#pragma unroll
    for (int k = 0; k < Unroll; ++k)
      if (in_range(k)) src.consume_vector(x[k], first(v, k), vector_sink);
  };
  const VectorGrid<Unroll> g{vectors, BlockThreads, grid};
  const auto full = [&](std::uint64_t v) { batch(v, [](int) { return true; }); };
  if constexpr (LastBatchTogether)
    g.for_each_batch(block, threadIdx.x, full, [&](std::uint64_t v) {
      batch(v, [&](int k) { return v + std::uint64_t(k) * BlockThreads < vectors; });
    });
  else
    g.for_each(block, threadIdx.x, full, [&](std::uint64_t v) {
      src.consume_vector(src.load_vector(head + v * per_vec), head + v * per_vec, vector_sink);
    });
  if constexpr (EdgesLast) use_edges();
}

// The accumulator of thread threadIdx.x's elements combined into `acc`.
template <unsigned BlockThreads, int Unroll, bool EdgesLast, class A, class Source, class Op>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, Op op, A acc) {
  for_each_thread_value<BlockThreads, Unroll, EdgesLast>(
      src, split, block, grid, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
      [&](const auto& y, std::int64_t first) {
#pragma unroll
        for (unsigned k = 0; k < std::extent_v<std::remove_cvref_t<decltype(y)>>; ++k)
          acc = op(acc, op.template lift<A>(y[k], first + k));
      });
  return acc;
}

// argmin/argmax: the body's vectors go through a VectorWinner (thread/vector_winner.hpp), whose
// per-vector work is one min/max chain; the NaN policy becomes a template argument so that chain
// has no runtime test in it.
template <unsigned BlockThreads, int Unroll, bool EdgesLast, class A, class Source, bool Less>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, detail::ArgExtreme<Less> op, A acc) {
  using V = typename source_value<Source>::type;
  constexpr int N = Vector<typename Source::element_type>::size;
  using Value = decltype(acc.value);
  const auto run = [&]<NanPolicy Nan>() {
    detail::VectorWinner<Less, Nan, Value, V, N> winner;
    for_each_thread_value<BlockThreads, Unroll, EdgesLast, true>(
        src, split, block, grid, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
        [&](const V(&y)[N], std::int64_t first) { winner.add(y, first); });
    return winner.fold_into(acc, op);
  };
  if constexpr (is_floating_v<Value>)
    if (op.nan == NanPolicy::ignore) return run.template operator()<NanPolicy::ignore>();
  return run.template operator()<NanPolicy::propagate>();
}

}  // namespace gpureduce
