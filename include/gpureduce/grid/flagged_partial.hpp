// How a block's partial travels to the combining block of the grid kernel: one 16-byte slot that
// holds the accumulator and a nonzero flag, written and read as one access, so the partial and
// its flag are seen together or not at all (as CUB's decoupled look-back relies on for its 16-byte
// tile descriptors). An all-zero slot is empty: the combining block empties each slot it reads, so
// every slot is empty between launches. Host-testable; the 16-byte accesses are in the kernel.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce {

struct alignas(16) FlaggedPartial {
  std::uint64_t lo;
  std::uint64_t hi;
};

// Accumulators that fit beside a flag: up to 8 bytes, the flag in the second word. Wider ones
// (argmin/argmax of every type, minmax of 8-byte values) take the ticketed hand-off. Argmin/argmax
// of values of at most 4 bytes could carry the flag in the padding before the index; measured on
// the H100 that made them about 2 us slower at 2^15-2^20 and 1 us faster at 2^22, at 25d47fc and
// again at cc4b64e with all four loads of a batch in flight (float32 2^16: 9.1 us against 7.3
// with the ticket, 2^22: 14.7 against 16.0), so they keep the ticket.
template <class A>
inline constexpr bool flaggable = sizeof(A) <= 8;

template <class A>
GPUREDUCE_HD FlaggedPartial flag_partial(const A& a) {
  static_assert(flaggable<A>);
  FlaggedPartial p{0, 1};
  std::memcpy(&p.lo, &a, sizeof(A));
  return p;
}

GPUREDUCE_HD bool is_full(const FlaggedPartial& p) { return p.hi != 0; }

template <class A>
GPUREDUCE_HD A flagged_value(const FlaggedPartial& p) {
  A a;
  std::memcpy(&a, &p.lo, sizeof(A));
  return a;
}

}  // namespace gpureduce
