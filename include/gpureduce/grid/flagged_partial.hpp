// How a block's partial travels to the combining block of the grid kernel: one 16-byte slot that
// holds the accumulator and a nonzero flag, written and read as one access, so the partial and
// its flag are seen together or not at all (as CUB's decoupled look-back relies on for its 16-byte
// tile descriptors). An all-zero slot is empty: the combining block empties each slot it reads, so
// every slot is empty between launches. Host-testable; the 16-byte accesses are in the kernel.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce {

struct alignas(16) FlaggedPartial {
  std::uint64_t lo;
  std::uint64_t hi;
};

// An IndexedValue of a value of at most 4 bytes has padding in bytes 4-7, before the 8-byte-aligned
// index: the flag goes there. Tried at 25d47fc and cc4b64e and dropped then (argmax 1.9-3.4 us
// slower at 2^15-2^20), while the last block's lanes left the poll one by one; with warp-uniform
// polling (fold_flagged) it is faster than the ticket (see docs/production.md).
template <class A>
inline constexpr bool flag_in_padding = false;
template <class T>
inline constexpr bool flag_in_padding<IndexedValue<T>> = sizeof(T) <= 4 && sizeof(IndexedValue<T>) == 16;

// Accumulators that fit beside a flag: up to 8 bytes (the flag is the second word), or argmin /
// argmax of values of at most 4 bytes. Others (argmin/argmax of 8-byte values, minmax of 8-byte
// values) take the ticketed hand-off.
template <class A>
inline constexpr bool flaggable = sizeof(A) <= 8 || flag_in_padding<A>;

template <class A>
GPUREDUCE_HD FlaggedPartial flag_partial(const A& a) {
  static_assert(flaggable<A>);
  FlaggedPartial p{0, 1};
  std::memcpy(&p, &a, sizeof(A));
  if constexpr (flag_in_padding<A>) p.lo = (p.lo & 0xffffffffu) | (std::uint64_t(1) << 32);
  return p;
}

template <class A>
GPUREDUCE_HD bool is_full(const FlaggedPartial& p) {
  if constexpr (flag_in_padding<A>) return (p.lo >> 32) != 0;
  else return p.hi != 0;
}

template <class A>
GPUREDUCE_HD A flagged_value(const FlaggedPartial& p) {
  A a;
  std::memcpy(&a, &p, sizeof(A));
  return a;
}

}  // namespace gpureduce
