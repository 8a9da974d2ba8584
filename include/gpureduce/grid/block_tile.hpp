// One tile of ItemsPerThread * block elements per block, one block per tile (rungs r0-r6). Thread t
// of block b reads b*tile + t, b*tile + t + block, ...: consecutive threads read consecutive
// addresses, so every load instruction of a warp is coalesced.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/arithmetic.hpp>

#include <cstdint>

namespace gpureduce::detail {

template <int ItemsPerThread>
struct BlockTile {
  static_assert(ItemsPerThread >= 1);
  std::uint64_t n;
  unsigned block;

  GPUREDUCE_HD constexpr std::uint64_t tile() const { return std::uint64_t(ItemsPerThread) * block; }

  // At least one block, so that n = 0 still launches a block that writes the identity.
  GPUREDUCE_HD constexpr std::uint64_t grid() const { return max_u64(1, ceil_div(n, tile())); }

  template <class F>
  GPUREDUCE_HD void for_each(std::uint64_t b, unsigned t, F&& f) const {
    const std::uint64_t base = b * tile() + t;
GPUREDUCE_UNROLL
    for (int k = 0; k < ItemsPerThread; ++k) {
      const std::uint64_t i = base + std::uint64_t(k) * block;
      if (i < n) f(i);
    }
  }
};

}  // namespace gpureduce::detail
