// Short rows and segments, a thread each: a block stages a tile of whole segments through shared
// memory, read from global memory as one stream of 16-byte vectors (elements one by one where their
// size does not divide 16 bytes), then each thread folds its segment from the stage in order.
//   staged_rows_kernel  rows of one length back to back (fixed-size segments). Their fold is the
//                       batch-invariant rows' (run_invariant_rows, dispatch_axis.cuh), so a row's
//                       bits depend on its values and length alone, in either mode.
//   staged_tiles        the tile loop, which csr_segments_kernel also runs for short CSR segments
//                       (a tile that outgrows the stage reads its segments a warp each instead).
//   invariant_csr_kernel  batch-invariant CSR segments: staged tiles where they are short, a thread
//                       per segment of up to 32 elements and a warp per longer one, or a warp each
//                       (invariant_segments_kernel.cuh's warps, through the tile's stage); segments
//                       of several slices listed for long_segments_kernel.
//   Stage: element e of the tile at slot e + (e >> shift), padded or not (grid/staged_tile.hpp),
//   Loads loads in flight per thread filling it; CSR segments' folds without an index at e + the
//   tile's 16-byte misalignment, filled by cp.async.
#pragma once

#include <gpureduce/agent/sources.cuh>
#include <gpureduce/grid/staged_tile.hpp>
#include <gpureduce/kernel/axis_kernels.cuh>
#include <gpureduce/kernel/invariant_segments_kernel.cuh>
#include <gpureduce/thread/async_copy.cuh>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// What a thread loads at once (grid/staged_tile.hpp): a 16-byte vector, or one element.
template <class T>
inline constexpr unsigned staged_load_size = staged_load_elements(sizeof(T), alignof(T));
template <class T>
using StagedLoad = std::conditional_t<(staged_load_size<T> > 1), Vector<T>, T>;

// Where segment x begins (and segment x - 1 ends), in elements of the input: rows of one length
// back to back, or CSR offsets.
struct FixedRows {
  std::uint64_t length;
  __device__ __forceinline__ std::int64_t offset(std::uint64_t x) const { return std::int64_t(x * length); }
};
template <class Offset>
struct CsrStarts {
  const Offset* offsets;
  __device__ __forceinline__ std::int64_t offset(std::uint64_t x) const { return std::int64_t(offsets[x]); }
};

// Where segment x begins, clamped to the segments' span [first, last] (last no less than first):
// offsets that decrease (which check_segments refuses) read nothing outside it. As rows
// (invariant_segment_warps), segment r is [at(r), at(r + 1)).
template <class Segments>
struct ClampedOffsets {
  Segments where;
  std::int64_t first, last;
  __device__ ClampedOffsets(const Segments& w, std::uint64_t segments) : where(w), first(w.offset(0)) {
    const std::int64_t end = w.offset(segments);
    last = end > first ? end : first;
  }
  __device__ __forceinline__ std::int64_t at(std::uint64_t x) const {
    const std::int64_t o = where.offset(x);
    return o < first ? first : o < last ? o : last;
  }
  __device__ RowSpan row(std::uint64_t r) const {
    const std::int64_t b = at(r), e = at(r + 1);
    return {b, e > b ? std::uint64_t(e - b) : 0, std::int64_t(r)};
  }
};

// The tiles of `per_tile` segments, the block's every gridDim.x-th, through `stage` (staged_slots of
// a capacity of Threads x Loads loads), laid out with `shift`. CSR offsets (but argmin/argmax's) are
// staged in `ends` (per_tile + 1 entries; nullptr for rows of one length) in the round of loads
// that reads the tile's bounds, so a thread reads its segments' bounds from shared memory, not by a
// dependent load of global memory each. Invariant: the batch-invariant fold
// (invariant_segment_warps' tree), segments of more than 32 elements a warp each, listed in `longs`
// (staged_long_room entries) for the warps to take after the threads' short ones; those of several
// slices in `list`.
template <unsigned Threads, unsigned Loads, bool Invariant, std::uint64_t StagedFrom, class A, class Out, class T,
          class Segments, class Op>
__device__ __forceinline__ void staged_tiles(T* stage, std::int32_t* ends, const T* in, const Segments& where,
                                             std::uint64_t segments, std::uint64_t per_tile, unsigned shift,
                                             unsigned* longs, const LongSegments<A>* list, Out* out, const Op& op) {
  using Load = StagedLoad<T>;
  constexpr unsigned V = staged_load_size<T>;
  static_assert(V == 1 || Vector<T>::size == V);
  constexpr unsigned capacity = staged_capacity(Threads, Loads, V);
  const A identity = op.template identity<A>();
  __shared__ unsigned s_longs;  // entries in `longs` (Invariant)
  const ClampedOffsets<Segments> clamped(where, segments);
  constexpr bool indexed = requires(A a) { a.index; };
  constexpr bool fixed_rows = std::is_same_v<Segments, FixedRows>;
  // CSR ends staged (H100, bench --axis at 2^28, float32 sums of mean 3 0.98 against 1.04 ms, the
  // batch-invariant ones' 0.89 against 1.06), not for argmin/argmax (mean 15 1.50 against 1.47).
  constexpr bool staged_ends = !fixed_rows && !indexed;
  constexpr unsigned end_loads = Invariant ? 2 : 4;  // in flight a thread: more spill in invariant_csr_kernel
  // The thread's fold, staged_fold_width elements at a time or one: the wide one for folds without
  // an index, of ragged segments or rows of at least that many (H100, bench --axis at 2^28: float32
  // sums of CSR mean 3 0.86 against 0.98 ms, mean 15 0.74 against 0.85, batch-invariant bfloat16
  // rows of 8 0.27 against 0.30; rows of 1 1.15 against 0.96, argmax of mean 15 1.69 against 1.50).
  bool wide_fold = !indexed;
  if constexpr (fixed_rows) wide_fold = wide_fold && where.length >= staged_fold_width;
  for (std::uint64_t s0 = std::uint64_t(blockIdx.x) * per_tile; s0 < segments;
       s0 += std::uint64_t(gridDim.x) * per_tile) {
    const std::uint64_t count = segments - s0 < per_tile ? segments - s0 : per_tile;
    const std::int64_t b = clamped.at(s0), e = clamped.at(s0 + count);
    const std::uint64_t span = e > b ? std::uint64_t(e - b) : 0;
    if constexpr (staged_ends) {
      // The low 32 bits of the tile's offsets (staged_bounds); their loads do not wait for b.
#pragma unroll end_loads
      for (std::uint64_t i = threadIdx.x; i <= count; i += Threads) ends[i] = std::int32_t(where.offset(s0 + i));
    }
    const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
    constexpr unsigned warps = Threads / warp_threads;
    if (span > capacity) {
      // More than the stage holds (long segments among short ones): a warp per segment.
      for (std::uint64_t r = warp; r < count; r += warps) {
        const std::int64_t rb = clamped.at(s0 + r), re = clamped.at(s0 + r + 1);
        const std::uint64_t length = re > rb ? std::uint64_t(re - rb) : 0;
        if constexpr (Invariant) {
          // The stage, a warp's Loads x 32 vectors each (capacity: Threads x Loads loads).
          invariant_segment<Loads, StagedFrom, A>(in, RowSpan{rb, length, std::int64_t(s0 + r)}, lane,
                                                  reinterpret_cast<Vector<T>*>(stage) + warp * Loads * warp_threads,
                                                  *list, out, op);
        } else {
          A acc = identity;
          if (length) acc = fold_run<warp_threads, 4, true>(acc, in + rb, 0, length, lane, 0, op);
          acc = butterfly(acc, op, warp_threads / 2, 1);
          if (lane == 0) out[s0 + r] = finish<Out>(acc);
        }
      }
      if constexpr (Invariant) __syncthreads();  // the next tile may fill the stage the warps read
      continue;
    }
    if (Invariant && threadIdx.x == 0) s_longs = 0;
    // The tile's elements: a head up to the first 16-byte boundary, whole vectors, a tail.
    const T* p = in + b;
    const unsigned n = unsigned(span);
    const unsigned misfit = unsigned(reinterpret_cast<std::uintptr_t>(p) / sizeof(T) % V);
    const unsigned head = misfit == 0 ? 0 : V - misfit < n ? V - misfit : n;
    const unsigned vectors = (n - head) / V;
    const unsigned tail = head + vectors * V;
    const Load* body = reinterpret_cast<const Load*>(p + head);
    // Where element k of the tile sits. CSR, no index: at k + misfit, unpadded, so the body's vectors
    // keep their 16-byte alignment and copy straight to shared memory (cp.async), holding no
    // registers; otherwise staged_slot's layout, padded against the bank conflicts of fixed strides.
    constexpr bool aligned_stage = staged_ends && V > 1;
    static_assert(!aligned_stage || capacity + V + staged_fold_width <= staged_slots(capacity, sizeof(T)),
                  "the stage holds a tile at k + misfit and the fold's reads past its end");
    const auto slot = [&](unsigned k) { return aligned_stage ? k + misfit : staged_slot(k, shift); };
    if constexpr (aligned_stage) {
#pragma unroll
      for (unsigned k = 0; k < Loads; ++k)
        if (threadIdx.x + k * Threads < vectors)
          copy_async_16(stage + slot(head + (threadIdx.x + k * Threads) * V), body + threadIdx.x + k * Threads);
      if (threadIdx.x < head) stage[slot(threadIdx.x)] = p[threadIdx.x];
      if (tail + threadIdx.x < n) stage[slot(tail + threadIdx.x)] = p[tail + threadIdx.x];
      copy_async_wait();
    } else {
      Load x[Loads];
#pragma unroll
      for (unsigned k = 0; k < Loads; ++k)
        if (threadIdx.x + k * Threads < vectors) x[k] = body[threadIdx.x + k * Threads];
      if (threadIdx.x < head) stage[slot(threadIdx.x)] = p[threadIdx.x];
      if (tail + threadIdx.x < n) stage[slot(tail + threadIdx.x)] = p[tail + threadIdx.x];
#pragma unroll
      for (unsigned k = 0; k < Loads; ++k) {
        const unsigned i = threadIdx.x + k * Threads;
        if (i < vectors) {
          if constexpr (V == 1) {
            stage[slot(head + i)] = x[k];
          } else {
#pragma unroll
            for (unsigned j = 0; j < V; ++j) stage[slot(head + i * V + j)] = x[k].v[j];
          }
        }
      }
    }
    __syncthreads();
    // Segment r within the tile (decreasing offsets clamped to it).
    const auto bounds = [&](std::uint64_t r, unsigned* lo, unsigned* hi) {
      StagedBounds at;
      if constexpr (staged_ends) at = staged_bounds(std::uint32_t(ends[r]), std::uint32_t(ends[r + 1]), b, n);
      else at = staged_place(clamped.at(s0 + r) - b, clamped.at(s0 + r + 1) - b, n);
      *lo = at.lo;
      *hi = at.hi;
    };
    for (std::uint64_t r = threadIdx.x; r < count; r += Threads) {
      unsigned lo, hi;
      bounds(r, &lo, &hi);
      if (Invariant && hi - lo > warp_threads) {
        // The list holds every one of non-decreasing offsets; decreasing ones may overlap, and fold here.
        const unsigned at = atomicAdd(&s_longs, 1u);
        if (at < staged_long_room(capacity)) {
          longs[at] = unsigned(r);
          continue;
        }
      }
      A acc = identity;
      if (wide_fold) {
        // In order, staged_fold_width reads at a time (those past hi within the stage's slack, and
        // discarded): the lanes of a warp wait for its longest segment in fewer instructions.
        for (unsigned k = lo; k < hi; k += staged_fold_width) {
          T v[staged_fold_width];
#pragma unroll
          for (unsigned u = 0; u < staged_fold_width; ++u) v[u] = stage[slot(k + u)];
#pragma unroll
          for (unsigned u = 0; u < staged_fold_width; ++u)
            if (k + u < hi) acc = op(acc, lift_element<A>(op, v[u], std::int64_t(k + u - lo)));
        }
      } else {
        for (unsigned k = lo; k < hi; ++k) acc = op(acc, lift_element<A>(op, stage[slot(k)], std::int64_t(k - lo)));
      }
      out[s0 + r] = finish<Out>(acc);
    }
    if constexpr (Invariant) {
      __syncthreads();  // the list is complete
      const unsigned listed = s_longs < staged_long_room(capacity) ? s_longs : staged_long_room(capacity);
      for (unsigned i = warp; i < listed; i += warps) {
        const unsigned r = longs[i];
        unsigned lo, hi;
        bounds(r, &lo, &hi);
        A acc = identity;
        for (unsigned k = lo + lane; k < hi; k += warp_threads)
          acc = op(acc, lift_element<A>(op, stage[slot(k)], std::int64_t(k - lo)));
        acc = butterfly(acc, op, warp_threads / 2, 1);
        if (lane == 0) out[s0 + r] = finish<Out>(acc);
      }
    }
    __syncthreads();  // the stage (and the list) are refilled by the next tile
  }
}

// Staged_rows_kernel: `rows` rows of `length` elements back to back, `per_tile` rows a tile (at most
// a capacity of Threads x Loads loads), laid out with `shift`; MinBlocks resident a multiprocessor.
template <unsigned Threads, unsigned Loads, unsigned MinBlocks, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    staged_rows_kernel(const T* in, std::uint64_t rows, std::uint64_t length, std::uint64_t per_tile, unsigned shift,
                       Out* out, Op runtime_op) {
  constexpr unsigned slots = staged_slots(staged_capacity(Threads, Loads, staged_load_size<T>), sizeof(T));
  with_constant_nan(runtime_op, [&](auto op) {
    __shared__ alignas(16) unsigned char stage_bytes[slots * sizeof(T)];
    T* stage = reinterpret_cast<T*>(stage_bytes);  // T may have constructors
    staged_tiles<Threads, Loads, false, 0, A>(stage, nullptr, in, FixedRows{length}, rows, per_tile, shift, nullptr,
                                              nullptr, out, op);
  });
}

// Invariant_csr_kernel: batch-invariant CSR segments, one launch whose blocks all read the mean
// segment length: below StagedBelow, staged tiles of at most TileSegments segments filling
// FillPercent of the stage; below GroupsBelow, V segments a warp, those of up to GroupMost
// elements on 32 / V lanes each (invariant_segment_groups); otherwise a warp per segment, through
// the stage (a warp's Loads x 32 vectors). Either way invariant_segment's tree, segments of several
// slices listed in `list` (long_segments_kernel folds them after). Held to 64 registers (85 for
// 8-byte elements), as before the staged warp fold took it to 80, at 40-76 bytes of spills (ptxas).
template <unsigned Threads, unsigned Loads, unsigned TileSegments, std::uint64_t StagedBelow, unsigned FillPercent,
          std::uint64_t GroupsBelow, std::uint64_t GroupMost, std::uint64_t StagedFrom, class A, class Out, class T,
          class Offset, class Op>
__global__ void __launch_bounds__(Threads, sizeof(T) < 8 ? 4 : 3)
    invariant_csr_kernel(const T* in, const Offset* offsets, std::uint64_t segments, LongSegments<A> list, Out* out,
                         Op runtime_op) {
  constexpr unsigned capacity = staged_capacity(Threads, Loads, staged_load_size<T>);
  with_constant_nan(runtime_op, [&](auto op) {
    __shared__ alignas(16) unsigned char stage_bytes[staged_slots(capacity, sizeof(T)) * sizeof(T)];
    __shared__ unsigned longs[staged_long_room(capacity)];
    __shared__ std::int32_t ends[TileSegments + 1];
    T* stage = reinterpret_cast<T*>(stage_bytes);  // T may have constructors
    const ClampedOffsets<CsrStarts<Offset>> clamped(CsrStarts<Offset>{offsets}, segments);
    const std::uint64_t mean = std::uint64_t(clamped.last - clamped.first) / segments;
    if (mean < StagedBelow) {
      const std::uint64_t per_tile =
          staged_per_tile(segments, mean, capacity * FillPercent / 100, Threads, gridDim.x);
      staged_tiles<Threads, Loads, true, StagedFrom, A>(stage, ends, in, CsrStarts<Offset>{offsets}, segments,
                                                        per_tile < TileSegments ? per_tile : TileSegments,
                                                        staged_pad_shift(sizeof(T)), longs, &list, out, op);
      return;
    }
    if (mean < GroupsBelow)
      invariant_segment_groups<Threads, Loads, StagedFrom, GroupMost, A>(
          in, clamped, segments, reinterpret_cast<Vector<T>*>(stage), list, out, op);
    else
      invariant_segment_warps<Threads, Loads, StagedFrom, A>(in, clamped, segments,
                                                             reinterpret_cast<Vector<T>*>(stage), list, out, op);
  });
}

}  // namespace gpureduce::detail
