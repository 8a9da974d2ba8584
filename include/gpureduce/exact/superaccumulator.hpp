// The superaccumulator: a long fixed-point number that holds an exact sum. Word i holds a signed
// multiple of 2^(32 i + lsb_exp); a word is a 32-bit digit plus headroom, so terms are added
// without carrying (up to 2^30 deposits per word) and carries are resolved once, at the end.
// Everything here is __host__ __device__: the GPU kernel deposits into shared memory through
// atomics, the host implementation into a plain array, with the same code.
#pragma once

#include <gpureduce/exact/format.hpp>
#include <gpureduce/thread/byte_perm.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce::detail::exact {

// Flags of the values that are not added as numbers (OR-combined).
enum Flag : unsigned {
  flag_nan = 1,
  flag_pos_inf = 2,
  flag_neg_inf = 4,
  flag_not_neg_zero = 8,  // no input, or one that is not -0.0 (a zero sum is -0.0 only if all are)
  flags_special = flag_nan | flag_pos_inf | flag_neg_inf,
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

// Carries and rounding work on words held in slices: one owner (the host: one thread, every word)
// or the 32 lanes of a warp (warp/warp_exact_round.cuh), each owner holding P consecutive words
// from `first`, in registers. An owner reaches the others only through its Team of `owners`:
// `any` and `max` over the owners, `from_below(x, d, none)` (the value of the owner d
// below, `none` where there is none) and `broadcast` (the value of owner r). Alone is the team
// of one owner.
struct Alone {
  static constexpr int owners = 1;
  GPUREDUCE_HD bool any(bool x) const { return x; }
  GPUREDUCE_HD int max(int x) const { return x; }
  GPUREDUCE_HD std::int64_t from_below(std::int64_t, int = 1, std::int64_t none = 0) const { return none; }
  GPUREDUCE_HD std::int64_t broadcast(std::int64_t x, int) const { return x; }
};

// One word of a carry pass: word i (of `words`) takes the carry and returns the carry out. Words
// below the top become digits in [0, 2^32); the top word is signed and keeps all it receives;
// words past the top (a slice's padding) pass the carry on.
GPUREDUCE_HD std::int64_t carry_word(std::int64_t& w, int i, int words, std::int64_t carry) {
  if (i >= words) return carry;
  if (i == words - 1) {
    w += carry;
    return 0;
  }
  const std::int64_t v = w + carry;
  w = std::int64_t(std::uint64_t(v) & 0xffffffffu);
  return v >> 32;
}

// A carry transfer: the carry out (-1, 0 or 1) for each carry in (-1, 0, 1), plus one, in bytes 0-2
// (byte 3 holds 3, as in the identity 0x03020100), and the transfer of one applied after another
// (`first` then `then`): a byte permute of `then` by `first`'s bytes as the selector's nibbles.
inline constexpr std::uint32_t carry_identity_selector = 0x3210u;
GPUREDUCE_HD std::uint32_t carry_selector(std::uint32_t transfer) {  // bytes 0-3 as nibbles 0-3
  return byte_perm(transfer | transfer >> 4, 0u, 0x4420u);
}
GPUREDUCE_HD std::uint32_t compose_carries(std::uint32_t then, std::uint32_t first_selector) {
  return byte_perm(then, 0u, first_selector);
}
GPUREDUCE_HD int carry_out_of(std::uint32_t transfer, int in) { return int((transfer >> (8 * (in + 1))) & 0xFFu) - 1; }

// Full carry propagation over the team's slices: words 0..words-2 become digits, the top word
// signed. Two passes, each taking the carries out of the owner below, leave every owner a carry
// out of -1, 0 or 1. Passed on pass by pass, such a carry would take one pass per owner it runs
// through (zero digits for -1, all-ones for 1): a negative sum's borrow runs through every zero
// word above it, 9 passes for a float sum's 13 words. Instead each owner's carry out for each carry
// in, with its own pending carry added, is composed over the owners below by a prefix scan (log2 of
// the owners' count in steps), which gives every owner its carry in at once (H100: float64 grid of
// 2^18 13.89 -> 12.90 us). float16 (5 words, at most 4 passes) gained nothing, so accumulators of up
// to scan_min_words keep passing carries on.
inline constexpr int scan_min_words = 8;
GPUREDUCE_EXEC_CHECK_DISABLE
template <int P, class Team>
GPUREDUCE_HD void normalize_slice(std::int64_t (&w)[P], int first, int words, const Team& team) {
  std::int64_t carry = 0;
  for (int pass = 0;; ++pass) {
GPUREDUCE_UNROLL
    for (int p = 0; p < P; ++p) carry = carry_word(w[p], first + p, words, carry);
    if (!team.any(carry != 0)) return;
    if (pass == 1 && words > scan_min_words) break;
    carry = team.from_below(carry);
  }
  // This owner's transfer: its pending carry plus what a carry in would carry out of its words (a
  // pending carry leaves its last digit 0 or all-ones, so the two never add to 2 in magnitude).
  std::uint32_t transfer = 3u << 24;
GPUREDUCE_UNROLL
  for (int in = -1; in <= 1; ++in) {
    std::int64_t c = in;
GPUREDUCE_UNROLL
    for (int p = 0; p < P; ++p) {
      std::int64_t v = w[p];
      c = carry_word(v, first + p, words, c);
    }
    transfer |= std::uint32_t(carry + c + 1) << (8 * (in + 1));
  }
  // Each step one shuffle and three byte permutes (the transfer's table looked up bit field by bit
  // field took 17 instructions a step).
GPUREDUCE_UNROLL
  for (int d = 1; d < Team::owners && d < (words + P - 1) / P; d *= 2) {  // up to the last owner of a word
    const std::int64_t below = team.from_below(carry_selector(transfer), d, carry_identity_selector);
    transfer = compose_carries(transfer, std::uint32_t(below));
  }
  // The carries out of every owner below, composed from no carry into the first owner.
  carry = team.from_below(carry_out_of(transfer, 0));
GPUREDUCE_UNROLL
  for (int p = 0; p < P; ++p) carry = carry_word(w[p], first + p, words, carry);
}

// Full carry propagation of a whole accumulator by one thread.
template <int Words>
GPUREDUCE_HD void normalize(std::int64_t (&w)[Words]) {
  normalize_slice(w, 0, Words, Alone{});
}

GPUREDUCE_HD int highest_bit(std::uint64_t x) {  // -1 for 0
#ifdef __CUDA_ARCH__
  return x ? 63 - __clzll(static_cast<long long>(x)) : -1;
#else
  return x ? 63 - __builtin_clzll(x) : -1;
#endif
}
GPUREDUCE_HD double double_of_bits(std::uint64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}
// x * 2^e where the product is a double (no rounding, no overflow; e >= -1074 - 53): one or two
// multiplications by powers of two built from their bits (ldexp took a chain of four).
GPUREDUCE_HD double times_pow2(double x, int e) {
  const auto pow2_bits = [](int k) { return double_of_bits(std::uint64_t(k + 1023) << 52); };  // -1022 <= k <= 1023
  return e >= -1022 ? x * pow2_bits(e) : x * pow2_bits(e + 128) * pow2_bits(-128);
}

// The accumulator's value rounded once, to nearest even, into Out (float, double, __half or
// __nv_bfloat16), with IEEE's special cases, from the team's slices (any carry state; overwritten).
// Every owner returns the result. After the carries the owners find the word of the leading bit
// (one max), and every owner takes the three digits from it down (shuffles) and whether any word
// below them is non-zero (one vote), and rounds those on its own. Each owner working out its own
// words' share of the kept bits, the round bit and the sticky bit, then three reductions, took
// about 135 dependent instructions for a double's 69 words (H100 SASS).
GPUREDUCE_EXEC_CHECK_DISABLE
template <class Out, int P, class Team>
GPUREDUCE_HD Out round_slice(std::int64_t (&w)[P], int first, int words, int lsb_exp, unsigned flags,
                             const Team& team) {
  constexpr BinaryFormat f = format_of<Out>();
  const double inf = double_of_bits(std::uint64_t(0x7ff) << 52);
  if ((flags & flag_nan) || ((flags & flag_pos_inf) && (flags & flag_neg_inf)))
    return convert<Out>(quiet_nan<double>());
  if (flags & flag_pos_inf) return convert<Out>(inf);
  if (flags & flag_neg_inf) return convert<Out>(-inf);
  normalize_slice(w, first, words, team);
  bool top_negative = false;  // the top word's sign: one vote, where a broadcast took two shuffles
GPUREDUCE_UNROLL
  for (int p = 0; p < P; ++p) top_negative |= first + p == words - 1 && w[p] < 0;
  const bool neg = team.any(top_negative);
  if (neg) {
    // -X without a second carry pass: 0 below X's lowest non-zero word, that word's two's
    // complement, every digit above it inverted (the top word: -w - 1, or -w if it is the lowest).
    int low = words;
GPUREDUCE_UNROLL
    for (int p = P - 1; p >= 0; --p)
      if (first + p < words && w[p]) low = first + p;
    low = -team.max(-low);
GPUREDUCE_UNROLL
    for (int p = 0; p < P; ++p) {
      const int i = first + p;
      if (i >= words || i < low) w[p] = 0;
      else if (i == words - 1) w[p] = i == low ? -w[p] : -w[p] - 1;
      else w[p] = std::int64_t(std::uint64_t(i == low ? -w[p] : ~w[p]) & 0xffffffffu);
    }
  }
  // Every word is now a digit below 2^32 (the top word too: the accumulator's 44 bits of headroom
  // above its top bit are never reached).
  int top = -1;  // the word of the leading bit
GPUREDUCE_UNROLL
  for (int p = 0; p < P; ++p)
    if (first + p < words && w[p]) top = first + p;
  top = team.max(top);
  if (top < 0) return convert<Out>((flags & flag_not_neg_zero) ? 0.0 : -0.0);
  std::uint32_t d[3];  // the digits of words top, top - 1, top - 2 (0 below word 0)
  bool below = false;  // any word under top - 2 non-zero
GPUREDUCE_UNROLL
  for (int k = 0; k < 3; ++k) {
    const int i = top - k, slot = i >= 0 ? i % P : 0;  // the same in every owner
    std::int64_t v = 0;
GPUREDUCE_UNROLL
    for (int p = 0; p < P; ++p)
      if (p == slot) v = w[p];
    const std::uint32_t digit = std::uint32_t(team.broadcast(v, i >= 0 ? i / P : 0));  // no branch
    d[k] = i >= 0 ? digit : 0u;
  }
GPUREDUCE_UNROLL
  for (int p = 0; p < P; ++p) below |= first + p < top - 2 && w[p] != 0;
  below = team.any(below);
  // n: the 64 bits from the leading one down; rest: whether any bit below those is set.
  const int lz = 31 - highest_bit(d[0]);
  const std::uint64_t head = std::uint64_t(d[0]) << 32 | d[1];
  const std::uint64_t n = lz ? head << lz | d[2] >> (32 - lz) : head;
  const bool rest = below || std::uint32_t(d[2] << lz) != 0;
  // The result's unit in the last place, as a relative bit position: precision bits below the
  // leading one, but not below Out's smallest subnormal.
  const int msb = 32 * top + 31 - lz;  // relative to 2^lsb_exp
  const int ulp = msb - (f.precision - 1) > f.lsb_exp - lsb_exp ? msb - (f.precision - 1) : f.lsb_exp - lsb_exp;
  const int kept = msb - ulp + 1;  // at most f.precision
  std::uint64_t m = 0;             // the kept bits
  bool round_bit = false, sticky = true;
  if (kept >= 0) {
    const int sh = 63 - kept;  // n's bit sh is the round bit
    m = kept > 0 ? n >> (sh + 1) : 0;
    round_bit = (n >> sh) & 1u;
    sticky = rest || (n & ((std::uint64_t(1) << sh) - 1)) != 0;
  }
  if (round_bit && ((m & 1) || sticky)) ++m;
  const int exp2 = ulp + lsb_exp;  // the result is m * 2^exp2
  // m * 2^exp2 is a value of Out (or too large for it): the scaling and the conversion are exact.
  const double r = m == 0                                      ? 0.0
                   : highest_bit(m) + exp2 >= f.max_exp ? inf
                                                                : times_pow2(double(m), exp2);
  return convert<Out>(neg ? -r : r);
}

// The same by one thread, over a whole accumulator.
template <class Out, int Words>
GPUREDUCE_HD Out round_to(std::int64_t (&w)[Words], int lsb_exp, unsigned flags) {
  return round_slice<Out>(w, 0, Words, lsb_exp, flags, Alone{});
}

}  // namespace gpureduce::detail::exact
