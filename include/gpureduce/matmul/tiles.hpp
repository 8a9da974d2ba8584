// Index arithmetic of the matrix-multiplication rungs, host-testable. Matrices are N x N int32,
// row-major. Products and sums wrap modulo 2^32, as int32 arithmetic would without overflow being
// undefined: every rung computes in uint32 and the bits are the int32 result.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::matmul {
using namespace gpureduce::detail;

GPUREDUCE_HD constexpr unsigned tiles_for(unsigned n, unsigned tile) { return (n + tile - 1) / tile; }

// One multiply-add modulo 2^32 on the int32 bit patterns.
GPUREDUCE_HD constexpr std::uint32_t mad_wrap(std::uint32_t acc, std::int32_t a, std::int32_t b) {
  return acc + std::uint32_t(a) * std::uint32_t(b);
}

// Element (r, c) of an N x N matrix, or 0 outside it (the tiles' padding).
GPUREDUCE_HD std::int32_t at_or_zero(const std::int32_t* m, unsigned n, unsigned r, unsigned c) {
  return r < n && c < n ? m[std::uint64_t(r) * n + c] : 0;
}

}  // namespace gpureduce::matmul
