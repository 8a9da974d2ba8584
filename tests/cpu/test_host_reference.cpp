// The host reference and the floating-point bound: exact where it must be, and tight enough that
// a result missing one element fails.
#include "../../src/common/host_reference.hpp"
#include "../../src/common/random_data.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <vector>

namespace gpureduce {
namespace {

TEST(test_host_reference, integer_sum_is_exact_then_wrapped) {
  const std::int32_t x[] = {std::numeric_limits<std::int32_t>::max(), 1, 5};
  const HostSum<std::int32_t> r = host_sum(x, 3);
  EXPECT_EQ(r.exact, std::int64_t(std::numeric_limits<std::int32_t>::max()) + 6);
  EXPECT_EQ(wrapped<std::int32_t>(r.exact), std::numeric_limits<std::int32_t>::min() + 5);
  EXPECT_EQ(wrapped<std::int32_t>(-3), -3);
}

TEST(test_host_reference, float_sum_and_abs_sum) {
  const float x[] = {1.5f, -2.25f, 0.125f};
  const HostSum<float> r = host_sum(x, 3);
  EXPECT_EQ(r.sum, -0.625L);
  EXPECT_EQ(r.abs_sum, 3.875L);
}

TEST(test_host_reference, bound_accepts_rounding_rejects_a_missing_element) {
  const std::uint64_t n = 1 << 16;
  const auto v = random_values<float>(n, test::test_seed());
  const HostSum<float> r = host_sum(v.data(), n);
  float sequential = 0;
  for (float x : v) sequential += x;  // depth n: the worst order
  EXPECT_TRUE(check_float_sum(sequential, r.sum, r.abs_sum, n, n).ok);
  // A tree of depth 64 + n/4096 (the GPU's shape) rounds far less: dropping the largest element
  // (|x| close to 1, against a bound of about 64 * 2^-24 * n/2 = 0.125) fails.
  const std::uint64_t depth = summation_depth_bound(n, 4096);
  std::uint64_t big = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    if (std::fabs(v[i]) > std::fabs(v[big])) big = i;
  const float missing_one = static_cast<float>(r.sum - v[big]);
  EXPECT_FALSE(check_float_sum(missing_one, r.sum, r.abs_sum, n, depth).ok);
  EXPECT_TRUE(check_float_sum(static_cast<float>(r.sum), r.sum, r.abs_sum, n, depth).ok);
  EXPECT_FALSE(check_float_sum(std::numeric_limits<float>::quiet_NaN(), r.sum, r.abs_sum, n, depth).ok);
}

TEST(test_host_reference, product_bound_counts_every_multiplication) {
  constexpr long double u = std::numeric_limits<float>::epsilon() / 2.0L;
  EXPECT_EQ(product_relative_error_bound(0, u), 0);
  EXPECT_EQ(product_relative_error_bound(1, u), 0);
  EXPECT_DOUBLE_EQ(double(product_relative_error_bound(2, u)), double(u / (1 - u)));  // one rounding
  EXPECT_DOUBLE_EQ(double(product_relative_error_bound(33, u)), double(32 * u / (1 - 32 * u)));
  // Past 1/u multiplications only the probabilistic bound is finite: about 10 sqrt(n) u.
  const long double big = product_relative_error_bound((1u << 24) + 1, u);
  EXPECT_GT(big, 10 * 4096 * u);
  EXPECT_LT(big, 10.05L * 4096 * u);
}

// Factors within 1/16 of 1, steered so the product stays near 1 (as the GPU tests' product_input),
// multiplied in float in two orders (one chain; 256 strided chains, then a tree). A GPU test once
// failed at n = 14337 under a bound of gamma_h, h the tree's height (121): its error was 128 u.
TEST(test_host_reference, product_bound_holds_in_any_order_and_rejects_a_missing_factor) {
  const std::uint64_t seed = 14337;
  for (const std::uint64_t n : {14337ull, 1ull << 20}) {
    const auto v = random_values<float>(n, seed + n);
    std::vector<float> x(n);
    long double p = 1;
    for (std::uint64_t i = 0; i < n; ++i) {
      x[i] = 1 + (p > 1 ? -1.0f : 1.0f) * std::fabs(v[i]) / 16;
      p *= x[i];
    }
    const long double bound = product_relative_error_bound(n, std::numeric_limits<float>::epsilon() / 2.0L);
    float sequential = 1;
    for (float f : x) sequential *= f;
    std::vector<float> level(256, 1.0f);  // 256 strided chains, then a tree, as a GPU block
    for (std::uint64_t i = 0; i < n; ++i) level[i % 256] *= x[i];
    for (std::size_t w = 128; w >= 1; w /= 2)
      for (std::size_t i = 0; i < w; ++i) level[i] *= level[i + w];
    for (const float got : {sequential, level[0]})
      EXPECT_LE(std::fabs(got - p), bound * std::fabs(p)) << "n=" << n << " seed " << seed;
    std::uint64_t far = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      if (std::fabs(x[i] - 1) > std::fabs(x[far] - 1)) far = i;
    EXPECT_GT(std::fabs(p / x[far] - p), bound * std::fabs(p)) << "n=" << n;
  }
}

TEST(test_host_reference, small_integer_ranges_keep_float_sums_exact) {
  EXPECT_EQ(exact_integer_range<float>(1 << 20), 16);
  EXPECT_EQ(exact_integer_range<float>(1 << 24), 1);
  EXPECT_EQ(exact_integer_range<double>(1 << 26), 1 << 20);
  const auto v = random_small_integers<float>(1000, test::test_seed(), 16);
  bool negative = false, positive = false;
  for (float x : v) {
    EXPECT_EQ(x, std::floor(x));
    EXPECT_LE(std::fabs(x), 16.0f);
    negative |= x < 0;
    positive |= x > 0;
  }
  EXPECT_TRUE(negative && positive);
}

}  // namespace
}  // namespace gpureduce
