// Element-type facts every layer needs, host and device: which types are floating point (the two
// 16-bit formats included), NaN tests, the extreme values used as identities, and conversions
// between element and accumulator types.
#pragma once

#include <gpureduce/config.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

template <class T>
inline constexpr bool is_half_v = std::is_same_v<T, __half> || std::is_same_v<T, __nv_bfloat16>;

template <class T>
inline constexpr bool is_floating_v = std::is_floating_point_v<T> || is_half_v<T>;

// The element types the library reduces (bool for masks and all/any results).
template <class T>
inline constexpr bool is_element_v =
    (std::is_arithmetic_v<T> && !std::is_same_v<T, char> && !std::is_same_v<T, long double>) || is_half_v<T>;

// Complex numbers of float or double parts (cuda::std::complex): summed and multiplied by the
// built-in operators in their own type (as NumPy and PyTorch), read as records otherwise.
// Recognised by shape, so that host-only code need not include libcu++'s <complex>.
template <class T>
inline constexpr bool is_complex_v = [] {
  if constexpr (requires(const T& z) {
                  typename T::value_type;
                  z.real();
                  z.imag();
                }) {
    using R = typename T::value_type;
    return (std::is_same_v<R, float> || std::is_same_v<R, double>) && sizeof(T) == 2 * sizeof(R) &&
           std::is_trivially_copyable_v<T>;
  } else {
    return false;
  }
}();

// Records: structs a caller's functor or transform reads (cuda::std::complex<float>, float3, a
// point), copied as bytes and default-constructed in registers. The built-in operators take none
// but complex numbers (sum and product).
template <class T>
inline constexpr bool is_record_v =
    std::is_class_v<T> && !is_half_v<T> && std::is_trivially_copyable_v<T> && std::is_default_constructible_v<T>;

// Half and bfloat16 are compared and accumulated in float (exact: float holds every value of both).
template <class T>
using compute_t = std::conditional_t<is_half_v<T>, float, T>;

template <class T>
GPUREDUCE_HD constexpr bool is_nan(T x) {
  if constexpr (is_half_v<T>) return is_nan(static_cast<float>(x));
  else if constexpr (is_complex_v<T>) return is_nan(x.real()) || is_nan(x.imag());  // as numpy.isnan
  else if constexpr (std::is_floating_point_v<T>) return x != x;
  else return false;
}

// +infinity for floating types, the largest value for integers.
template <class T>
GPUREDUCE_HD constexpr T highest() {
  if constexpr (std::is_same_v<T, float>) return __builtin_huge_valf();
  else if constexpr (std::is_same_v<T, double>) return __builtin_huge_val();
  else if constexpr (std::is_same_v<T, bool>) return true;
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::make_unsigned_t<T>>(~0ull) >> 1);
  else return static_cast<T>(~0ull);
}

// -infinity for floating types, the smallest value for integers.
template <class T>
GPUREDUCE_HD constexpr T lowest() {
  if constexpr (std::is_floating_point_v<T>) return -highest<T>();
  else if constexpr (std::is_signed_v<T>) return static_cast<T>(-highest<T>() - 1);
  else return T(0);
}

template <class T>
GPUREDUCE_HD constexpr T quiet_nan() {
  if constexpr (std::is_same_v<T, float>) return __builtin_nanf("");
  else return __builtin_nan("");
}

// Value conversion between element, accumulator and output types. The 16-bit formats go through
// float; float to half/bfloat16 rounds to nearest even. On the device a bfloat16 widens by a shift
// of its bits (exact, NaN payloads kept), not through the inline asm of __bfloat162float, around
// which ptxas scheduled the bfloat16 dot product's one-block kernel worse than float16's (H100:
// bfloat16 dot of 2^12 4.78 -> 4.32 us with the shift).
// Between float and double by a cvt without .ftz: under -ftz=true (and --use_fast_math) nvcc
// emits cvt.ftz.f64.f32 and cvt.rn.ftz.f32.f64, which flush subnormal floats (and bfloat16
// subnormals, which widen to them) to zero, and the exact sums (docs/exact.md) would lose them.
template <class To, class From>
GPUREDUCE_HD constexpr To convert(From x) {
  if constexpr (std::is_same_v<To, From>) return x;
#if defined(__CUDA_ARCH__)
  else if constexpr (std::is_same_v<To, double> && std::is_same_v<From, float>) {
    if (!__builtin_is_constant_evaluated()) {
      double d;
      asm("cvt.f64.f32 %0, %1;" : "=d"(d) : "f"(x));
      return d;
    }
    return static_cast<double>(x);
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, double>) {
    if (!__builtin_is_constant_evaluated()) {
      float f;
      asm("cvt.rn.f32.f64 %0, %1;" : "=f"(f) : "d"(x));
      return f;
    }
    return static_cast<float>(x);
  }
  else if constexpr (std::is_same_v<From, __nv_bfloat16>) {
    if (!__builtin_is_constant_evaluated())
      return convert<To>(__uint_as_float(unsigned(__bfloat16_as_ushort(x)) << 16));
    return convert<To>(static_cast<float>(x));
  }
#endif
  else if constexpr (is_half_v<From>) return convert<To>(static_cast<float>(x));
  else if constexpr (std::is_same_v<To, __half>) return __float2half_rn(convert<float>(x));
  else if constexpr (std::is_same_v<To, __nv_bfloat16>) return __float2bfloat16_rn(convert<float>(x));
  else return static_cast<To>(x);
}

// A 16-bit float and float, both ways bit for bit, NaN sign and payload included: convert goes
// through cvt and __float2half_rn, which return the canonical NaN. argmin/argmax hand back the
// winning element's own bits (kernel/reduce_kernels.cuh reloads it, convert_result narrows it).
template <class To, class From>
GPUREDUCE_HD To bits_as(const From& x) {  // not __builtin_bit_cast, which EDG cannot evaluate on __half
  static_assert(sizeof(To) == sizeof(From));
  To t;
  __builtin_memcpy(&t, &x, sizeof t);
  return t;
}
template <class T>
  requires is_half_v<T>
GPUREDUCE_HD float widen_bits(T x) {
  const std::uint32_t b = bits_as<std::uint16_t>(x);
  if constexpr (std::is_same_v<T, __nv_bfloat16>) return bits_as<float>(b << 16);
  else if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu) != 0)
    return bits_as<float>((b & 0x8000u) << 16 | 0x7f800000u | (b & 0x3ffu) << 13);
  else return convert<float>(x);
}
template <class T>
  requires is_half_v<T>
GPUREDUCE_HD T narrow_bits(float x) {
  if (!is_nan(x)) return convert<T>(x);
  const std::uint32_t b = bits_as<std::uint32_t>(x);
  constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
  // The payload's high bits; the quiet bit where they are all zero, so that the NaN stays one.
  const std::uint32_t payload = bf16 ? (b >> 16) & 0x7fu : (b >> 13) & 0x3ffu;
  const std::uint32_t quiet = bf16 ? 0x40u : 0x200u;
  const std::uint32_t head = bf16 ? (b >> 16) & 0xff80u : ((b >> 16) & 0x8000u) | 0x7c00u;
  return bits_as<T>(std::uint16_t(head | (payload != 0 ? payload : quiet)));
}

// convert, but bit for bit between the 16-bit floats and float (widen_bits, narrow_bits).
template <class To, class From>
GPUREDUCE_HD To convert_bits(From x) {
  if constexpr (std::is_same_v<To, float> && is_half_v<From>) return widen_bits(x);
  else if constexpr (is_half_v<To> && std::is_same_v<From, float>) return narrow_bits<To>(x);
  else return convert<To>(x);
}

}  // namespace gpureduce::detail
