// prmt (__byte_perm): each of the four result bytes picked by a nibble of the selector from the
// eight bytes of (y, x), x's bytes 0-3 and y's 4-7; a nibble's bit 3 replicates the picked byte's
// sign instead. One instruction on the device, emulated on the host for the CPU tests.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::detail {

GPUREDUCE_HD std::uint32_t byte_perm(std::uint32_t x, std::uint32_t y, std::uint32_t sel) {
#if defined(__CUDA_ARCH__)
  std::uint32_t r;
  asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(x), "r"(y), "r"(sel));
  return r;
#else
  const std::uint64_t bytes = std::uint64_t(y) << 32 | x;
  std::uint32_t r = 0;
  for (int i = 0; i < 4; ++i) {
    const unsigned nib = (sel >> (4 * i)) & 0xF;
    const std::uint32_t byte = std::uint32_t(bytes >> (8 * (nib & 7))) & 0xFF;
    r |= (nib & 8 ? (byte & 0x80 ? 0xFFu : 0u) : byte) << (8 * i);
  }
  return r;
#endif
}

}  // namespace gpureduce::detail
