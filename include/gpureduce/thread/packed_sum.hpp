// The sum of one 16-byte vector of 8- or 16-bit integers in 32 bits, with the GPU's integer dot
// products against ones: four bytes (dp4a) or two halfwords (dp2a) per instruction, where adding
// element by element into a 64-bit accumulator takes an extract, a widening and a two-instruction
// add per element. Exact: a vector holds at most 16 x 255 or 8 x 65535 in magnitude.
// packed_dot does the same for the products of two vectors of bytes (dot products of int8/uint8):
// at most 16 x 255 x 255 in magnitude.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpureduce::detail {

// bool: its bytes are 0 or 1, summed as unsigned bytes.
template <class T>
inline constexpr bool is_packed_summable_v = std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> ||
                                             std::is_same_v<T, bool> || std::is_same_v<T, std::int16_t> ||
                                             std::is_same_v<T, std::uint16_t>;

template <class T>
using packed_sum_t = std::conditional_t<std::is_signed_v<T>, std::int32_t, std::uint32_t>;

template <class T, unsigned N>
GPUREDUCE_HD packed_sum_t<T> packed_sum(const T (&v)[N]) {
  static_assert(is_packed_summable_v<T> && N * sizeof(T) == 16, "packed_sum: one 16-byte vector of small integers");
  using W = packed_sum_t<T>;
#if defined(__CUDA_ARCH__)
  W w[4];
  std::memcpy(w, v, sizeof w);
  if constexpr (sizeof(T) == 1) {
    const W ones = 0x01010101;
    return __dp4a(w[0], ones, __dp4a(w[1], ones, W(0))) + __dp4a(w[2], ones, __dp4a(w[3], ones, W(0)));
  } else {
    const W ones = 0x0101;  // dp2a_lo: the two halfwords of a times the low two bytes of b
    return __dp2a_lo(w[0], ones, __dp2a_lo(w[1], ones, W(0))) + __dp2a_lo(w[2], ones, __dp2a_lo(w[3], ones, W(0)));
  }
#else
  W s = 0;
  for (unsigned k = 0; k < N; ++k) s += W(v[k]);
  return s;
#endif
}

template <class T>
inline constexpr bool is_packed_dottable_v =
    std::is_same_v<T, std::int8_t> || std::is_same_v<T, std::uint8_t> || std::is_same_v<T, bool>;

// sum a[k] * b[k] over one 16-byte vector of bytes in 32 bits: four dp4a, where forming each
// product in a 64-bit accumulator takes two widenings, a 64-bit multiply and a 64-bit add.
template <class T, unsigned N>
GPUREDUCE_HD packed_sum_t<T> packed_dot(const T (&a)[N], const T (&b)[N]) {
  static_assert(is_packed_dottable_v<T> && N == 16, "packed_dot: two 16-byte vectors of 8-bit integers");
  using W = packed_sum_t<T>;
#if defined(__CUDA_ARCH__)
  W x[4], y[4];
  std::memcpy(x, a, sizeof x);
  std::memcpy(y, b, sizeof y);
  return __dp4a(x[0], y[0], __dp4a(x[1], y[1], W(0))) + __dp4a(x[2], y[2], __dp4a(x[3], y[3], W(0)));
#else
  W s = 0;
  for (unsigned k = 0; k < N; ++k) s += W(a[k]) * W(b[k]);
  return s;
#endif
}

}  // namespace gpureduce::detail
