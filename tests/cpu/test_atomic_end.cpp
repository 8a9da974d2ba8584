// The atomic end of small grids (grid/atomic_end.hpp), run on the host: which results take it, the
// identity and the step each partial makes, applied in shuffled orders as the blocks' atomics
// land, against the operators folded in order; and the generation ticket over many launches.
#include <gpureduce/grid/atomic_end.hpp>

#include "../common/float_specials.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

using namespace test;

static_assert(atomic_end_v<std::int64_t, std::int64_t, Sum> && atomic_end_v<std::uint32_t, std::uint32_t, BitXor>);
static_assert(atomic_end_v<float, float, Max> && atomic_end_v<double, double, Min>);
static_assert(!atomic_end_v<float, float, Sum> && !atomic_end_v<double, double, Sum>, "floating sums: the hand-off");
static_assert(!atomic_end_v<std::int64_t, std::int64_t, Product>);
static_assert(!atomic_end_v<std::int64_t, double, Sum>, "a result of another type than the accumulator");
static_assert(!atomic_end_v<std::int8_t, std::int8_t, Max> && !atomic_end_v<std::int16_t, std::int16_t, Max>);
static_assert(!atomic_end_v<bool, bool, All> && !atomic_end_v<IndexedValue<float>, IndexedValue<float>, ArgMax>);

template <class A, class Op>
detail::atomic_bits_t<A> land_in_order(const std::vector<A>& partials, const Op& op) {
  detail::atomic_bits_t<A> w = atomic_end_identity<A>(op);
  for (const A& v : partials) w = apply_atomic_step(w, atomic_end_step(op, v));
  return w;
}

// Every order gives the same bits: the result is the same on every run.
template <class A, class Op>
detail::atomic_bits_t<A> land(std::vector<A> partials, const Op& op, std::mt19937_64& rng) {
  std::shuffle(partials.begin(), partials.end(), rng);
  const auto w = land_in_order(partials, op);
  std::reverse(partials.begin(), partials.end());
  EXPECT_EQ(land_in_order(partials, op), w);
  std::shuffle(partials.begin(), partials.end(), rng);
  EXPECT_EQ(land_in_order(partials, op), w);
  return w;
}

template <class A, class Op>
void check_integers(const Op& op, std::uint64_t salt) {
  std::mt19937_64 rng(test::test_seed() + salt);
  for (int trial = 0; trial < 200; ++trial) {
    SCOPED_TRACE("salt " + std::to_string(salt) + " trial " + std::to_string(trial));
    std::vector<A> partials(trial % 40 == 0 ? 0 : 1 + rng() % 130);
    for (A& v : partials) v = trial % 2 ? A(rng()) : A(int(rng() % 17) - 8);  // wrapping sums, small ties
    A want = op.template identity<A>();
    for (const A& v : partials) want = op(want, v);
    ASSERT_EQ(A(land(partials, op, rng)), want);
  }
}

TEST(test_atomic_end, integers_land_as_the_operator_folds) {
  check_integers<std::int32_t>(Sum{}, 1);
  check_integers<std::int64_t>(Sum{}, 2);
  check_integers<std::uint64_t>(Sum{}, 3);
  check_integers<std::int32_t>(Min{}, 4);
  check_integers<std::int64_t>(Max{}, 5);
  check_integers<std::uint32_t>(Max{}, 6);
  check_integers<std::uint64_t>(Min{}, 7);
  check_integers<std::int32_t>(BitAnd{}, 8);
  check_integers<std::uint64_t>(BitOr{}, 9);
  check_integers<std::int64_t>(BitXor{}, 10);
}

// min/max of float and double: the extreme value, of two zeros max +0 and min -0 if present; a NaN
// where the policy says (propagate: with the winning end's sign; ignore: only from NaN alone or
// nothing).
template <class F, bool Less>
void check_floats(NanPolicy nan, std::uint64_t salt) {
  std::mt19937_64 rng(test::test_seed() + salt);
  const detail::Extreme<Less> op{nan};
  const U<F> identity = atomic_end_identity<F>(op);
  ASSERT_TRUE(nan == NanPolicy::ignore ? std::isnan(from_bits<F>(identity))
                                       : from_bits<F>(identity) == op.template identity<F>());
  for (int trial = 0; trial < 400; ++trial) {
    SCOPED_TRACE("salt " + std::to_string(salt) + " trial " + std::to_string(trial));
    const std::size_t n = trial % 50 == 0 ? 0 : 1 + rng() % 130;
    const unsigned nan_every = trial % 3 == 0 ? 0 : trial % 3 == 1 ? 1 : 2 + unsigned(rng() % 20);
    const std::vector<F> x = special_mix<F>(rng, n, nan_every);
    const F got = from_bits<F>(land(x, op, rng));
    F want = op.template identity<F>();
    for (F v : x) want = op(want, v);
    if (std::isnan(want)) {
      ASSERT_TRUE(std::isnan(got));
      if (nan == NanPolicy::propagate) ASSERT_EQ(std::signbit(got), Less);
      continue;
    }
    ASSERT_EQ(got, want);
    if (want == 0) {
      const bool present = std::any_of(x.begin(), x.end(), [](F v) { return v == 0 && std::signbit(v) == Less; });
      ASSERT_EQ(std::signbit(got), present == Less);
    }
  }
}

TEST(test_atomic_end, floats_land_as_min_and_max) {
  for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
    check_floats<float, true>(p, 11);
    check_floats<float, false>(p, 12);
    check_floats<double, true>(p, 13);
    check_floats<double, false>(p, 14);
  }
}

// Launches of random sizes, their blocks drawing in random order: every block of a launch waits for
// the same generation, which is not the one published before it, and a launch leaves no ticket
// drawn. Started also just below the 32-bit generation's wrap.
TEST(test_atomic_end, generation_ticket_over_launches) {
  std::mt19937_64 rng(test::test_seed() + 15);
  for (const std::uint64_t start : {std::uint64_t(0), std::uint64_t(0xfffffffd)}) {
    std::uint64_t word = start << 32, published = start;
    for (int launch = 0; launch < 20; ++launch) {
      const unsigned blocks = 2 + unsigned(rng() % 129);
      std::vector<GenerationTicket> tickets;
      for (unsigned b = 0; b < blocks; ++b) {
        const GenerationTicket t{word++};
        if (t.last(blocks)) word = t.next_word();
        tickets.push_back(t);
      }
      const std::uint64_t g = tickets[0].published();
      ASSERT_NE(g, published) << "launch " << launch;
      for (const GenerationTicket& t : tickets) ASSERT_EQ(t.published(), g);
      ASSERT_EQ(word & 0xffffffffu, 0u);
      published = g;
    }
  }
}

}  // namespace
}  // namespace gpureduce
