// The form a partial takes from the end of a thread's own elements to the result: the block's and
// the grid's reduction trees and the slots between blocks. For most operators it is the
// accumulator itself. For min/max and argmin/argmax of floating values it is an integer key in
// the values' order, NaN placed by the policy, so every step of the trees is an integer compare
// instead of floating compares and NaN tests, and each warp's step one or a few redux.sync
// (warp/redux_steps.hpp) instead of five shuffle steps (the per-element work stays floating, where
// sm_80+ has one min/max instruction for float). Host and device: the CPU tests check the keys.
//
//   min, max                every bit pattern has its own key: the values' order, with -0 below +0
//                           and NaN (all of them, in a fixed order) beyond the winning end
//                           (propagate) or the losing end (ignore). The result has the bits of an
//                           element (or of the identity); of several NaN, a fixed one. Which of
//                           two zeros comes back stays unspecified: the tree keeps +0 for max and
//                           -0 for min, but a thread's own elements may already have chosen.
//   argmin, argmax of       -0 and +0 share a key, as do all NaN, so that equal values leave the
//   float and double        choice to the index. The value comes back from the key, but a winning
//                           zero or NaN is read again from the input at its index, so that the
//                           value is always the element's own bits.
#pragma once

#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

template <class F>
using key_t = std::conditional_t<sizeof(F) == 4, std::int32_t, std::int64_t>;
template <class F>
using key_bits_t = std::make_unsigned_t<key_t<F>>;

// The bits of x as a signed integer in the order of the values: -NaN < -inf < ... < -0 < +0 < ...
// < +inf < +NaN. Negative patterns have every bit but the sign flipped, so the map is its own
// inverse (ordered_bits_inverse).
template <class F>
GPUREDUCE_HD constexpr key_t<F> flip_negative(key_bits_t<F> u) {
  using K = key_t<F>;
  using U = key_bits_t<F>;
  return K(u ^ (U(K(u) >> (8 * sizeof(F) - 1)) >> 1));
}
template <class F>
GPUREDUCE_HD constexpr key_t<F> ordered_bits(F x) {
  return flip_negative<F>(__builtin_bit_cast(key_bits_t<F>, x));
}
template <class F>
GPUREDUCE_HD constexpr F ordered_bits_inverse(key_t<F> k) {
  return __builtin_bit_cast(F, key_bits_t<F>(flip_negative<F>(key_bits_t<F>(k))));
}

// How many NaN patterns one sign has: every nonzero fraction.
template <class F>
inline constexpr key_bits_t<F> nan_patterns = (key_bits_t<F>(1) << (sizeof(F) == 4 ? 23 : 52)) - 1;

// Whether NaN goes beyond the top of the keys (else below the bottom): where it wins under
// propagate (max: top, min: bottom), where it loses under ignore.
template <bool Less>
GPUREDUCE_HD constexpr bool nan_on_top(NanPolicy nan) {
  return (nan == NanPolicy::propagate) != Less;
}

// The tree's form of accumulator A under operator Op: the accumulator itself.
//   to(a)                       a thread's partial into the tree's form
//   op(), identity()            the tree's operator and its identity
//   from(t, reload)             the result; reload(index) gives the element at index
//                               (argmin/argmax)
template <class A, class Op>
struct TreeForm {
  using type = A;
  Op base;
  GPUREDUCE_HD constexpr type to(const A& a) const { return a; }
  GPUREDUCE_HD constexpr Op op() const { return base; }
  GPUREDUCE_HD constexpr type identity() const { return base.template identity<A>(); }
  template <class Reload>
  GPUREDUCE_HD constexpr A from(const type& t, Reload&&) const {
    return t;
  }
};

// min/max of float and double (and so of half and bfloat16, compared in float): a bijection of the
// bits, rotated so that the NaN of one sign join those of the other at the end where the policy
// puts them.
template <class F, bool Less>
  requires std::is_floating_point_v<F>
struct TreeForm<F, detail::Extreme<Less>> {
  using type = detail::key_t<F>;
  using U = detail::key_bits_t<F>;
  detail::Extreme<Less> base;

  GPUREDUCE_HD constexpr U rotation() const {
    // Ordered bits put -NaN below -inf and +NaN above +inf; rotating by their count moves one
    // group around the end to the other.
    return detail::nan_on_top<Less>(base.nan) ? U(0) - detail::nan_patterns<F> : detail::nan_patterns<F>;
  }
  GPUREDUCE_HD constexpr type to(F a) const { return type(U(detail::ordered_bits(a)) + rotation()); }
  GPUREDUCE_HD constexpr detail::Extreme<Less> op() const { return {}; }
  GPUREDUCE_HD constexpr type identity() const { return to(base.template identity<F>()); }
  template <class Reload>
  GPUREDUCE_HD constexpr F from(type t, Reload&&) const {
    return detail::ordered_bits_inverse<F>(type(U(t) - rotation()));
  }
};

// argmin/argmax of float and double (and so of half and bfloat16, compared in float).
template <class F, bool Less>
  requires std::is_floating_point_v<F>
struct TreeForm<IndexedValue<F>, detail::ArgExtreme<Less>> {
  using K = detail::key_t<F>;
  using type = IndexedValue<K>;
  detail::ArgExtreme<Less> base;

  GPUREDUCE_HD constexpr K nan_key() const { return detail::nan_on_top<Less>(base.nan) ? highest<K>() : lowest<K>(); }
  // Numbers fall strictly between the two extremes of K: ordered_bits(+-inf) are +-(exponent
  // field) only.
  // Selects on values all computed first: written as nested conditionals, ptxas branched around the
  // ordered bits (a branch and a reconvergence on the way to the block's first shuffle).
  GPUREDUCE_HD constexpr K key(F v) const {
    const K ordered = detail::ordered_bits(v);
    const K number = v == F(0) ? K(0) : ordered;
    return is_nan(v) ? nan_key() : number;
  }
  GPUREDUCE_HD constexpr type to(const IndexedValue<F>& a) const { return {key(a.value), a.index}; }
  GPUREDUCE_HD constexpr detail::ArgExtreme<Less> op() const { return {}; }
  GPUREDUCE_HD constexpr type identity() const { return to(base.template identity<IndexedValue<F>>()); }
  template <class Reload>
  GPUREDUCE_HD constexpr IndexedValue<F> from(const type& t, Reload&& reload) const {
    const bool reread = (t.value == nan_key() || t.value == K(0)) && t.index != highest<std::int64_t>();
    if (reread) return {reload(t.index), t.index};
    return {t.value == nan_key() ? quiet_nan<F>() : detail::ordered_bits_inverse<F>(t.value), t.index};
  }
};

template <class A, class Op>
GPUREDUCE_HD constexpr TreeForm<A, Op> tree_form(const Op& op) {
  return {op};
}

}  // namespace gpureduce::detail
