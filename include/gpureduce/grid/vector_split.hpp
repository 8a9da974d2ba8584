// Partition for 16-byte vector loads (rung r9 and later): a scalar head up to the first 16-byte
// aligned address, a body of whole vectors, a scalar tail. The body is read in batches of Unroll
// vectors per thread, the vectors of a batch one block apart so each warp load is coalesced, and
// batches stride over a capped grid as in GridStride.
//
// A vector is 16 bytes for elements whose size divides 16 (every number type). For records of
// other sizes (structs: 3, 12 or 24 bytes) it is the shortest run of whole records that spans
// whole 16-byte words, vector_span_bytes (48 bytes: 16 pixels of 3 bytes, 4 float3, 2 records of
// 24 bytes), loaded as that many 16-byte words.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/arithmetic.hpp>

#include <cstdint>

namespace gpureduce::detail {

inline constexpr unsigned vector_bytes = 16;

// The least common multiple of elem_bytes and 16: the bytes of one vector.
GPUREDUCE_HD constexpr unsigned vector_span_bytes(unsigned elem_bytes) {
  const unsigned low_bit = elem_bytes & (~elem_bytes + 1u);  // gcd(elem_bytes, 16), 16 is a power of 2
  return elem_bytes * vector_bytes / (low_bit < vector_bytes ? low_bit : vector_bytes);
}

struct VectorSplit {
  std::uint64_t head;     // scalar elements before the first aligned vector
  std::uint64_t vectors;  // whole vectors
  std::uint64_t tail;     // scalar elements after the last vector

  // addr must be a multiple of elem_bytes (any valid T* of a number type is), or for a size that
  // does not divide 16, of gcd(elem_bytes, 16) (sources.cuh picks which records come here), so
  // that some element of the first vector_span_bytes starts 16-byte aligned.
  GPUREDUCE_HD static constexpr VectorSplit make(std::uint64_t addr, std::uint64_t n, unsigned elem_bytes) {
    const std::uint64_t per_vec = vector_span_bytes(elem_bytes) / elem_bytes;
    const std::uint64_t misalign = addr % vector_bytes;
    std::uint64_t head = 0;
    if (vector_bytes % elem_bytes == 0) {
      head = misalign == 0 ? 0 : (vector_bytes - misalign) / elem_bytes;
    } else {
      while (head + 1 < per_vec && (misalign + head * elem_bytes) % vector_bytes != 0) ++head;
    }
    head = min_u64(n, head);
    const std::uint64_t vectors = (n - head) / per_vec;
    return {head, vectors, n - head - vectors * per_vec};
  }

  // The same split for vectors read d bytes past 16-byte boundaries (thread/shifted_load.cuh,
  // 0 < d < 16), whose loads reach d bytes before a vector's first element and 16 - d bytes past
  // its last: the first vector goes to the scalar head where fewer than d bytes of the array
  // precede it, and the last to the scalar tail, so that no load leaves the array (a compute-
  // sanitizer error where it leaves the allocation). The head and tail stay below 2 vectors.
  GPUREDUCE_HD constexpr VectorSplit shifted(unsigned d, unsigned elem_bytes, unsigned per_vec) const {
    VectorSplit s = *this;
    if (d == 0) return s;
    if (s.vectors > 0 && s.head * elem_bytes < d) {
      s.head += per_vec;
      --s.vectors;
    }
    if (s.vectors > 0) {
      --s.vectors;
      s.tail += per_vec;
    }
    return s;
  }
};

// How a thread's batches of vectors are laid out (VectorGrid::for_each_batch).
enum class Batches : unsigned char {
  grid,         // a block of a grid: a grid-stride loop
  one_block,    // the one-block kernel: a rolled loop
  at_most_one,  // the one-block kernel of an input of at most one batch: no loop
};

template <int Unroll>
struct VectorGrid {
  static_assert(Unroll >= 1);
  std::uint64_t vectors;
  unsigned block;
  std::uint64_t max_blocks;  // >= 1

  GPUREDUCE_HD constexpr std::uint64_t batch() const { return std::uint64_t(Unroll) * block; }

  GPUREDUCE_HD constexpr std::uint64_t grid() const {
    return max_u64(1, min_u64(ceil_div(vectors, batch()), max_blocks));
  }

  // full(v) reads vectors v, v + block, ..., v + (Unroll-1)*block, all in range; last(v) reads
  // those of them below `vectors` (maybe none): the thread's last batch. full() takes only the
  // input's whole batches, so that every thread of a block runs it as often and the rest goes to
  // last() in all of them. Otherwise, where the input ends within the last quarter of a batch, the
  // threads of a warp whose batch is still full and those whose batch is not take different
  // branches, and the second branch's loads wait for the first's data (H100: one block 0.83-0.94x
  // of the time there; the grid, where that batch is one block's last, 0.986x, median).
  // Batches::one_block: the loop is not unrolled, for a caller with few batches per thread, where
  // the unrolled loop's trip-count test and remainder cost more than they save (the one-block
  // kernel). Batches::at_most_one: no loop at all, last() alone (the caller's input is at most
  // one batch: vectors <= Unroll * block, one block).
  template <Batches B = Batches::grid, class Full, class Last>
  GPUREDUCE_HD void for_each_batch(std::uint64_t b, unsigned t, Full&& full, Last&& last) const {
    if constexpr (B == Batches::at_most_one) {
      last(b * batch() + t);
      return;
    }
    const std::uint64_t stride = grid() * batch();
    std::uint64_t v = b * batch() + t;
    const std::uint64_t end = vectors / batch() * batch();
    const auto more = [&] { return v + std::uint64_t(Unroll - 1) * block < end; };
    if constexpr (B == Batches::one_block) {
GPUREDUCE_NO_UNROLL
      for (; more(); v += stride) full(v);
    } else {
      for (; more(); v += stride) full(v);
    }
    last(v);
  }

  // Vector k of the batch at v, or v again where the batch ends before it: a last batch padded to
  // a full one, for a sink that ignores a vector seen twice at the same index (v is in range).
  GPUREDUCE_HD constexpr std::uint64_t padded(std::uint64_t v, int k) const {
    const std::uint64_t w = v + std::uint64_t(k) * block;
    return w < vectors ? w : v;
  }

  // The same with the partial batch handed over one vector at a time: one(w) for each w in range.
  // In one block it also skips the per-vector tests of a thread whose batches were all full (in
  // the grid kernel this made float64 max of 20001 elements 6.0 -> 6.6 us, H100).
  template <Batches B = Batches::grid, class Full, class One>
  GPUREDUCE_HD void for_each(std::uint64_t b, unsigned t, Full&& full, One&& one) const {
    for_each_batch<B>(b, t, full, [&](std::uint64_t v) {
      if constexpr (B != Batches::grid)
        if (v >= vectors) return;
GPUREDUCE_UNROLL
      for (int k = 0; k < Unroll; ++k) {
        const std::uint64_t w = v + std::uint64_t(k) * block;
        if (w < vectors) one(w);
      }
    });
  }
};

// The scalar head and tail (each shorter than one vector) go to the first threads of the grid: at
// most one element of each per thread.
struct ScalarEdges {
  bool has_head, has_tail;
  std::uint64_t head_index, tail_index;

  GPUREDUCE_HD static constexpr ScalarEdges of(const VectorSplit& s, unsigned per_vec, std::uint64_t global_thread) {
    return {global_thread < s.head, global_thread < s.tail, global_thread,
            s.head + s.vectors * per_vec + global_thread};
  }

  // The same counted from the grid's last thread (of `threads`): the threads whose last batch is
  // the shortest, or empty, so that a thread that waits for its edges before loading its vectors
  // delays the fewest loads.
  GPUREDUCE_HD static constexpr ScalarEdges from_end(const VectorSplit& s, unsigned per_vec, std::uint64_t threads,
                                                     std::uint64_t global_thread) {
    return of(s, per_vec, threads - 1 - global_thread);
  }
};

template <class F>
GPUREDUCE_HD void for_each_scalar_edge(const VectorSplit& s, unsigned per_vec, std::uint64_t global_thread, F&& f) {
  const ScalarEdges e = ScalarEdges::of(s, per_vec, global_thread);
  if (e.has_head) f(e.head_index);
  if (e.has_tail) f(e.tail_index);
}

}  // namespace gpureduce::detail
