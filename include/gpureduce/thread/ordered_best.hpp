// Argmin/argmax over the elements one thread's slot meets in increasing index order: the best
// value and a tag of where it came (the caller's: a vector's index, a row), compared strictly, so
// that the earlier keeps a tie; the 64-bit index is formed from the tag once, at the end. Per
// element a NaN-aware compare and two selects, where the operator's combine also compares the
// 64-bit indices and selects two more words.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/operators.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

template <class Value, class Op>
struct OrderedBest {
  Value value{};
  std::int64_t tag = -1;  // no element yet: the first one is taken, as the operator's identity gives way

  GPUREDUCE_EXEC_CHECK_DISABLE
  GPUREDUCE_HD constexpr void fold(const Op& op, Value x, std::int64_t at) {
    const bool take = (tag < 0) | op.beats(x, value);
    value = take ? x : value;
    tag = take ? at : tag;
  }
};

// The value type of an argmin/argmax accumulator (value and index); A itself for the others.
template <class A>
struct ordered_value {
  using type = A;
};
template <class A>
  requires requires(A a) {
    a.value;
    a.index;
  }
struct ordered_value<A> {
  using type = decltype(A::value);
};
template <class A>
using ordered_value_t = typename ordered_value<A>::type;

// A thread's OrderedBest for accumulator A under Op where Op is argmin/argmax; a placeholder
// otherwise, so that kernels for every operator can declare one.
template <class A, class Op>
using ordered_best_t = std::conditional_t<is_arg_extreme_v<Op>, OrderedBest<ordered_value_t<A>, Op>, char>;

}  // namespace gpureduce::detail
