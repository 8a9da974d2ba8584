// A capped grid that strides over the input (rungs r7, r8): each block handles tiles b, b + grid, b
// + 2*grid, ... so a fixed number of resident blocks covers any n. Per Brent's theorem the
// sequential part per thread (n / (grid * block) items) costs nothing extra while the tree part
// shrinks to log2(block) steps for the whole tile stream.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/grid/arithmetic.hpp>

#include <cstdint>

namespace gpureduce::detail {

template <int ItemsPerThread>
struct GridStride {
  static_assert(ItemsPerThread >= 1);
  std::uint64_t n;
  unsigned block;
  std::uint64_t max_blocks;  // resident blocks the device can hold; >= 1

  GPUREDUCE_HD constexpr std::uint64_t tile() const { return std::uint64_t(ItemsPerThread) * block; }

  GPUREDUCE_HD constexpr std::uint64_t grid() const {
    return max_u64(1, min_u64(ceil_div(n, tile()), max_blocks));
  }

  template <class F>
  GPUREDUCE_HD void for_each(std::uint64_t b, unsigned t, F&& f) const {
    const std::uint64_t stride = grid() * tile();
    for (std::uint64_t base = b * tile() + t; base < n; base += stride) {
GPUREDUCE_UNROLL
      for (int k = 0; k < ItemsPerThread; ++k) {
        const std::uint64_t i = base + std::uint64_t(k) * block;
        if (i < n) f(i);
      }
    }
  }
};

}  // namespace gpureduce::detail
