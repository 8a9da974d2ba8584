// The superaccumulator: a long fixed-point number that holds an exact sum. Word i holds a signed
// multiple of 2^(32 i + lsb_exp); a word is a 32-bit digit plus headroom, so terms are added
// without carrying (up to 2^30 deposits per word) and carries are resolved once, at the end.
// Everything here is __host__ __device__: the GPU kernel deposits into shared memory through
// atomics, the host implementation into a plain array, with the same code.
#pragma once

#include <gpureduce/exact/format.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gpureduce::exact {

// Flags of the values that are not added as numbers (OR-combined).
enum Flag : unsigned {
  flag_nan = 1,
  flag_pos_inf = 2,
  flag_neg_inf = 4,
  flag_not_neg_zero = 8,  // no input, or one that is not -0.0 (a zero sum is -0.0 only if all are)
};

// The exact value of the double v (finite, a multiple of 2^lsb_exp) as signed 32-bit chunks for
// words word, word + 1, word + 2. Returns false for zero (nothing to add).
struct Chunks {
  int word;
  std::int64_t c[3];
};
GPUREDUCE_HD bool split(double v, int lsb_exp, Chunks& out) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, sizeof bits);
  const int biased = int(bits >> 52) & 0x7ff;
  std::uint64_t mant = bits & ((std::uint64_t(1) << 52) - 1);
  if (mant == 0 && biased == 0) return false;
  if (biased != 0) mant |= std::uint64_t(1) << 52;
  int pos = (biased == 0 ? 1 : biased) - 1075 - lsb_exp;  // bit position of mant's bit 0
  if (pos < 0) {  // v is a multiple of 2^lsb_exp, so the bits shifted out are zero
    mant >>= -pos;
    pos = 0;
  }
  const int shift = pos & 31;
  const std::uint64_t lo = mant << shift;                     // bits 0..63 of the shifted value
  const std::uint64_t hi = shift ? mant >> (64 - shift) : 0;  // bits 64..84
  const std::int64_t sign = bits >> 63 ? -1 : 1;
  out.word = pos >> 5;
  out.c[0] = sign * std::int64_t(lo & 0xffffffffu);
  out.c[1] = sign * std::int64_t(lo >> 32);
  out.c[2] = sign * std::int64_t(hi);
  return true;
}

// Adds the exact value of v to the words through add(word_index, signed_chunk).
GPUREDUCE_EXEC_CHECK_DISABLE
template <class Add>
GPUREDUCE_HD void deposit(double v, int lsb_exp, Add&& add) {
  Chunks ch;
  if (!split(v, lsb_exp, ch)) return;
  for (int k = 0; k < 3; ++k)
    if (ch.c[k]) add(ch.word + k, ch.c[k]);
}

// One carry step applied word-parallel: out_i = digit(w_i) + carry(w_{i-1}), the top word keeping
// its own carry. Brings every word below 2^33 in magnitude; callers sum such words from many
// accumulators without overflow.
GPUREDUCE_HD std::int64_t carry_step(const std::int64_t* w, int i, int words) {
  const std::int64_t own = i == words - 1 ? w[i] : std::int64_t(std::uint64_t(w[i]) & 0xffffffffu);
  return own + (i > 0 ? (w[i - 1] >> 32) : 0);
}

// Full carry propagation: words 0..words-2 become digits in [0, 2^32), the top word signed.
GPUREDUCE_HD void normalize(std::int64_t* w, int words) {
  std::int64_t carry = 0;
  for (int i = 0; i < words - 1; ++i) {
    const std::int64_t v = w[i] + carry;
    w[i] = std::int64_t(std::uint64_t(v) & 0xffffffffu);
    carry = v >> 32;
  }
  w[words - 1] += carry;
}

namespace detail {
GPUREDUCE_HD int highest_bit(std::uint64_t x) {  // -1 for 0
#ifdef __CUDA_ARCH__
  return x ? 63 - __clzll(static_cast<long long>(x)) : -1;
#else
  return x ? 63 - __builtin_clzll(x) : -1;
#endif
}
// Bit `pos` (0 = 2^lsb_exp) of a normalized non-negative accumulator; positions below 0 are 0.
GPUREDUCE_HD unsigned bit_at(const std::int64_t* w, int pos) {
  return pos < 0 ? 0u : unsigned(std::uint64_t(w[pos >> 5]) >> (pos & 31)) & 1u;
}
// Whether any bit below `pos` is set.
GPUREDUCE_HD bool any_below(const std::int64_t* w, int pos) {
  if (pos <= 0) return false;
  for (int i = 0; i < (pos >> 5); ++i)
    if (w[i]) return true;
  return (pos & 31) && (std::uint64_t(w[pos >> 5]) & ((std::uint64_t(1) << (pos & 31)) - 1));
}
// The 64 bits from position pos up (pos may be negative: the bits below 0 are 0).
GPUREDUCE_HD std::uint64_t bits_from(const std::int64_t* w, int words, int pos) {
  std::uint64_t r = 0;
  for (int j = pos > 0 ? pos >> 5 : 0; j < words; ++j) {
    const int sh = 32 * j - pos;  // where digit j's bit 0 lands in r
    if (sh >= 64) break;
    const std::uint64_t d = std::uint32_t(w[j]);
    r |= sh >= 0 ? d << sh : d >> -sh;
  }
  return r;
}
}  // namespace detail

// The accumulator's value rounded once, to nearest even, into Out (float, double, __half or
// __nv_bfloat16), with IEEE's special cases. w: `words` words (any carry state; overwritten).
template <class Out>
GPUREDUCE_HD Out round_to(std::int64_t* w, int words, int lsb_exp, unsigned flags) {
  constexpr BinaryFormat f = format_of<Out>();
  const double inf = ::ldexp(1.0, 1024);
  if ((flags & flag_nan) || ((flags & flag_pos_inf) && (flags & flag_neg_inf)))
    return convert<Out>(quiet_nan<double>());
  if (flags & flag_pos_inf) return convert<Out>(inf);
  if (flags & flag_neg_inf) return convert<Out>(-inf);
  normalize(w, words);
  const bool neg = w[words - 1] < 0;
  if (neg) {
    for (int i = 0; i < words; ++i) w[i] = -w[i];
    normalize(w, words);
  }
  int top = words - 1;
  while (top >= 0 && w[top] == 0) --top;
  if (top < 0) return convert<Out>((flags & flag_not_neg_zero) ? 0.0 : -0.0);
  const int msb = 32 * top + detail::highest_bit(std::uint64_t(w[top]));  // relative to 2^lsb_exp
  // The result's unit in the last place, as a relative bit position: precision bits below the
  // leading one, but not below Out's smallest subnormal.
  const int ulp = msb - (f.precision - 1) > f.lsb_exp - lsb_exp ? msb - (f.precision - 1) : f.lsb_exp - lsb_exp;
  // m: the bits from ulp to msb (none when the value is below Out's smallest subnormal's ulp).
  const int kept = msb - ulp + 1;
  std::uint64_t m = kept > 0 ? detail::bits_from(w, words, ulp) & ((std::uint64_t(1) << kept) - 1) : 0;
  if (detail::bit_at(w, ulp - 1) && ((m & 1) || detail::any_below(w, ulp - 1))) ++m;
  const int exp2 = ulp + lsb_exp;  // the result is m * 2^exp2
  // m * 2^exp2 is a value of Out (or too large for it), so ldexp and the conversion are exact.
  const double r = detail::highest_bit(m) + exp2 >= f.max_exp ? inf : ::ldexp(double(m), exp2);
  return convert<Out>(neg ? -r : r);
}

}  // namespace gpureduce::exact
