// How an exact sum's reading block hands its superaccumulator to the grid's combiner block
// (kernel/exact_kernel.cuh): as packets of three words and a nonzero flag byte in the grid
// workspace's flagged slots (grid/flagged_partial.hpp), each written and read as one 16-byte
// access, so a packet's words and flag are seen together or not at all. The combiner polls every
// packet until it is full and empties it, as the plain grids' combiner does: the flagged region
// is empty (zero) between launches, for them and for the next exact sum. No fence and no ticket:
// each packet carries its own flag. The words are the block's, unnormalized: after one carry step
// per warp accumulator every word is below 2^33 in magnitude and a block of 16 warps adds 16 of
// them, so each goes in a 40-bit field offset by 2^37 (the combiner's rounding takes words in any
// carry state, and carries once for the grid). Packet 0's flag byte also carries the block's
// special-value flags (exact/superaccumulator.hpp, below 16). Host-testable.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/flagged_partial.hpp>

#include <cstdint>

namespace gpureduce::detail::exact {

inline constexpr int packet_words = 3;
inline constexpr int packet_field_bits = 40;
inline constexpr std::int64_t packet_word_bound = std::int64_t(1) << 37;  // |word| below it
inline constexpr std::uint32_t packet_full = 0x10;                         // above every special-value flag

GPUREDUCE_HD constexpr int packets(int words) { return (words + packet_words - 1) / packet_words; }

// Packet p of a block whose words are w[0, words), each below packet_word_bound in magnitude,
// with its special-value flags in packet 0. Fields: bits [0, 40), [40, 80), [80, 120); the flag
// byte: bits [120, 128).
GPUREDUCE_HD FlaggedPartial pack_words(const std::int64_t* w, int words, int p, unsigned flags) {
  std::uint64_t f[packet_words];
  for (int j = 0; j < packet_words; ++j) {
    const int i = p * packet_words + j;
    f[j] = std::uint64_t((i < words ? w[i] : 0) + packet_word_bound);
  }
  const std::uint64_t flag = packet_full | (p == 0 ? flags : 0u);
  return {f[0] | f[1] << 40, f[1] >> 24 | f[2] << 16 | flag << 56};
}

GPUREDUCE_HD bool packet_is_full(const FlaggedPartial& v) { return (v.hi >> 56) != 0; }

// Adds packet p's words into s[0, 3) and its special-value flags into flags.
GPUREDUCE_HD void add_packet(const FlaggedPartial& v, int p, std::int64_t (&s)[packet_words], unsigned& flags) {
  constexpr std::uint64_t field = (std::uint64_t(1) << packet_field_bits) - 1;
  const std::uint64_t f[packet_words] = {v.lo & field, (v.lo >> 40 | v.hi << 24) & field, (v.hi >> 16) & field};
  for (int j = 0; j < packet_words; ++j) s[j] += std::int64_t(f[j]) - packet_word_bound;
  if (p == 0) flags |= unsigned(v.hi >> 56) & ~packet_full;
}

}  // namespace gpureduce::detail::exact
