// How a block's partial travels to the combining block of the grid kernel: one 16-byte slot that
// holds the accumulator and a nonzero flag, written and read as one access, so the partial and
// its flag are seen together or not at all (as CUB's decoupled look-back relies on for its 16-byte
// tile descriptors). An all-zero slot is empty: the combining block empties each slot it reads, so
// every slot is empty between launches. Host-testable; the 16-byte accesses are in the kernel.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/result_types.hpp>
#include <gpureduce/thread/tree_key.hpp>

#include <cstdint>
#include <cstring>
#include <utility>

namespace gpureduce::detail {

struct alignas(16) FlaggedPartial {
  std::uint64_t lo;
  std::uint64_t hi;
};

// Where the flag goes:
//   second_word  accumulators of up to 8 bytes: the flag is the second word
//   padding      IndexedValue of a value of at most 4 bytes (argmin/argmax): bytes 4-7, the
//                padding before the 8-byte-aligned index
//   index_sign   IndexedValue of an 8-byte value, for the built-in argmin/argmax only (Op): their
//                indices are element positions or the identity's INT64_MAX, never negative, so
//                the index's sign bit is free
//   none         the rest (minmax of 8-byte values, other 16-byte accumulators): the ticketed
//                hand-off
// The flag in the padding or the index's sign bit is faster than the ticket since the last block
// polls in warp-uniform loops (docs/design.md, "Hand-off: flagged partials").
enum class FlagAt { none, second_word, padding, index_sign };

template <class A, class Op>
inline constexpr FlagAt flag_at = sizeof(A) <= 8 ? FlagAt::second_word : FlagAt::none;
template <class T, class Op>
inline constexpr FlagAt flag_at<IndexedValue<T>, Op> = sizeof(IndexedValue<T>) != 16 ? FlagAt::none
                                                       : sizeof(T) <= 4               ? FlagAt::padding
                                                       : is_arg_extreme_v<Op>         ? FlagAt::index_sign
                                                                                      : FlagAt::none;

template <class A, class Op>
inline constexpr bool flaggable = flag_at<A, Op> != FlagAt::none;

// The slot's type and operator for accumulator A under Op: the partial's tree form
// (thread/tree_key.hpp), which is what blocks publish.
template <class A, class Op>
using tree_t = typename TreeForm<A, Op>::type;
template <class A, class Op>
using tree_op_t = decltype(std::declval<const TreeForm<A, Op>&>().op());
template <class A, class Op>
inline constexpr bool tree_flaggable = flaggable<tree_t<A, Op>, tree_op_t<A, Op>>;

inline constexpr std::uint64_t index_sign_flag = std::uint64_t(1) << 63;

template <class A, class Op>
GPUREDUCE_HD FlaggedPartial flag_partial(const A& a) {
  static_assert(flaggable<A, Op>);
  FlaggedPartial p{0, 1};
  std::memcpy(&p, &a, sizeof(A));
  if constexpr (flag_at<A, Op> == FlagAt::padding) p.lo = (p.lo & 0xffffffffu) | (std::uint64_t(1) << 32);
  if constexpr (flag_at<A, Op> == FlagAt::index_sign) p.hi |= index_sign_flag;
  return p;
}

template <class A, class Op>
GPUREDUCE_HD bool is_full(const FlaggedPartial& p) {
  if constexpr (flag_at<A, Op> == FlagAt::padding) return (p.lo >> 32) != 0;
  else return p.hi != 0;
}

template <class A, class Op>
GPUREDUCE_HD A flagged_value(FlaggedPartial p) {
  if constexpr (flag_at<A, Op> == FlagAt::index_sign) p.hi &= ~index_sign_flag;
  A a;
  std::memcpy(&a, &p, sizeof(A));
  return a;
}

}  // namespace gpureduce::detail
