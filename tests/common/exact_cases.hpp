// Inputs for the exact-sum tests (CPU against the oracle, GPU against the host implementation):
// IEEE formats from their bits, values over the whole exponent range, subnormals, negation.
#pragma once

#include <gpureduce/thread/numeric.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <type_traits>

namespace exact_cases {

struct Layout {  // IEEE binary format: exponent and fraction bit counts
  int exp_bits, frac_bits;
  int bias() const { return (1 << (exp_bits - 1)) - 1; }
  int lsb_exp() const { return 1 - bias() - frac_bits; }  // smallest subnormal 2^lsb_exp
};

template <class T>
Layout layout_of() {
  if constexpr (std::is_same_v<T, double>) return {11, 52};
  else if constexpr (std::is_same_v<T, float>) return {8, 23};
  else if constexpr (std::is_same_v<T, __half>) return {5, 10};
  else return {8, 7};
}

template <class T>
std::uint64_t bits_of(T x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof(T));
  return b;
}

template <class T>
T from_bits(std::uint64_t b) {
  T x;
  std::memcpy(&x, &b, sizeof(T));
  return x;
}

template <class T>
std::uint64_t exp_mask() {
  const Layout l = layout_of<T>();
  return ((std::uint64_t(1) << l.exp_bits) - 1) << l.frac_bits;
}

// A finite value with uniformly random sign, exponent field (subnormals included) and fraction:
// magnitudes spread over the whole exponent range.
template <class T>
T random_finite(std::mt19937_64& rng) {
  const Layout l = layout_of<T>();
  const std::uint64_t e = rng() % ((std::uint64_t(1) << l.exp_bits) - 1);  // all but the special field
  const std::uint64_t f = rng() & ((std::uint64_t(1) << l.frac_bits) - 1);
  const std::uint64_t s = rng() & 1;
  return from_bits<T>((s << (l.exp_bits + l.frac_bits)) | (e << l.frac_bits) | f);
}

template <class T>
T random_subnormal(std::mt19937_64& rng) {
  const Layout l = layout_of<T>();
  const std::uint64_t f = rng() & ((std::uint64_t(1) << l.frac_bits) - 1);
  return from_bits<T>(((rng() & 1) << (l.exp_bits + l.frac_bits)) | f);
}

// The largest exponent field of finite values.
template <class T>
std::uint64_t top_field() {
  return (std::uint64_t(1) << layout_of<T>().exp_bits) - 2;
}

// A value of random sign and fraction whose exponent field lies in [low, low + 8], or (1 in 11) a
// zero: n of them sum as the 16-bit types' vectors do in float (gpureduce/exact/narrow_batch.hpp).
template <class T>
T in_exponent_band(std::uint64_t low, std::mt19937_64& rng) {
  const Layout l = layout_of<T>();
  const std::uint64_t frac = (std::uint64_t(1) << l.frac_bits) - 1;
  const std::uint64_t f = rng() % 11 == 0 ? 0 : low + rng() % 9;
  return from_bits<T>(((rng() & 1) << (l.exp_bits + l.frac_bits)) | (f << l.frac_bits) | (f ? rng() & frac : 0));
}

template <class T>
T negate(T x) {
  const Layout l = layout_of<T>();
  return from_bits<T>(bits_of(x) ^ (std::uint64_t(1) << (l.exp_bits + l.frac_bits)));
}

template <class T>
T value(double v) {
  if constexpr (std::is_same_v<T, double>) return v;
  else if constexpr (std::is_same_v<T, float>) return float(v);
  else if constexpr (std::is_same_v<T, __half>) return __float2half_rn(float(v));
  else return __float2bfloat16_rn(float(v));
}

// The same bits, or both NaN (any NaN).
template <class T>
bool same(T a, T b) {
  const double da = gpureduce::detail::convert<double>(a), db = gpureduce::detail::convert<double>(b);
  if (da != da || db != db) return da != da && db != db;  // any NaN is NaN
  return bits_of(a) == bits_of(b);
}

}  // namespace exact_cases
