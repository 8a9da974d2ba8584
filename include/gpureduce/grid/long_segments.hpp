// The list of long batch-invariant segments (kernel/invariant_segments_kernel.cuh), host and
// device. A segment of more than invariant_row_slice elements is folded in slices of that many, a
// warp each, and then the slices' partials in order. The warp that meets such a segment lists it,
// taking the next of its slices from a cursor (a workspace word, zero between launches);
// long_segments_kernel then folds slice g of the list with the warp g of its grid takes, and the
// warp that folds a segment's last slice folds its partials. A segment the list has no room for is
// folded, slice by slice in the same order, by the warp that met it.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/arithmetic.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail {

// A listed segment: its first element, length and result, and how many of its slices are folded
// (zero when listed). Its first slice is the owner its slices name.
struct LongSegment {
  std::int64_t begin;
  std::uint64_t length;
  std::int64_t out;
  std::uint32_t done;
};

// The entry of the segment whose slices start at `first`: a listed segment has two slices or
// more, so no other has the same.
GPUREDUCE_HD constexpr std::uint32_t long_entry(std::uint64_t first) { return std::uint32_t(first / 2); }

// Slices the list holds: segments of 2^31 elements in all at 16,384 a slice.
inline constexpr std::uint32_t long_slices = 1u << 17;
// The owner of a slice taken by a segment that did not fit.
inline constexpr std::uint32_t unowned_slice = ~0u;

// The list's arrays, allocated per reduction: entries (long_slices / 2), then each slice's owner
// (its segment's first slice) and partial.
template <class A>
struct LongSegments {
  unsigned long long* cursor;  // slices taken
  LongSegment* entries;
  std::uint32_t* owner;
  A* partials;
  std::uint32_t room;  // slices it may take: long_slices (the tests force 0)
};

template <class A>
inline constexpr std::size_t long_segments_bytes =
    long_slices / 2 * sizeof(LongSegment) + long_slices * sizeof(std::uint32_t) + long_slices * sizeof(A);

// The arrays in `bytes` (long_segments_bytes<A> of them, 16-byte aligned), `room` slices of them
// to take.
template <class A>
GPUREDUCE_HD LongSegments<A> long_segments_at(unsigned long long* cursor, unsigned char* bytes, std::uint32_t room) {
  auto* entries = reinterpret_cast<LongSegment*>(bytes);
  auto* owner = reinterpret_cast<std::uint32_t*>(entries + long_slices / 2);
  return {cursor, entries, owner, reinterpret_cast<A*>(owner + long_slices), room};
}

}  // namespace gpureduce::detail
