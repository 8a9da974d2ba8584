// The shared-memory stage of the staged kernels (kernel/staged_rows_kernel.cuh): what a thread loads
// at once, how many elements a tile holds, where element e of a tile sits, and how many segments a
// tile takes. Element e sits at slot e + (e >> shift): one element of padding after every 2^shift,
// a bank row (128 bytes) of elements of up to 16 bytes, or none (staged_no_pad). Padding spreads
// rows of an even length over the banks and crowds some odd ones (rows of 31 float32 would put 31
// of a warp's reads in one bank), so each row length takes the layout with fewer bank conflicts.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/vector_split.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// Elements a thread loads at once: a 16-byte vector of elements whose size divides 16 bytes and
// who are aligned to their size, or one element.
GPUREDUCE_HD constexpr unsigned staged_load_elements(unsigned elem_bytes, unsigned elem_align) {
  return elem_bytes < vector_bytes && vector_bytes % elem_bytes == 0 && elem_align == elem_bytes
             ? vector_bytes / elem_bytes
             : 1;
}

// Elements a stage of `loads` loads of `load_elements` per thread holds.
GPUREDUCE_HD constexpr unsigned staged_capacity(unsigned threads, unsigned loads, unsigned load_elements) {
  return threads * loads * load_elements;
}

inline constexpr unsigned staged_no_pad = 31;  // e >> 31 is 0 for every slot of a stage

// The padded layout's shift: a bank row of elements of up to 16 bytes dividing 128.
GPUREDUCE_HD constexpr unsigned staged_pad_shift(unsigned elem_bytes) {
  if (elem_bytes > 16 || 128 % elem_bytes != 0) return staged_no_pad;
  unsigned shift = 0;
  for (unsigned n = 128 / elem_bytes; n > 1; n /= 2) ++shift;
  return shift;
}

GPUREDUCE_HD constexpr unsigned staged_slot(unsigned e, unsigned shift) { return e + (e >> shift); }

// A thread folds its segment from the stage `staged_fold_width` elements at a time, reading up to
// staged_fold_width - 1 past its end (and discarding them).
inline constexpr unsigned staged_fold_width = 4;

// Slots a stage of `capacity` elements takes in the padded layout (the larger), with the room a
// fold reads past the last element.
GPUREDUCE_HD constexpr unsigned staged_slots(unsigned capacity, unsigned elem_bytes) {
  return staged_slot(capacity + staged_fold_width - 1, staged_pad_shift(elem_bytes));
}

// A segment's place [lo, hi) in a tile of n elements, from its begin and end relative to the tile's
// first element: kept within [0, n], hi no less than lo (offsets that decrease or leave the tile).
struct StagedBounds {
  unsigned lo, hi;
};
template <class Int>  // std::int32_t or std::int64_t
GPUREDUCE_HD constexpr StagedBounds staged_place(Int begin, Int end, unsigned n) {
  using Unsigned = std::make_unsigned_t<Int>;
  const unsigned lo = begin < 0 ? 0 : Unsigned(begin) < n ? unsigned(begin) : n;
  return {lo, end < Int(lo) ? lo : Unsigned(end) < n ? unsigned(end) : n};
}

// The same from the low 32 bits of its offsets and the tile's first offset (staged CSR ends): exact
// for non-decreasing offsets, whose segments of the tile lie within it (n < 2^31).
GPUREDUCE_HD constexpr StagedBounds staged_bounds(std::uint32_t begin, std::uint32_t end, std::int64_t first,
                                                  unsigned n) {
  return staged_place<std::int32_t>(std::int32_t(begin - std::uint32_t(first)), std::int32_t(end - std::uint32_t(first)),
                                   n);
}

// Segments of more than 32 elements whose elements fit in a stage of `capacity` together: the
// batch-invariant tiles list them for a warp each.
GPUREDUCE_HD constexpr unsigned staged_long_room(unsigned capacity) { return capacity / 33 + 1; }

// The most loads per thread whose padded stage fits in `bytes`.
GPUREDUCE_HD constexpr unsigned staged_loads(unsigned threads, unsigned bytes, unsigned elem_bytes,
                                             unsigned load_elements) {
  unsigned loads = 0;
  while (std::uint64_t(staged_slots(staged_capacity(threads, loads + 1, load_elements), elem_bytes)) * elem_bytes <=
         bytes)
    ++loads;
  return loads;
}

// Segments per tile: `fit` elements of the stage at the mean length, whole blocks of `threads`
// where the segments fill the device, fewer where they would leave blocks short of
// `target_blocks`; at least one.
GPUREDUCE_HD constexpr std::uint64_t staged_per_tile(std::uint64_t segments, std::uint64_t mean, unsigned fit,
                                                     unsigned threads, std::uint64_t target_blocks) {
  const std::uint64_t most = fit / (mean > 0 ? mean : 1);
  const std::uint64_t share = (segments + target_blocks - 1) / target_blocks;
  const std::uint64_t spread = (share + threads - 1) / threads * threads;
  const std::uint64_t n = spread < most ? spread : most;
  return n > 0 ? n : 1;
}

// The bank conflicts of a warp reading its rows of `length` elements from a stage laid out with
// `shift`: the most distinct 4-byte words one of the 32 banks serves when lanes 0..31 read element
// k of rows 0..31, over k < length. (A lane's words follow the previous lane's: a word two lanes
// share is met twice in a row.)
constexpr unsigned staged_bank_conflicts(unsigned elem_bytes, unsigned length, unsigned shift) {
  unsigned worst = 0;
  for (unsigned k = 0; k < length; ++k) {
    unsigned per_bank[32] = {};
    std::uint64_t last = ~std::uint64_t(0);
    for (unsigned t = 0; t < 32; ++t) {
      const std::uint64_t begin = std::uint64_t(staged_slot(t * length + k, shift)) * elem_bytes;
      for (std::uint64_t w = begin / 4; w * 4 < begin + elem_bytes; ++w)
        if (w != last) {
          ++per_bank[w % 32];
          last = w;
        }
    }
    for (unsigned n : per_bank) worst = n > worst ? n : worst;
  }
  return worst;
}

// The layout of a stage of rows of `length` elements: padded where that has fewer bank conflicts.
constexpr unsigned staged_rows_shift(unsigned elem_bytes, unsigned length) {
  const unsigned padded = staged_pad_shift(elem_bytes);
  if (padded == staged_no_pad) return staged_no_pad;
  return staged_bank_conflicts(elem_bytes, length, padded) < staged_bank_conflicts(elem_bytes, length, staged_no_pad)
             ? padded
             : staged_no_pad;
}

// Staged_rows_shift for the lengths up to Most, computed once (at compile time).
template <unsigned ElemBytes, unsigned Most>
struct StagedRowsShifts {
  unsigned char shift[Most + 1] = {};
  constexpr StagedRowsShifts() {
    for (unsigned length = 1; length <= Most; ++length) shift[length] = (unsigned char)staged_rows_shift(ElemBytes, length);
  }
};
template <unsigned ElemBytes, unsigned Most>
inline constexpr StagedRowsShifts<ElemBytes, Most> staged_rows_shifts{};

}  // namespace gpureduce::detail
