// The exact sum's exchange vectors (gpureduce/exact/exchange.hpp), as nccl.cuh adds them over
// ranks: an array split into k shards (k = 1..64, uneven, some empty), each shard's vector made on
// its own, the vectors added word by word in a shuffled order and rounded once, must give the
// oracle's exact sum of the whole array (GMP/MPFR), bit for bit.
#include <gpureduce/exact/host.hpp>

#include "../common/exact_oracle.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

namespace {

using namespace exact_cases;
namespace ex = gpureduce::detail::exact;
using gpureduce::test::test_seed;

// The sum over k shards of x: cut points drawn at random (repeats make empty shards), the shards'
// vectors added in a random order.
template <class Out, class T>
Out sharded_sum(const std::vector<T>& x, int k, std::mt19937_64& rng) {
  constexpr int words = ex::SumOf<T>::range.words(), size = ex::exchange_words(words);
  std::vector<std::size_t> cuts{0, x.size()};
  for (int i = 1; i < k; ++i) cuts.push_back(x.empty() ? 0 : rng() % (x.size() + 1));
  std::sort(cuts.begin(), cuts.end());
  std::vector<int> order(static_cast<std::size_t>(k));
  for (int i = 0; i < k; ++i) order[std::size_t(i)] = i;
  std::shuffle(order.begin(), order.end(), rng);
  std::int64_t total[size] = {};
  for (int s : order) {
    std::int64_t part[size];
    ex::exchange_host(x.data() + cuts[std::size_t(s)], cuts[std::size_t(s) + 1] - cuts[std::size_t(s)], part);
    for (int i = 0; i < size; ++i) total[i] += part[i];
  }
  return ex::round_exchange<Out, words>(total, ex::SumOf<T>::range.lsb_exp);
}

template <class T>
void expect_shards_exact(const std::vector<T>& x, const char* what, std::mt19937_64& rng) {
  const T want = oracle::exact_sum(x);
  const double want_d = oracle::exact_sum<double>(x);
  for (int k : {1, 2, 3, 4, 7, 8, 16, 33, 64}) {
    const T got = sharded_sum<T>(x, k, rng);
    EXPECT_TRUE(same(got, want)) << what << ": n=" << x.size() << " shards=" << k << " got bits 0x" << std::hex
                                 << bits_of(got) << " want 0x" << bits_of(want);
    if constexpr (!std::is_same_v<T, double>) {
      const double got_d = sharded_sum<double>(x, k, rng);
      EXPECT_TRUE(same(got_d, want_d)) << what << " (into double): n=" << x.size() << " shards=" << k;
    }
  }
}

template <class T>
class ExactExchange : public ::testing::Test {};
using Types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactExchange, Types);

TYPED_TEST(ExactExchange, ShardsOverTheWholeExponentRange) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  for (std::size_t n : {0, 1, 5, 64, 1000, 4099}) {
    std::vector<T> x(n);
    for (T& v : x) v = random_finite<T>(rng);
    expect_shards_exact(x, "random", rng);
  }
}

// Each value and its negation in different shards (most likely), a tiny residue left: the sum
// cancels to the residue, exactly, across shards.
TYPED_TEST(ExactExchange, CancellationAcrossShards) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  std::vector<T> x;
  for (int i = 0; i < 500; ++i) x.push_back(random_finite<T>(rng));
  for (int i = 0; i < 500; ++i) x.push_back(negate(x[std::size_t(i)]));
  std::shuffle(x.begin(), x.end(), rng);
  x.push_back(random_subnormal<T>(rng));
  expect_shards_exact(x, "cancellation", rng);
}

// A tie between two neighbours of T, decided by a tiny term in another shard (or by none).
TYPED_TEST(ExactExchange, TiesDecidedAcrossShards) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  const T one = value<T>(1.0);
  const T half_ulp = value<T>(std::ldexp(1.0, -ex::format_of<T>().precision));  // 1 + this: a tie
  const T tiny = from_bits<T>(1);                                              // the smallest subnormal
  for (int sign : {1, -1}) {
    std::vector<T> tie = {one, half_ulp};
    std::vector<T> above = {one, half_ulp, tiny};
    std::vector<T> below = {one, half_ulp, negate(tiny)};
    for (auto* x : {&tie, &above, &below}) {
      if (sign < 0)
        for (T& v : *x) v = negate(v);
      for (int i = 0; i < 40; ++i) x->push_back(value<T>(0.0));  // room for the cuts to fall apart
      expect_shards_exact(*x, "tie", rng);
    }
  }
}

// Partial sums beyond T's range in one shard, back in range with another's: no overflow until the
// end; and a total beyond the range rounds to infinity. NaN and infinities in one shard, the sign
// of zero over shards of -0.0 and empty shards.
TYPED_TEST(ExactExchange, OverflowAndSpecialValuesAcrossShards) {
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  const T max = from_bits<T>(exp_mask<T>() - 1);  // the largest finite value
  expect_shards_exact(std::vector<T>{max, max, max, negate(max), negate(max), max}, "back in range", rng);
  expect_shards_exact(std::vector<T>{max, max, max}, "overflow", rng);
  const T inf = from_bits<T>(exp_mask<T>()), nan = from_bits<T>(exp_mask<T>() | 1);
  expect_shards_exact(std::vector<T>{max, inf, value<T>(1.0)}, "inf", rng);
  expect_shards_exact(std::vector<T>{inf, value<T>(2.0), negate(inf)}, "inf - inf", rng);
  expect_shards_exact(std::vector<T>{value<T>(1.0), nan, value<T>(3.0)}, "nan", rng);
  const T neg_zero = negate(value<T>(0.0));
  expect_shards_exact(std::vector<T>(9, neg_zero), "-0", rng);
  expect_shards_exact(std::vector<T>{neg_zero, value<T>(0.0), neg_zero}, "-0 + 0", rng);
}

}  // namespace
