// OrderedBest (thread/ordered_best.hpp): over sequences met in index order, with ties, NaN, the
// infinities and the identity's own value, it gives the value bits and index of the operator's
// own fold, for argmin and argmax under both NaN policies.
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/ordered_best.hpp>
#include <gpureduce/thread/result_types.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gpureduce::detail {
namespace {

template <class V, class Op>
void expect_same_fold(const Op& op, const std::vector<V>& xs, const std::string& what) {
  using P = IndexedValue<V>;
  P want = op.template identity<P>();
  OrderedBest<V, Op> best;
  for (std::size_t i = 0; i < xs.size(); ++i) {
    want = op(want, op.template lift<P>(xs[i], std::int64_t(i)));
    best.fold(op, xs[i], std::int64_t(i));
  }
  if (xs.empty()) {
    EXPECT_LT(best.tag, 0) << what;
    return;
  }
  EXPECT_EQ(best.tag, want.index) << what;
  EXPECT_EQ(std::memcmp(&best.value, &want.value, sizeof(V)), 0) << what;
}

template <class V, class Op>
void check_random(Op op, const std::vector<V>& pool, const char* name) {
  const std::uint64_t seed = test::test_seed() ^ std::uint64_t(pool.size() * 131 + sizeof(V));
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 2000; ++round) {
    std::vector<V> xs(rng() % 12);
    for (auto& x : xs) x = pool[rng() % pool.size()];
    expect_same_fold(op, xs, std::string(name) + " round " + std::to_string(round) + ", seed " + std::to_string(seed));
    if (::testing::Test::HasFailure()) return;
  }
}

TEST(OrderedBest, MatchesTheOperatorsFold) {
  constexpr float inf = std::numeric_limits<float>::infinity();
  const float nan_a = std::numeric_limits<float>::quiet_NaN();
  float nan_b = nan_a;
  const std::uint32_t payload = 0x7fc00123u;
  std::memcpy(&nan_b, &payload, sizeof(nan_b));
  const std::vector<float> floats = {-inf, inf, -1.0f, 0.0f, -0.0f, 2.5f, 2.5f, nan_a, nan_b,
                                     std::numeric_limits<float>::max(), std::numeric_limits<float>::lowest()};
  const std::vector<std::int32_t> ints = {std::numeric_limits<std::int32_t>::min(),
                                          std::numeric_limits<std::int32_t>::max(), -3, 0, 7, 7};
  for (NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
    check_random(ArgMax{nan}, floats, "float argmax");
    check_random(ArgMin{nan}, floats, "float argmin");
    check_random(ArgMax{nan}, ints, "int32 argmax");
    check_random(ArgMin{nan}, ints, "int32 argmin");
  }
}

}  // namespace
}  // namespace gpureduce::detail
