// The exact sum of one vector of 16-bit floats (__half, __nv_bfloat16) in float, where every
// partial sum fits a float's 24 bits. Then the expansion takes the vector as one double term
// instead of eight: one conversion and one TwoSum (6 double additions) per vector, where each
// element took a conversion to double and a TwoSum, which made the half types' exact sums
// compute-bound (H100: 0.91-0.94x of the plain sum at 2^28-2^30 before; float16 of 2^30 753.3 ->
// 714.8 us with this).
//
// The test, on the elements' bits: the vector's largest and smallest non-zero magnitudes are
// 16-bit SIMD max/min over its words, and their exponent fields must lie within `window` of each
// other. Every element is a multiple of the smallest one's last significand bit, 2^(emin - m)
// (m significand bits after the point; subnormals count as the lowest normal exponent), and every
// partial sum of K elements is below K x 2^(emax + 1), so all of them are exact in float when
// emax + 1 + log2 K <= emin - m + 24. NaN and infinities (the top exponent field) fail it, and so
// do elements large enough that K of them could overflow a float.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/exact/format.hpp>
#include <gpureduce/thread/numeric.hpp>
#include <gpureduce/thread/vector_winner.hpp>

#include <bit>
#include <cstdint>
#include <cstring>

namespace gpureduce::detail::exact {

template <class T>
inline constexpr bool is_narrow_v = is_half_v<T>;

// a + b in float, subnormals kept: under -ftz=true (and --use_fast_math) nvcc emits add.ftz.f32,
// which would flush the subnormal partial sums of bfloat16 elements near 2^-126.
GPUREDUCE_HD float add_f32(float a, float b) {
#if defined(__CUDA_ARCH__)
  float s;
  asm("add.rn.f32 %0, %1, %2;" : "=f"(s) : "f"(a), "f"(b));
  return s;
#else
  return a + b;
#endif
}

// The exponent-field limits of narrow_batch_sum for K elements of T (host-testable).
template <class T, int K>
struct NarrowWindow {
  static_assert(is_narrow_v<T> && std::has_single_bit(unsigned(K)) && K >= 2 && K <= 16);
  static constexpr int mantissa = format_of<T>().precision - 1;  // 10 (half), 7 (bfloat16)
  static constexpr int bias = (1 << (14 - mantissa)) - 1;        // 15, 127
  static constexpr int log2_k = std::countr_zero(unsigned(K));
  // emax - emin at most this: emax + 1 + log2 K <= emin - mantissa + 24.
  static constexpr int window = 23 - mantissa - log2_k;
  // The largest field: below the top one (infinity, NaN), and K x 2^(emax + 1) <= 2^128.
  static constexpr unsigned top_field = (1u << (15 - mantissa)) - 2 < unsigned(bias + 127 - log2_k)
                                            ? (1u << (15 - mantissa)) - 2
                                            : unsigned(bias + 127 - log2_k);
  // Whether elements whose magnitudes' bits (sign cleared) are at most `largest` and, among the
  // non-zero ones, at least `smallest` sum exactly in float.
  GPUREDUCE_HD static constexpr bool fits(unsigned largest, unsigned smallest) {
    const auto field = [](unsigned bits) {
      const unsigned f = bits >> mantissa;
      return f > 1 ? f : 1u;  // a subnormal's last bit is the lowest normal exponent's
    };
    // All zero: `smallest` is past every magnitude and the difference is negative.
    return largest >> mantissa <= top_field && int(field(largest)) - int(field(smallest)) <= window;
  }
};

// s = y[0] + ... + y[K-1] exactly, in float, when NarrowWindow says it fits; false otherwise.
template <class T, int K>
GPUREDUCE_HD bool narrow_batch_sum(const T (&y)[K], float& s) {
  using Window = NarrowWindow<T, K>;
  constexpr int words = K / 2;
  std::uint32_t u[words], mag[words], nonzero[words];
  std::memcpy(u, y, sizeof u);
GPUREDUCE_UNROLL
  for (int k = 0; k < words; ++k) {
    mag[k] = u[k] & 0x7fff7fffu;
    // Each 16-bit magnitude minus one, wrapping only a zero (to 0xffff): the top bit set first
    // keeps the borrow inside the lane.
    nonzero[k] = ((mag[k] | 0x80008000u) - 0x00010001u) ^ 0x80008000u;
  }
  const unsigned largest = detail::extreme_of_words<false, std::uint16_t>(mag);
  const unsigned smallest = unsigned(detail::extreme_of_words<true, std::uint16_t>(nonzero)) + 1;
  if (!Window::fits(largest, smallest)) return false;
  float f[K];
GPUREDUCE_UNROLL
  for (int k = 0; k < K; ++k) f[k] = convert<float>(y[k]);
GPUREDUCE_UNROLL
  for (int half = K / 2; half > 0; half /= 2)  // exact, so any order: a tree, for the latency
GPUREDUCE_UNROLL
    for (int k = 0; k < half; ++k) f[k] = add_f32(f[k], f[k + half]);
  s = f[0];
  return true;
}

}  // namespace gpureduce::detail::exact
