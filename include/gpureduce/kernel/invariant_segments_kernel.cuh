// Batch-invariant segments, a warp each or several a warp (dispatch/dispatch_axis.cuh):
//   invariant_segments_kernel  begin/end segments, a warp each (invariant_csr_kernel,
//                      staged_rows_kernel.cuh, runs the same warps, or invariant_segment_groups,
//                      for CSR segments that are not short).
//   long_segments_kernel  after either: the slices of the segments they listed
//                      (grid/long_segments.hpp), a warp each, then each segment's slices in order.
// A segment's tree depends on its length L alone: up to 32 elements, folded in order; up to
// invariant_row_slice, lane k folds elements k, k + 32, ... in order (scalar loads, from 16-byte
// vectors on 32 / V lanes (element_tree_fold), or from StagedFrom elements through a stage,
// staged_warp_run) and the lanes combine by the fixed butterfly; longer, slices of
// invariant_row_slice elements, each folded so (the last too, however short), whose results are
// folded in order. For elements under 4 bytes that is a row's tree (run_invariant_rows) up to 63
// slices.
#pragma once

#include <gpureduce/dispatch/tuning_sm90.hpp>
#include <gpureduce/grid/long_segments.hpp>
#include <gpureduce/kernel/axis_kernels.cuh>
#include <gpureduce/kernel/ticket.cuh>

#include <cstdint>

namespace gpureduce::detail {

// Elements [lo, hi) of the segment at p (hi > lo), lane k of the warp folding elements lo + k,
// lo + k + 32, ... in order, then the butterfly; every lane returns the result.
template <unsigned K, std::uint64_t StagedFrom, class A, class T, class Op>
__device__ __forceinline__ A invariant_slice_fold(const T* p, std::uint64_t lo, std::uint64_t hi, unsigned lane,
                                                  Vector<T>* stage, const Op& op) {
  A acc = op.template identity<A>();
  if (hi - lo >= StagedFrom) acc = staged_warp_run<K>(acc, p, lo, hi, lane, stage, op);
  else acc = fold_run<warp_threads, 2 * K, false>(acc, p, lo, hi, lane, 0, op);
  return butterfly(acc, op, warp_threads / 2, 1);
}

// Lists the segment (its warp's lanes all call): its slices taken from the cursor, its entry and
// its slices' owner written. False where the list has no room for them all (the slices it took
// then have no owner).
template <class A>
__device__ __forceinline__ bool list_long_segment(const LongSegments<A>& list, std::int64_t begin,
                                                  std::uint64_t length, std::int64_t out, unsigned lane) {
  const std::uint64_t slices = ceil_div(length, invariant_row_slice);
  unsigned long long first = list.room;
  if (lane == 0 && slices <= list.room && *static_cast<volatile unsigned long long*>(list.cursor) < list.room)
    first = atomicAdd(list.cursor, slices);
  first = __shfl_sync(~0u, first, 0);
  if (first >= list.room) return false;
  const bool fits = first + slices <= list.room;
  const std::uint32_t owner = fits ? std::uint32_t(first) : unowned_slice;
  const std::uint64_t end = fits ? first + slices : list.room;
  for (std::uint64_t g = first + lane; g < end; g += warp_threads) list.owner[g] = owner;
  if (fits && lane == 0) list.entries[long_entry(first)] = {begin, length, out, 0};
  return fits;
}

// A segment of several slices: listed for long_segments_kernel where the list has room (no result
// here), or else folded slice by slice. Inlined: out of line (or sharing one call site of the
// slice fold with shorter segments) it slowed CSR segments of means 147 and 1684, none of them
// long, by 11% and 17% (8%, 7%) over no list, inlined 6% and 2% (H100, float32, 2^28).
template <unsigned K, std::uint64_t StagedFrom, class A, class Out, class T, class Op>
__device__ __forceinline__ void long_segment(const T* in, const RowSpan& span, unsigned lane, Vector<T>* stage,
                                             const LongSegments<A>& list, Out* out, const Op& op) {
  if (list_long_segment(list, span.in, span.length, span.out, lane)) return;
  A acc = op.template identity<A>();
  for (std::uint64_t lo = 0; lo < span.length; lo += invariant_row_slice) {
    const std::uint64_t hi = span.length - lo < invariant_row_slice ? span.length : lo + invariant_row_slice;
    acc = op(acc, invariant_slice_fold<K, StagedFrom, A>(in + span.in, lo, hi, lane, stage, op));
  }
  if (lane == 0) out[span.out] = finish<Out>(acc);
}

// A batch-invariant segment's fold by its warp (the tree above); lane 0 writes the result.
template <unsigned K, std::uint64_t StagedFrom, class A, class Out, class T, class Op>
__device__ __forceinline__ void invariant_segment(const T* in, const RowSpan& span, unsigned lane, Vector<T>* stage,
                                                  const LongSegments<A>& list, Out* out, const Op& op) {
  if (span.length > invariant_row_slice) return long_segment<K, StagedFrom, A>(in, span, lane, stage, list, out, op);
  const T* p = in + span.in;
  A acc = op.template identity<A>();
  if (span.length > warp_threads) {
    acc = invariant_slice_fold<K, StagedFrom, A>(p, 0, span.length, lane, stage, op);
  } else if (lane == 0) {
    acc = fold_run<1, 8, false>(acc, p, 0, span.length, 0, 0, op);
  }
  if (lane == 0) out[span.out] = finish<Out>(acc);
}

// The grid's warps, a segment each (Rows: its begin, length and result), through `stage` (the
// block's: K x 32 vectors a warp).
template <unsigned Threads, unsigned K, std::uint64_t StagedFrom, class A, class Out, class T, class Rows, class Op>
__device__ __forceinline__ void invariant_segment_warps(const T* in, const Rows& rows, std::uint64_t segments,
                                                        Vector<T>* stage, const LongSegments<A>& list, Out* out,
                                                        const Op& op) {
  const unsigned lane = threadIdx.x % warp_threads;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (Threads / warp_threads);
  Vector<T>* own = stage + threadIdx.x / warp_threads * K * warp_threads;
  for (std::uint64_t r = std::uint64_t(blockIdx.x) * (Threads / warp_threads) + threadIdx.x / warp_threads;
       r < segments; r += warps)
    invariant_segment<K, StagedFrom, A>(in, rows.row(r), lane, own, list, out, op);
}

// The grid's warps, V segments at a time each (V = Vector<T>::size; Rows: their begin, length and
// result): a group of 32 / V lanes folds each of up to Most elements (element_tree_fold, or its
// first lane in order up to 32), then the warp each longer one in turn, as invariant_segment_warps.
// More bytes in flight where segments are short; where they are long, fewer warps share them.
template <unsigned Threads, unsigned K, std::uint64_t StagedFrom, std::uint64_t Most, class A, class Out, class T,
          class Rows, class Op>
__device__ __forceinline__ void invariant_segment_groups(const T* in, const Rows& rows, std::uint64_t segments,
                                                         Vector<T>* stage, const LongSegments<A>& list, Out* out,
                                                         const Op& op) {
  constexpr unsigned V = Vector<T>::size, G = warp_threads / V;
  const unsigned lane = threadIdx.x % warp_threads, group_lane = lane % G;
  const std::uint64_t warps = std::uint64_t(gridDim.x) * (Threads / warp_threads);
  Vector<T>* own = stage + threadIdx.x / warp_threads * K * warp_threads;
  for (std::uint64_t r0 = (std::uint64_t(blockIdx.x) * (Threads / warp_threads) + threadIdx.x / warp_threads) * V;
       r0 < segments; r0 += warps * V) {
    const std::uint64_t r = r0 + lane / G;
    const RowSpan span = r < segments ? rows.row(r) : RowSpan{};
    const bool grouped = r < segments && span.length <= Most;
    // Every lane shuffles in the tree; a group that has no such segment folds nothing.
    A acc = element_tree_fold<2, A>(in + span.in, 0, grouped && span.length > warp_threads ? span.length : 0,
                                    group_lane, op);
    if (grouped && span.length <= warp_threads && group_lane == 0)
      acc = fold_run<1, 8, false>(op.template identity<A>(), in + span.in, 0, span.length, 0, 0, op);
    if (grouped && group_lane == 0) out[span.out] = finish<Out>(acc);
    for (unsigned rest = __ballot_sync(~0u, r < segments && !grouped && group_lane == 0); rest != 0;
         rest &= rest - 1) {
      const int from = __ffs(int(rest)) - 1;
      const RowSpan longer{__shfl_sync(~0u, span.in, from), __shfl_sync(~0u, span.length, from),
                           __shfl_sync(~0u, span.out, from)};
      invariant_segment<K, StagedFrom, A>(in, longer, lane, own, list, out, op);
    }
  }
}

// Invariant_segments_kernel: begin/end segments, invariant_segment_warps.
template <unsigned Threads, std::uint64_t StagedFrom, class A, class Out, class T, class Rows, class Op>
__global__ void __launch_bounds__(Threads)
    invariant_segments_kernel(const T* in, Rows rows, std::uint64_t segments, LongSegments<A> list, Out* out,
                              Op runtime_op) {
  constexpr unsigned K = staged_warp_loads;
  __shared__ alignas(16) unsigned char stage_bytes[Threads * K * sizeof(Vector<T>)];
  with_constant_nan(runtime_op, [&](auto op) {
    invariant_segment_warps<Threads, K, StagedFrom, A>(in, rows, segments, reinterpret_cast<Vector<T>*>(stage_bytes),
                                                       list, out, op);
  });
}

// Long_segments_kernel: warp g of the grid folds slices g, g + warps, ... of the list into their
// partials; the warp that folds a segment's last one (by its entry's count, acq_rel) folds the
// segment's partials in order and writes its result. The grid's last block (`ticket`, zero
// between launches) zeroes the cursor and the ticket for the next launch.
template <unsigned Threads, std::uint64_t StagedFrom, class A, class Out, class T, class Op>
__global__ void __launch_bounds__(Threads)
    long_segments_kernel(const T* in, LongSegments<A> list, Out* out, unsigned* ticket, Op runtime_op) {
  constexpr unsigned K = staged_warp_loads;
  __shared__ alignas(16) unsigned char stage_bytes[Threads * K * sizeof(Vector<T>)];
  with_constant_nan(runtime_op, [&](auto op) {
    const unsigned lane = threadIdx.x % warp_threads;
    Vector<T>* own = reinterpret_cast<Vector<T>*>(stage_bytes) + threadIdx.x / warp_threads * K * warp_threads;
    const unsigned long long taken = *list.cursor;
    const std::uint64_t slices = taken < list.room ? taken : list.room;
    const std::uint64_t warps = std::uint64_t(gridDim.x) * (Threads / warp_threads);
    for (std::uint64_t g = std::uint64_t(blockIdx.x) * (Threads / warp_threads) + threadIdx.x / warp_threads;
         g < slices; g += warps) {
      const std::uint32_t first = list.owner[g];
      if (first == unowned_slice) continue;
      LongSegment& entry = list.entries[long_entry(first)];
      const std::uint64_t length = entry.length, lo = (g - first) * invariant_row_slice;
      const std::uint64_t hi = length - lo < invariant_row_slice ? length : lo + invariant_row_slice;
      const A partial = invariant_slice_fold<K, StagedFrom, A>(in + entry.begin, lo, hi, lane, own, op);
      if (lane == 0) {
        list.partials[g] = partial;
        const std::uint64_t count = ceil_div(length, invariant_row_slice);
        if (draw_ticket(&entry.done) == count - 1) {
          A acc = op.template identity<A>();
          for (std::uint64_t j = 0; j < count; ++j) acc = op(acc, list.partials[first + j]);
          out[entry.out] = finish<Out>(acc);
        }
      }
    }
    __syncthreads();  // the block's threads have read the cursor
    if (threadIdx.x == 0 && draw_ticket(ticket) == gridDim.x - 1) {
      *static_cast<volatile unsigned long long*>(list.cursor) = 0;
      reset_tickets(ticket);
    }
  });
}

}  // namespace gpureduce::detail
