// Exact summation: the binary formats it reads and writes, and the fixed-point range of the
// superaccumulator that holds an exact sum of them (see docs/exact.md).
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/numeric.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail::exact {

// A binary floating-point format: `precision` significand bits, values are multiples of
// 2^lsb_exp (the smallest subnormal) and finite ones are below 2^max_exp.
struct BinaryFormat {
  int precision;
  int lsb_exp;
  int max_exp;
};

template <class T>
GPUREDUCE_HD constexpr BinaryFormat format_of() {
  if constexpr (std::is_same_v<T, double>) return {53, -1074, 1024};
  else if constexpr (std::is_same_v<T, float>) return {24, -149, 128};
  else if constexpr (std::is_same_v<T, __half>) return {11, -24, 16};
  else {
    static_assert(std::is_same_v<T, __nv_bfloat16>,
                  "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
    return {8, -133, 128};
  }
}

template <class T>
inline constexpr bool is_exact_type_v = std::is_same_v<T, double> || std::is_same_v<T, float> ||
                                        std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

// Counts above this are refused (beyond any GPU's memory for these types); the superaccumulator
// below keeps 44 bits of headroom, more than it needs.
inline constexpr std::uint64_t max_count = std::uint64_t(1) << 40;

// The terms an exact sum adds, all doubles: the inputs themselves, or (dot) exact products of two
// inputs. lsb_exp: every term and every partial sum is a multiple of 2^lsb_exp; max_exp: finite
// terms are below 2^max_exp. fast_limit: terms below it in magnitude go through the two-level
// expansion, whose partial sums then cannot overflow a double (up to max_count terms per thread);
// larger ones (and NaN, infinities) take the slow path.
struct TermRange {
  int lsb_exp;
  int max_exp;
  double fast_limit;
  // 32-bit digits from 2^lsb_exp up to 2^(max_exp + 44) (max_count terms), plus the two words a
  // deposit may spill into above its top bit.
  GPUREDUCE_HD constexpr int words() const { return (max_exp + 44 - lsb_exp) / 32 + 3; }
};

GPUREDUCE_HD constexpr double pow2(int e) {
  double x = 1;
  for (; e > 0; --e) x *= 2;
  for (; e < 0; ++e) x /= 2;
  return x;
}

// Sums of T: inputs are exact in double. Doubles at or above 2^990 skip the expansion. For the
// other types the limit lies 2^4 above their largest finite value, so that the exact sum of a
// vector of up to 16 of them (narrow_batch.hpp) takes the expansion too.
template <class T>
GPUREDUCE_HD constexpr TermRange sum_terms() {
  constexpr BinaryFormat f = format_of<T>();
  return {f.lsb_exp, f.max_exp, std::is_same_v<T, double> ? pow2(990) : pow2(f.max_exp + 4)};
}

// Products of two floats: exact in double (48 significand bits), multiples of 2^-298, below 2^256.
GPUREDUCE_HD constexpr TermRange float_product_terms() { return {-298, 256, pow2(256)}; }

// The term kinds as types, for templates.
template <class T>
struct SumOf {
  static constexpr TermRange range = sum_terms<T>();
};
struct FloatProducts {
  static constexpr TermRange range = float_product_terms();
};

}  // namespace gpureduce::detail::exact
