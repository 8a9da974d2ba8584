// The integer keys the kernels' reduction trees use for min/max and argmin/argmax of floating
// values (thread/tree_key.hpp), run on the host: order, round trips, and whole
// reductions in random tree shapes against the floating operators.
#include <gpureduce/thread/tree_key.hpp>

#include "../common/float_specials.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

using namespace test;

template <class T, class Op>
T reduce_in_random_tree(std::vector<T> v, const Op& op, const T& identity, std::mt19937_64& rng) {
  std::shuffle(v.begin(), v.end(), rng);
  v.push_back(identity);
  while (v.size() > 1) {
    std::vector<T> next;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2)
      next.push_back(rng() % 2 ? op(v[i], v[i + 1]) : op(v[i + 1], v[i]));
    if (v.size() % 2) next.push_back(v.back());
    v = next;
  }
  return v[0];
}

template <class F>
void expect_ordered_bits_follow_the_values() {
  std::mt19937_64 rng(test::test_seed() + 41);
  const std::vector<F> x = special_mix<F>(rng, 400, 0);
  for (F a : x) {
    EXPECT_EQ(bits(detail::ordered_bits_inverse<F>(detail::ordered_bits(a))), bits(a));
    for (F b : x) {
      if (a == b) {
        // Equal values: the same bits, or the two zeros, -0 first.
        EXPECT_EQ(detail::ordered_bits(a) < detail::ordered_bits(b), std::signbit(a) && !std::signbit(b))
            << a << " " << b;
      } else {
        EXPECT_EQ(detail::ordered_bits(a) < detail::ordered_bits(b), a < b) << a << " " << b;
      }
    }
  }
  // Random bit patterns, NaN included: the map is its own inverse.
  for (int i = 0; i < 10000; ++i) {
    const U<F> u = U<F>(rng());
    EXPECT_EQ(bits(detail::ordered_bits_inverse<F>(detail::ordered_bits(from_bits<F>(u)))), u);
  }
}

TEST(test_tree_key, ordered_bits_follow_the_values_and_invert) {
  expect_ordered_bits_follow_the_values<float>();
  expect_ordered_bits_follow_the_values<double>();
}

// min/max of float and double through the keys: a NaN where the policy says (one of the elements'
// own), else the extreme value; of two zeros max gives +0 and min -0; every result has the bits of
// an element, or of the identity for an empty input or (ignore) one of nothing but NaN.
template <class F, bool Less>
void check_extreme_keys(NanPolicy nan, std::uint64_t salt) {
  std::mt19937_64 rng(test::test_seed() + salt);
  const detail::Extreme<Less> op{nan};
  const auto tree = tree_form<F>(op);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = trial % 50 == 0 ? 0 : 1 + rng() % 40;
    const std::vector<F> x = special_mix<F>(rng, n, trial % 3 == 0 ? 0 : 2 + unsigned(rng() % 20));
    std::vector<detail::key_t<F>> keys;
    for (F v : x) keys.push_back(tree.to(v));
    const F got =
        tree.from(reduce_in_random_tree(keys, tree.op(), tree.identity(), rng), [](std::int64_t) { return F(0); });
    SCOPED_TRACE("salt " + std::to_string(salt) + " trial " + std::to_string(trial));

    F want = op.template identity<F>();
    for (F v : x) want = op(want, v);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got));
    } else {
      ASSERT_EQ(got, want);
      if (want == 0 && !x.empty()) {
        const bool wanted_sign = Less;  // min: -0 if any, max: +0 if any
        const bool present =
            std::any_of(x.begin(), x.end(), [&](F v) { return v == 0 && std::signbit(v) == wanted_sign; });
        ASSERT_EQ(std::signbit(got), present ? wanted_sign : !wanted_sign);
      }
    }
    const F identity = op.template identity<F>();
    const bool elements_bits = std::any_of(x.begin(), x.end(), [&](F v) { return bits(v) == bits(got); });
    ASSERT_TRUE(elements_bits || bits(got) == bits(identity));
  }
}

TEST(test_tree_key, min_max_through_keys) {
  for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
    check_extreme_keys<float, true>(p, 3);
    check_extreme_keys<float, false>(p, 4);
    check_extreme_keys<double, true>(p, 5);
    check_extreme_keys<double, false>(p, 6);
  }
}

template <class F>
void expect_extreme_identities_round_trip() {
  for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
    const auto none = [](std::int64_t) { return F(0); };
    const auto max = tree_form<F>(Max{p});
    const auto min = tree_form<F>(Min{p});
    EXPECT_EQ(bits(max.from(max.identity(), none)), bits(Max{p}.identity<F>()));
    EXPECT_EQ(bits(min.from(min.identity(), none)), bits(Min{p}.identity<F>()));
  }
}

TEST(test_tree_key, extreme_identity_round_trips) {
  expect_extreme_identities_round_trip<float>();
  expect_extreme_identities_round_trip<double>();
}

// argmin/argmax through the keys equal the floating operator: the same index (first on ties, -0
// equal to +0, NaN by the policy), the value the element's own bits (reread at a zero or a NaN).
template <class F, bool Less>
void check_arg_keys(NanPolicy nan, std::uint64_t salt) {
  std::mt19937_64 rng(test::test_seed() + salt);
  using P = IndexedValue<F>;
  const detail::ArgExtreme<Less> op{nan};
  const auto tree = tree_form<P>(op);
  for (int trial = 0; trial < 300; ++trial) {
    const std::size_t n = trial % 50 == 0 ? 0 : 1 + rng() % 40;
    const std::vector<F> x = special_mix<F>(rng, n, trial % 3 == 0 ? 0 : 2 + unsigned(rng() % 20));
    std::vector<typename decltype(tree)::type> keys;
    std::vector<P> lifted;
    for (std::size_t i = 0; i < n; ++i) {
      lifted.push_back(op.template lift<P>(x[i], std::int64_t(i)));
      keys.push_back(tree.to(lifted.back()));
    }
    int rereads = 0;
    const auto reload = [&](std::int64_t i) {
      ++rereads;
      return x[std::size_t(i)];
    };
    const P got = tree.from(reduce_in_random_tree(keys, tree.op(), tree.identity(), rng), reload);
    const P want = reduce_in_random_tree(lifted, op, op.template identity<P>(), rng);
    SCOPED_TRACE("salt " + std::to_string(salt) + " trial " + std::to_string(trial));
    ASSERT_EQ(got.index, want.index);
    if (n == 0) {
      ASSERT_EQ(bits(got.value), bits(want.value));
      ASSERT_EQ(rereads, 0);
    } else {
      ASSERT_EQ(bits(got.value), bits(x[std::size_t(got.index)]));
      ASSERT_EQ(rereads, std::isnan(got.value) || got.value == 0 ? 1 : 0);
    }
  }
}

TEST(test_tree_key, argmin_argmax_through_keys) {
  for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
    check_arg_keys<float, true>(p, 7);
    check_arg_keys<float, false>(p, 8);
    check_arg_keys<double, true>(p, 9);
    check_arg_keys<double, false>(p, 10);
  }
}

// The accumulators the keys are not for keep their own form; a key gives back its value's bits.
TEST(test_tree_key, other_accumulators_are_their_own_form) {
  static_assert(std::is_same_v<TreeForm<float, Sum>::type, float>);
  static_assert(std::is_same_v<TreeForm<double, Sum>::type, double>);
  static_assert(std::is_same_v<TreeForm<std::int32_t, Max>::type, std::int32_t>);
  static_assert(std::is_same_v<TreeForm<IndexedValue<std::int32_t>, ArgMax>::type, IndexedValue<std::int32_t>>);
  static_assert(std::is_same_v<TreeForm<float, Max>::type, std::int32_t>);
  static_assert(std::is_same_v<TreeForm<double, Max>::type, std::int64_t>);
  static_assert(std::is_same_v<TreeForm<IndexedValue<float>, ArgMin>::type, IndexedValue<std::int32_t>>);
  const auto t = tree_form<float>(Max{});
  EXPECT_EQ(bits(t.from(t.to(-0.0f), 0)), bits(-0.0f));
}

}  // namespace
}  // namespace gpureduce
