// The shared-memory stage of invariant_columns_kernel (kernel/axis_kernels.cuh), host and device
// (the CPU tests copy and read a block's chunk). A block's pieces each hold the next 32 rows of
// `inner` adjacent columns, copied as vectors of V elements; piece q starts at slot q x stride,
// its 32 x inner elements padded by the whole vectors that hold `inner` more, so that every piece
// starts 16-byte aligned, and a warp's threads (piece q, column c) reading row k of their column
// at slot q x stride + k x inner + c meet at most two to a bank (4-byte elements).
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

inline constexpr unsigned column_stage_rows = 32;  // rows a piece holds at a time

struct ColumnStage {
  unsigned inner;  // columns
  unsigned V;      // elements a vector
  GPUREDUCE_HD constexpr unsigned piece_vectors() const { return column_stage_rows * inner / V; }
  GPUREDUCE_HD constexpr unsigned stride() const { return column_stage_rows * inner + (inner + V - 1) / V * V; }
  GPUREDUCE_HD constexpr unsigned slot(unsigned piece, unsigned row, unsigned column) const {
    return piece * stride() + row * inner + column;
  }
};

// The vectors thread t of `threads` copies: t, t + threads, ... of the block's chunk, in order;
// vector w of piece q, vectors_per_piece a piece, stepped without a division.
struct ColumnCopies {
  unsigned q, w;
  unsigned q_step, w_step, vectors_per_piece;
  GPUREDUCE_HD constexpr ColumnCopies(unsigned t, unsigned threads, unsigned vectors)
      : q(t / vectors), w(t % vectors), q_step(threads / vectors), w_step(threads % vectors),
        vectors_per_piece(vectors) {}
  GPUREDUCE_HD constexpr void next() {
    q += q_step;
    w += w_step;
    if (w >= vectors_per_piece) w -= vectors_per_piece, ++q;
  }
};

}  // namespace gpureduce::detail
