// The warp reductions in redux.sync words (warp/redux_steps.hpp), run on the host against an
// emulated warp and compared with folding the 32 lanes' partials with the operator itself.
#include <gpureduce/warp/redux_steps.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

constexpr int lanes = 32;

struct Call {
  ReduxOp op;
  bool is_signed;
  std::array<std::uint32_t, lanes> words;
};

// What redux.sync answers for one call.
std::uint32_t answer(const Call& c) {
  std::uint32_t a = c.words[0];
  for (int l = 1; l < lanes; ++l) {
    const std::uint32_t w = c.words[l];
    const bool less = c.is_signed ? std::int32_t(w) < std::int32_t(a) : w < a;
    switch (c.op) {
      case ReduxOp::add: a += w; break;
      case ReduxOp::min: a = less ? w : a; break;
      case ReduxOp::max: a = less ? a : w; break;
      case ReduxOp::bit_and: a &= w; break;
      case ReduxOp::bit_or: a |= w; break;
      case ReduxOp::bit_xor: a ^= w; break;
    }
  }
  return a;
}

// The steps run lane by lane, each redux answered from the lanes' words of an earlier pass: the
// steps are the same in every lane and a word depends only on earlier answers, so each pass
// learns one more answer. Every lane must end with the same result.
template <class T, class Op>
T emulated_warp(const std::array<T, lanes>& v, const Op& op) {
  std::vector<std::uint32_t> answers;
  for (;;) {
    std::vector<Call> calls;
    std::array<T, lanes> result{};
    for (int l = 0; l < lanes; ++l) {
      std::size_t k = 0;
      const auto r = [&](ReduxOp o, auto word) {
        using W = decltype(word);
        static_assert(std::is_same_v<W, std::int32_t> || std::is_same_v<W, std::uint32_t>);
        if (calls.size() <= k) calls.push_back({o, std::is_signed_v<W>, {}});
        EXPECT_EQ(calls[k].op, o) << "call " << k << " differs between lanes";
        calls[k].words[l] = std::uint32_t(word);
        const std::uint32_t a = k < answers.size() ? answers[k] : 0;
        ++k;
        return W(a);
      };
      result[l] = redux_reduce(v[l], op, r);
    }
    if (answers.size() == calls.size()) {
      for (int l = 1; l < lanes; ++l) EXPECT_EQ(std::memcmp(&result[l], &result[0], sizeof(T)), 0) << "lane " << l;
      return result[0];
    }
    answers.push_back(answer(calls[answers.size()]));
  }
}

template <class T, class Op>
T folded(const std::array<T, lanes>& v, const Op& op) {
  T a = v[0];
  for (int l = 1; l < lanes; ++l) a = op(a, v[l]);
  return a;
}

// Random integers of T: the whole range, a narrow one (ties, carries between the words), and the
// extremes.
template <class T>
T random_int(std::mt19937_64& rng, int mode) {
  using L = std::numeric_limits<T>;
  switch (mode % 4) {
    case 0: return static_cast<T>(rng());
    case 1: return static_cast<T>(std::int64_t(rng() % 7) - 3);
    case 2: return rng() % 2 ? L::max() : L::min();
    default: return static_cast<T>(rng() % 2 ? L::max() - T(rng() % 3) : L::min() + T(rng() % 3));
  }
}

template <class T>
void check_integer_ops(std::uint64_t salt) {
  std::mt19937_64 rng(test::test_seed() + salt);
  for (int trial = 0; trial < 200; ++trial) {
    std::array<T, lanes> v;
    for (auto& x : v) x = random_int<T>(rng, trial % 4 == 3 ? int(rng() % 4) : trial);
    const auto check = [&](auto op) {
      ASSERT_EQ(emulated_warp(v, op), folded(v, op)) << "salt " << salt << " trial " << trial;
    };
    check(Sum{});
    check(Min{});
    check(Max{});
    check(BitAnd{});
    check(BitOr{});
    check(BitXor{});
    std::array<MinMax<T>, lanes> mm;
    for (int l = 0; l < lanes; ++l) mm[l] = {v[l], v[(l + 7) % lanes]};
    const auto m = emulated_warp(mm, MinMaxOp{}), e = folded(mm, MinMaxOp{});
    ASSERT_EQ(m.min, e.min) << "salt " << salt << " trial " << trial;
    ASSERT_EQ(m.max, e.max) << "salt " << salt << " trial " << trial;
    // argmin/argmax: values with ties, indices in any lane order (a thread's best element is
    // anywhere in its share), some lanes holding the identity; indices up to 2^40 so that the
    // index's high words differ.
    std::array<IndexedValue<T>, lanes> iv;
    for (int l = 0; l < lanes; ++l) {
      const bool identity = rng() % 8 == 0;
      const std::int64_t index = trial % 2 ? std::int64_t(rng() % 64) : std::int64_t(rng() >> 24);
      iv[l] = {v[l], identity ? std::numeric_limits<std::int64_t>::max() : index};
      if (identity)
        iv[l].value =
            rng() % 2 ? ArgMin{}.identity<IndexedValue<T>>().value : ArgMax{}.identity<IndexedValue<T>>().value;
    }
    const auto check_arg = [&](auto op) {
      const auto got = emulated_warp(iv, op), expect = folded(iv, op);
      ASSERT_EQ(got.value, expect.value) << "salt " << salt << " trial " << trial;
      ASSERT_EQ(got.index, expect.index) << "salt " << salt << " trial " << trial;
    };
    check_arg(ArgMin{});
    check_arg(ArgMax{});
  }
}

TEST(test_redux_steps, integer_operators_match_folding) {
  check_integer_ops<std::int8_t>(1);
  check_integer_ops<std::uint8_t>(2);
  check_integer_ops<std::int16_t>(3);
  check_integer_ops<std::uint16_t>(4);
  check_integer_ops<std::int32_t>(5);
  check_integer_ops<std::uint32_t>(6);
  check_integer_ops<std::int64_t>(7);
  check_integer_ops<std::uint64_t>(8);
}

TEST(test_redux_steps, logical_all_and_any) {
  std::mt19937_64 rng(test::test_seed() + 9);
  for (int trial = 0; trial < 100; ++trial) {
    std::array<bool, lanes> v;
    for (auto& x : v) x = rng() % (trial % 5 + 2) != 0;
    EXPECT_EQ(emulated_warp(v, All{}), folded(v, All{})) << trial;
    EXPECT_EQ(emulated_warp(v, Any{}), folded(v, Any{})) << trial;
  }
}

// Which partials take redux.sync: integers under exact, order-free combines; never floating sums
// or min/max (their tree keeps the floating values), products or a caller's functor.
TEST(test_redux_steps, eligible_partials) {
  static_assert(has_redux_v<std::int64_t, Sum> && has_redux_v<std::uint32_t, Max> && has_redux_v<std::int8_t, Min>);
  static_assert(has_redux_v<IndexedValue<std::int32_t>, ArgMax> && has_redux_v<IndexedValue<std::int64_t>, ArgMin>);
  static_assert(has_redux_v<MinMax<std::int16_t>, MinMaxOp> && has_redux_v<bool, All> && has_redux_v<bool, Any>);
  static_assert(!has_redux_v<float, Sum> && !has_redux_v<double, Max> && !has_redux_v<float, Min>);
  static_assert(!has_redux_v<std::int64_t, Product> && !has_redux_v<IndexedValue<float>, ArgMax>);
  static_assert(!has_redux_v<MinMax<double>, MinMaxOp> && !has_redux_v<int, UserOp<Sum, int>>);
  SUCCEED();
}

}  // namespace
}  // namespace gpureduce
