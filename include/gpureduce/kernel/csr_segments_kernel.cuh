// Segments given by CSR offsets, load-balanced along the merge path (grid/merge_path.hpp): each of
// the grid's blocks takes an equal share of the segments' ends and elements, whatever their
// lengths, and walks it tile by tile.
//   Tile: Threads x Items path items. The tile's ends (tile-relative) and elements are staged in
//   shared memory; each thread finds its start on the path by a binary search in shared memory
//   and folds its Items items in order, writing the segments that open and close within them. Its
//   first segment's part before it comes from a block-wide scan by key
//   (block/block_segmented_scan.cuh) of the threads' open segments, the previous tile's carried in
//   front.
//   Block: a segment that closes in the block but opened in an earlier one is the block's `head`;
//   the segment open at its end, its part in the block, its `open` partial. Both go to the
//   workspace, and the last block to draw a ticket folds them: a scan by key over the blocks gives
//   each head the parts before it, in block order.
// By the mean length (elements over segments, read on the device): segments of a long mean walk
// the block's share in warp shares instead (warp_shares: each warp folds its part's segments in
// 16-byte vectors); of a medium mean take 8 lanes each, in 16-byte vectors; of a short mean a
// thread each, staged a tile of whole segments at a time (staged_tiles), each tile FillPercent of
// the stage at the mean length (CsrMeans: the means of each path).
// One launch; every fold and tree has a fixed shape, so a result's bits depend on the values, the
// path's length and the grid's size (the device's resident blocks), never on timing.
#pragma once

#include <gpureduce/agent/sources.cuh>
#include <gpureduce/block/block_segmented_scan.cuh>
#include <gpureduce/grid/merge_path.hpp>
#include <gpureduce/kernel/axis_kernels.cuh>
#include <gpureduce/kernel/staged_rows_kernel.cuh>
#include <gpureduce/kernel/ticket.cuh>

#include <cstdint>
#include <cstring>

namespace gpureduce::detail {

// Where the segments are: offset(x) is segment x's begin and segment x - 1's end, in elements of
// the input, read from the CSR offsets.
// A tile stages its ends tile-relative as int32 beside its elements: Items items per thread, the
// most (odd, so that threads 0..31 read words in 32 banks) whose stage fits in `bytes`.
template <class T>
constexpr unsigned csr_items(unsigned threads, unsigned bytes) {
  const unsigned most = bytes / (threads * unsigned(sizeof(T) + sizeof(std::int32_t)));
  return most % 2 ? most : most - 1;
}

// An end relative to a tile's first element, saturated to [0, beyond].
__device__ __forceinline__ std::int32_t saturated(std::int64_t e, std::int32_t beyond) {
  return e < 0 ? 0 : e < beyond ? std::int32_t(e) : beyond;
}

// stage(): thread threadIdx.x's share of the tile's ends: s_end[i] (i = threadIdx.x + k x Threads,
// up to `span`) the end of segment `segment` + i relative to the element at `tile_base`, for the
// `avail` segments there are; `beyond` after them.
template <class Offset>
struct CsrOffsets : CsrStarts<Offset> {
  using CsrStarts<Offset>::offsets;
  template <unsigned Threads, unsigned Loads>
  __device__ __forceinline__ void stage(std::int32_t* s_end, unsigned span, std::uint64_t segment,
                                        std::int64_t tile_base, unsigned avail, std::int32_t beyond) const {
    const Offset* ends = offsets + segment + 1;
#pragma unroll
    for (unsigned k = 0; k < Loads; ++k) {
      const unsigned i = threadIdx.x + k * Threads;
      if (i <= span) s_end[i] = i < avail ? saturated(std::int64_t(ends[i]) - tile_base, beyond) : beyond;
    }
  }
};
// *p read through the L2 (__ldcg, 4 bytes at a time): what another block wrote in this launch.
template <class V>
__device__ __forceinline__ V load_cg(const V* p) {
  static_assert(sizeof(V) % 4 == 0 && alignof(V) >= 4);
  unsigned w[sizeof(V) / 4];
#pragma unroll
  for (unsigned k = 0; k < sizeof(V) / 4; ++k) w[k] = __ldcg(reinterpret_cast<const unsigned*>(p) + k);
  V v;
  std::memcpy(&v, w, sizeof(V));
  return v;
}

// The merge-path point of `diagonal`, found by a whole warp: each step probes 32 ends at once, so
// a path of 2^31 segments takes 7 dependent loads, not 31. Every lane returns the point.
template <class EndAt>
__device__ PathPoint warp_merge_path_point(std::uint64_t diagonal, std::uint64_t segments, std::uint64_t elements,
                                           EndAt&& end) {
  std::uint64_t lo = diagonal > elements ? diagonal - elements : 0;
  std::uint64_t hi = diagonal < segments ? diagonal : segments;
  const unsigned lane = threadIdx.x % warp_threads;
  while (lo < hi) {
    const std::uint64_t step = (hi - lo + warp_threads - 1) / warp_threads;
    const std::uint64_t x = lo + lane * step;
    const bool before = x < hi && std::uint64_t(end(x)) + x < diagonal;
    const unsigned ballot = __ballot_sync(0xffffffffu, before);
    const unsigned leading = ballot == 0xffffffffu ? warp_threads : unsigned(__ffs(~ballot) - 1);
    if (leading == 0) break;  // end lo is not consumed: the point is lo
    const std::uint64_t last = lo + (leading - 1) * step;
    hi = last + step < hi ? last + step : hi;
    lo = last + 1;
  }
  return {lo, diagonal - lo};
}

// The `active` blocks, those with a share of the path (the first ones), each put thread 0's `mine`
// in `carries`, then draw a ticket; the last of them folds their carries by a scan by key in block
// order, which gives each block's head the parts before it. Blocks without a share return at once:
// at 64 KB most of a resident grid has none, and the fold need not wait for them.
template <unsigned Threads, class A, class Out, class Op>
__device__ __forceinline__ void fold_block_carries(const PathCarry<A>& mine, bool has_share, std::uint64_t active,
                                                   PathCarry<A>* carries, unsigned* ticket, Out* out,
                                                   const Op& op) {
  __shared__ SegmentedScanScratch<Threads, std::uint64_t, A> fix_scratch;
  __shared__ bool s_last;
  const A identity = op.template identity<A>();
  if (!has_share) return;
  if (threadIdx.x == 0) {
    carries[blockIdx.x] = mine;
    s_last = draw_ticket(ticket) == active - 1;
  }
  __syncthreads();
  if (!s_last) return;
  if (threadIdx.x == 0) reset_tickets(ticket);
  const std::uint64_t per_thread = (active + Threads - 1) / Threads;
  const std::uint64_t lo = threadIdx.x * per_thread < active ? threadIdx.x * per_thread : active;
  const std::uint64_t hi = lo + per_thread < active ? lo + per_thread : active;
  using Wide = Keyed<std::uint64_t, A>;
  Wide part{no_segment, identity};
  for (std::uint64_t b = lo; b < hi; ++b) {
    const PathCarry<A> c = load_cg(&carries[b]);
    part = b == lo ? Wide{c.open_segment, c.open} : then(part, Wide{c.open_segment, c.open}, op);
  }
  Wide running = block_segmented_scan<Threads>(part, Wide{no_segment, identity}, op, fix_scratch);
  for (std::uint64_t b = lo; b < hi; ++b) {
    const PathCarry<A> c = load_cg(&carries[b]);
    if (c.head_segment != no_segment)
      out[c.head_segment] = finish<Out>(running.key == c.head_segment ? op(running.value, c.head) : c.head);
    running = then(running, Wide{c.open_segment, c.open}, op);
  }
}

// Warp shares (segments of a long mean length): the block's share of the path [d0, d1) split
// among its warps; each walks its part's segments (walk_share), their ends read 32 at a time, and
// folds each one's elements there in 16-byte vectors (fold_run), writing the segments that open and
// close in its part. Thread 0 folds the warps' carries in order (fold_carries) and returns the
// block's. end_of(x): segment x's end relative to the first element, within [0, elements].
template <unsigned Threads, class A, class Out, class T, class Segments, class EndAt, class Op>
__device__ __forceinline__ PathCarry<A> warp_shares(const T* in, const Segments& where, std::uint64_t segments,
                                                    std::uint64_t elements, std::uint64_t d0, std::uint64_t d1,
                                                    EndAt&& end_of, Out* out, const Op& op) {
  constexpr unsigned warps = Threads / warp_threads;
  constexpr unsigned K = sizeof(A) <= 8 && Vector<T>::size <= 4 ? 4 : 2;  // loads in flight, in 64 registers
  __shared__ PathPoint s_points[warps + 1];
  __shared__ PathCarry<A> s_warps[warps];
  const unsigned lane = threadIdx.x % warp_threads, warp = threadIdx.x / warp_threads;
  const A identity = op.template identity<A>();
  const std::uint64_t part = d1 > d0 ? (d1 - d0 + warps - 1) / warps : 0;
  const auto diagonal = [&](unsigned w) { return d0 + w * part < d1 ? d0 + w * part : d1; };
  const auto begin_of = [&](std::uint64_t x) { return x == 0 ? std::uint64_t(0) : end_of(x - 1); };
  const PathPoint p0 = warp_merge_path_point(diagonal(warp), segments, elements, end_of);
  if (lane == 0) s_points[warp] = p0;
  if (warp == warps - 1) {
    const PathPoint p = warp_merge_path_point(d1, segments, elements, end_of);
    if (lane == 0) s_points[warps] = p;
  }
  __syncthreads();
  const PathPoint p1 = s_points[warp + 1];
  const T* first = in + where.offset(0);
  std::uint64_t ends = 0;  // lane k: the end of segment x0 + k of the current 32
  const PathCarry<A> carry = walk_share(
      p0, p1, segments, p0.segment < segments ? begin_of(p0.segment) : p0.element, identity,
      [&](std::uint64_t x) {
        const unsigned k = unsigned(x - p0.segment) % warp_threads;
        if (k == 0) ends = x + lane < p1.segment ? end_of(x + lane) : 0;
        return std::uint64_t(__shfl_sync(0xffffffffu, ends, k));
      },
      [&](std::uint64_t begin, std::uint64_t at, std::uint64_t end) {
        A v = identity;
        if (end > at) v = fold_run<warp_threads, K, true>(v, first + begin, at - begin, end - begin, lane, 0, op);
        return butterfly(v, op, warp_threads / 2, 1);
      },
      [&](std::uint64_t x, const A& v) {
        if (lane == 0) out[x] = finish<Out>(v);
      });
  if (lane == 0) s_warps[warp] = carry;
  __syncthreads();
  PathCarry<A> block{identity, identity, no_segment, no_segment};
  if (threadIdx.x == 0) {
    unsigned count = 0;
    while (count < warps && diagonal(count) < diagonal(count + 1)) ++count;
    const PathPoint start = s_points[0];
    const bool continued = count > 0 && start.segment < segments && begin_of(start.segment) < start.element;
    block = fold_carries(s_warps, count, continued ? start.segment : no_segment, identity, op,
                         [&](std::uint64_t x, const A& v) { out[x] = finish<Out>(v); });
  }
  return block;
}

template <unsigned Threads, unsigned Items, unsigned MinBlocks, unsigned FillPercent, class A, class Out, class T,
          class Segments, class Op>
__global__ void __launch_bounds__(Threads, MinBlocks)
    csr_segments_kernel(const T* in, Segments where, std::uint64_t segments, CsrMeans means, Out* out,
                        PathCarry<A>* carries, unsigned* ticket, Op runtime_op) {
  with_constant_nan(runtime_op, [&](auto op) {
    constexpr unsigned tile = Threads * Items;
    // Tile-relative ends past the tile (and past the last segment): never consumed in it.
    constexpr std::int32_t beyond = std::int32_t(tile + Items + 1);
    using Key = unsigned;
    __shared__ alignas(16) unsigned char s_elem_bytes[(tile + Items) * sizeof(T)];  // T may have constructors
    T* s_elem = reinterpret_cast<T*>(s_elem_bytes);
    __shared__ std::int32_t s_end[tile + Items + 1];  // s_end[k]: end of segment i0 + k, tile-relative
    __shared__ SegmentedScanScratch<Threads, Key, A> scan_scratch;
    __shared__ A s_carry[2];
    __shared__ PathPoint s_start, s_next;
    __shared__ std::uint64_t s_next_begin;
    __shared__ A s_head;
    __shared__ std::uint64_t s_head_segment;

    const A identity = op.template identity<A>();
    constexpr bool indexed = requires(A a) { a.index; };
    const std::int64_t base = where.offset(0);
    const std::int64_t last = where.offset(segments);
    const std::uint64_t elements = last > base ? std::uint64_t(last - base) : 0;
    // Every block takes the same branch. Short segments: staged tiles in s_elem's room.
    const std::uint64_t mean = elements / segments;
    constexpr unsigned loads = staged_loads(Threads, sizeof(s_elem_bytes), sizeof(T), staged_load_size<T>);
    const CsrPath path = csr_path(mean, means, loads > 0);
    if constexpr (loads > 0)
      if (path == CsrPath::staged) {
        constexpr unsigned fit = staged_capacity(Threads, loads, staged_load_size<T>) * FillPercent / 100;
        const std::uint64_t per_tile = staged_per_tile(segments, mean, fit, Threads, gridDim.x);
        // The tile's ends in s_end's room (tile + Items + 1 entries).
        staged_tiles<Threads, loads, false, 0, A>(s_elem, s_end, in, where, segments,
                                                  per_tile < tile + Items ? per_tile : tile + Items,
                                                  staged_pad_shift(sizeof(T)), nullptr, nullptr, out, op);
        return;
      }
    const std::uint64_t items = segments + elements;
    const std::uint64_t share = path_share(items, gridDim.x, tile);
    const std::uint64_t d0 = std::uint64_t(blockIdx.x) * share;
    const std::uint64_t d1 = d0 + share < items ? d0 + share : items;
    const std::uint64_t active = share ? (items + share - 1) / share : 0;
    // Segment x's end relative to the first element, within [0, elements].
    const auto end_of = [&](std::uint64_t x) {
      const std::int64_t e = where.offset(x + 1) - base;
      return e < 0 ? std::uint64_t(0) : std::uint64_t(e) < elements ? std::uint64_t(e) : elements;
    };
    // Segments of a long mean length: warp shares of the path, in 16-byte vectors.
    if (path == CsrPath::shares) {
      const PathCarry<A> carry = warp_shares<Threads, A>(in, where, segments, elements, d0, d1, end_of, out, op);
      fold_block_carries<Threads>(carry, d0 < d1, active, carries, ticket, out, op);
      return;
    }
    // Segments of a medium mean length: 8 lanes each (a warp each where they are too few to give
    // every warp of the grid 4), in 16-byte vectors, which the merge path's staging does not use
    // (csr_means in tuning_sm90.hpp); 4 segments a warp keep more loads in flight.
    if (path == CsrPath::warps) {
      const auto groups = [&]<unsigned G>() {
        constexpr unsigned per_block = Threads / G;
        const unsigned lane = threadIdx.x % G;
        for (std::uint64_t first = std::uint64_t(blockIdx.x) * per_block; first < segments;
             first += std::uint64_t(gridDim.x) * per_block) {
          const std::uint64_t r = first + threadIdx.x / G;
          A acc = identity;
          if (r < segments) {
            const std::int64_t b = where.offset(r), e = where.offset(r + 1);
            if (e > b) acc = fold_run<G, 4, true>(acc, in + b, 0, std::uint64_t(e - b), lane, 0, op);
          }
          acc = butterfly(acc, op, G / 2, 1);
          if (lane == 0 && r < segments) out[r] = finish<Out>(acc);
        }
      };
      if (segments < std::uint64_t(gridDim.x) * (Threads / 8)) groups.template operator()<warp_threads>();
      else groups.template operator()<8>();
      return;
    }

    if (threadIdx.x < Items) s_elem[tile + threadIdx.x] = T{};
    if (threadIdx.x == 0) {
      s_head = identity;
      s_head_segment = no_segment;
    }
    if (threadIdx.x < warp_threads && d0 < d1) {
      const PathPoint p = warp_merge_path_point(d0, segments, elements, end_of);
      if (threadIdx.x == 0) s_start = p;
    }
    __syncthreads();

    PathPoint at{};
    if (d0 < d1) at = s_start;
    const PathPoint block_start = at;
    // Where the block's first segment begins: before the block's first element, it is continued.
    std::uint64_t first_begin = 0;
    if (d0 < d1 && at.segment < segments) {
      const std::int64_t b = where.offset(at.segment) - base;
      first_begin = b < 0 ? 0 : std::uint64_t(b) < elements ? std::uint64_t(b) : elements;
    }
    const std::uint64_t block_first_begin = first_begin;
    unsigned parity = 0;
    if (threadIdx.x == 0) s_carry[0] = identity;

    for (std::uint64_t d = d0; d < d1; d += tile) {
      const unsigned count = d1 - d < tile ? unsigned(d1 - d) : tile;
      // The tile's elements (as many as could be in it) and the ends of the segments that could
      // close in it, relative to its first element and saturated to [0, beyond]: past the last
      // segment, or past the tile, an end is never consumed in it.
      const std::int64_t tile_base = base + std::int64_t(at.element);
      const unsigned elem_avail = elements - at.element < tile ? unsigned(elements - at.element) : tile;
      const unsigned seg_avail = segments - at.segment < tile + Items + 1 ? unsigned(segments - at.segment)
                                                                          : tile + Items + 1;
      const T* src = in + tile_base;
#pragma unroll
      for (unsigned k = 0; k < Items; ++k) {
        const unsigned i = threadIdx.x + k * Threads;
        s_elem[i] = i < elem_avail ? src[i] : T{};
      }
      where.template stage<Threads, Items + 1>(s_end, tile + Items, at.segment, tile_base, seg_avail, beyond);
      __syncthreads();
      const std::uint64_t seg_room = segments - at.segment < tile ? segments - at.segment : tile;
      const std::uint64_t elem_room = elements - at.element < tile ? elements - at.element : tile;

      // This thread's items.
      const unsigned diagonal = threadIdx.x * Items < count ? threadIdx.x * Items : count;
      const unsigned mine = count - diagonal < Items ? count - diagonal : Items;
      const PathPoint p =
          merge_path_point(diagonal, seg_room, elem_room, [&](std::uint64_t x) { return std::uint64_t(s_end[x]); });
      unsigned i = unsigned(p.segment), j = unsigned(p.element);
      const unsigned first_i = i;
      // Where the current segment begins (tile-relative, negative where it began before the tile):
      // argmin/argmax index from it.
      std::int64_t begin = 0;
      if constexpr (indexed) begin = i == 0 ? std::int64_t(first_begin - at.element) : std::int64_t(s_end[i - 1]);
      std::uint32_t end_i = std::uint32_t(s_end[i]);
      A acc = identity, first_value = identity;
      bool closed = false;
      Out* const tile_out = out + at.segment;
#pragma unroll
      for (unsigned k = 0; k < Items; ++k) {
        if (k >= mine) break;
        if (j < end_i) {
          acc = op(acc, lift_element<A>(op, s_elem[j], std::int64_t(j) - begin));
          ++j;
        } else {
          if (!closed) first_value = acc;
          else tile_out[i] = finish<Out>(acc);
          closed = true;
          acc = identity;
          if constexpr (indexed) begin = end_i;
          ++i;
          end_i = std::uint32_t(s_end[i]);
        }
      }
      // The thread that takes the tile's last item hands on where the next tile starts.
      if (mine > 0 && diagonal + mine == count) {
        s_next = PathPoint{at.segment + i, at.element + j};
        if constexpr (indexed) s_next_begin = std::uint64_t(std::int64_t(at.element) + begin);
      }
      const Keyed<Key, A> pair{i, acc};
      const Keyed<Key, A> before =
          block_segmented_scan<Threads>(pair, Keyed<Key, A>{0, s_carry[parity]}, op, scan_scratch);
      if (closed) {
        const A value = before.key == first_i ? op(before.value, first_value) : first_value;
        const std::uint64_t s = at.segment + first_i;
        if (s == block_start.segment && block_first_begin < block_start.element) {
          s_head = value;
          s_head_segment = s;
        } else {
          out[s] = finish<Out>(value);
        }
      }
      // The open segment's part so far: every thread's last pair is the tile's last segment's.
      if (threadIdx.x == Threads - 1) s_carry[parity ^ 1] = then(before, pair, op).value;
      parity ^= 1;
      __syncthreads();
      at = s_next;
      if constexpr (indexed) first_begin = s_next_begin;
    }

    PathCarry<A> carry{};
    if (threadIdx.x == 0) carry = PathCarry<A>{s_carry[parity], s_head, at.segment, s_head_segment};
    fold_block_carries<Threads>(carry, d0 < d1, active, carries, ticket, out, op);
  });
}

}  // namespace gpureduce::detail
