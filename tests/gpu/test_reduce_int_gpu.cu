#include "reduce_typed_tests.cuh"

namespace gpureduce::test {
using IntTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                  std::int64_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(ints, test_reduce_types, IntTypes);

namespace {

// Sums of 8- and 16-bit integers add each 16-byte vector in 32 bits first (thread/packed_sum.hpp):
// inputs at the type's extremes, and accumulators the caller chose (a narrower one wraps in its
// own width, as element-by-element addition would).
template <class T>
void check_small_integer_sums(std::uint64_t seed) {
  for (const std::uint64_t n : {33ull, 4097ull, 300007ull, (1ull << 20) + 3}) {
    for (const T fill : {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " fill=" + std::to_string(+fill));
      const std::vector<T> h(n, fill);
      const DeviceInput<T> d(h, 3);
      const std::int64_t exact = std::int64_t(n) * fill;
      EXPECT_EQ(std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { sum(d.get(), n, o); })), exact);
      EXPECT_EQ(run_to_host<std::int32_t>([&](std::int32_t* o) { sum<std::int32_t>(d.get(), n, o); }),
                static_cast<std::int32_t>(exact));
      EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { sum<std::int16_t>(d.get(), n, o); }),
                static_cast<std::int16_t>(exact));
      EXPECT_EQ(run_to_host<std::uint64_t>([&](std::uint64_t* o) { sum<std::uint64_t>(d.get(), n, o); }),
                static_cast<std::uint64_t>(exact));
    }
    const auto h = random_input<T>(n, seed + n);
    const DeviceInput<T> d(h, 1);
    const std::uint64_t exact = reference::int_sum(h.data(), n);
    EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { sum<std::int16_t>(d.get(), n, o); }),
              static_cast<std::int16_t>(exact))
        << "n=" << n;
  }
}

TEST(test_reduce_small_integers, packed_sums_at_extremes_and_other_accumulators) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  check_small_integer_sums<std::int8_t>(seed);
  check_small_integer_sums<std::uint8_t>(seed);
  check_small_integer_sums<std::int16_t>(seed);
  check_small_integer_sums<std::uint16_t>(seed);
}

// Dot products of 8-bit arrays form each vector's 16 products in 32 bits (packed_dot, dp4a): two
// different arrays, at the extremes and random, b misaligned against a or not, sizes through
// the one-block and grid kernels, and accumulators the caller chose.
template <class T>
void check_byte_dots(std::uint64_t seed) {
  constexpr T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
  for (const std::uint64_t n : {1ull, 31ull, 33ull, 4097ull, 40000ull, 300007ull, (1ull << 20) + 3}) {
    for (const unsigned b_offset : {0u, 5u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " b offset=" + std::to_string(b_offset));
      for (const auto [x, y] : {std::pair{lo, lo}, std::pair{hi, hi}, std::pair{lo, hi}}) {
        const DeviceInput<T> a(std::vector<T>(n, x), 0), b(std::vector<T>(n, y), b_offset);
        const std::int64_t exact = std::int64_t(n) * x * y;
        EXPECT_EQ(std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { dot(a.get(), b.get(), n, o); })),
                  exact);
        EXPECT_EQ(run_to_host<std::int32_t>([&](std::int32_t* o) { dot<std::int32_t>(a.get(), b.get(), n, o); }),
                  static_cast<std::int32_t>(exact));
        EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { dot<std::int16_t>(a.get(), b.get(), n, o); }),
                  static_cast<std::int16_t>(exact));
      }
      const auto ha = random_input<T>(n, seed + n), hb = random_input<T>(n, seed + 2 * n + 1);
      const DeviceInput<T> a(ha, 3), b(hb, 3 + b_offset);
      std::int64_t exact = 0;
      for (std::uint64_t i = 0; i < n; ++i) exact += std::int64_t(ha[i]) * hb[i];
      EXPECT_EQ(std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { dot(a.get(), b.get(), n, o); })),
                exact);
      EXPECT_EQ(run_to_host<std::uint64_t>([&](std::uint64_t* o) { dot<std::uint64_t>(a.get(), b.get(), n, o); }),
                static_cast<std::uint64_t>(exact));
      EXPECT_EQ(run_to_host<double>([&](double* o) { dot<double>(a.get(), b.get(), n, o); }), double(exact));
    }
  }
}

TEST(test_reduce_small_integers, byte_dot_products_exact) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  check_byte_dots<std::int8_t>(seed);
  check_byte_dots<std::uint8_t>(seed);
}

}  // namespace
}  // namespace gpureduce::test
