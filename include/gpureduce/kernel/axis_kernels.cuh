// The kernels of the axis and segmented reductions (dispatch/dispatch_axis.cuh picks one):
//   dense_rows_kernel  rows of a power-of-two length, back to back and 16-byte aligned: one stream
//                      of 16-byte vectors, each thread folding its vector's rows (or its part of
//                      a row, the row's threads then reducing by shuffles), 4 vectors in flight.
//   rows_kernel        groups of G lanes (4, 8, 32, or the whole block) reduce one row each, U rows
//                      at a time, K loads in flight per row; 16-byte vectors (a misaligned head
//                      and tail element by element), scalar loads G apart, or the batch-invariant
//                      fold (16-byte vectors counted from the row's first element). A row is a
//                      contiguous run (Rows: the kept index's offset and a length, or a segment's
//                      begin and end). Interleave I (a power of two dividing G, scalar loads): the
//                      row is I adjacent columns' run of length x I, each lane on one column, for
//                      the sums of a few adjacent columns read as rows. Sliced (S > 1): each group
//                      reduces one slice of a row into a partial, which combine_kernel folds.
//   interleaved_rows_kernel  the same rows of interleaved columns where every row is 16-byte
//                      aligned: a warp per row slice in 16-byte vectors, V accumulators a lane.
//   narrow_columns_kernel  rows of 3 to 31 interleaved columns, not a power of two, at any
//                      alignment: as interleaved_rows_kernel, on the lanes of whole sets of
//                      columns, the lanes' accumulators folded through shared memory.
//                      Both sliced across blocks (combine_kernel folds the partials) or, for a
//                      few short runs, within a block (column_pieces): one launch.
//   columns_kernel     one thread per output, or per 16-byte vector of adjacent outputs; adjacent
//                      threads read adjacent columns, `row_stride` apart down the reduced
//                      dimension, 4 loads in flight; sliced as rows_kernel.
//   invariant_columns_kernel  batch-invariant columns of a dense run of up to 32, columns_kernel's
//                      tree: a thread per column and slice, the slices' rows copied to shared
//                      memory in 16-byte vectors (cp.async), 32 rows at a time.
//   combine_kernel     folds each output's S partials in slice order (a thread per output), in
//                      8 ways of every 8th slice then way order (outputs too few to fill the
//                      device), or in a fixed block tree (a block per output, for a few outputs
//                      of many slices).
//   general_kernel     one warp per output, the reduced dimensions walked by index: any strides.
//   offsets_check_kernel  the first segment whose offsets break a rule (check_segments).
// Every fold and every shuffle tree has a fixed order, so a result's bits depend only on the
// launch's shape (the kernel, G, S, the row's length and alignment), never on timing.
#pragma once

#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/agent/sources.cuh>
#include <gpureduce/dispatch/axis_plan.hpp>
#include <gpureduce/grid/column_stage.hpp>
#include <gpureduce/grid/staged_tile.hpp>
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/async_copy.cuh>
#include <gpureduce/thread/held_lanes.hpp>
#include <gpureduce/thread/interleaved_slots.hpp>
#include <gpureduce/thread/narrow_slots.hpp>
#include <gpureduce/thread/ordered_best.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/vector_winner.hpp>
#include <gpureduce/warp/shuffle.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// A row: its first element's offset, its length and its result's offset.
struct RowSpan {
  std::int64_t in = 0;
  std::uint64_t length = 0;
  std::int64_t out = 0;
};

// Rows of one length from the kept dimensions' offsets (axis reductions, fixed-size segments).
struct UniformRows {
  Dims outer;
  std::uint64_t length;  // elements per row: the reduced length x the interleave
  __device__ RowSpan row(std::uint64_t r) const {
    RowSpan s;
    outer.offsets(r, &s.in, &s.out);
    s.length = length;
    return s;
  }
};

// Segment r is [begin[r], end[r]) (an end before its begin: empty); its result goes to out[r].
template <class Offset>
struct OffsetRows {
  const Offset* begin;
  const Offset* end;
  __device__ RowSpan row(std::uint64_t r) const {
    const std::int64_t b = std::int64_t(begin[r]), e = std::int64_t(end[r]);
    return {b, e > b ? std::uint64_t(e - b) : 0, std::int64_t(r)};
  }
};

// Element x at index i of its row, lifted to the accumulator; argmin/argmax of 16-bit floats widen
// bit for bit, so that their value keeps a NaN's payload (convert_result narrows it back).
template <class A, class Op, class T>
__device__ __forceinline__ A lift_element(const Op& op, T x, std::int64_t i) {
  if constexpr (requires(A a) { a.index; } && is_half_v<T>) return op.template lift<A>(widen_bits(x), i);
  else return op.template lift<A>(x, i);
}

// The result written: argmin/argmax of an empty row (no index) as index -1 with the identity's
// value, the sentinel of the segmented reductions.
template <class Out, class A>
__device__ __forceinline__ Out finish(A acc) {
  if constexpr (requires { acc.index; })
    if (acc.index == highest<std::int64_t>()) acc.index = -1;
  return convert_result<Out>(acc);
}

// Butterfly over the lanes of a warp: lanes i and i ^ offset combine for offset = widest down to
// stop (powers of two, widest <= 16). Lane i then holds the reduction of the lanes of its group
// of 2 widest lanes that are congruent to it modulo stop. A fixed tree; every lane of the warp
// takes part.
template <class A, class Op>
__device__ __forceinline__ A butterfly(A v, const Op& op, unsigned widest, unsigned stop) {
#pragma unroll
  for (unsigned offset = warp_threads / 2; offset >= 1; offset /= 2)
    if (offset <= widest && offset >= stop) {
      const A other = shuffle_xor(v, offset);
      // The lower lane's value first, so both lanes hold the same bits.
      v = (threadIdx.x & offset) ? op(other, v) : op(v, other);
    }
  return v;
}

// Dense_rows_kernel: `rows` rows of 2^log_length elements from `in` (16-byte aligned), back to
// back. Thread k of the stream folds vector k in a pairwise tree; where a row is longer than a
// vector, the row's 2^log_length / V threads (adjacent lanes) finish by shuffles. Where a vector
// holds several rows (Several: 2^log_length < V), a warp's results go out through shared memory,
// so that each store of the warp writes consecutive results (not every per-th, which leaves
// sectors partly written: rows of 1 float32 argmax 7.8 ms against 1.6, H200).
template <unsigned Threads, unsigned U, bool Several, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    dense_rows_kernel(const T* in, std::uint64_t rows, unsigned log_length, Out* out, Op runtime_op) {
  constexpr unsigned R = 4;  // results a lane stores per round of the warp's write-out
  __shared__ alignas(16) unsigned char results_bytes[Several ? Threads * R * sizeof(Out) : 1];
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned V = Vector<T>::size;
    const std::uint64_t length = std::uint64_t(1) << log_length;
    const std::uint64_t n = rows << log_length;
    const std::uint64_t vectors = (n + V - 1) / V;
    const A identity = op.template identity<A>();
    [[maybe_unused]] const unsigned lane = threadIdx.x % warp_threads;  // Several's
    for (std::uint64_t first = std::uint64_t(blockIdx.x) * Threads * U; first < vectors;
         first += std::uint64_t(gridDim.x) * Threads * U) {
      Vector<T> x[U];
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        const std::uint64_t k = first + u * Threads + threadIdx.x;
        if ((k + 1) * V <= n) {
          x[u] = reinterpret_cast<const Vector<T>*>(in)[k];
        } else {
#pragma unroll
          for (unsigned j = 0; j < V; ++j)
            if (k * V + j < n) x[u].v[j] = in[k * V + j];
        }
      }
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        const std::uint64_t k = first + u * Threads + threadIdx.x;
        A a[V];
#pragma unroll
        for (unsigned j = 0; j < V; ++j)
          a[j] = k * V + j < n ? lift_element<A>(op, x[u].v[j], std::int64_t((k * V + j) & (length - 1))) : identity;
#pragma unroll
        for (unsigned s = 1; s < V; s *= 2)
          if (s < length)
#pragma unroll
            for (unsigned j = 0; j < V; j += 2 * s) a[j] = op(a[j], a[j + s]);
        if constexpr (Several) {
          // Lane l holds rows (k0 + l) x per ... + per - 1 (k0: lane 0's vector): in rounds of
          // `lanes` lanes, their per results each into the warp's R a lane of the stage (Out may
          // have constructors), then out as one run.
          Out* staged = reinterpret_cast<Out*>(results_bytes) + (threadIdx.x - lane) * R;
          const unsigned per = unsigned(V >> log_length);
          const unsigned lanes = per <= R ? warp_threads : warp_threads * R / per;
          const std::uint64_t first_row = (k - lane) * per;
          for (unsigned c = 0; c < warp_threads; c += lanes) {
            if (lane - c < lanes) {
#pragma unroll
              for (unsigned j = 0; j < V; ++j)
                if ((j & (length - 1)) == 0) staged[(lane - c) * per + (j >> log_length)] = finish<Out>(a[j]);
            }
            __syncwarp();
            for (unsigned i = lane; i < lanes * per; i += warp_threads)
              if (first_row + c * per + i < rows) out[first_row + c * per + i] = staged[i];
            __syncwarp();
          }
        } else if (length == V) {
          if (k < rows) out[k] = finish<Out>(a[0]);
        } else {
          const unsigned row_threads = unsigned(length / V);  // <= 32
          const A total = butterfly(a[0], op, row_threads / 2, 1);
          if (k % row_threads == 0 && k * V < n) out[(k * V) >> log_length] = finish<Out>(total);
        }
      }
    }
  });
}

// Vectors k0, k0 + G, ... (K of them, those below `vectors`) of v: all loaded, then visited in
// order (vector(x, its index)).
template <unsigned G, unsigned K, class T, class VectorFn>
__device__ __forceinline__ void load_vectors(const Vector<T>* v, std::uint64_t k0, std::uint64_t vectors,
                                             VectorFn&& vector) {
  Vector<T> x[K];
#pragma unroll
  for (unsigned k = 0; k < K; ++k)
    if (k0 + k * G < vectors) x[k] = v[k0 + k * G];
#pragma unroll
  for (unsigned k = 0; k < K; ++k)
    if (k0 + k * G < vectors) vector(x[k], k0 + k * G);
}

// Visits elements [lo, hi) of the run at p as lane `lane` of G: every G-th 16-byte vector of the
// aligned body, K loads in flight (vector(x, index of x.v[0])), and every G-th element of the
// head and of the tail (element(x, index)), fewer than V each: one a lane where G >= V - 1.
template <unsigned G, unsigned K, class T, class Element, class VectorFn>
__device__ __forceinline__ void visit_vectors(const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                              Element&& element, VectorFn&& vector) {
  constexpr unsigned V = Vector<T>::size;
  const std::uint64_t misfit = (reinterpret_cast<std::uintptr_t>(p + lo) / sizeof(T)) % V;
  std::uint64_t body = lo + (misfit ? V - misfit : 0);
  body = body < hi ? body : hi;
  const std::uint64_t vectors = (hi - body) / V;
  const std::uint64_t tail = body + vectors * V;
#pragma unroll
  for (unsigned k = 0; k < (V + G - 2) / G; ++k) {
    const std::uint64_t i = lo + lane + k * G, j = tail + lane + k * G;
    if (i < body) element(p[i], i);
    if (j < hi) element(p[j], j);
  }
  const Vector<T>* v = reinterpret_cast<const Vector<T>*>(p + body);
  for (std::uint64_t k0 = lane; k0 < vectors; k0 += G * K)
    load_vectors<G, K>(v, k0, vectors, [&](const Vector<T>& x, std::uint64_t k) { vector(x, body + k * V); });
}

// Folds elements [lo, hi) of the row at p into acc, lane `lane` of G taking every G-th element
// (scalar, K loads in flight) or, with Vectors, as visit_vectors. Index: the element's position
// >> shift.
template <unsigned G, unsigned K, bool Vectors, class A, class T, class Op>
__device__ __forceinline__ A fold_run(A acc, const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                      unsigned shift, const Op& op) {
  if constexpr (Vectors) {
    visit_vectors<G, K>(
        p, lo, hi, lane, [&](T x, std::uint64_t i) { acc = op(acc, lift_element<A>(op, x, std::int64_t(i))); },
        [&](const Vector<T>& x, std::uint64_t i) {
#pragma unroll
          for (unsigned j = 0; j < Vector<T>::size; ++j)
            acc = op(acc, lift_element<A>(op, x.v[j], std::int64_t(i + j)));
        });
  } else {
    for (std::uint64_t j0 = lo + lane; j0 < hi; j0 += G * K) {
      T x[K];
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (j0 + k * G < hi) x[k] = p[j0 + k * G];
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (j0 + k * G < hi) acc = op(acc, lift_element<A>(op, x[k], std::int64_t((j0 + k * G) >> shift)));
    }
  }
  return acc;
}

// fold_run's vectors for argmin/argmax: each vector through a VectorWinner (thread/vector_winner.hpp),
// a min/max chain per vector in place of a NaN-aware compare and index select per element; the
// winning element itself (lift_element's bits) joins acc at the end. rows_kernel's groups only:
// the CSR kernels, whose warp folds sit beside their staged tiles, spilled more with it (ptxas,
// float32 argmax: csr_segments_kernel 96 -> 240 bytes, staged_rows_kernel 0 -> 64).
template <unsigned G, unsigned K, class A, class T, class Op>
__device__ __forceinline__ A winner_fold_run(A acc, const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                             const Op& op) {
  using Value = decltype(acc.value);
  const auto run = [&]<NanPolicy Nan>() {
    VectorWinner<std::is_same_v<Op, ArgMin>, Nan, Value, T, Vector<T>::size> winner;
    visit_vectors<G, K>(
        p, lo, hi, lane, [&](T x, std::uint64_t i) { acc = op(acc, lift_element<A>(op, x, std::int64_t(i))); },
        [&](const Vector<T>& x, std::uint64_t i) { winner.add(x.v, std::int64_t(i)); });
    if (winner.empty) return acc;
    T element;
    const std::int64_t at = winner.winning_index(&element);
    return op(acc, lift_element<A>(op, element, at));
  };
  if constexpr (is_floating_v<Value>)
    if (op.nan == NanPolicy::ignore) return run.template operator()<NanPolicy::ignore>();
  return run.template operator()<NanPolicy::propagate>();
}

// Vector j (V elements from element j x V) of the run at `run`, whatever the run's address d
// modulo 16: one 16-byte load where d is 0, else two 8-byte or four 4-byte loads where d allows
// them, else element by element (elements that are not 1, 2, 4 or 8 bytes at an address they
// divide, too). The loads stay within the vector's own bytes.
template <class T>
__device__ __forceinline__ Vector<T> run_vector(const T* run, std::uint64_t j, unsigned d) {
  constexpr unsigned V = Vector<T>::size;
  Vector<T> x;
  if constexpr (sizeof(T) <= 8 && alignof(T) == sizeof(T)) {
    const T* at = run + j * V;
    if (d == 0) return *reinterpret_cast<const Vector<T>*>(at);
    if (d % 8 == 0) {
      const uint2 w[2] = {reinterpret_cast<const uint2*>(at)[0], reinterpret_cast<const uint2*>(at)[1]};
      __builtin_memcpy(&x, w, sizeof x);
      return x;
    }
    if (d % 4 == 0) {
      const std::uint32_t* q = reinterpret_cast<const std::uint32_t*>(at);
      const std::uint32_t w[4] = {q[0], q[1], q[2], q[3]};
      __builtin_memcpy(&x, w, sizeof x);
      return x;
    }
  }
#pragma unroll
  for (unsigned e = 0; e < V; ++e) x.v[e] = run[j * V + e];
  return x;
}

// The batch-invariant fold of elements [lo, hi) of the row at p: 32 logical lanes, lane k folding
// vectors k, k + 32, ... of the run (V elements each, counted from element lo, whatever its
// address) element by element in order, the last, partial vector as its lane's last; then the
// butterfly over the 32. The tree depends on hi - lo alone. G lanes (G dividing 32) emulate the 32,
// lane l holding logical lanes l, l + G, ... in 32 / G accumulators, which it combines as the
// butterfly's widest steps would (thread/held_lanes.hpp); K vectors in flight (a multiple of
// 32 / G), each read as its address allows (run_vector). Every lane of the group returns the
// result.
template <unsigned G, unsigned K, class A, class T, class Op>
__device__ __forceinline__ A invariant_fold(const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                            const Op& op) {
  constexpr unsigned V = Vector<T>::size, M = warp_threads / G;
  static_assert(warp_threads % G == 0 && K % M == 0);
  const T* run = p + lo;
  const std::uint64_t n = hi > lo ? hi - lo : 0, full = n / V, vectors = (n + V - 1) / V;
  const unsigned d = unsigned(reinterpret_cast<std::uintptr_t>(run) % vector_bytes);
  A acc[M];
#pragma unroll
  for (unsigned m = 0; m < M; ++m) acc[m] = op.template identity<A>();
  for (std::uint64_t j0 = lane; j0 < vectors; j0 += G * K) {
    Vector<T> x[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint64_t j = j0 + k * G;
      if (j < full) {
        x[k] = run_vector(run, j, d);
      } else if (j < vectors) {  // the last, partial vector
#pragma unroll
        for (unsigned e = 0; e < V; ++e)
          if (j * V + e < n) x[k].v[e] = run[j * V + e];
      }
    }
#pragma unroll
    for (unsigned k = 0; k < K; ++k) {
      const std::uint64_t j = j0 + k * G;
      const auto fold = [&](unsigned count) {
#pragma unroll
        for (unsigned e = 0; e < V; ++e)
          if (e < count) acc[k % M] = op(acc[k % M], lift_element<A>(op, x[k].v[e], std::int64_t(lo + j * V + e)));
      };
      if (j < full) fold(V);
      else if (j < vectors) fold(unsigned(n - j * V));
    }
  }
  fold_held_lanes(acc, op);
  return butterfly(acc[0], op, G / 2, 1);
}

// The segments' batch-invariant tree over elements [lo, hi) of the run at p (32 logical lanes, lane
// k folding elements lo + k, lo + k + 32, ... in order, then the butterfly: fold_run<32> and
// butterfly's bits) on G = 32 / V lanes, read as 16-byte vectors: vector j of the run holds logical
// lanes (j % G) x V to (j % G) x V + V - 1, so lane l loads vectors l, l + G, ... (each as its
// address allows, run_vector) and holds its V logical lanes in acc[0, V). The butterfly's widest
// steps then cross the G lanes, its narrowest (V / 2 down to 1) stay within them. A warp folds
// V runs at once where a scalar warp folds one: more bytes in flight on runs of a few hundred.
// Every lane of the group returns the result.
template <unsigned K, class A, class T, class Op>
__device__ __forceinline__ A element_tree_fold(const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                               const Op& op) {
  constexpr unsigned V = Vector<T>::size, G = warp_threads / V;
  const T* run = p + lo;
  const std::uint64_t n = hi > lo ? hi - lo : 0, full = n / V;
  const unsigned d = unsigned(reinterpret_cast<std::uintptr_t>(run) % vector_bytes);
  A acc[V];
#pragma unroll
  for (unsigned e = 0; e < V; ++e) acc[e] = op.template identity<A>();
  for (std::uint64_t j0 = lane; j0 < full; j0 += G * K) {
    Vector<T> x[K];
#pragma unroll
    for (unsigned k = 0; k < K; ++k)
      if (j0 + k * G < full) x[k] = run_vector(run, j0 + k * G, d);
#pragma unroll
    for (unsigned k = 0; k < K; ++k)
      if (j0 + k * G < full)
#pragma unroll
        for (unsigned e = 0; e < V; ++e)
          acc[e] = op(acc[e], lift_element<A>(op, x[k].v[e], std::int64_t(lo + (j0 + k * G) * V + e)));
  }
  // The last, partial vector: its logical lanes' last elements.
  if (n % V != 0 && lane == full % G)
#pragma unroll
    for (unsigned e = 0; e < V; ++e)
      if (full * V + e < n)
        acc[e] = op(acc[e], lift_element<A>(op, run[full * V + e], std::int64_t(lo + full * V + e)));
#pragma unroll
  for (unsigned e = 0; e < V; ++e) acc[e] = butterfly(acc[e], op, G / 2, 1);
  fold_held_lanes(acc, op);
  return acc[0];
}

// Elements [lo, hi) of the run at p folded into acc as lane `lane` of a warp: elements lo + lane,
// lo + lane + 32, ... in order, as fold_run<32, K, false> folds them, but read as 16-byte vectors
// (2-byte elements: 64 bytes a warp's scalar load, at most 0.24x the vectors' speed). The warp
// loads K x 32 vectors at a time, counted from the 16-byte boundary at or before element lo (a
// vector the run fills partly, element by element), into `stage` (K x 32 vectors, the warp's own),
// and each lane then reads its elements from it: consecutive lanes, consecutive elements. Elements
// that 16-byte loads do not take (grid/staged_tile.hpp) are read one by one.
template <unsigned K, class A, class T, class Op>
__device__ __forceinline__ A staged_warp_run(A acc, const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                             Vector<T>* stage, const Op& op) {
  constexpr unsigned V = Vector<T>::size;
  if constexpr (staged_load_elements(sizeof(T), alignof(T)) == 1) {
    return fold_run<warp_threads, 2 * K, false>(acc, p, lo, hi, lane, 0, op);
  } else {
    const T* q = p + lo;
    const std::uint64_t n = hi > lo ? hi - lo : 0;
    const unsigned m = unsigned(reinterpret_cast<std::uintptr_t>(q) / sizeof(T) % V);
    const T* base = q - m;  // 16-byte aligned: element t of the chunks is run element t - m
    const std::uint64_t total = m + n, vectors = (total + V - 1) / V;
    const unsigned first = (lane + m) % warp_threads;  // this lane's first slot of every chunk
    T* slots = reinterpret_cast<T*>(stage);
    // Vectors [whole_lo, whole_hi) lie within the run; the others (at most the first and the
    // last) are read element by element.
    const std::uint64_t whole_lo = m ? 1 : 0, whole_hi = total / V;
    for (std::uint64_t c0 = 0; c0 < vectors; c0 += K * warp_threads) {
      __syncwarp();  // the previous chunk's slots are read
#pragma unroll
      for (unsigned k = 0; k < K; ++k) {
        const std::uint64_t w = c0 + lane + k * warp_threads;
        if (w >= whole_lo && w < whole_hi)
          copy_async_16(stage + lane + k * warp_threads, reinterpret_cast<const Vector<T>*>(base) + w);
      }
      const std::uint64_t edges[2] = {0, vectors - 1};
#pragma unroll
      for (const std::uint64_t w : edges)
        if ((w < whole_lo || w >= whole_hi) && w >= c0 && w < c0 + K * warp_threads && lane < V) {
          const std::uint64_t t = w * V + lane;
          if (t >= m && t < total) slots[(w - c0) * V + lane] = base[t];
        }
      copy_async_wait();
      __syncwarp();
      // Slot s holds run element start + s; those of [s_lo, s_hi) are the run's.
      const std::int64_t start = std::int64_t(c0 * V) - std::int64_t(m);
      const unsigned s_lo = start < 0 ? unsigned(-start) : 0u;
      const unsigned s_hi = unsigned(std::int64_t(n) - start < K * warp_threads * V ? std::int64_t(n) - start
                                                                                    : K * warp_threads * V);
#pragma unroll 1
      for (unsigned k = 0; k < K; ++k) {
#pragma unroll
        for (unsigned e = 0; e < V; ++e) {
          const unsigned s = first + (k * V + e) * warp_threads;
          if (s >= s_lo && s < s_hi)
            acc = op(acc, lift_element<A>(op, slots[s], std::int64_t(lo) + start + std::int64_t(s)));
        }
      }
    }
    __syncwarp();  // the stage is free for the warp's next run
    return acc;
  }
}

// Vectors a warp stages at once in staged_warp_run (rows_kernel, invariant_segments_kernel): 2 KB.
inline constexpr unsigned staged_warp_loads = 4;

// How rows_kernel reads a row: every G-th element; 16-byte vectors (a misaligned head and tail
// element by element); the batch-invariant fold (invariant_fold); every 32nd element through a
// stage of 16-byte vectors (staged_warp_run, G = 32); or every 32nd element from 16-byte vectors on
// G = 32 / V lanes (element_tree_fold).
enum class RowLoads { elements, vectors, invariant, staged, element_tree };

// Rows_kernel: G lanes per row (G <= 32), or the whole block (G == Threads); U rows per group at a
// time. Interleave 2^shift columns per row (scalar loads, G <= 32). Sliced: `slices` pieces per
// row of `slice` elements (a multiple of 2^shift), writing partials. Groups of fewer than 32 lanes
// in vectors, the element tree, and argmin/argmax groups of elements of 2 bytes or more are held to
// 64 registers, 4 blocks a multiprocessor (sm_90: bfloat16 sums on 8 lanes took 76 registers
// otherwise, 3 blocks; a warp's sums, so held, spilled and lost 6% on rows of 4096; float32 argmax
// of rows of 1024, held, 376 us against 397, of rows of 4096 (a block each) 359 against 386; int8
// argmax, held, spills: H100).
template <unsigned Threads, unsigned G, unsigned U, unsigned K, RowLoads L, class A, class Out, class T, class Rows,
          class Op>
__global__ void __launch_bounds__(Threads, L == RowLoads::staged || L == RowLoads::element_tree ||
                                           (L == RowLoads::vectors &&
                                            (is_arg_extreme_v<Op> ? Vector<T>::size <= 8 : G < warp_threads))
                                       ? 4
                                       : 1)
    rows_kernel(const T* in, Rows rows, std::uint64_t num_rows, unsigned shift, std::uint64_t slices,
                std::uint64_t slice, Out* out, A* partials, Op runtime_op) {
  static_assert(G <= warp_threads || (G == Threads && U == 1));
  static_assert(L != RowLoads::staged || (G == warp_threads && U == 1));
  static_assert(L != RowLoads::element_tree || G == warp_threads / Vector<T>::size);
  __shared__ alignas(16) unsigned char stage_bytes[L == RowLoads::staged ? Threads * K * sizeof(Vector<T>) : 1];
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned groups = Threads / G;
    const unsigned lane = threadIdx.x % G;
    const unsigned group = threadIdx.x / G;
    const unsigned inner = 1u << shift;
    const A identity = op.template identity<A>();
    const std::uint64_t pieces = num_rows * slices;
    for (std::uint64_t first = std::uint64_t(blockIdx.x) * groups * U; first < pieces;
         first += std::uint64_t(gridDim.x) * groups * U) {
      A acc[U];
      RowSpan span[U];
      std::uint64_t row[U], slice_index[U];
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        const std::uint64_t piece = first + u * groups + group;
        acc[u] = identity;
        row[u] = slices == 1 ? piece : piece / slices;
        slice_index[u] = piece - row[u] * slices;
        span[u] = piece < pieces ? rows.row(row[u]) : RowSpan{};
      }
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        const std::uint64_t lo = slice_index[u] * slice;
        const std::uint64_t hi = slices == 1 || lo + slice > span[u].length ? span[u].length : lo + slice;
        if constexpr (L == RowLoads::invariant)
          acc[u] = invariant_fold<G, K, A>(in + span[u].in, lo, hi, lane, op);
        else if constexpr (L == RowLoads::element_tree)
          acc[u] = element_tree_fold<K, A>(in + span[u].in, lo, hi, lane, op);
        else if constexpr (L == RowLoads::staged)
          acc[u] = staged_warp_run<K>(acc[u], in + span[u].in, lo, hi, lane,
                                      reinterpret_cast<Vector<T>*>(stage_bytes) + group * K * warp_threads, op);
        else if constexpr (L == RowLoads::vectors && is_arg_extreme_v<Op>)
          acc[u] = winner_fold_run<G, K>(acc[u], in + span[u].in, lo, hi, lane, op);
        else acc[u] = fold_run<G, K, L == RowLoads::vectors>(acc[u], in + span[u].in, lo, hi, lane, shift, op);
      }
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        if constexpr (G == Threads) {
          __shared__ A warp_partials[warp_threads];
          acc[u] = block_reduce<Threads>(acc[u], op, identity, warp_partials);
          __syncthreads();  // warp_partials is reused by the next row
        } else if constexpr (L != RowLoads::invariant && L != RowLoads::element_tree) {
          acc[u] = butterfly(acc[u], op, G / 2, inner);
        }
        if (first + u * groups + group < pieces && lane < (G == Threads ? 1u : inner)) {
          if (slices == 1) out[span[u].out + lane] = finish<Out>(acc[u]);
          else partials[slice_index[u] * num_rows * inner + row[u] * inner + lane] = acc[u];
        }
      }
    }
  });
}

// The grid's warps over num_rows x slices pieces, a row's slices adjacent: piece(row, slice index,
// the row's span), the same for every lane of the warp.
template <unsigned Threads, class Rows, class Piece>
__device__ __forceinline__ void warp_pieces(const Rows& rows, std::uint64_t num_rows, std::uint64_t slices,
                                            Piece&& piece) {
  constexpr unsigned warps = Threads / warp_threads;
  const std::uint64_t pieces = num_rows * slices;
  for (std::uint64_t p = std::uint64_t(blockIdx.x) * warps + threadIdx.x / warp_threads; p < pieces;
       p += std::uint64_t(gridDim.x) * warps) {
    const std::uint64_t row = slices == 1 ? p : p / slices;
    piece(row, p - row * slices, rows.row(row));
  }
}

// The pieces of runs of up to 32 interleaved columns, a warp each: piece(slice index, the run's
// span, emit), where emit(c, acc) hands over column c's fold of the piece, which goes to `out`
// (unsliced), to `partials` (sliced across blocks, combine_kernel folds them) or, InBlock, to the
// block's other warps: each block takes whole runs' slices (grid/block_slices.hpp), and after a
// barrier its first threads fold each column's slices in order, as a thread per output of
// combine_kernel does. InBlock is a template argument so that the other launches carry neither
// its stage nor its code.
template <unsigned Threads, bool InBlock, class A, class Out, class Rows, class Op, class Piece>
__device__ __forceinline__ void column_pieces(const Rows& rows, std::uint64_t num_rows, std::uint64_t slices,
                                              unsigned inner, Out* out, A* partials, const Op& op, Piece&& piece) {
  if constexpr (!InBlock) {
    warp_pieces<Threads>(rows, num_rows, slices, [&](std::uint64_t row, std::uint64_t slice_index, RowSpan span) {
      piece(slice_index, span, [&](unsigned c, const A& acc) {
        if (slices == 1) out[span.out + c] = finish<Out>(acc);
        else partials[slice_index * num_rows * inner + row * inner + c] = acc;
      });
    });
  } else {
    constexpr unsigned warps = Threads / warp_threads;
    __shared__ alignas(16) unsigned char part_bytes[warps * warp_threads * sizeof(A)];
    A* part = reinterpret_cast<A*>(part_bytes);
    const unsigned warp = threadIdx.x / warp_threads, runs = warps / unsigned(slices);
    const std::uint64_t first = std::uint64_t(blockIdx.x) * runs;
    if (warp < runs * slices && first + warp / slices < num_rows)
      piece(warp % slices, rows.row(first + warp / slices),
            [&](unsigned c, const A& acc) { part[warp * warp_threads + c] = acc; });
    __syncthreads();
    const unsigned run = threadIdx.x / inner, c = threadIdx.x % inner;
    if (run < runs && first + run < num_rows) {
      A acc = op.template identity<A>();
      for (unsigned s = 0; s < slices; ++s) acc = op(acc, part[(run * unsigned(slices) + s) * warp_threads + c]);
      out[rows.row(first + run).out + c] = finish<Out>(acc);
    }
  }
}

// Interleaved_rows_kernel: rows of 2^shift interleaved columns (2 <= 2^shift <= 32), every row's
// run 16-byte aligned and a whole number of vectors long, sliced as rows_kernel (slices a
// multiple of 32 x 2^shift elements). A warp per slice, lane k taking every 32nd vector, K in
// flight. Slot j of lane k's vectors always holds one column (thread/interleaved_slots.hpp), so a
// lane keeps V accumulators: its slots of one column fold in a fixed tree, then the lanes of one
// column by the butterfly, and the writer lanes write V (or 2^shift) adjacent columns each.
template <unsigned Threads, unsigned K, bool InBlock, class A, class Out, class T, class Rows, class Op>
__global__ void __launch_bounds__(Threads)
    interleaved_rows_kernel(const T* in, Rows rows, std::uint64_t num_rows, unsigned shift, std::uint64_t slices,
                            std::uint64_t slice, Out* out, A* partials, Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned V = Vector<T>::size;
    const unsigned lane = threadIdx.x % warp_threads;
    const unsigned inner = 1u << shift;
    const unsigned writers = column_writers(inner, V), columns = column_slots(inner, V);
    column_pieces<Threads, InBlock, A>(rows, num_rows, slices, inner, out, partials, op, [&](std::uint64_t slice_index,
                                                                                 RowSpan span, auto emit) {
      const std::uint64_t lo = slice_index * slice;
      const std::uint64_t hi = slices == 1 || lo + slice > span.length ? span.length : lo + slice;
      const Vector<T>* v = reinterpret_cast<const Vector<T>*>(in + span.in + std::int64_t(lo));
      const std::uint64_t vectors = (hi - lo) / V;
      A acc[V];
#pragma unroll
      for (unsigned j = 0; j < V; ++j) acc[j] = op.template identity<A>();
      if constexpr (is_arg_extreme_v<Op>) {
        // Each slot's best and the vector it came in (thread/ordered_best.hpp).
        ordered_best_t<A, Op> best[V];
        for (std::uint64_t k0 = lane; k0 < vectors; k0 += warp_threads * K)
          load_vectors<warp_threads, K>(v, k0, vectors, [&](const Vector<T>& x, std::uint64_t k) {
#pragma unroll
            for (unsigned j = 0; j < V; ++j) best[j].fold(op, lift_element<A>(op, x.v[j], 0).value, std::int64_t(k));
          });
#pragma unroll
        for (unsigned j = 0; j < V; ++j)
          if (best[j].tag >= 0) acc[j] = {best[j].value, std::int64_t((lo + best[j].tag * V + j) >> shift)};
      } else {
        for (std::uint64_t k0 = lane; k0 < vectors; k0 += warp_threads * K)
          load_vectors<warp_threads, K>(v, k0, vectors, [&](const Vector<T>& x, std::uint64_t k) {
#pragma unroll
            for (unsigned j = 0; j < V; ++j)
              acc[j] = op(acc[j], lift_element<A>(op, x.v[j], std::int64_t((lo + k * V + j) >> shift)));
          });
      }
      fold_slots(acc, inner, op);
#pragma unroll
      for (unsigned j = 0; j < V; ++j)
        if (j < columns) acc[j] = butterfly(acc[j], op, warp_threads / 2, writers);
      if (lane < writers)
#pragma unroll
        for (unsigned j = 0; j < V; ++j)
          if (j < columns) emit(lane * V + j, acc[j]);
    });
  });
}

// Narrow_columns_kernel: rows of `inner` interleaved columns, inner up to 32 and not a power of
// two, at any alignment (thread/narrow_slots.hpp), sliced as rows_kernel (slices a multiple of
// L x V elements counted from the run's first 16-byte boundary, so `slices` allows for the
// misfit). A warp per slice; its first L lanes take every L-th vector, K in flight, the run's
// first and last vector element by element. Slot j of a lane's vectors always holds one column,
// so a lane keeps V accumulators; the warp's go through shared memory in position order, where
// lane c < inner folds those of column c in that order.
template <unsigned Threads, unsigned K, bool InBlock, class A, class Out, class T, class Rows, class Op>
__global__ void __launch_bounds__(Threads)
    narrow_columns_kernel(const T* in, Rows rows, std::uint64_t num_rows, unsigned inner, std::uint64_t slices,
                          std::uint64_t slice, Out* out, A* partials, Op runtime_op) {
  constexpr unsigned V = Vector<T>::size;
  __shared__ alignas(16) unsigned char stage_bytes[Threads * V * sizeof(A)];
  with_constant_nan(runtime_op, [&](auto op) {
    const unsigned lane = threadIdx.x % warp_threads;
    A* stage = reinterpret_cast<A*>(stage_bytes) + (threadIdx.x - lane) * V;
    const unsigned lanes = narrow_lanes(inner);
    const std::uint64_t rows_per_vector = lanes / inner * V;  // rows between a lane's vectors
    const A identity = op.template identity<A>();
    column_pieces<Threads, InBlock, A>(rows, num_rows, slices, inner, out, partials, op, [&](std::uint64_t slice_index,
                                                                                 RowSpan span, auto emit) {
      const unsigned misfit = unsigned(reinterpret_cast<std::uintptr_t>(in + span.in) / sizeof(T) % V);
      const T* base = in + span.in - misfit;  // positions count from here
      const std::uint64_t end = misfit + span.length;
      const std::uint64_t lo = slice_index * slice;
      const std::uint64_t hi = slices == 1 || lo + slice > end ? end : lo + slice;
      A acc[V];
      int slot_row[V];
      // Argmin/argmax: each slot's best and the row of the vector it came in (ordered_best.hpp).
      [[maybe_unused]] ordered_best_t<A, Op> best[V];
#pragma unroll
      for (unsigned j = 0; j < V; ++j) {
        acc[j] = identity;
        slot_row[j] = narrow_slot_row(lane, j, V, misfit, inner);
      }
      const auto element = [&](unsigned j, T x, std::int64_t r) {
        if constexpr (is_arg_extreme_v<Op>) best[j].fold(op, lift_element<A>(op, x, 0).value, r);
        else acc[j] = op(acc[j], lift_element<A>(op, x, r + slot_row[j]));
      };
      if (lane < lanes) {
        std::uint64_t first_row = lo / inner;  // of the lane's next vectors
        for (std::uint64_t w0 = lo / V + lane; w0 * V < hi; w0 += std::uint64_t(lanes) * K) {
          Vector<T> x[K];
#pragma unroll
          for (unsigned k = 0; k < K; ++k) {
            const std::uint64_t w = w0 + k * lanes;
            if (w * V >= misfit && (w + 1) * V <= end && w * V < hi)
              x[k] = *reinterpret_cast<const Vector<T>*>(base + w * V);
          }
#pragma unroll
          for (unsigned k = 0; k < K; ++k) {
            const std::uint64_t w = w0 + k * lanes;
            const std::int64_t r = std::int64_t(first_row + k * rows_per_vector);
            if (w * V >= misfit && (w + 1) * V <= end && w * V < hi) {
#pragma unroll
              for (unsigned j = 0; j < V; ++j) element(j, x[k].v[j], r);
            } else if (w * V < hi) {
#pragma unroll
              for (unsigned j = 0; j < V; ++j)
                if (w * V + j >= misfit && w * V + j < end) element(j, base[w * V + j], r);
            }
          }
          first_row += K * rows_per_vector;
        }
      }
      if constexpr (is_arg_extreme_v<Op>)
#pragma unroll
        for (unsigned j = 0; j < V; ++j)
          if (best[j].tag >= 0) acc[j] = {best[j].value, best[j].tag + slot_row[j]};
#pragma unroll
      for (unsigned j = 0; j < V; ++j) stage[lane * V + j] = acc[j];
      __syncwarp();
      if (lane < inner) {
        A total = identity;
        for (unsigned p = narrow_first_slot(lane, misfit, inner); p < lanes * V; p += inner)
          total = op(total, stage[p]);
        emit(lane, total);
      }
      __syncwarp();
    });
  });
}

// Columns_kernel: output d (of `outputs` = outer x inner) is column d % inner of kept index
// d / inner; it reads `length` elements row_stride apart. Each thread takes C adjacent columns: one
// element each (C == 1), or one 16-byte vector (C == Vector<T>::size: the columns 16-byte aligned
// on every row), K rows in flight; and one slice of `slice` rows of them: threads
// s x outputs / C .. take slice s, writing partials where there are several.
template <unsigned Threads, unsigned C, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    columns_kernel(const T* in, Dims outer, std::uint64_t outputs, std::uint64_t inner, std::uint64_t length,
                   std::int64_t row_stride, std::uint64_t slice, std::uint64_t slices, Out* out, A* partials,
                   Op runtime_op) {
  static_assert(C == 1 || C == Vector<T>::size);
  using Load = std::conditional_t<C == 1, T, Vector<T>>;
  with_constant_nan(runtime_op, [&](auto op) {
    const std::uint64_t t = std::uint64_t(blockIdx.x) * Threads + threadIdx.x;
    const std::uint64_t groups = outputs / C;
    const std::uint64_t slice_index = t / groups;
    if (slice_index >= slices) return;
    const std::uint64_t d = (t - slice_index * groups) * C;
    const std::uint64_t o = d / inner, i = d - o * inner;
    std::int64_t in_off, out_off;
    outer.offsets(o, &in_off, &out_off);
    const T* p = in + in_off + std::int64_t(i);
    const std::uint64_t lo = slice_index * slice;
    const std::uint64_t hi = lo + slice < length ? lo + slice : length;
    constexpr unsigned K = 4;
    A acc[C];
    // Argmin/argmax: each column's best and its row (thread/ordered_best.hpp).
    [[maybe_unused]] ordered_best_t<A, Op> best[C];
#pragma unroll
    for (unsigned c = 0; c < C; ++c) acc[c] = op.template identity<A>();
    for (std::uint64_t r0 = lo; r0 < hi; r0 += K) {
      Load x[K];
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (r0 + k < hi) x[k] = *reinterpret_cast<const Load*>(p + std::int64_t(r0 + k) * row_stride);
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (r0 + k < hi) {
#pragma unroll
          for (unsigned c = 0; c < C; ++c) {
            T y;
            if constexpr (C == 1) y = x[k];
            else y = x[k].v[c];
            if constexpr (is_arg_extreme_v<Op>) best[c].fold(op, lift_element<A>(op, y, 0).value, std::int64_t(r0 + k));
            else acc[c] = op(acc[c], lift_element<A>(op, y, std::int64_t(r0 + k)));
          }
        }
    }
    if constexpr (is_arg_extreme_v<Op>)
#pragma unroll
      for (unsigned c = 0; c < C; ++c)
        if (best[c].tag >= 0) acc[c] = {best[c].value, best[c].tag};
#pragma unroll
    for (unsigned c = 0; c < C; ++c) {
      if (slices == 1) out[out_off + std::int64_t(i + c)] = finish<Out>(acc[c]);
      else partials[slice_index * outputs + d + c] = acc[c];
    }
  });
}

// Threads of invariant_columns_kernel that fold (the columns x pieces of a block).
template <unsigned Threads, class T>
inline constexpr unsigned invariant_column_lanes = Threads * 4 / (sizeof(T) > 4 ? unsigned(sizeof(T)) : 4u);

// Invariant_columns_kernel: batch-invariant columns of a dense run, the columns_kernel's tree:
// column i of kept index o folds its slice s of `slice` rows (a multiple of 32) in order. Piece g
// = o x slices + s starts at element g x slice x inner of `in` (16-byte aligned; one kept index, or
// whole slices back to back), and the pieces end at `total` elements. A block takes `per_block`
// pieces at a time, a thread for each of their columns. Chunk by chunk, its threads copy the
// pieces' next 32 rows to shared memory in 16-byte vectors (cp.async; a vector the pieces' end cuts,
// element by element), laid out as grid/column_stage.hpp says, and each thread then folds its
// column from there. Partials as columns_kernel's where a column has several slices.
template <unsigned Threads, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    invariant_columns_kernel(const T* in, Dims outer, std::uint64_t kept, unsigned inner, std::uint64_t total,
                             unsigned slice, std::uint64_t slices, unsigned per_block, Out* out, A* partials,
                             Op runtime_op) {
  constexpr unsigned lanes = invariant_column_lanes<Threads, T>, C = column_stage_rows, V = Vector<T>::size;
  static_assert(lanes <= Threads && V > 1 && V * sizeof(T) == vector_bytes);
  // per_block x stride <= lanes x 32 + per_block x (inner + V - 1) <= lanes x (32 + V)
  __shared__ alignas(16) unsigned char stage_bytes[lanes * (C + V) * sizeof(T)];
  T* stage = reinterpret_cast<T*>(stage_bytes);  // T may have constructors
  with_constant_nan(runtime_op, [&](auto op) {
    const std::uint64_t pieces = kept * slices;
    const unsigned piece = threadIdx.x / inner, column = threadIdx.x - piece * inner;  // as a folding thread
    const ColumnStage layout{inner, V};
    const ColumnCopies copies(threadIdx.x, Threads, layout.piece_vectors());  // as a copying thread
    const unsigned span = slice * inner;
    for (std::uint64_t g0 = std::uint64_t(blockIdx.x) * per_block; g0 < pieces;
         g0 += std::uint64_t(gridDim.x) * per_block) {
      const unsigned count = unsigned(pieces - g0 < per_block ? pieces - g0 : per_block);
      const T* base = in + g0 * span;
      const std::uint64_t left = total - g0 * span;  // elements from base to the end
      const std::uint64_t o = (g0 + piece) / slices, s = g0 + piece - o * slices;
      std::uint64_t rows = piece < count ? (left - std::uint64_t(piece) * span) / inner : 0;
      rows = rows < slice ? rows : slice;
      const T* own = stage + layout.slot(piece, 0, column);
      const std::uint64_t most = left / inner < slice ? left / inner : slice;  // the first piece's rows
      A acc = op.template identity<A>();
      for (unsigned c = 0; c * C < most; ++c) {
        __syncthreads();  // the previous chunk is folded
        for (ColumnCopies v = copies; v.q < count; v.next()) {
          const std::uint64_t e = std::uint64_t(v.q) * span + c * C * inner + v.w * V;
          if (e + V <= left) {
            copy_async_16(stage + layout.slot(v.q, 0, v.w * V), base + e);
          } else {
#pragma unroll
            for (unsigned j = 0; j < V; ++j)
              if (e + j < left) stage[layout.slot(v.q, 0, v.w * V + j)] = base[e + j];
          }
        }
        copy_async_wait();
        __syncthreads();
        if ((c + 1) * C <= rows) {
#pragma unroll 8
          for (unsigned k = 0; k < C; ++k)
            acc = op(acc, lift_element<A>(op, own[k * inner], std::int64_t(s * slice + c * C + k)));
        } else {
          for (unsigned k = 0; c * C + k < rows; ++k)
            acc = op(acc, lift_element<A>(op, own[k * inner], std::int64_t(s * slice + c * C + k)));
        }
      }
      if (piece < count) {
        if (slices == 1) {
          std::int64_t in_off, out_off;
          outer.offsets(o, &in_off, &out_off);
          out[out_off + std::int64_t(column)] = finish<Out>(acc);
        } else {
          partials[s * kept * inner + o * inner + column] = acc;
        }
      }
    }
  });
}

// Combine_kernel: output d folds partials[s * outputs + d], s = 0 .. slices - 1, and is written
// as rows_kernel's and columns_kernel's (kept index d / inner, column d % inner). Ways threads
// share an output, way w folding slices w, w + Ways, ... in order: Ways = 1, a thread per output;
// Ways = Threads, a block per output whose ways then meet in a block reduction; in between, a
// warp's lanes take Threads / Ways adjacent outputs (loads of adjacent partials) and the ways'
// results are folded in way order through shared memory. Grouped (Ways = Threads, gridDim.y > 1):
// block (d, g) folds slices [g x group, (g + 1) x group) so, into grouped[g * outputs + d].
template <unsigned Threads, unsigned Ways, class A, class Out, class Op>
__global__ void __launch_bounds__(Threads)
    combine_kernel(const A* partials, std::uint64_t slices, std::uint64_t group, Dims outer, std::uint64_t outputs,
                   std::uint64_t inner, Out* out, A* grouped, Op runtime_op) {
  static_assert(Ways == 1 || Ways == Threads || Threads / Ways == warp_threads);
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned per_block = Threads / Ways;
    const unsigned way = threadIdx.x / per_block;
    const std::uint64_t d = std::uint64_t(blockIdx.x) * per_block + threadIdx.x % per_block;
    const std::uint64_t lo = std::uint64_t(blockIdx.y) * group;
    const std::uint64_t hi = slices - lo < group ? slices : lo + group;
    // The way's partials folded in order, K loads in flight, so that it waits on memory about
    // slices / (K x Ways) times rather than slices / Ways.
    constexpr unsigned K = 8;
    A acc = op.template identity<A>();
    if (d < outputs)
      for (std::uint64_t s0 = lo + way; s0 < hi; s0 += K * Ways) {
        A x[K];
#pragma unroll
        for (unsigned k = 0; k < K; ++k)
          if (s0 + k * Ways < hi) x[k] = partials[(s0 + k * Ways) * outputs + d];
#pragma unroll
        for (unsigned k = 0; k < K; ++k)
          if (s0 + k * Ways < hi) acc = op(acc, x[k]);
      }
    if constexpr (Ways == Threads) {
      __shared__ A warp_partials[warp_threads];
      acc = block_reduce<Threads>(acc, op, op.template identity<A>(), warp_partials);
      if (threadIdx.x != 0) return;
      if (gridDim.y > 1) {
        grouped[std::uint64_t(blockIdx.y) * outputs + d] = acc;
        return;
      }
    } else if constexpr (Ways > 1) {
      __shared__ alignas(16) unsigned char way_bytes[(Ways - 1) * per_block * sizeof(A)];
      A* way_acc = reinterpret_cast<A*>(way_bytes);
      if (way > 0) way_acc[threadIdx.x - per_block] = acc;
      __syncthreads();
      if (way > 0) return;
#pragma unroll
      for (unsigned w = 1; w < Ways; ++w) acc = op(acc, way_acc[(w - 1) * per_block + threadIdx.x]);
    }
    if (d >= outputs) return;
    const std::uint64_t o = d / inner, i = d - o * inner;
    std::int64_t in_off, out_off;
    outer.offsets(o, &in_off, &out_off);
    out[out_off + std::int64_t(i)] = finish<Out>(acc);
  });
}

// General_kernel: one warp per output; lane k reads reduced elements k, k + 32, ... (row-major
// index over the reduced dimensions), then the warp reduces.
template <unsigned Threads, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    general_kernel(const T* in, Dims outer, Dims reduced, std::uint64_t outputs, std::uint64_t length,
                   Out* out, Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned warps = Threads / warp_threads;
    const unsigned lane = threadIdx.x % warp_threads;
    for (std::uint64_t d = std::uint64_t(blockIdx.x) * warps + threadIdx.x / warp_threads; d < outputs;
         d += std::uint64_t(gridDim.x) * warps) {
      std::int64_t in_off, out_off;
      outer.offsets(d, &in_off, &out_off);
      A acc = op.template identity<A>();
      for (std::uint64_t p = lane; p < length; p += warp_threads) {
        std::int64_t off, unused;
        reduced.offsets(p, &off, &unused);
        acc = op(acc, lift_element<A>(op, in[in_off + off], std::int64_t(p)));
      }
      acc = butterfly(acc, op, warp_threads / 2, 1);
      if (lane == 0) out[out_off] = finish<Out>(acc);
    }
  });
}

// The rules check_segments holds offsets to, as offsets_check_kernel reports them.
enum class OffsetsRule : unsigned { begin_outside = 1, end_outside = 2, csr_decreasing = 3 };

// Offsets_check_kernel: *first = min over the segments r that break a rule of (r << 2 | rule): a
// begin or end outside [0, n], or (csr) an end before its begin. ~0 where none does.
template <class Offset>
__global__ void offsets_check_kernel(std::uint64_t segments, const Offset* begin, const Offset* end, std::uint64_t n,
                                     bool csr, unsigned long long* first) {
  for (std::uint64_t r = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; r < segments;
       r += std::uint64_t(gridDim.x) * blockDim.x) {
    const std::int64_t b = std::int64_t(begin[r]), e = std::int64_t(end[r]);
    const OffsetsRule rule = b < 0 || std::uint64_t(b) > n   ? OffsetsRule::begin_outside
                             : e < 0 || std::uint64_t(e) > n ? OffsetsRule::end_outside
                             : csr && e < b                  ? OffsetsRule::csr_decreasing
                                                             : OffsetsRule{};
    if (rule != OffsetsRule{}) atomicMin(first, (r << 2) | unsigned(rule));
  }
}

}  // namespace gpureduce::detail
