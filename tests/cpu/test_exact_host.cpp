// The host exact sum (gpureduce::exact_sum_host, the same code the GPU kernel runs per thread and
// per block) against the GMP/MPFR oracle, bit for bit, for float, double, __half and bfloat16.
#include <gpureduce/exact/host.hpp>
#include <gpureduce/exact/pair_round.hpp>

#include "../common/exact_oracle.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace exact_cases;

using gpureduce::test::test_seed;

template <class T>
void expect_exact(const std::vector<T>& x, const char* what) {
  const T got = gpureduce::exact_sum_host(x.data(), x.size());
  const T want = oracle::exact_sum(x);
  EXPECT_TRUE(same(got, want)) << what << ": n=" << x.size() << " got bits 0x" << std::hex
                               << bits_of(got) << " want 0x" << bits_of(want);
  // In double too: the same exact sum rounded once into the wider format.
  if constexpr (!std::is_same_v<T, double>) {
    const double got_d = gpureduce::exact_sum_host<double>(x.data(), x.size());
    const double want_d = oracle::exact_sum<double>(x);
    EXPECT_TRUE(same(got_d, want_d)) << what << " (into double): n=" << x.size();
  }
}

template <class T>
class ExactHost : public ::testing::Test {};
using Types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactHost, Types);

TYPED_TEST(ExactHost, random_mixed_signs_whole_exponent_range) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  for (std::size_t n : {1, 2, 3, 31, 100, 1000, 10007}) {
    std::vector<T> x(n);
    for (T& v : x) v = random_finite<T>(rng);
    expect_exact(x, "random");
  }
}

// Values in [-1, 1): the batches' branch-free path (every addition to hi exact) for most terms.
TYPED_TEST(ExactHost, well_conditioned_values_take_the_fast_path) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  std::uniform_real_distribution<double> d(-1, 1);
  for (std::size_t n : {4, 7, 100003}) {
    std::vector<T> x(n);
    for (T& v : x) v = value<T>(d(rng));
    expect_exact(x, "well conditioned");
  }
}

// Exponent fields in a band of 9 anywhere from the subnormals to the largest finite field, zeros
// among them: the 16-bit types' vectors summed in float first (exact/narrow_batch.hpp), their
// sums near the top beyond the type's own range, near the bottom subnormal floats.
TYPED_TEST(ExactHost, narrow_exponent_bands_from_subnormal_to_largest) {
  using T = TypeParam;
  const std::uint64_t top = top_field<T>();
  std::mt19937_64 rng(test_seed());
  for (std::uint64_t low : {std::uint64_t(0), std::uint64_t(1), top / 2, top - 8}) {
    for (std::size_t n : {8, 64, 4099}) {
      std::vector<T> x(n);
      for (T& v : x) v = in_exponent_band<T>(low, rng);
      expect_exact(x, "narrow band");
    }
  }
}

TYPED_TEST(ExactHost, heavy_cancellation_leaves_the_tiny_residue) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  for (std::size_t pairs : {1, 10, 1000}) {
    std::vector<T> x;
    for (std::size_t i = 0; i < pairs; ++i) {
      const T v = random_finite<T>(rng);
      x.push_back(v);
      x.push_back(negate(v));
    }
    x.push_back(random_subnormal<T>(rng));
    x.push_back(random_finite<T>(rng));
    std::shuffle(x.begin(), x.end(), rng);
    expect_exact(x, "cancellation");
  }
}

TYPED_TEST(ExactHost, ties_round_to_even) {
  using T = TypeParam;
  const Layout l = layout_of<T>();
  const double half_ulp_of_one = std::ldexp(1.0, -l.frac_bits - 1);
  // 1 + half an ulp: a tie, to the even 1. (1 + ulp) + half an ulp: a tie, up to 1 + 2 ulp. The
  // half ulp arrives in two quarters and beside a large cancelling pair, so no partial sum sees it.
  const T big = value<T>(std::ldexp(1.0, l.bias() / 2));
  for (double base : {1.0, 1.0 + 2 * half_ulp_of_one}) {
    const std::vector<T> x{value<T>(base), big, value<T>(half_ulp_of_one / 2), negate(big),
                           value<T>(half_ulp_of_one / 2)};
    expect_exact(x, "tie");
    const T got = gpureduce::exact_sum_host(x.data(), x.size());
    EXPECT_EQ(gpureduce::detail::convert<double>(got), base == 1.0 ? 1.0 : 1.0 + 4 * half_ulp_of_one);
  }
  std::mt19937_64 rng(test_seed());
  for (int k = 0; k < 200; ++k) {  // random ties: a value, plus exactly half its ulp in pieces
    const T a = value<T>(std::ldexp(1.0 + double(rng() % 1000) / 1000, int(rng() % 20) - 10));
    const double ulp = std::ldexp(1.0, std::ilogb(gpureduce::detail::convert<double>(a)) - l.frac_bits);
    const std::vector<T> x{a, value<T>(ulp / 4), value<T>(ulp / 8), value<T>(ulp / 8)};
    expect_exact(x, "random tie");
  }
}

TYPED_TEST(ExactHost, overflow_to_infinity_and_back) {
  using T = TypeParam;
  const Layout l = layout_of<T>();
  const T max = from_bits<T>(exp_mask<T>() - 1);  // largest finite
  const T half_ulp_of_max = value<T>(std::ldexp(1.0, l.bias() - l.frac_bits - 1));
  expect_exact(std::vector<T>{max, max}, "max + max");
  expect_exact(std::vector<T>{max, max, negate(max)}, "max + max - max");
  expect_exact(std::vector<T>{max, half_ulp_of_max}, "max + half ulp (tie, to infinity)");
  expect_exact(std::vector<T>{max, half_ulp_of_max, negate(from_bits<T>(1))}, "just below the tie");
  const T inf = from_bits<T>(exp_mask<T>());
  const T got = gpureduce::exact_sum_host(std::vector<T>{max, max}.data(), 2);
  EXPECT_EQ(bits_of(got), bits_of(inf));
  std::vector<T> many(1000, max);
  for (int i = 0; i < 999; ++i) many.push_back(negate(max));
  expect_exact(many, "1000 max - 999 max");
}

TYPED_TEST(ExactHost, subnormals_only) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  for (std::size_t n : {1, 2, 17, 5000}) {
    std::vector<T> x(n);
    for (T& v : x) v = random_subnormal<T>(rng);
    expect_exact(x, "subnormal");
  }
}

TYPED_TEST(ExactHost, special_values) {
  using T = TypeParam;
  const T inf = from_bits<T>(exp_mask<T>()), ninf = negate(inf);
  const T nan = from_bits<T>(exp_mask<T>() | (exp_mask<T>() >> 1 & ~exp_mask<T>()) | 1);
  const T one = value<T>(1.0), zero = value<T>(0.0), nzero = negate(zero);
  const auto sum = [](std::vector<T> x) { return gpureduce::exact_sum_host(x.data(), x.size()); };
  const auto is_nan = [](T x) { return gpureduce::detail::convert<double>(x) != gpureduce::detail::convert<double>(x); };
  EXPECT_TRUE(is_nan(sum({one, nan, one})));
  EXPECT_TRUE(is_nan(sum({inf, one, ninf})));
  EXPECT_TRUE(is_nan(sum({inf, nan})));
  EXPECT_EQ(bits_of(sum({one, inf, one})), bits_of(inf));
  EXPECT_EQ(bits_of(sum({ninf, one})), bits_of(ninf));
  EXPECT_EQ(bits_of(sum({nzero, nzero, nzero})), bits_of(nzero));
  EXPECT_EQ(bits_of(sum({nzero, zero})), bits_of(zero));
  EXPECT_EQ(bits_of(sum({one, negate(one)})), bits_of(zero));
  EXPECT_EQ(bits_of(sum({})), bits_of(zero));
  for (const std::vector<T>& x : {std::vector<T>{nzero}, {nzero, zero, nzero}, {one, nan}, {inf, ninf}, {inf, one}})
    expect_exact(x, "special");
}

// round_pair (the exact per-row sums' cheap end): x = h + l (h = fl(x)) rounded once into Out, or
// declined; where it answers, the oracle's rounding of x. Pairs over the whole double range, of
// every ratio of l to h's ulp, and on Out's midpoints, their neighbours and its subnormals.
template <class Out>
void expect_pair(double a, double b, int& answered) {
  const gpureduce::detail::exact::TwoSum t = gpureduce::detail::exact::two_sum(a, b);
  if (t.s - t.s != 0) return;
  Out got;
  if (!gpureduce::detail::exact::round_pair(t.s, t.e, &got)) return;
  ++answered;
  const Out want = oracle::exact_sum<Out>(std::vector<double>{t.s, t.e});
  ASSERT_TRUE(same(got, want)) << std::hexfloat << "h=" << t.s << " l=" << t.e << std::hex << " got 0x"
                               << bits_of(got) << " want 0x" << bits_of(want);
}

TYPED_TEST(ExactHost, pair_rounding_matches_the_oracle) {
  using Out = TypeParam;
  const Layout l = layout_of<Out>();
  std::mt19937_64 rng(test_seed());
  int answered = 0;
  for (int k = 0; k < 20000; ++k) {
    // Near Out's values: a value of Out, plus a fraction of its ulp (midpoints among them), plus
    // a tiny term below the double's ulp.
    const double v = gpureduce::detail::convert<double>(random_finite<Out>(rng));
    const double ulp = std::ldexp(1.0, std::max(std::ilogb(v == 0 ? 1.0 : v), 1 - l.bias()) - l.frac_bits);
    const double frac = double(int(rng() % 9) - 4) / 8;  // -1/2 .. 1/2 of an ulp
    const double tiny = std::ldexp(double(int(rng() % 3) - 1), std::ilogb(v == 0 ? 1.0 : v) - 60);
    expect_pair<Out>(v + frac * ulp, tiny, answered);
    // Anywhere: two random doubles.
    expect_pair<Out>(random_finite<double>(rng), random_finite<double>(rng) * std::ldexp(1.0, -int(rng() % 80)),
                     answered);
  }
  EXPECT_GT(answered, 20000);  // most pairs answered, not declined
}

TEST(ExactHostDot, float_products_exact) {
  std::mt19937_64 rng(test_seed());
  for (std::size_t n : {1, 3, 100, 4099}) {
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = random_finite<float>(rng);
      b[i] = random_finite<float>(rng);
    }
    const float got = gpureduce::exact_dot_host(a.data(), b.data(), n);
    const float want = oracle::exact_dot(a, b);
    EXPECT_TRUE(same(got, want)) << "n=" << n;
    const double got_d = gpureduce::exact_dot_host<double>(a.data(), b.data(), n);
    EXPECT_TRUE(same(got_d, oracle::exact_dot<double>(a, b))) << "n=" << n;
  }
}

// Accuracy on an ill-conditioned sum: the plain float sum loses everything, exact does not.
TEST(ExactHostAccuracy, ill_conditioned_float_sum) {
  const std::vector<float> x{1e8f, 1.0f, -1e8f, 1.0f, 3e-8f};
  float naive = 0;
  for (float v : x) naive += v;
  EXPECT_EQ(naive, 1.0f);  // the first 1 is lost against 1e8
  EXPECT_EQ(gpureduce::exact_sum_host(x.data(), x.size()), 2.0f);
  EXPECT_EQ(gpureduce::exact_sum_host<double>(x.data(), x.size()), 2.0 + double(3e-8f));
}

}  // namespace
