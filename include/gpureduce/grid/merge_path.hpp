// The merge path of CSR segments (Merrill and Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC16): the segments' ends and the elements merged into one sequence of
// segments + elements items, where segment x's end comes after its last element (item
// end(x) + x). Splitting that sequence into equal runs balances the work whatever the lengths.
// Host arithmetic, tested on the CPU (tests/cpu/test_merge_path.cpp); the kernels run the same:
// the points, the shares, the walk of a share's segments and the fold of consecutive shares' carries.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::detail {

// A point on the path: `segment` ends and `element` elements consumed.
struct PathPoint {
  std::uint64_t segment = 0;
  std::uint64_t element = 0;
};

// The point `diagonal` items along the path of `segments` ends and `elements` elements, where
// end(x) is segment x's end relative to the first element (non-decreasing: CSR offsets). End x is
// consumed before diagonal d when end(x) + x < d, so the point's segment count is the number of
// ends that satisfy this. Offsets that decrease give some point within [0, segments] x
// [0, elements], never one outside.
template <class EndAt>
GPUREDUCE_HD PathPoint merge_path_point(std::uint64_t diagonal, std::uint64_t segments, std::uint64_t elements,
                                        EndAt&& end) {
  std::uint64_t lo = diagonal > elements ? diagonal - elements : 0;
  std::uint64_t hi = diagonal < segments ? diagonal : segments;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (std::uint64_t(end(mid)) + mid < diagonal) lo = mid + 1;
    else hi = mid;
  }
  return {lo, diagonal - lo};
}

// The items each of `blocks` blocks takes: an equal share of the path, rounded up to whole tiles.
GPUREDUCE_HD std::uint64_t path_share(std::uint64_t items, std::uint64_t blocks, std::uint64_t tile) {
  const std::uint64_t share = (items + blocks - 1) / blocks;
  return (share + tile - 1) / tile * tile;
}

// The path a CSR launch takes by the mean segment length (csr_segments_kernel): a thread per
// segment, staged, below staged_below; warp shares of the merge path from shares_from; a warp per
// segment from warp_from up to warp_below; the merge path's tiles otherwise.
struct CsrMeans {
  std::uint64_t staged_below, shares_from, warp_from, warp_below;
};
enum class CsrPath { automatic, staged, tiles, warps, shares };

// The means that take `path` whatever the mean (automatic: `tuned`); forced staged tiles where
// the stage does not fit give the tiles.
GPUREDUCE_HD constexpr CsrMeans forced_means(CsrPath path, CsrMeans tuned) {
  constexpr std::uint64_t never = ~std::uint64_t(0);
  switch (path) {
    case CsrPath::staged: return {never, never, never, never};
    case CsrPath::tiles: return {0, never, never, never};
    case CsrPath::warps: return {0, never, 0, never};
    case CsrPath::shares: return {0, 0, never, never};
    default: return tuned;
  }
}

// The path of a launch whose segments have this mean length (staged tiles only where the stage
// holds a load per thread: `stage_fits`).
GPUREDUCE_HD constexpr CsrPath csr_path(std::uint64_t mean, CsrMeans means, bool stage_fits) {
  if (stage_fits && mean < means.staged_below) return CsrPath::staged;
  if (mean >= means.shares_from) return CsrPath::shares;
  if (mean >= means.warp_from && mean < means.warp_below) return CsrPath::warps;
  return CsrPath::tiles;
}

inline constexpr std::uint64_t no_segment = ~std::uint64_t(0);

// What a share of the path leaves for the shares after it: its part of the segment open at its
// end, and its part of the segment it closes but did not open (no_segment: none).
template <class A>
struct alignas(16) PathCarry {
  A open;
  A head;
  std::uint64_t open_segment;
  std::uint64_t head_segment;
};

// The share [p0, p1) of the path, segment by segment: end_at(x) gives segment x's end, asked for
// x = p0.segment, p0.segment + 1, ... in order; fold(begin, at, end) the part [at, end) of the
// segment that begins at `begin` (begin0: p0's segment's). The segments that close in the share go
// to emit(x, value), but one that began before it, which is the carry's head; the segment open at
// p1 leaves its part as the carry's open.
GPUREDUCE_EXEC_CHECK_DISABLE
template <class A, class EndAt, class Fold, class Emit>
GPUREDUCE_HD PathCarry<A> walk_share(PathPoint p0, PathPoint p1, std::uint64_t segments, std::uint64_t begin0,
                                     A identity, EndAt&& end_at, Fold&& fold, Emit&& emit) {
  PathCarry<A> carry{identity, identity, no_segment, no_segment};
  std::uint64_t at = p0.element;
  std::uint64_t begin = begin0 < at ? begin0 : at;  // decreasing offsets: indices off, reads within the span
  for (std::uint64_t x = p0.segment; x < p1.segment; ++x) {
    std::uint64_t e = end_at(x);
    e = e > at ? e : at;  // a decreasing end reads nothing
    const A v = fold(begin, at, e);
    if (x == p0.segment && begin < p0.element) {
      carry.head = v;
      carry.head_segment = x;
    } else {
      emit(x, v);
    }
    begin = at = e;
  }
  if (p1.segment < segments) {
    carry.open = fold(begin, at, p1.element > at ? p1.element : at);
    carry.open_segment = p1.segment;
  }
  return carry;
}

// The carries of `count` consecutive shares folded in order: each head completed by the open parts
// before it and emitted, but that of segment `continued` (one that began before the first share;
// no_segment: none), which stays the head of the result, the carry of the shares together.
GPUREDUCE_EXEC_CHECK_DISABLE
template <class A, class Op, class Emit>
GPUREDUCE_HD PathCarry<A> fold_carries(const PathCarry<A>* carries, std::uint64_t count, std::uint64_t continued,
                                       A identity, const Op& op, Emit&& emit) {
  PathCarry<A> all{identity, identity, no_segment, no_segment};
  A running = identity;
  std::uint64_t key = no_segment;
  for (std::uint64_t k = 0; k < count; ++k) {
    const PathCarry<A> c = carries[k];
    if (c.head_segment != no_segment) {
      const A v = key == c.head_segment ? op(running, c.head) : c.head;
      if (c.head_segment == continued) {
        all.head = v;
        all.head_segment = continued;
      } else {
        emit(c.head_segment, v);
      }
    }
    running = key == c.open_segment ? op(running, c.open) : c.open;
    key = c.open_segment;
  }
  all.open = running;
  all.open_segment = key;
  return all;
}

}  // namespace gpureduce::detail
