// exact::narrow_batch_sum (a vector of 16-bit floats summed exactly in float where it fits) on the
// host: where it answers, its sum against an integer reference; where the exponent fields lie
// within the window, it answers; where they do not, or an element is NaN or infinite, it declines.
#include <gpureduce/exact/narrow_batch.hpp>

#include "../common/exact_cases.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace {

using namespace exact_cases;
using gpureduce::detail::exact::narrow_batch_sum;
using gpureduce::detail::exact::NarrowWindow;
using gpureduce::test::test_seed;

constexpr int K = 8;  // one 16-byte vector

// An element from its sign, exponent field and fraction.
template <class T>
T element(unsigned sign, unsigned field, unsigned fraction) {
  const Layout l = layout_of<T>();
  return from_bits<T>((std::uint64_t(sign) << (l.exp_bits + l.frac_bits)) | (std::uint64_t(field) << l.frac_bits) |
                      fraction);
}

// The exact sum of a vector whose exponent fields span at most 40 (every element an integer
// multiple of the smallest field's last bit, below 2^60 of them), as a long double: its 64-bit
// significand holds the sum of K such integers exactly.
template <class T>
long double integer_sum(const T (&y)[K]) {
  const Layout l = layout_of<T>();
  int low = 1 << l.exp_bits;
  for (const T& v : y) {
    const int f = int((bits_of(v) >> l.frac_bits) & ((1u << l.exp_bits) - 1));
    if ((bits_of(v) & ((std::uint64_t(1) << (l.exp_bits + l.frac_bits)) - 1)) != 0) low = std::min(low, std::max(f, 1));
  }
  __int128 sum = 0;
  for (const T& v : y) {
    const std::uint64_t b = bits_of(v);
    const int f = int((b >> l.frac_bits) & ((1u << l.exp_bits) - 1));
    const std::uint64_t frac = b & ((std::uint64_t(1) << l.frac_bits) - 1);
    const std::uint64_t m = f == 0 ? frac : frac | (std::uint64_t(1) << l.frac_bits);
    if (m == 0) continue;
    EXPECT_LE(std::max(f, 1) - low, 40);
    const __int128 scaled = __int128(m) << (std::max(f, 1) - low);
    sum += (b >> (l.exp_bits + l.frac_bits)) ? -scaled : scaled;
  }
  return std::ldexp(static_cast<long double>(sum), std::max(low, 1) - l.bias() - l.frac_bits);
}

template <class T>
class ExactNarrow : public ::testing::Test {};
using Types = ::testing::Types<__half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactNarrow, Types);

// Vectors whose fields lie within the window, anywhere from the subnormals to the top field,
// signs mixed: every one is summed, exactly.
TYPED_TEST(ExactNarrow, within_the_window_every_vector_is_summed_exactly) {
  using T = TypeParam;
  using W = NarrowWindow<T, K>;
  const Layout l = layout_of<T>();
  std::mt19937_64 rng(test_seed());
  for (int round = 0; round < 20000; ++round) {
    const unsigned top = 1 + unsigned(rng() % W::top_field);  // the vector's largest field
    const unsigned span = unsigned(rng() % (W::window + 1));
    T y[K];
    for (T& v : y) {
      const unsigned lowest = top > span ? top - span : 0;
      const unsigned f = lowest + unsigned(rng() % (top - lowest + 1));
      const bool zero = rng() % 8 == 0;
      v = element<T>(unsigned(rng() & 1), zero ? 0 : f, zero ? 0 : unsigned(rng() & ((1u << l.frac_bits) - 1)));
    }
    float s = -1;
    ASSERT_TRUE(narrow_batch_sum(y, s)) << "top field " << top << " span " << span;
    EXPECT_EQ(static_cast<long double>(s), integer_sum(y)) << "top field " << top << " span " << span;
  }
}

// One element past the window, or at a field above the top one (infinity and NaN among them):
// declined.
TYPED_TEST(ExactNarrow, past_the_window_or_special_it_declines) {
  using T = TypeParam;
  using W = NarrowWindow<T, K>;
  const Layout l = layout_of<T>();
  std::mt19937_64 rng(test_seed());
  const unsigned special = (1u << l.exp_bits) - 1;
  for (int round = 0; round < 2000; ++round) {
    T y[K];
    const unsigned low = 1 + unsigned(rng() % (W::top_field - W::window - 1));
    for (T& v : y) v = element<T>(unsigned(rng() & 1), low, unsigned(rng() & ((1u << l.frac_bits) - 1)));
    y[rng() % K] = element<T>(unsigned(rng() & 1), low + W::window + 1, 0);
    float s;
    EXPECT_FALSE(narrow_batch_sum(y, s)) << "fields " << low << " and " << low + W::window + 1;
    for (unsigned f = W::top_field + 1; f <= special; ++f) {
      T z[K];
      for (T& v : z) v = element<T>(0, W::top_field, 1);
      z[rng() % K] = element<T>(unsigned(rng() & 1), f, f == special ? unsigned(rng() % 2) : 0);
      EXPECT_FALSE(narrow_batch_sum(z, s)) << "field " << f;
    }
  }
}

// Subnormals and zeros: a subnormal's last bit is the lowest normal field's, and a zero joins any
// window. Zeros keep their sign where every element is -0.
TYPED_TEST(ExactNarrow, subnormals_and_signed_zeros) {
  using T = TypeParam;
  using W = NarrowWindow<T, K>;
  const Layout l = layout_of<T>();
  std::mt19937_64 rng(test_seed());
  float s;
  T y[K];
  for (T& v : y) v = element<T>(1, 0, 0);
  ASSERT_TRUE(narrow_batch_sum(y, s));
  EXPECT_TRUE(s == 0 && std::signbit(s));
  y[3] = element<T>(0, 0, 0);
  ASSERT_TRUE(narrow_batch_sum(y, s));
  EXPECT_TRUE(s == 0 && !std::signbit(s));
  for (int round = 0; round < 2000; ++round) {
    for (T& v : y) {
      const unsigned f = unsigned(rng() % (W::window + 2));  // 0 (subnormal or zero) to window + 1
      v = element<T>(unsigned(rng() & 1), f, unsigned(rng() & ((1u << l.frac_bits) - 1)));
    }
    ASSERT_TRUE(narrow_batch_sum(y, s));  // field 0 counts as 1: window + 1 - 1 is within it
    EXPECT_EQ(static_cast<long double>(s), integer_sum(y));
  }
  y[0] = element<T>(0, W::window + 2, 0);  // window + 1 above the subnormals' field
  y[1] = element<T>(1, 0, 1);
  EXPECT_FALSE(narrow_batch_sum(y, s));
}

}  // namespace
