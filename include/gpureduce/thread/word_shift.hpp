// Shifting loaded 16-byte words by a byte offset, for vectors read from addresses that are not
// 16-byte aligned (thread/shifted_load.cuh). Host and device code, so that the CPU tests cover it.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::detail {

// r[0, 4 * Words) = the 32-bit words that start d bytes into w[0, 4 * Words + 4) (Words + 1 words
// of 16 bytes, little-endian), for 0 < d < 16 with d a multiple of Align (1, 2, 4 or 8: the
// elements' alignment, which the offset of any valid address keeps).
template <unsigned Words, unsigned Align>
GPUREDUCE_HD void shift_words(const std::uint32_t* w, unsigned d, std::uint32_t* r) {
  static_assert(Words >= 1 && (Align == 1 || Align == 2 || Align == 4 || Align == 8));
  constexpr unsigned n = 4 * Words;
  // By whole 32-bit words: selects on d, the same in every lane (an array indexed by d would go to
  // local memory); then by the bytes left, where d may have them: a funnel shift (SHF).
  const unsigned by_words = d / 4, bits = 8 * (d % 4);
  std::uint32_t s[n + 1];
GPUREDUCE_UNROLL
  for (unsigned i = 0; i <= n; ++i) {
    if constexpr (Align == 8) {
      s[i] = w[i + 2];  // d == 8
    } else {
      s[i] = by_words == 1 ? w[i + 1] : by_words == 2 ? w[i + 2] : w[i + 3];
      if constexpr (Align < 4) s[i] = by_words == 0 ? w[i] : s[i];
    }
  }
GPUREDUCE_UNROLL
  for (unsigned i = 0; i < n; ++i) {
    if constexpr (Align < 4) r[i] = std::uint32_t(((std::uint64_t(s[i + 1]) << 32) | s[i]) >> bits);
    else r[i] = s[i];
  }
}

}  // namespace gpureduce::detail
