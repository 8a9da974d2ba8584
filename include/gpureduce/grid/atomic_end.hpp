// How a grid that loads evict-first (inputs of up to 4x the L2 size, launch_plan.hpp) ends where
// its result fits one integer atomic: every reading block adds its partial into the result with
// one atomic (an add, min, max, and, or or xor of 4 or 8 bytes, no value returned), so no block
// waits for the others' partials and the kernel is done when the last block's atomic is.
// Integer sums, min/max and bitwise reductions, and min/max of float and double, whose
// accumulator is the result's type. The result is the same on every run: integer atomics are
// exact and these combines do not depend on the order (floating sums take the hand-off,
// kernel/reduce_kernels.cuh).
//
// The result must hold the identity before the first atomic, in every launch and graph replay. The
// grid's block 0 reads nothing: it stores the identity and then publishes the launch's generation
// (a release store); a reading block adds once it has seen that generation (acquire). Every block
// learns the generation from a ticket it draws at its start: one 64-bit word, generation << 32 |
// tickets drawn, whose last ticket of a launch starts the next generation. Block 0 is dispatched
// first, so a block that waits never holds back the one it waits for.
//
// Float and double min/max: the result's bits take integer atomics. For max, a value with the
// sign bit clear (+0 ... +inf, +NaN) goes in by a signed max of the bits, one with it set by an
// unsigned min: a positive value's bits as a signed integer beat every negative one's, and among
// negative values the unsigned min of the bits is the largest value. So +0 beats -0, and min
// mirrors it (-0 beats +0), as the key trees (thread/tree_key.hpp). A NaN partial (propagate)
// goes in with the sign of the winning end: max takes +NaN by the signed max, beyond +inf; min
// -NaN by an unsigned max. Of several NaN partials the largest payload wins, so a NaN result has
// the same bits on every run, but it may differ in sign from every NaN of the input. Under
// ignore a NaN partial (a block of only NaN) adds nothing, and the identity stored first is a
// NaN every number replaces (max: -NaN, min: +NaN), which an input of only NaN keeps.
// Host-testable: the CPU tests apply the steps in shuffled orders.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// Whether a grid reducing accumulator A under Op into a result of type Out ends in atomics.
template <class A, class Out, class Op>
inline constexpr bool atomic_end_v = [] {
  if constexpr (!std::is_same_v<A, Out> || (sizeof(A) != 4 && sizeof(A) != 8)) {
    return false;
  } else if constexpr (std::is_integral_v<A> && !std::is_same_v<A, bool>) {
    return std::is_same_v<Op, Sum> || std::is_same_v<Op, Min> || std::is_same_v<Op, Max> ||
           std::is_same_v<Op, BitAnd> || std::is_same_v<Op, BitOr> || std::is_same_v<Op, BitXor>;
  } else {
    return std::is_floating_point_v<A> && (std::is_same_v<Op, Min> || std::is_same_v<Op, Max>);
  }
}();

enum class AtomicKind : unsigned char {
  none, add, bit_and, bit_or, bit_xor, signed_min, signed_max, unsigned_min, unsigned_max
};

// One atomic on the result's bits: which, and its operand. U: the unsigned integer of A's size.
template <class U>
struct AtomicStep {
  AtomicKind kind;
  U bits;
};

template <class A>
using atomic_bits_t = std::conditional_t<sizeof(A) == 4, std::uint32_t, std::uint64_t>;
template <class F>
GPUREDUCE_HD constexpr atomic_bits_t<F> sign_bit() {
  return atomic_bits_t<F>(1) << (8 * sizeof(F) - 1);
}
// A quiet NaN of the given sign.
template <class F>
GPUREDUCE_HD constexpr atomic_bits_t<F> quiet_nan_bits(bool negative) {
  return (__builtin_bit_cast(atomic_bits_t<F>, quiet_nan<F>()) & ~sign_bit<F>()) | (negative ? sign_bit<F>() : 0);
}

// The bits block 0 stores in the result before any atomic.
template <class A, class Op>
  requires atomic_end_v<A, A, Op>
GPUREDUCE_HD constexpr detail::atomic_bits_t<A> atomic_end_identity(const Op& op) {
  using U = detail::atomic_bits_t<A>;
  if constexpr (std::is_floating_point_v<A>) {
    constexpr bool less = std::is_same_v<Op, Min>;
    if (op.nan == NanPolicy::ignore) return detail::quiet_nan_bits<A>(!less);
    return __builtin_bit_cast(U, less ? highest<A>() : lowest<A>());
  } else {
    return U(op.template identity<A>());
  }
}

// The atomic that adds partial v (the block's, in A) into the result.
template <class A, class Op>
  requires atomic_end_v<A, A, Op>
GPUREDUCE_HD constexpr AtomicStep<detail::atomic_bits_t<A>> atomic_end_step(const Op& op, A v) {
  using U = detail::atomic_bits_t<A>;
  if constexpr (std::is_floating_point_v<A>) {
    constexpr bool less = std::is_same_v<Op, Min>;
    const U bits = __builtin_bit_cast(U, v);
    if (is_nan(v)) {
      if (op.nan == NanPolicy::ignore) return {AtomicKind::none, 0};
      return less ? AtomicStep<U>{AtomicKind::unsigned_max, bits | detail::sign_bit<A>()}
                  : AtomicStep<U>{AtomicKind::signed_max, bits & ~detail::sign_bit<A>()};
    }
    const bool negative = (bits & detail::sign_bit<A>()) != 0;
    if (less) return {negative ? AtomicKind::unsigned_max : AtomicKind::signed_min, bits};
    return {negative ? AtomicKind::unsigned_min : AtomicKind::signed_max, bits};
  } else {
    constexpr bool is_signed = std::is_signed_v<A>;
    constexpr AtomicKind min_kind = is_signed ? AtomicKind::signed_min : AtomicKind::unsigned_min;
    constexpr AtomicKind max_kind = is_signed ? AtomicKind::signed_max : AtomicKind::unsigned_max;
    if constexpr (std::is_same_v<Op, Sum>) return {AtomicKind::add, U(v)};
    else if constexpr (std::is_same_v<Op, Min>) return {min_kind, U(v)};
    else if constexpr (std::is_same_v<Op, Max>) return {max_kind, U(v)};
    else if constexpr (std::is_same_v<Op, BitAnd>) return {AtomicKind::bit_and, U(v)};
    else if constexpr (std::is_same_v<Op, BitOr>) return {AtomicKind::bit_or, U(v)};
    else return {AtomicKind::bit_xor, U(v)};
  }
}

// What the atomic leaves in the result word w (the CPU tests' model of the device's atomics).
template <class U>
GPUREDUCE_HD constexpr U apply_atomic_step(U w, AtomicStep<U> s) {
  using S = std::make_signed_t<U>;
  switch (s.kind) {
    case AtomicKind::none: return w;
    case AtomicKind::add: return U(w + s.bits);
    case AtomicKind::bit_and: return U(w & s.bits);
    case AtomicKind::bit_or: return U(w | s.bits);
    case AtomicKind::bit_xor: return U(w ^ s.bits);
    case AtomicKind::signed_min: return S(s.bits) < S(w) ? s.bits : w;
    case AtomicKind::signed_max: return S(s.bits) > S(w) ? s.bits : w;
    case AtomicKind::unsigned_min: return s.bits < w ? s.bits : w;
    case AtomicKind::unsigned_max: return s.bits > w ? s.bits : w;
  }
  return w;
}

// The ticket word: generation << 32 | tickets drawn in the current launch.
struct GenerationTicket {
  std::uint64_t word;
  // The generation a launch publishes once its result holds the identity; the word's generation
  // is the one the last launch published (both start at 0 in a zero-filled workspace).
  GPUREDUCE_HD constexpr std::uint64_t published() const { return (word >> 32) + 1; }
  // Whether this is the launch's last ticket (blocks: the grid's), whose drawer resets the count
  // and moves the word to the published generation.
  GPUREDUCE_HD constexpr bool last(unsigned blocks) const { return (word & 0xffffffffu) == blocks - 1; }
  GPUREDUCE_HD constexpr std::uint64_t next_word() const { return published() << 32; }
};

}  // namespace gpureduce::detail
