// The operators, identities, accumulator rules and NaN policies the kernels use, run on the host.
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/byte_perm.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/thread/packed_sum.hpp>
#include <gpureduce/thread/vector_winner.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();

TEST(test_thread_operators, sum_identity_and_values) {
  EXPECT_EQ(Sum::identity<std::int32_t>(), 0);
  EXPECT_EQ(Sum::identity<double>(), 0.0);
  EXPECT_EQ(Sum{}(3, -5), -2);
  EXPECT_EQ(Sum{}(0.5f, 0.25f), 0.75f);
}

TEST(test_thread_operators, signed_sum_and_product_wrap) {
  constexpr std::int32_t max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t min = std::numeric_limits<std::int32_t>::min();
  EXPECT_EQ(Sum{}(max, 1), min);
  EXPECT_EQ(Sum{}(min, -1), max);
  static_assert(Sum{}(max, 2) == min + 1, "wrap is defined, so usable in constant expressions");
  static_assert(Product{}(std::int64_t(1) << 62, std::int64_t(4)) == 0);
  static_assert(Product{}(std::uint16_t(65535), std::uint16_t(65535)) == 1);  // no int overflow on promotion
}

TEST(test_thread_operators, identities_are_neutral) {
  std::mt19937 rng(test::test_seed() + 1);
  for (int k = 0; k < 100; ++k) {
    const auto i = static_cast<std::int16_t>(rng());
    EXPECT_EQ(Min{}(Min{}.identity<std::int16_t>(), i), i);
    EXPECT_EQ(Max{}(Max{}.identity<std::int16_t>(), i), i);
    EXPECT_EQ(BitAnd{}(BitAnd::identity<std::int16_t>(), i), i);
    EXPECT_EQ(BitOr{}(BitOr::identity<std::int16_t>(), i), i);
    EXPECT_EQ(BitXor{}(BitXor::identity<std::int16_t>(), i), i);
    EXPECT_EQ(Product{}(Product::identity<std::int16_t>(), i), i);
  }
  EXPECT_EQ(Min{}.identity<float>(), inf_f);
  EXPECT_EQ(Max{}.identity<double>(), -std::numeric_limits<double>::infinity());
  EXPECT_EQ(Min{}.identity<std::uint8_t>(), 255);
  EXPECT_EQ(Max{}.identity<std::int8_t>(), -128);
  EXPECT_EQ(Min{}.identity<std::int64_t>(), std::numeric_limits<std::int64_t>::max());
  // Under ignore, a floating min/max identity is NaN: any value replaces it, all-NaN stays NaN.
  EXPECT_TRUE(std::isnan(Min{NanPolicy::ignore}.identity<float>()));
  EXPECT_EQ(Min{NanPolicy::ignore}(Min{NanPolicy::ignore}.identity<float>(), -inf_f), -inf_f);
  EXPECT_EQ(Max{NanPolicy::ignore}.identity<int>(), std::numeric_limits<int>::min());
  EXPECT_TRUE(All::identity<bool>());
  EXPECT_FALSE(Any::identity<bool>());
}

TEST(test_thread_operators, accumulator_rules) {
  static_assert(std::is_same_v<accumulator_t<std::int8_t, Sum>, std::int64_t>);
  static_assert(std::is_same_v<accumulator_t<std::int32_t, Sum>, std::int64_t>);
  static_assert(std::is_same_v<accumulator_t<std::uint16_t, Product>, std::uint64_t>);
  static_assert(std::is_same_v<accumulator_t<std::uint64_t, Sum>, std::uint64_t>);
  static_assert(std::is_same_v<accumulator_t<__half, Sum>, float>);
  static_assert(std::is_same_v<accumulator_t<__nv_bfloat16, Sum>, float>);
  static_assert(std::is_same_v<accumulator_t<double, Sum>, double>);
  static_assert(std::is_same_v<accumulator_t<std::int8_t, Max>, std::int8_t>);
  static_assert(std::is_same_v<accumulator_t<__half, Min>, float>);
  static_assert(std::is_same_v<result_t<__half, Min>, __half>);
  static_assert(std::is_same_v<accumulator_t<__half, ArgMax>, IndexedValue<float>>);
  static_assert(std::is_same_v<result_t<__half, ArgMax>, IndexedValue<__half>>);
  static_assert(std::is_same_v<accumulator_t<float, All>, bool>);
  static_assert(std::is_same_v<result_t<__nv_bfloat16, MinMaxOp>, MinMax<__nv_bfloat16>>);
  // Masks count: a bool accumulator would turn a sum into an `any`.
  static_assert(std::is_same_v<accumulator_t<bool, Sum>, std::int64_t>);
  static_assert(std::is_same_v<accumulator_t<bool, Product>, std::int64_t>);
  static_assert(std::is_same_v<accumulator_t<bool, Max>, bool>);
  static_assert(std::is_same_v<result_t<bool, ArgMax>, IndexedValue<bool>>);
  SUCCEED();
}


// Which result pointers an accumulator may be written to (reduce's static_assert; the rejected
// cases are compile-fail tests in tests/compile_fail).
TEST(test_thread_operators, result_conversions_accepted_and_refused) {
  static_assert(converts_to_result_v<float, float>);
  static_assert(converts_to_result_v<__half, float>);
  static_assert(converts_to_result_v<double, std::int64_t>);
  static_assert(converts_to_result_v<bool, bool>);
  static_assert(converts_to_result_v<IndexedValue<__half>, IndexedValue<float>>);
  static_assert(converts_to_result_v<MinMax<__nv_bfloat16>, MinMax<float>>);
  static_assert(!converts_to_result_v<IndexedValue<float>, float>);  // would be {sum, index 0}
  static_assert(!converts_to_result_v<MinMax<float>, float>);
  static_assert(!converts_to_result_v<float, IndexedValue<float>>);
  static_assert(!converts_to_result_v<IndexedValue<float>, MinMax<float>>);
  SUCCEED();
}

TEST(test_thread_operators, conversions_round_half_once) {
  EXPECT_EQ(convert<float>(__float2half_rn(0.1f)), __half2float(__float2half_rn(0.1f)));
  const auto r = convert_result<IndexedValue<__half>>(IndexedValue<float>{2.5f, 7});
  EXPECT_EQ(__half2float(r.value), 2.5f);
  EXPECT_EQ(r.index, 7);
  EXPECT_EQ(Sum{}.lift<float>(__float2bfloat16_rn(3.0f), 0), 3.0f);
}

// Every 16-bit pattern of both formats widens to float and narrows back to its own bits
// (argmin/argmax return the element's NaN with its sign and payload), numbers to their value.
template <class T>
void expect_bits_round_trip() {
  for (std::uint32_t b = 0; b <= 0xffff; ++b) {
    const T x = bits_as<T>(std::uint16_t(b));
    const float f = widen_bits(x);
    const float value = convert<float>(x);
    if (std::isnan(value)) {
      ASSERT_TRUE(std::isnan(f)) << std::hex << b;
      ASSERT_EQ(std::signbit(f), (b & 0x8000u) != 0) << std::hex << b;
    } else {
      ASSERT_EQ(std::memcmp(&f, &value, sizeof f), 0) << std::hex << b;
    }
    const auto back = bits_as<std::uint16_t>(narrow_bits<T>(f));
    ASSERT_EQ(back, b) << std::hex << b;
    const auto r = convert_result<IndexedValue<T>>(IndexedValue<float>{f, 3});
    ASSERT_EQ(bits_as<std::uint16_t>(r.value), b) << std::hex << b;
  }
}

TEST(test_thread_operators, sixteen_bit_floats_round_trip_bit_for_bit) {
  expect_bits_round_trip<__half>();
  expect_bits_round_trip<__nv_bfloat16>();
  // A float NaN whose payload lies below the 16-bit format's stays a NaN (quiet), sign kept.
  const float low_payload = bits_as<float>(0xff800001u);
  EXPECT_EQ(bits_as<std::uint16_t>(narrow_bits<__half>(low_payload)), 0xfe00u);
  EXPECT_EQ(bits_as<std::uint16_t>(narrow_bits<__nv_bfloat16>(low_payload)), 0xffc0u);
  // The canonical NaN of a float result narrows to the canonical 16-bit NaN, as convert gives.
  EXPECT_EQ(bits_as<std::uint16_t>(narrow_bits<__half>(bits_as<float>(0x7fffffffu))),
            bits_as<std::uint16_t>(convert<__half>(bits_as<float>(0x7fffffffu))));
}

TEST(test_thread_operators, nan_policies_of_min_and_max) {
  const Min prop{}, ign{NanPolicy::ignore};
  EXPECT_TRUE(std::isnan(prop(1.f, nan_f)));
  EXPECT_TRUE(std::isnan(prop(nan_f, 1.f)));
  EXPECT_EQ(ign(1.f, nan_f), 1.f);
  EXPECT_EQ(ign(nan_f, 1.f), 1.f);
  EXPECT_TRUE(std::isnan(ign(nan_f, nan_f)));
  EXPECT_TRUE(std::isnan(Max{}(-inf_f, nan_f)));
  const MinMaxOp mm{NanPolicy::ignore};
  const auto r = mm(mm.lift<MinMax<float>>(nan_f, 0), mm.lift<MinMax<float>>(2.f, 1));
  EXPECT_EQ(r.min, 2.f);
  EXPECT_EQ(r.max, 2.f);
}

// The rule pick's two-compare form must give, spelled out: under propagate a NaN wins (the first
// of two), under ignore a number wins (of two NaNs, the first); otherwise the better value, the
// first on ties.
template <bool Less, class T>
T pick_reference(T a, T b, NanPolicy nan) {
  const bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return nan == NanPolicy::propagate ? (an ? a : b) : (an && !bn ? b : a);
  return (Less ? b < a : a < b) ? b : a;
}

template <class T>
void expect_pick_matches_rule() {
  const T inf = std::numeric_limits<T>::infinity(), qnan = std::numeric_limits<T>::quiet_NaN();
  const T values[] = {-inf, T(-1.5), T(-0.0), T(0.0), T(1.5), inf, qnan, -qnan};
  for (NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore})
    for (T a : values)
      for (T b : values) {
        const T min = detail::pick<true>(a, b, nan), max = detail::pick<false>(a, b, nan);
        const T min_ref = pick_reference<true>(a, b, nan), max_ref = pick_reference<false>(a, b, nan);
        EXPECT_EQ(std::memcmp(&min, &min_ref, sizeof(T)), 0) << a << " " << b << " policy " << int(nan);
        EXPECT_EQ(std::memcmp(&max, &max_ref, sizeof(T)), 0) << a << " " << b << " policy " << int(nan);
      }
}

TEST(test_thread_operators, pick_follows_the_nan_rule_bit_for_bit) {
  expect_pick_matches_rule<float>();
  expect_pick_matches_rule<double>();
}

TEST(test_thread_operators, with_constant_nan_passes_the_policy_it_was_given) {
  for (NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
    EXPECT_EQ(with_constant_nan(Max{nan}, [](Max op) { return op.nan; }), nan);
    EXPECT_EQ(with_constant_nan(ArgMin{nan}, [](ArgMin op) { return op.nan; }), nan);
  }
  EXPECT_EQ(with_constant_nan(BitXor{}, [](BitXor op) { return op(6, 3); }), 5);
}

TEST(test_thread_operators, sum_ignore_skips_nan_on_load) {
  const Sum ign{NanPolicy::ignore};
  EXPECT_EQ(ign.lift<float>(nan_f, 0), 0.f);
  EXPECT_EQ((Product{NanPolicy::ignore}.lift<double>(double(nan_f), 0)), 1.0);
  EXPECT_TRUE(std::isnan(Sum{}.lift<float>(nan_f, 0)));
}

TEST(test_thread_operators, logical_all_any_treat_nan_as_true) {
  EXPECT_TRUE(All{}.lift<bool>(nan_f, 0));
  EXPECT_FALSE(Any{}.lift<bool>(-0.0f, 0));
  EXPECT_TRUE(Any{}.lift<bool>(std::int8_t(-1), 0));
}

// Reduces values in a random tree order (shuffled, then pairs combined level by level, as the
// kernels' shuffles and partials do) and checks the result does not depend on the order: argmin
// and argmax must be commutative and associative even with ties and NaNs.
template <class Op>
IndexedValue<float> reduce_in_random_tree(const Op& op, const std::vector<float>& x, std::mt19937& rng) {
  std::vector<IndexedValue<float>> v;
  for (std::size_t i = 0; i < x.size(); ++i) v.push_back(op.template lift<IndexedValue<float>>(x[i], std::int64_t(i)));
  std::shuffle(v.begin(), v.end(), rng);
  v.push_back(op.template identity<IndexedValue<float>>());
  while (v.size() > 1) {
    std::vector<IndexedValue<float>> next;
    for (std::size_t i = 0; i + 1 < v.size(); i += 2)
      next.push_back(rng() % 2 ? op(v[i], v[i + 1]) : op(v[i + 1], v[i]));
    if (v.size() % 2) next.push_back(v.back());
    v = next;
  }
  return v[0];
}

TEST(test_thread_operators, argmin_argmax_first_index_under_any_order) {
  std::mt19937 rng(test::test_seed() + 7);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<float> x(1 + rng() % 40);
    for (auto& v : x) v = float(int(rng() % 5) - 2);                 // many ties
    if (trial % 3 == 0) x[rng() % x.size()] = nan_f;                  // NaN somewhere
    if (trial % 5 == 0) x[rng() % x.size()] = nan_f;
    if (trial % 7 == 0) std::fill(x.begin(), x.end(), nan_f);         // all NaN
    for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
      // Reference: first NaN when propagating (or all NaN), else first extreme.
      std::int64_t first_nan = -1, lo = -1, hi = -1;
      for (std::size_t i = 0; i < x.size(); ++i) {
        if (std::isnan(x[i])) { if (first_nan < 0) first_nan = std::int64_t(i); continue; }
        if (lo < 0 || x[i] < x[lo]) lo = std::int64_t(i);
        if (hi < 0 || x[i] > x[hi]) hi = std::int64_t(i);
      }
      const bool nan_wins = first_nan >= 0 && (p == NanPolicy::propagate || lo < 0);
      EXPECT_EQ(reduce_in_random_tree(ArgMin{p}, x, rng).index, nan_wins ? first_nan : lo) << trial;
      EXPECT_EQ(reduce_in_random_tree(ArgMax{p}, x, rng).index, nan_wins ? first_nan : hi) << trial;
    }
  }
}

// A thread's argmin/argmax over its vectors through VectorWinner (best value per vector, strict
// comparison, position found at the end) equals lifting and combining every element, for each
// element width and both NaN policies. Values from a small range give ties within and across
// vectors; NaN, +-inf and -0 are mixed in for the floating types. A vector added again at the same
// index (thread_partial's Repeat) changes nothing.
template <class V, bool Less, NanPolicy Nan>
void check_vector_winner(std::uint32_t salt) {
  using A = compute_t<V>;
  using P = IndexedValue<A>;
  constexpr int N = 16 / sizeof(V);
  const detail::ArgExtreme<Less> op{Nan};
  std::mt19937 rng(test::test_seed() + salt);
  for (int trial = 0; trial < 300; ++trial) {
    const int vectors = 1 + int(rng() % 6);
    const int nan_every = trial % 3 == 0 ? 0 : 2 + int(rng() % 40);
    std::vector<V> x(std::size_t(vectors) * N);
    for (auto&& v : x) {  // &&: std::vector<bool> hands out proxies
      double d = double(int(rng() % 5) - 2);
      if constexpr (is_floating_v<V>) {
        if (nan_every && rng() % nan_every == 0) d = std::nan("");
        else if (rng() % 16 == 0) d = (rng() % 2 ? 1 : -1) * double(inf_f);
        else if (d == 0 && rng() % 2) d = -0.0;
      }
      v = convert<V>(d);
    }
    if (trial % 50 == 0)
      std::fill(x.begin(), x.end(), convert<V>(trial % 100 == 0 || !is_floating_v<V> ? 3.0 : std::nan("")));
    // The thread's scalar elements (head, tail) are folded into acc before the vectors.
    P expect = op.template identity<P>(), acc = expect;
    for (int i = 0; i < vectors * N; ++i) expect = op(expect, op.template lift<P>(x[i], 64 + i));
    detail::VectorWinner<Less, Nan, A, V, N> winner;
    const auto add = [&](int v) {
      V y[N];
      std::copy_n(x.begin() + v * N, N, y);
      winner.add(y, 64 + v * N);
    };
    for (int v = 0; v < vectors; ++v) add(v);
    // A partial last batch: the vectors after its first are repeats of that first.
    const int last_first = int(rng() % vectors);
    for (int r = trial % 2 ? 0 : 1 + int(rng() % 3); r > 0; --r) add(last_first);
    const P got = winner.fold_into(acc, op);
    ASSERT_EQ(got.index, expect.index) << "salt " << salt << " trial " << trial;
    ASSERT_TRUE((std::isnan(float(got.value)) && std::isnan(float(expect.value))) || got.value == expect.value)
        << "salt " << salt << " trial " << trial;
    // The winning element itself (the axis rows' fold lifts it): at the combined index, with that
    // element's bits, so NaN payloads and the sign of a zero are the element-wise fold's.
    V element;
    const std::int64_t at = winner.winning_index(&element);
    const V stored = x[std::size_t(at - 64)];
    ASSERT_EQ(std::memcmp(&element, &stored, sizeof(V)), 0) << "salt " << salt << " trial " << trial;
    const P joined = op(acc, op.template lift<P>(element, at));
    ASSERT_EQ(joined.index, expect.index) << "salt " << salt << " trial " << trial;
    ASSERT_EQ(std::memcmp(&joined.value, &expect.value, sizeof(A)), 0) << "salt " << salt << " trial " << trial;
  }
}

// The SIMD min/max of a vector held as words equals the plain one, over the whole range of each
// type (the byte permute's sign and zero extension included).
template <class V>
void check_extreme_of_words(std::uint32_t salt) {
  std::mt19937 rng(test::test_seed() + salt);
  constexpr int N = 16 / sizeof(V);
  for (int trial = 0; trial < 2000; ++trial) {
    std::uint32_t u[4];
    for (auto& w : u) w = rng();
    if (trial % 7 == 0) u[rng() % 4] = 0x80807F7Fu;  // the extremes of both signs
    V x[N];
    std::memcpy(x, u, sizeof u);
    const V lo = *std::min_element(x, x + N), hi = *std::max_element(x, x + N);
    ASSERT_EQ((detail::extreme_of_words<true, V>(u)), lo) << "salt " << salt << " trial " << trial;
    ASSERT_EQ((detail::extreme_of_words<false, V>(u)), hi) << "salt " << salt << " trial " << trial;
  }
}

TEST(test_thread_operators, extreme_of_words_matches_elementwise) {
  check_extreme_of_words<std::int8_t>(1);
  check_extreme_of_words<std::uint8_t>(2);
  check_extreme_of_words<std::int16_t>(3);
  check_extreme_of_words<std::uint16_t>(4);
}

// The host emulation of prmt, on selectors worked out by hand from the PTX ISA's description: bytes
// of x (0-3) and y (4-7) in any order, and a nibble's bit 3 replicating the picked byte's sign.
TEST(test_thread_operators, byte_perm_picks_and_sign_extends_bytes) {
  const std::uint32_t x = 0x33221100u, y = 0x77665544u;
  EXPECT_EQ(byte_perm(x, y, 0x3210u), x);
  EXPECT_EQ(byte_perm(x, y, 0x7654u), y);
  EXPECT_EQ(byte_perm(x, y, 0x0123u), 0x00112233u);
  EXPECT_EQ(byte_perm(x, y, 0x4567u), 0x44556677u);
  EXPECT_EQ(byte_perm(x, y, 0x5140u), 0x55114400u);
  EXPECT_EQ(byte_perm(0x7F80FF01u, 0u, 0x89ABu), 0x00FFFF00u);  // signs of bytes 0-3
  EXPECT_EQ(byte_perm(0x7F80FF01u, 0u, 0x0123u), 0x01FF807Fu);
}

template <class V>
void check_vector_winner_all(std::uint32_t salt) {
  check_vector_winner<V, false, NanPolicy::propagate>(salt);
  check_vector_winner<V, false, NanPolicy::ignore>(salt + 1);
  check_vector_winner<V, true, NanPolicy::propagate>(salt + 2);
  check_vector_winner<V, true, NanPolicy::ignore>(salt + 3);
}

TEST(test_thread_operators, vector_winner_matches_elementwise) {
  check_vector_winner_all<float>(21);
  check_vector_winner_all<double>(31);
  check_vector_winner_all<__half>(41);
  check_vector_winner_all<__nv_bfloat16>(51);
  check_vector_winner_all<std::int8_t>(61);
  check_vector_winner_all<std::uint8_t>(63);
  check_vector_winner_all<std::int16_t>(67);
  check_vector_winner_all<std::uint16_t>(71);
  check_vector_winner_all<bool>(73);  // masks: words of 0/1 bytes
  check_vector_winner_all<std::int32_t>(81);
  check_vector_winner_all<std::int64_t>(91);
}

TEST(test_thread_operators, user_op_wraps_a_functor_and_identity) {
  const auto op = UserOp<std::plus<int>, int>{{}, 10};
  EXPECT_EQ(op.identity<int>(), 10);
  EXPECT_EQ(op(2, 3), 5);
  EXPECT_EQ(op.lift<int>(std::int8_t(-4), 0), -4);
}

// One vector of small integers summed in 32 bits: exact at the types' extremes, signed and
// unsigned.
template <class T>
void check_packed_sum(std::mt19937_64& rng) {
  constexpr unsigned n = 16 / sizeof(T);
  for (const T fill : {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max(), T(0)}) {
    T v[n];
    std::fill(v, v + n, fill);
    EXPECT_EQ(std::int64_t(packed_sum(v)), std::int64_t(n) * fill);
  }
  for (int round = 0; round < 100; ++round) {
    T v[n];
    std::int64_t want = 0;
    for (auto& x : v) want += x = static_cast<T>(rng());
    EXPECT_EQ(std::int64_t(packed_sum(v)), want);
  }
  static_assert(std::is_signed_v<packed_sum_t<T>> == std::is_signed_v<T>);
}

TEST(test_thread_operators, packed_sum_of_small_integers_is_exact) {
  std::mt19937_64 rng(test::test_seed() + 42);
  check_packed_sum<std::int8_t>(rng);
  check_packed_sum<std::uint8_t>(rng);
  check_packed_sum<std::int16_t>(rng);
  check_packed_sum<std::uint16_t>(rng);
  static_assert(!is_packed_summable_v<std::int32_t> && !is_packed_summable_v<__half>);
}

// The products of two vectors of bytes summed in 32 bits: exact at the extremes (16 x 128 x 128,
// 16 x 255 x 255) and on random bytes.
template <class T>
void check_packed_dot(std::mt19937_64& rng) {
  constexpr T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
  for (const auto [x, y] : {std::pair{lo, lo}, std::pair{hi, hi}, std::pair{lo, hi}, std::pair{T(0), hi}}) {
    T a[16], b[16];
    std::fill(a, a + 16, x);
    std::fill(b, b + 16, y);
    EXPECT_EQ(std::int64_t(packed_dot(a, b)), 16 * std::int64_t(x) * y);
  }
  for (int round = 0; round < 100; ++round) {
    T a[16], b[16];
    std::int64_t want = 0;
    for (int k = 0; k < 16; ++k) {
      a[k] = static_cast<T>(rng());
      b[k] = static_cast<T>(rng());
      want += std::int64_t(a[k]) * b[k];
    }
    EXPECT_EQ(std::int64_t(packed_dot(a, b)), want);
  }
}

TEST(test_thread_operators, packed_dot_of_bytes_is_exact) {
  std::mt19937_64 rng(test::test_seed() + 43);
  check_packed_dot<std::int8_t>(rng);
  check_packed_dot<std::uint8_t>(rng);
  static_assert(!is_packed_dottable_v<std::int16_t> && !is_packed_dottable_v<char16_t>);
}

}  // namespace
}  // namespace gpureduce
