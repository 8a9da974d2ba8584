// The accumulator each built-in operator uses by default for an element type, and the result type
// a named call writes. Callers may pick another accumulator (reduce<AccT>(...)).
//
//   sum, product, dot     int8/16/32 -> int64, uint8/16/32 -> uint64 (as NumPy and CuPy; PyTorch
//                         gives int64 for every integer), bool -> int64 (a count, as NumPy and
//                         PyTorch), int64/uint64 wrap in their own width, half/bfloat16 -> float,
//                         float -> float, double -> double
//   min, max, minmax,     the element type (half/bfloat16 compared in float, which is exact)
//   argmin, argmax
//   and, or, xor          the element type (integers only)
//   all, any              bool
//   user functor          the element type (half/bfloat16 -> float)
#pragma once

#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/operators.hpp>

#include <type_traits>

namespace gpureduce {

namespace detail {
// A bool accumulator would make a sum an `any`: 1 + 1 converts back to true.
template <class T>
using widened_t = std::conditional_t<
    std::is_same_v<T, bool>, std::int64_t,
    std::conditional_t<std::is_integral_v<T> && sizeof(T) < 8,
                       std::conditional_t<std::is_signed_v<T>, std::int64_t, std::uint64_t>, compute_t<T>>>;

template <class T, class Op>
struct accumulator {
  using type = compute_t<T>;
};
template <class T>
struct accumulator<T, Sum> {
  using type = widened_t<T>;
};
template <class T>
struct accumulator<T, Product> {
  using type = widened_t<T>;
};
template <class T>
struct accumulator<T, MinMaxOp> {
  using type = MinMax<compute_t<T>>;
};
template <class T, bool Less>
struct accumulator<T, ArgExtreme<Less>> {
  using type = IndexedValue<compute_t<T>>;
};
template <class T>
struct accumulator<T, All> {
  using type = bool;
};
template <class T>
struct accumulator<T, Any> {
  using type = bool;
};

// What the named calls write: composites carry the element type, everything else the accumulator.
template <class T, class Op>
struct result {
  using type = typename accumulator<T, Op>::type;
};
template <class T>
struct result<T, MinMaxOp> {
  using type = MinMax<T>;
};
template <class T, bool Less>
struct result<T, ArgExtreme<Less>> {
  using type = IndexedValue<T>;
};
template <class T, bool Less>
struct result<T, Extreme<Less>> {
  using type = T;
};
}  // namespace detail

template <class T, class Op>
using accumulator_t = typename detail::accumulator<T, Op>::type;

template <class T, class Op>
using result_t = typename detail::result<T, Op>::type;

namespace detail {
// Whether convert_result<Out> takes an Acc: the same type, a composite into one of its kind (value
// and index, min and max), argmin/argmax's index alone into std::int64_t (as torch.argmax and
// numpy.argmax return it), or a number into a number or a type it converts to implicitly. Not a
// number into a composite, which C++20 would accept as aggregate initialisation (a float sum
// written as {sum, index 0}).
template <class Out, class Acc>
inline constexpr bool converts_to_result_v = [] {
  if constexpr (std::is_same_v<Out, Acc>) return true;
  else if constexpr (requires(Acc a) { a.index; })
    return std::is_same_v<Out, std::int64_t> || requires(Out o) { o.value; o.index; };
  else if constexpr (requires(Acc a) { a.min; }) return requires(Out o) { o.min; o.max; };
  else return (is_element_v<Acc> && is_element_v<Out>) || std::is_convertible_v<Acc, Out>;
}();

// Accumulator to output: element-wise for the composites; the value of argmin/argmax bit for bit
// (a 16-bit float's NaN keeps its sign and payload).
template <class Out, class Acc>
GPUREDUCE_HD Out convert_result(const Acc& a) {
  if constexpr (std::is_same_v<Out, Acc>) {
    return a;
  } else if constexpr (requires { a.index; }) {
    if constexpr (std::is_same_v<Out, std::int64_t>) return a.index;
    else return {convert_bits<decltype(Out::value)>(a.value), a.index};
  } else if constexpr (requires { a.min; }) {
    return {convert<decltype(Out::min)>(a.min), convert<decltype(Out::max)>(a.max)};
  } else {
    return convert<Out>(a);
  }
}
}  // namespace detail

}  // namespace gpureduce
