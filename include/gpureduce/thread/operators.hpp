// Reduction operators. Each has a combine (operator()), an identity, and lift(), which turns one
// loaded element (and its index) into an accumulator; the kernels use nothing else, so a user
// operator is wrapped into the same shape (see UserOp). All host and device, so the CPU tests
// check exactly what the kernels run.
//
// NaN (floating types): with NanPolicy::propagate (the default, as in PyTorch and NumPy) any NaN
// makes min/max/minmax NaN and argmin/argmax return the first NaN's index; sum and product
// propagate NaN by IEEE arithmetic. With NanPolicy::ignore, NaN elements are skipped (min/max as
// C's fmin/fmax; sums as numpy.nansum); min/max/minmax of an input of nothing but NaN, or of no
// elements, is NaN (argmin/argmax: the first NaN's index), and sum/product of it the identity.
#pragma once

#include <gpureduce/options.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce {

namespace detail {
// Integer addition and multiplication wrap modulo 2^bits, done on the unsigned type so the wrap is
// defined behaviour rather than signed overflow.
template <class A>
GPUREDUCE_HD constexpr A wrap_add(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) + static_cast<U>(b));
  } else {
    return a + b;
  }
}

template <class A>
GPUREDUCE_HD constexpr A wrap_mul(A a, A b) {
  if constexpr (std::is_integral_v<A> && std::is_signed_v<A>) {
    using U = std::make_unsigned_t<A>;
    return static_cast<A>(static_cast<U>(a) * static_cast<U>(b));
  } else if constexpr (std::is_integral_v<A> && sizeof(A) < sizeof(int)) {
    return static_cast<A>(static_cast<unsigned>(a) * static_cast<unsigned>(b));  // no int promotion overflow
  } else {
    return a * b;
  }
}

// The element as the accumulator, or `skip` when it is a NaN to ignore.
template <class A, class V>
GPUREDUCE_HD constexpr A lift_skipping_nan(V x, NanPolicy nan, A skip) {
  if (nan == NanPolicy::ignore && is_nan(x)) return skip;
  return convert<A>(x);
}

// The identity of min (bound = +inf) or max (-inf). Under NanPolicy::ignore a floating identity is
// NaN instead, which every value replaces, so an input of only NaN (or none) gives NaN.
template <class A>
GPUREDUCE_HD constexpr A extreme_identity(A bound, NanPolicy nan) {
  if constexpr (is_floating_v<A>)
    if (nan == NanPolicy::ignore) return quiet_nan<A>();
  return bound;
}

#if defined(__CUDA_ARCH__)
// float min/max on the device: one min/max instruction for each policy (sm_80+ has max.NaN.f32)
// and a select, instead of a compare, two NaN tests and three selects. Of two zeros of opposite
// sign either may come back (H100: float32 max of 2^14 5.62 -> 5.12 us). Not for double: fmax
// with one NaN test made float64 max and argmax 2-6% slower below 2^20.
template <bool Less>
__device__ __forceinline__ float pick_on_device(float a, float b, NanPolicy nan) {
  float p;
  if constexpr (Less) asm("min.NaN.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
  else asm("max.NaN.f32 %0, %1, %2;" : "=f"(p) : "f"(a), "f"(b));
  return nan == NanPolicy::ignore ? (Less ? fminf(a, b) : fmaxf(a, b)) : p;
}
#endif

// Min (Less = true) or max of two values under a NaN policy; on equal values the first argument
// (but for floats on the device, above). Written as selects, not branches: it runs once per
// element.
template <bool Less, class A>
GPUREDUCE_HD constexpr A pick(A a, A b, NanPolicy nan) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<A, float>)
    if (!__builtin_is_constant_evaluated()) return pick_on_device<Less>(a, b, nan);
#endif
  if constexpr (is_floating_v<A>) {
    // b when it is better, or under propagate a NaN where a is not, or under ignore a number where
    // a is a NaN: two compares and one select (a compare is false for a NaN operand).
    if (nan == NanPolicy::ignore) return ((Less ? b < a : a < b) || a != a) && b == b ? b : a;
    return !(Less ? a <= b : b <= a) && a == a ? b : a;
  }
  return Less ? (b < a ? b : a) : (a < b ? b : a);
}
}  // namespace detail

// Sum. Integer sums wrap modulo 2^bits of the accumulator (see accumulator.hpp for its width).
struct Sum {
  NanPolicy nan = NanPolicy::propagate;

  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return A(0);
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return detail::wrap_add(a, b);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return detail::lift_skipping_nan<A>(x, nan, A(0));
  }
};

struct Product {
  NanPolicy nan = NanPolicy::propagate;

  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return A(1);
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return detail::wrap_mul(a, b);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return detail::lift_skipping_nan<A>(x, nan, A(1));
  }
};

namespace detail {
// min (Less) or max under a NaN policy.
template <bool Less>
struct Extreme {
  NanPolicy nan = NanPolicy::propagate;

  template <class A>
  GPUREDUCE_HD constexpr A identity() const {
    return extreme_identity<A>(Less ? highest<A>() : lowest<A>(), nan);
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return pick<Less>(a, b, nan);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return convert<A>(x);
  }
};
}  // namespace detail

using Min = detail::Extreme<true>;
using Max = detail::Extreme<false>;

// Fused min and max in one pass. Accumulator MinMax<A>.
struct MinMaxOp {
  NanPolicy nan = NanPolicy::propagate;

  template <class P>
  GPUREDUCE_HD constexpr P identity() const {
    using A = decltype(P::min);
    return {detail::extreme_identity<A>(detail::highest<A>(), nan),
            detail::extreme_identity<A>(detail::lowest<A>(), nan)};
  }
  template <class P>
  GPUREDUCE_HD constexpr P operator()(P a, P b) const {
    return {detail::pick<true>(a.min, b.min, nan), detail::pick<false>(a.max, b.max, nan)};
  }
  template <class P, class V>
  GPUREDUCE_HD constexpr P lift(V x, std::int64_t) const {
    using A = decltype(P::min);
    const A v = detail::convert<A>(x);
    return {v, v};
  }
};

namespace detail {
// argmin (Less) / argmax: b replaces a when its value is strictly better, or equally good at a
// smaller index. NaN counts as the best value under propagate and the worst under ignore.
template <bool Less>
struct ArgExtreme {
  NanPolicy nan = NanPolicy::propagate;

  template <class P>
  GPUREDUCE_HD constexpr P identity() const {
    using A = decltype(P::value);
    constexpr std::int64_t no_index = highest<std::int64_t>();
    if constexpr (is_floating_v<A>)
      if (nan == NanPolicy::ignore) return {quiet_nan<A>(), no_index};
    return {Less ? highest<A>() : lowest<A>(), no_index};
  }
  template <class P>
  GPUREDUCE_HD constexpr P operator()(P a, P b) const {
    return better(b, a) ? b : a;
  }
  template <class P, class V>
  GPUREDUCE_HD constexpr P lift(V x, std::int64_t i) const {
    return {convert<decltype(P::value)>(x), i};
  }
  // Whether value b, met after every element that gave value a, replaces it: better's rule for
  // a larger index, which needs no index (thread/ordered_best.hpp).
  template <class V>
  GPUREDUCE_HD constexpr bool beats(V b, V a) const {
    const bool by_value = Less ? b < a : a < b;
    if constexpr (is_floating_v<V>) {
      const bool bn = is_nan(b), an = is_nan(a);
      return bn != an ? bn == (nan == NanPolicy::propagate) : by_value;
    }
    return by_value;
  }

 private:
  // Bitwise & and | on the conditions, not && and || or early returns: ptxas then computes them as
  // predicates instead of branching, and a block reduction runs ten of these in one dependent
  // chain.
  template <class P>
  GPUREDUCE_HD constexpr bool better(const P& b, const P& a) const {
    const bool earlier = b.index < a.index;
    const bool by_value = (Less ? b.value < a.value : a.value < b.value) | ((b.value == a.value) & earlier);
    if constexpr (is_floating_v<decltype(P::value)>) {
      const bool bn = is_nan(b.value), an = is_nan(a.value);
      // Two NaN: neither compares less or equal, so by_value is false and the index decides.
      return bn != an ? bn == (nan == NanPolicy::propagate) : by_value | (bn & earlier);
    }
    return by_value;
  }
};
}  // namespace detail

using ArgMin = detail::ArgExtreme<true>;
using ArgMax = detail::ArgExtreme<false>;

// Bitwise operators: integer types only (checked where the accumulator is chosen).
struct BitAnd {
  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return static_cast<A>(~A(0));
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return static_cast<A>(a & b);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return static_cast<A>(x);
  }
};

struct BitOr {
  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return A(0);
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return static_cast<A>(a | b);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return static_cast<A>(x);
  }
};

struct BitXor {
  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return A(0);
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return static_cast<A>(a ^ b);
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return static_cast<A>(x);
  }
};

// Logical all / any: an element is true when it is not zero (NaN is true, as in NumPy).
// Accumulator bool.
struct All {
  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return true;
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return a && b;
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return detail::convert<detail::compute_t<V>>(x) != detail::compute_t<V>(0);
  }
};

struct Any {
  template <class A>
  GPUREDUCE_HD static constexpr A identity() {
    return false;
  }
  template <class A>
  GPUREDUCE_HD constexpr A operator()(A a, A b) const {
    return a || b;
  }
  template <class A, class V>
  GPUREDUCE_HD constexpr A lift(V x, std::int64_t) const {
    return detail::convert<detail::compute_t<V>>(x) != detail::compute_t<V>(0);
  }
};

namespace detail {
template <class Op>
inline constexpr bool is_arg_extreme_v = std::is_same_v<Op, ArgMin> || std::is_same_v<Op, ArgMax>;

// A caller's binary functor with the identity the caller gives, in the operator shape above. The
// functor must be associative and commutative (the kernels combine in a fixed tree order that is
// neither left-to-right nor the same for every n).
template <class F, class A>
struct UserOp {
  F f;
  A init;

  template <class B>
  GPUREDUCE_HD constexpr B identity() const {
    return init;
  }
  GPUREDUCE_HD constexpr A operator()(A a, A b) const { return static_cast<A>(f(a, b)); }
  template <class B, class V>
  GPUREDUCE_HD constexpr B lift(V x, std::int64_t) const {
    return convert<B>(x);
  }
};

template <class Op>
inline constexpr bool is_user_op_v = false;
template <class F, class A>
inline constexpr bool is_user_op_v<UserOp<F, A>> = true;

// Calls f(op) with op's NaN policy (where it has one) a constant: one call per policy, each with a
// copy of op whose policy is assigned the value just tested. Once inlined, every test of the policy
// in f folds away, in the per-element work and in the reduction tree alike, so each branch holds
// the code of one policy (as thread/vector_winner.hpp's template argument gives argmin/argmax).
template <class Op, class F>
GPUREDUCE_HD constexpr decltype(auto) with_constant_nan(Op op, F&& f) {
  if constexpr (requires { op.nan; }) {
    static_assert(std::is_same_v<decltype(op.nan), NanPolicy>);
    if (op.nan == NanPolicy::ignore) {
      op.nan = NanPolicy::ignore;
      return f(op);
    }
    op.nan = NanPolicy::propagate;  // the only other policy
  }
  return f(op);
}
}  // namespace detail

}  // namespace gpureduce
