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
template <unsigned BlockThreads, int Unroll, class Source, class Sink, class VectorSink>
__device__ __forceinline__ void for_each_thread_value(const Source& src, const VectorSplit& split, std::uint64_t block,
                                                      std::uint64_t grid, Sink&& sink, VectorSink&& vector_sink) {
  using T = typename Source::element_type;
  constexpr unsigned per_vec = Vector<T>::size;
  for_each_scalar_edge(split, per_vec, block * BlockThreads + threadIdx.x, [&](std::uint64_t i) { src.load(i, sink); });
  const std::uint64_t head = split.head;
  VectorGrid<Unroll>{split.vectors, BlockThreads, grid}.for_each(
      block, threadIdx.x,
      [&](std::uint64_t v) {
        decltype(src.load_vector(0)) x[Unroll];
#pragma unroll
        for (int k = 0; k < Unroll; ++k) x[k] = src.load_vector(head + (v + std::uint64_t(k) * BlockThreads) * per_vec);
#pragma unroll
        for (int k = 0; k < Unroll; ++k)
          src.consume_vector(x[k], head + (v + std::uint64_t(k) * BlockThreads) * per_vec, vector_sink);
      },
      [&](std::uint64_t v) { src.consume_vector(src.load_vector(head + v * per_vec), head + v * per_vec, vector_sink); });
}

// The accumulator of thread threadIdx.x's elements combined into `acc`.
template <unsigned BlockThreads, int Unroll, class A, class Source, class Op>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, Op op, A acc) {
  for_each_thread_value<BlockThreads, Unroll>(
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
template <unsigned BlockThreads, int Unroll, class A, class Source, bool Less>
__device__ __forceinline__ A thread_partial(const Source& src, const VectorSplit& split, std::uint64_t block,
                                            std::uint64_t grid, detail::ArgExtreme<Less> op, A acc) {
  using V = typename source_value<Source>::type;
  constexpr int N = Vector<typename Source::element_type>::size;
  using Value = decltype(acc.value);
  const auto run = [&]<NanPolicy Nan>() {
    detail::VectorWinner<Less, Nan, Value, V, N> winner;
    for_each_thread_value<BlockThreads, Unroll>(
        src, split, block, grid, [&](auto x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); },
        [&](const V(&y)[N], std::int64_t first) { winner.add(y, first); });
    return winner.fold_into(acc, op);
  };
  if constexpr (is_floating_v<Value>)
    if (op.nan == NanPolicy::ignore) return run.template operator()<NanPolicy::ignore>();
  return run.template operator()<NanPolicy::propagate>();
}

}  // namespace gpureduce
