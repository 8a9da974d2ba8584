// How an exact sum's reading block hands its superaccumulator to the grid's combiner block
// (kernel/exact_kernel.cuh): as packets of three 32-bit digits and a nonzero flag word in the
// grid workspace's flagged slots (grid/flagged_partial.hpp), each written and read as one 16-byte
// access, so a packet's digits and flag are seen together or not at all. The combiner polls every
// packet until it is full and empties it, as the plain grids' combiner does: the flagged region
// is empty (zero) between launches, for them and for the next exact sum. No fence and no ticket:
// each packet carries its own flag. Packet 0's flag word also carries the block's special-value
// flags (exact/superaccumulator.hpp, below 16). Host-testable.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/flagged_partial.hpp>

#include <cstdint>

namespace gpureduce::exact {

inline constexpr int packet_digits = 3;
inline constexpr std::uint32_t packet_full = 0x100;  // above every special-value flag

GPUREDUCE_HD constexpr int packets(int words) { return (words + packet_digits - 1) / packet_digits; }

// Packet p of a block whose normalized words (digits, the top word signed) are digits[0, words),
// with its special-value flags in packet 0.
GPUREDUCE_HD FlaggedPartial pack_digits(const std::int64_t* digits, int words, int p, unsigned flags) {
  std::uint32_t d[packet_digits];
  for (int j = 0; j < packet_digits; ++j) {
    const int i = p * packet_digits + j;
    d[j] = i < words ? std::uint32_t(digits[i]) : 0u;
  }
  const std::uint32_t flag = packet_full | (p == 0 ? flags : 0u);
  return {d[0] | std::uint64_t(d[1]) << 32, d[2] | std::uint64_t(flag) << 32};
}

GPUREDUCE_HD bool packet_is_full(const FlaggedPartial& v) { return (v.hi >> 32) != 0; }

// Adds packet p's digits into s[0, 3) (words p * 3 ...; the top word sign-extended) and its
// special-value flags into flags.
GPUREDUCE_HD void add_packet(const FlaggedPartial& v, int words, int p, std::int64_t (&s)[packet_digits],
                             unsigned& flags) {
  const std::uint32_t d[packet_digits] = {std::uint32_t(v.lo), std::uint32_t(v.lo >> 32), std::uint32_t(v.hi)};
  for (int j = 0; j < packet_digits; ++j)
    s[j] += p * packet_digits + j == words - 1 ? std::int64_t(std::int32_t(d[j])) : std::int64_t(d[j]);
  flags |= std::uint32_t(v.hi >> 32) & ~packet_full;
}

}  // namespace gpureduce::exact
