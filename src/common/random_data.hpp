// Seeded random inputs. Never constant data: zeros and ones hide unwritten outputs and indexing
// bugs.
#pragma once

#include <cstdint>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace gpureduce {

// Integers: uniform over the whole type (sums wrap: the test is exactness modulo 2^bits).
// Floating point: uniform in [-1, 1), mixed signs, so sums cancel.
template <class T>
std::vector<T> random_values(std::uint64_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v) x = static_cast<T>(rng());
  } else {
    std::uniform_real_distribution<T> d(T(-1), T(1));
    for (auto& x : v) x = d(rng);
  }
  return v;
}

// Integers in [-range, range], stored as T: every partial sum of a floating-point T is exact while
// n * range stays below 2^digits, so any dropped or doubled element shows up as an exact mismatch.
template <class T>
std::vector<T> random_small_integers(std::uint64_t n, std::uint64_t seed, std::int64_t range) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> d(-range, range);
  for (auto& x : v) x = static_cast<T>(d(rng));
  return v;
}

// Largest range for which n values of T in [-range, range] sum exactly in any order (>= 1).
template <class T>
std::int64_t exact_integer_range(std::uint64_t n) {
  const std::uint64_t limit = std::uint64_t(1) << std::numeric_limits<T>::digits;
  const std::uint64_t r = n == 0 ? limit : limit / n;
  return r < 1 ? 1 : static_cast<std::int64_t>(r > (1u << 20) ? (1u << 20) : r);
}

}  // namespace gpureduce
