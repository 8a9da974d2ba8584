// The exact sum of a part, as the integers that other GPUs add to it (nccl.cuh): a vector of
// int64 words, the same for every part of one input type. Words [0, words): the part's
// superaccumulator after one carry step (each word below 2^33 in magnitude, the top one signed);
// then one word per special-value flag (0 or 1: NaN, +inf, -inf, a value that is not -0.0); then
// the part's count. The word-by-word integer sum of the vectors of disjoint parts is a vector of
// their union (its words in another carry state, which rounding resolves), so adding them in any
// order, by any all-reduce, and rounding once gives the exact sum of the whole, bit for bit.
// Parts of up to 2^40 elements; the words' 30 bits of headroom take up to 2^29 parts.
#pragma once

#include <gpureduce/exact/superaccumulator.hpp>

#include <cstdint>

namespace gpureduce::detail::exact {

inline constexpr int exchange_flag_words = 4;  // flag_nan, flag_pos_inf, flag_neg_inf, flag_not_neg_zero

GPUREDUCE_HD constexpr int exchange_words(int words) { return words + exchange_flag_words + 1; }

// An element of the vector as a kernel writes it: a type of its own, so that an exact sum into an
// exchange vector is not an exact sum into an integer (which the API refuses).
struct ExchangeWord {
  std::int64_t v;
};

// Word i of a part's vector, from its accumulator w[0, words) (any carry state, each word below
// 2^62 in magnitude), its flags (without the empty sum's flag_not_neg_zero) and its count.
GPUREDUCE_HD std::int64_t exchange_word(const std::int64_t* w, int words, int i, unsigned flags, std::uint64_t n) {
  if (i < words) return carry_step(w, i, words);
  if (i < words + exchange_flag_words) return std::int64_t((flags >> (i - words)) & 1u);
  return std::int64_t(n);
}

// The flags to round a summed vector x with: those of any part, and flag_not_neg_zero also where
// no part had an element (the empty sum is +0).
GPUREDUCE_HD unsigned exchange_flags(const std::int64_t* x, int words) {
  unsigned f = 0;
  for (int j = 0; j < exchange_flag_words; ++j)
    if (x[words + j] != 0) f |= 1u << j;
  return x[words + exchange_flag_words] == 0 ? f | flag_not_neg_zero : f;
}

// A summed vector rounded once into Out, by one thread.
template <class Out, int Words>
GPUREDUCE_HD Out round_exchange(const std::int64_t* x, int lsb_exp) {
  std::int64_t w[Words];
  for (int i = 0; i < Words; ++i) w[i] = x[i];
  return round_to<Out>(w, lsb_exp, exchange_flags(x, Words));
}

}  // namespace gpureduce::detail::exact
