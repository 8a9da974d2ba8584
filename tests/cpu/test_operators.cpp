// The operators the kernels use, run on the host.
#include <gpureduce/thread/operators.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

namespace gpureduce {
namespace {

TEST(test_thread_operators, sum_identity_and_values) {
  EXPECT_EQ(Sum::identity<std::int32_t>(), 0);
  EXPECT_EQ(Sum::identity<double>(), 0.0);
  EXPECT_EQ(Sum{}(3, -5), -2);
  EXPECT_EQ(Sum{}(0.5f, 0.25f), 0.75f);
}

TEST(test_thread_operators, signed_sum_wraps_modulo_2_pow_32) {
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t min = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(Sum{}(max, 1), min);
  EXPECT_EQ(Sum{}(min, -1), max);
  static_assert(Sum{}(max, 2) == min + 1, "wrap is defined, so usable in constant expressions");
}

}  // namespace
}  // namespace gpureduce
