// The matrix-multiplication checks on the host: the full product against hand-computed values and
// wrap-around, Freivalds' check accepting right products and catching one planted wrong entry.
#include "../../src/common/matmul_reference.hpp"
#include "../common/test_seed.hpp"

#include <gpureduce/matmul/tiles.hpp>

#include <gtest/gtest.h>

#include <random>

namespace gpureduce::matmul {
using namespace gpureduce::detail;
namespace {

std::vector<std::int32_t> random_matrix(unsigned n, std::uint64_t seed, int lo, int hi) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> d(lo, hi);
  std::vector<std::int32_t> m(std::size_t(n) * n);
  for (auto& x : m) x = d(rng);
  return m;
}

TEST(test_matmul_reference, product_by_hand_and_wraparound) {
  const std::vector<std::int32_t> a{1, 2, 3, 4}, b{5, 6, 7, 8};
  EXPECT_EQ(host_product(a, b, 2), (std::vector<std::int32_t>{19, 22, 43, 50}));
  const std::vector<std::int32_t> big{65536, 0, 0, 65536};  // 2^16 * 2^16 = 2^32 wraps to 0
  EXPECT_EQ(host_product(big, big, 2), (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_EQ(std::int32_t(mad_wrap(0x7fffffffu, 1, 1)), std::int32_t(0x80000000u));
  EXPECT_EQ(tiles_for(1, 32), 1u);
  EXPECT_EQ(tiles_for(64, 32), 2u);
  EXPECT_EQ(tiles_for(65, 32), 3u);
}

TEST(test_matmul_reference, freivalds_accepts_right_and_catches_one_wrong_entry) {
  const std::uint64_t seed = test::test_seed();
  for (unsigned n : {1u, 7u, 64u, 100u}) {
    const auto a = random_matrix(n, seed, -1000, 1000), b = random_matrix(n, seed + 1, INT32_MIN, INT32_MAX);
    auto c = host_product(a, b, n);
    EXPECT_TRUE(freivalds(a, b, c, n, 20, seed)) << "n=" << n;
    EXPECT_TRUE(spot_check(a, b, c, n, 64, seed));
    EXPECT_TRUE(verify_product(a, b, c, n, seed));
    for (std::int32_t delta : {1, -1, 1 << 31, 2}) {  // one entry off, by an odd or even amount
      auto wrong = c;
      auto& e = wrong[std::size_t(seed % (std::uint64_t(n) * n))];
      e = std::int32_t(std::uint32_t(e) + std::uint32_t(delta));
      EXPECT_FALSE(freivalds(a, b, wrong, n, 20, seed + 2)) << "n=" << n << " delta=" << delta;
      EXPECT_FALSE(verify_product(a, b, wrong, n, seed + 3));
    }
  }
}

}  // namespace
}  // namespace gpureduce::matmul
