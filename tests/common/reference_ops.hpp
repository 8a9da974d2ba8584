// Sequential host references for every built-in operator, written independently of the library's
// operators (plain loops, long double / wrapping uint64 arithmetic), for the GPU tests.
#pragma once

#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/result_types.hpp>

#include <cmath>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace gpureduce::reference {
using namespace gpureduce::detail;

template <class T>
long double to_ld(T x) {
  if constexpr (is_half_v<T>) return static_cast<float>(x);
  else return static_cast<long double>(x);
}

template <class T>
bool nan_at(const T* x, std::uint64_t i) {
  return std::isnan(to_ld(x[i]));
}

// Integers: the exact sum / product modulo 2^64 (the int64/uint64 accumulator's wrap).
template <class T>
std::uint64_t int_sum(const T* x, std::uint64_t n) {
  std::uint64_t s = 0;
  for (std::uint64_t i = 0; i < n; ++i) s += static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
  return s;
}

template <class T>
std::uint64_t int_product(const T* x, std::uint64_t n) {
  std::uint64_t p = 1;
  for (std::uint64_t i = 0; i < n; ++i) p *= static_cast<std::uint64_t>(static_cast<std::int64_t>(x[i]));
  return p;
}

struct FloatSum {
  long double sum = 0, abs_sum = 0;
  bool has_nan = false;
};

template <class T>
FloatSum float_sum(const T* x, std::uint64_t n, bool skip_nan) {
  FloatSum r;
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double v = to_ld(x[i]);
    if (std::isnan(v)) {
      if (!skip_nan) r.has_nan = true;
      continue;
    }
    r.sum += v;
    r.abs_sum += std::fabs(v);
  }
  return r;
}

// First index of the minimum (Less) / maximum, NaN first-wins when propagating and skipped when
// ignoring (all NaN: the first NaN). n > 0.
template <bool Less, class T>
IndexedValue<long double> arg_extreme(const T* x, std::uint64_t n, bool ignore_nan) {
  std::int64_t best = -1, first_nan = -1;
  for (std::uint64_t i = 0; i < n; ++i) {
    const long double v = to_ld(x[i]);
    if (std::isnan(v)) {
      if (first_nan < 0) first_nan = std::int64_t(i);
      continue;
    }
    if (best < 0 || (Less ? v < to_ld(x[best]) : v > to_ld(x[best]))) best = std::int64_t(i);
  }
  if (first_nan >= 0 && (!ignore_nan || best < 0)) return {to_ld(x[first_nan]), first_nan};
  return {to_ld(x[best]), best};
}

}  // namespace gpureduce::reference
