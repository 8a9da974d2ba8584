// Whole-warp reductions built from redux.sync (sm_80+), which reduces one 32-bit word over the
// warp in one instruction (add, or signed or unsigned min and max, and, or, xor) and gives every
// lane the result. Where a partial's combine is one of those on integers, the warp's reduction
// takes one to four of them instead of five shuffle steps, each a shuffle per word and the
// combine: the integer sums, min/max, bitwise and logical reductions, the integer keys of
// floating min/max and argmin/argmax (thread/tree_key.hpp), and minmax of integers. The
// results are those of the shuffle tree, bit for bit: these combines are exact and do not depend
// on the order.
//
// The steps are written against r(op, word), a reduction of one word over the warp, so that the
// CPU tests run them against an emulated warp (warp/warp_redux.cuh gives the device's).
#pragma once

#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

enum class ReduxOp : unsigned char { add, min, max, bit_and, bit_or, bit_xor };

template <class T>
inline constexpr bool redux_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8;

template <class T>
using redux_word_t = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;

// min (Less) or max of an integer: up to 32 bits as one word (sign- or zero-extended); 64 bits as
// the best high word, then the best low word among the lanes that hold it.
template <bool Less, class T, class R>
GPUREDUCE_HD T redux_extreme(T v, R&& r) {
  constexpr ReduxOp op = Less ? ReduxOp::min : ReduxOp::max;
  using W = redux_word_t<T>;
  if constexpr (sizeof(T) <= 4) {
    return static_cast<T>(r(op, static_cast<W>(v)));
  } else {
    const auto u = static_cast<std::uint64_t>(v);
    const W hi = static_cast<W>(u >> 32);
    const W best_hi = r(op, hi);
    const std::uint32_t lo = hi == best_hi ? std::uint32_t(u) : (Less ? ~0u : 0u);
    const std::uint32_t best_lo = r(op, lo);
    return static_cast<T>((std::uint64_t(static_cast<std::uint32_t>(best_hi)) << 32) | best_lo);
  }
}

// Sum modulo 2^bits: up to 32 bits as one word; 64 bits as three sums that cannot overflow where
// it matters: the two 16-bit halves of the low word (at most 32 x 0xffff each) and the high word
// (modulo 2^32, as the result's high word is).
template <class T, class R>
GPUREDUCE_HD T redux_sum(T v, R&& r) {
  if constexpr (sizeof(T) <= 4) {
    return static_cast<T>(r(ReduxOp::add, static_cast<std::uint32_t>(v)));
  } else {
    const auto u = static_cast<std::uint64_t>(v);
    const std::uint32_t low = r(ReduxOp::add, std::uint32_t(u & 0xffffu));
    const std::uint32_t mid = r(ReduxOp::add, std::uint32_t((u >> 16) & 0xffffu));
    const std::uint32_t high = r(ReduxOp::add, std::uint32_t(u >> 32));
    return static_cast<T>(std::uint64_t(low) + (std::uint64_t(mid) << 16) + (std::uint64_t(high) << 32));
  }
}

// and, or, xor: word by word.
template <ReduxOp Op, class T, class R>
GPUREDUCE_HD T redux_bits(T v, R&& r) {
  if constexpr (sizeof(T) <= 4) {
    return static_cast<T>(r(Op, static_cast<std::uint32_t>(v)));
  } else {
    const auto u = static_cast<std::uint64_t>(v);
    const std::uint32_t lo = r(Op, std::uint32_t(u)), hi = r(Op, std::uint32_t(u >> 32));
    return static_cast<T>((std::uint64_t(hi) << 32) | lo);
  }
}

// Whether redux_reduce takes partials of type T under Op.
template <class T, class Op>
inline constexpr bool has_redux_v = false;
template <class T>
inline constexpr bool has_redux_v<T, Sum> = detail::redux_int_v<T>;
template <class T, bool Less>
inline constexpr bool has_redux_v<T, detail::Extreme<Less>> = detail::redux_int_v<T>;
template <class T>
inline constexpr bool has_redux_v<T, BitAnd> = detail::redux_int_v<T>;
template <class T>
inline constexpr bool has_redux_v<T, BitOr> = detail::redux_int_v<T>;
template <class T>
inline constexpr bool has_redux_v<T, BitXor> = detail::redux_int_v<T>;
template <>
inline constexpr bool has_redux_v<bool, All> = true;
template <>
inline constexpr bool has_redux_v<bool, Any> = true;
template <class T>
inline constexpr bool has_redux_v<MinMax<T>, MinMaxOp> = detail::redux_int_v<T>;
template <class K, bool Less>
inline constexpr bool has_redux_v<IndexedValue<K>, detail::ArgExtreme<Less>> = detail::redux_int_v<K>;

// The reduction of v over the warp, in every lane. argmin/argmax: the best value, then the
// smallest index among the lanes that hold it (indices are never negative: as unsigned, ~0 is
// above them all).
template <class T, class Op, class R>
  requires has_redux_v<T, Op>
GPUREDUCE_HD T redux_reduce(T v, const Op&, R&& r) {
  if constexpr (std::is_same_v<Op, Sum>) {
    return detail::redux_sum(v, r);
  } else if constexpr (std::is_same_v<Op, Min> || std::is_same_v<Op, Max>) {
    return detail::redux_extreme<std::is_same_v<Op, Min>>(v, r);
  } else if constexpr (std::is_same_v<Op, BitAnd>) {
    return detail::redux_bits<ReduxOp::bit_and>(v, r);
  } else if constexpr (std::is_same_v<Op, BitOr>) {
    return detail::redux_bits<ReduxOp::bit_or>(v, r);
  } else if constexpr (std::is_same_v<Op, BitXor>) {
    return detail::redux_bits<ReduxOp::bit_xor>(v, r);
  } else if constexpr (std::is_same_v<Op, All>) {
    return r(ReduxOp::bit_and, std::uint32_t(v)) != 0;
  } else if constexpr (std::is_same_v<Op, Any>) {
    return r(ReduxOp::bit_or, std::uint32_t(v)) != 0;
  } else if constexpr (std::is_same_v<Op, MinMaxOp>) {
    return {detail::redux_extreme<true>(v.min, r), detail::redux_extreme<false>(v.max, r)};
  } else {
    constexpr bool less = std::is_same_v<Op, ArgMin>;
    const auto best = detail::redux_extreme<less>(v.value, r);
    const std::uint64_t index = v.value == best ? std::uint64_t(v.index) : ~std::uint64_t(0);
    return {best, static_cast<std::int64_t>(detail::redux_extreme<true>(index, r))};
  }
}

}  // namespace gpureduce::detail
