// Integer helpers for grid sizing. 64-bit throughout: element counts may exceed 2^32.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::detail {

GPUREDUCE_HD constexpr std::uint64_t ceil_div(std::uint64_t a, std::uint64_t b) { return (a + b - 1) / b; }


GPUREDUCE_HD constexpr std::uint64_t min_u64(std::uint64_t a, std::uint64_t b) { return a < b ? a : b; }

GPUREDUCE_HD constexpr std::uint64_t max_u64(std::uint64_t a, std::uint64_t b) { return a > b ? a : b; }

}  // namespace gpureduce::detail
