// The kernels of the axis and segmented reductions (dispatch/dispatch_axis.cuh picks one):
//   rows_kernel     groups of G lanes (2..32, or the whole block) reduce one row each, U rows at a
//                   time, lanes reading the row's elements G apart, K loads in flight per row.
//                   A row is a contiguous run (Rows: the kept index's offset and a length, or a
//                   segment's begin and end). Interleave I (a power of two dividing G): the row is
//                   I adjacent columns' run of length x I, each lane on one column, for the column
//                   sums of a few adjacent outputs read as rows. Sliced (S > 1): each group
//                   reduces one slice of a row into a partial; combine_kernel folds them.
//   columns_kernel  one thread per output; adjacent threads read adjacent columns, `row_stride`
//                   apart down the reduced dimension, 4 loads in flight; sliced as rows_kernel.
//   combine_kernel  folds each output's S partials in slice order (the same bits every run).
//   general_kernel  one warp per output, the reduced dimensions walked by index: any strides.
// Every fold and every shuffle tree has a fixed order, so a result's bits depend only on the
// launch's shape (G, S, the row's length and alignment), never on timing.
#pragma once

#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/dispatch/axis_plan.hpp>
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/warp/shuffle.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// Kept index -> input and result offsets (elements), over up to max_dims merged dimensions.
struct OuterMap {
  int count = 0;
  std::int64_t extents[max_dims] = {};
  std::int64_t in[max_dims] = {};
  std::int64_t out[max_dims] = {};

  __host__ __device__ void offsets(std::uint64_t o, std::int64_t* in_off, std::int64_t* out_off) const {
    if (count <= 1) {
      *in_off = count ? std::int64_t(o) * in[0] : 0;
      *out_off = count ? std::int64_t(o) * out[0] : 0;
      return;
    }
    std::int64_t a = 0, b = 0;
    for (int k = count - 1; k >= 0; --k) {
      const std::uint64_t e = std::uint64_t(extents[k]);
      const std::uint64_t q = o / e;
      const std::int64_t r = std::int64_t(o - q * e);
      a += r * in[k];
      b += r * out[k];
      o = q;
    }
    *in_off = a;
    *out_off = b;
  }
};

inline OuterMap outer_map(const Dims& d) {
  OuterMap m;
  m.count = d.count;
  for (int k = 0; k < d.count; ++k) {
    m.extents[k] = d.extents[k];
    m.in[k] = d.in[k];
    m.out[k] = d.out[k];
  }
  return m;
}

// A row: its first element's offset, its length and its result's offset.
struct RowSpan {
  std::int64_t in = 0;
  std::uint64_t length = 0;
  std::int64_t out = 0;
};

// Rows of one length from the kept dimensions' offsets (axis reductions, fixed-size segments).
struct UniformRows {
  OuterMap outer;
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

// Lanes i and i ^ offset of each group of G combine, for offset = G/2 .. Stop: lane i (< Stop)
// of the group then holds the reduction of the lanes congruent to i modulo Stop. A fixed
// butterfly; every lane of the warp takes part.
template <unsigned G, class A, class Op>
__device__ __forceinline__ A group_reduce(A v, const Op& op, unsigned stop) {
#pragma unroll
  for (unsigned offset = G / 2; offset >= 1; offset /= 2)
    if (offset >= stop) {
      A other;
      if constexpr (std::is_arithmetic_v<A> && sizeof(A) >= 4) {
        other = __shfl_xor_sync(0xffffffffu, v, offset);
      } else {
        constexpr int words = (sizeof(A) + 3) / 4;
        unsigned w[words] = {};
        __builtin_memcpy(w, &v, sizeof(A));
#pragma unroll
        for (int k = 0; k < words; ++k) w[k] = __shfl_xor_sync(0xffffffffu, w[k], offset);
        __builtin_memcpy(&other, w, sizeof(A));
      }
      // The lower lane's value first, so both lanes hold the same bits.
      v = (threadIdx.x & offset) ? op(other, v) : op(v, other);
    }
  return v;
}

// Rows_kernel: G lanes per row (G <= 32), or the whole block (G == Threads); U rows per group at a
// time; K loads in flight per row. Interleave 2^shift columns per row (G <= 32 only). Sliced:
// `slices` pieces per row, each of `slice` elements (a multiple of 2^shift), writing partials.
template <unsigned Threads, unsigned G, unsigned U, unsigned K, class A, class Out, class T, class Rows, class Op>
__global__ void __launch_bounds__(Threads)
    rows_kernel(const T* in, Rows rows, std::uint64_t num_rows, unsigned shift, std::uint64_t slices,
                std::uint64_t slice, Out* out, A* partials, Op runtime_op) {
  static_assert(G <= warp_threads || G == Threads);
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr bool block_rows = G > warp_threads;
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
      std::uint64_t lo[U], hi[U];
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        acc[u] = identity;
        const std::uint64_t piece = first + u * groups + group;
        lo[u] = hi[u] = 0;
        if (piece < pieces) {
          const std::uint64_t r = piece / slices, s = piece - r * slices;
          span[u] = rows.row(r);
          lo[u] = s * slice;
          hi[u] = slices == 1 ? span[u].length : (lo[u] + slice < span[u].length ? lo[u] + slice : span[u].length);
        }
      }
      // Lane `lane` reads elements lo + lane, lo + lane + G, ...: with an interleave, always of
      // the same column (G is a multiple of it), at index (element >> shift) along the row.
      std::uint64_t longest = 0;
#pragma unroll
      for (unsigned u = 0; u < U; ++u) longest = hi[u] - lo[u] > longest ? hi[u] - lo[u] : longest;
      for (std::uint64_t j0 = lane; j0 < longest; j0 += G * K) {
#pragma unroll
        for (unsigned u = 0; u < U; ++u) {
          T x[K];
#pragma unroll
          for (unsigned k = 0; k < K; ++k) {
            const std::uint64_t j = lo[u] + j0 + k * G;
            if (j < hi[u]) x[k] = in[span[u].in + std::int64_t(j)];
          }
#pragma unroll
          for (unsigned k = 0; k < K; ++k) {
            const std::uint64_t j = lo[u] + j0 + k * G;
            if (j < hi[u]) acc[u] = op(acc[u], lift_element<A>(op, x[k], std::int64_t(j >> shift)));
          }
        }
      }
#pragma unroll
      for (unsigned u = 0; u < U; ++u) {
        const std::uint64_t piece = first + u * groups + group;
        if constexpr (block_rows) {
          __shared__ A warp_partials[warp_threads];
          acc[u] = block_reduce<Threads>(acc[u], op, identity, warp_partials);
          __syncthreads();  // warp_partials is reused by the next row
        } else {
          acc[u] = group_reduce<G>(acc[u], op, inner);
        }
        if (piece < pieces && lane < (block_rows ? 1u : inner)) {
          const std::uint64_t r = piece / slices, s = piece - r * slices;
          if (slices == 1) out[span[u].out + lane] = finish<Out>(acc[u]);
          else partials[s * num_rows * inner + r * inner + lane] = acc[u];
        }
      }
    }
  });
}

// Columns_kernel: output d (of `outputs` = outer x inner) is column d % inner of kept index
// d / inner; it reads `length` elements row_stride apart. Sliced as rows_kernel: blockIdx.y is the
// slice.
template <unsigned Threads, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    columns_kernel(const T* in, OuterMap outer, std::uint64_t outputs, std::uint64_t inner, std::uint64_t length,
                   std::int64_t row_stride, std::uint64_t slice, Out* out, A* partials, Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    const std::uint64_t d = std::uint64_t(blockIdx.x) * Threads + threadIdx.x;
    if (d >= outputs) return;
    const std::uint64_t o = d / inner, i = d - o * inner;
    std::int64_t in_off, out_off;
    outer.offsets(o, &in_off, &out_off);
    const T* p = in + in_off + std::int64_t(i);
    const std::uint64_t lo = std::uint64_t(blockIdx.y) * slice;
    const std::uint64_t hi = lo + slice < length ? lo + slice : length;
    constexpr unsigned K = 4;
    A acc = op.template identity<A>();
    for (std::uint64_t r0 = lo; r0 < hi; r0 += K) {
      T x[K];
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (r0 + k < hi) x[k] = p[std::int64_t(r0 + k) * row_stride];
#pragma unroll
      for (unsigned k = 0; k < K; ++k)
        if (r0 + k < hi) acc = op(acc, lift_element<A>(op, x[k], std::int64_t(r0 + k)));
    }
    if (gridDim.y == 1) out[out_off + std::int64_t(i)] = finish<Out>(acc);
    else partials[std::uint64_t(blockIdx.y) * outputs + d] = acc;
  });
}

// Combine_kernel: output d folds partials[s * outputs + d], s = 0 .. slices - 1, in order, and is
// written as rows_kernel's and columns_kernel's (kept index d / inner, column d % inner).
template <unsigned Threads, class A, class Out, class Op>
__global__ void __launch_bounds__(Threads)
    combine_kernel(const A* partials, std::uint64_t slices, OuterMap outer, std::uint64_t outputs,
                   std::uint64_t inner, Out* out, Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    const std::uint64_t d = std::uint64_t(blockIdx.x) * Threads + threadIdx.x;
    if (d >= outputs) return;
    A acc = partials[d];
    for (std::uint64_t s = 1; s < slices; ++s) acc = op(acc, partials[s * outputs + d]);
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
    general_kernel(const T* in, OuterMap outer, OuterMap reduced, std::uint64_t outputs, std::uint64_t length,
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
      acc = group_reduce<warp_threads>(acc, op, 1);
      if (lane == 0) out[out_off] = finish<Out>(acc);
    }
  });
}

}  // namespace gpureduce::detail
