// Independent host references for sums and the error bound a floating-point result must meet.
//
// Integers: the exact sum in 64 bits, wrapped to the element type (the library's defined
// wrap-around). Floating point: a long double accumulation (64-bit significand: exact for float
// inputs up to 2^40 elements of equal exponent, and 11 bits more precise than double) together
// with sum |x|. Any summation order whose tree has height h returns a value within
// gamma_h * sum|x| of the exact sum, gamma_h = h*u / (1 - h*u), u = eps/2 (Higham, Accuracy and
// Stability of Numerical Algorithms, 2nd ed., eq. 4.6); the reference's own error is added.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace gpureduce {

template <class T>
struct HostSum {
  std::uint64_t n = 0;
  long double sum = 0;      // floating point: the long double sum
  long double abs_sum = 0;  // sum |x|
  std::int64_t exact = 0;   // integers: the exact sum (no wrap at 64 bits for n < 2^32)
};

template <class T>
HostSum<T> host_sum(const T* x, std::uint64_t n) {
  HostSum<T> r;
  r.n = n;
  for (std::uint64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      r.exact += x[i];
    } else {
      r.sum += x[i];
      r.abs_sum += std::fabs(static_cast<long double>(x[i]));
    }
  }
  return r;
}

// The integer result every correct summation gives: the exact sum modulo 2^bits.
template <class T>
T wrapped(std::int64_t exact) {
  return static_cast<T>(static_cast<std::make_unsigned_t<T>>(static_cast<std::uint64_t>(exact)));
}

// Height of the summation tree: the longest sequential chain per thread plus the tree levels
// (<= 64 in all for every rung and pass at any n up to 2^40).
constexpr std::uint64_t summation_depth_bound(std::uint64_t n, std::uint64_t first_pass_threads) {
  return (n + first_pass_threads - 1) / first_pass_threads + 64;
}

// Relative error of a floating-point product of n factors, u = eps/2 of the type it is formed in.
// Every one of its n - 1 multiplications rounds the whole product, whatever the tree's shape, so
// the worst case is gamma_{n-1} (Higham, Lemma 3.1), which says nothing once n - 1 nears 1/u (2^24
// for float). Taken with it: Higham and Mary's probabilistic bound (SIAM J. Sci. Comput. 41(5),
// 2019, Theorem 2.4), exp(lambda sqrt(n-1) u + (n-1) u^2 / (1-u)) - 1, which holds with
// probability at least 1 - 2 exp(-lambda^2 (1-u)^2 / 2) for roundings independent with mean zero:
// 1 - 4e-22 at lambda = 10. The depth of the tree bounds a sum's error, not a product's.
inline long double product_relative_error_bound(std::uint64_t n, long double u, long double lambda = 10) {
  if (n < 2) return 0;
  const long double m = static_cast<long double>(n - 1);
  const long double worst =
      m * u < 1 ? m * u / (1 - m * u) : std::numeric_limits<long double>::infinity();
  const long double likely = std::expm1(lambda * std::sqrt(m) * u + m * u * u / (1 - u));
  return std::min(worst, likely);
}

struct FloatCheck {
  bool ok;
  long double error;  // |got - reference|
  long double bound;
};

// got must lie within gamma_depth * abs_sum of the exact value that `reference` approximates.
template <class T>
FloatCheck check_float_sum(T got, long double reference, long double abs_sum, std::uint64_t n, std::uint64_t depth) {
  const long double u = std::numeric_limits<T>::epsilon() / 2;
  const long double hu = static_cast<long double>(depth) * u;
  const long double gamma = hu < 1 ? hu / (1 - hu) : std::numeric_limits<long double>::infinity();
  const long double ref_error = static_cast<long double>(n) * std::numeric_limits<long double>::epsilon() * abs_sum;
  const long double bound = gamma * abs_sum + ref_error;
  const long double error = std::fabs(static_cast<long double>(got) - reference);
  return {std::isfinite(static_cast<long double>(got)) && error <= bound, error, bound};
}

}  // namespace gpureduce
