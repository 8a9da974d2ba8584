// The superaccumulator's carries and rounding split over 32 owners, as a warp runs them
// (warp/warp_exact_round.cuh): here 32 host threads, each holding its slice of the words, meet at
// a barrier wherever the warp's lanes shuffle or vote. Their words and results must be those of
// one owner holding every word (exact::normalize, exact::round_to), which test_exact_host checks
// against MPFR.
#include <gpureduce/exact/superaccumulator.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <barrier>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <thread>
#include <vector>

namespace {

using gpureduce::test::test_seed;
constexpr int owners = 32;

// What the 32 owners share: one value each, and a barrier before and after reading them all.
struct Meeting {
  std::barrier<> sync{owners};
  std::array<std::uint64_t, owners> slots{};
  template <class Combine>
  std::uint64_t meet(int rank, std::uint64_t x, Combine&& combine) {
    slots[rank] = x;
    sync.arrive_and_wait();
    const std::uint64_t r = combine(slots);
    sync.arrive_and_wait();
    return r;
  }
};

// An owner's view of the meeting: the Team that exact::normalize_slice and round_slice expect.
struct ThreadTeam {
  static constexpr int owners = ::owners;
  Meeting* m;
  int rank;
  bool any(bool x) const {
    return m->meet(rank, x, [](const auto& s) {
      for (auto v : s)
        if (v) return std::uint64_t(1);
      return std::uint64_t(0);
    });
  }
  int max(int x) const {
    return int(std::int64_t(m->meet(rank, std::uint64_t(std::int64_t(x)), [](const auto& s) {
      std::int64_t r = std::int64_t(s[0]);
      for (auto v : s) r = std::max(r, std::int64_t(v));
      return std::uint64_t(r);
    })));
  }
  std::int64_t from_below(std::int64_t x, int d = 1, std::int64_t none = 0) const {
    const int me = rank;
    return std::int64_t(m->meet(rank, std::uint64_t(x), [me, d, none](const auto& s) {
      return me >= d ? s[me - d] : std::uint64_t(none);
    }));
  }
  std::int64_t broadcast(std::int64_t x, int from) const {
    return std::int64_t(m->meet(rank, std::uint64_t(x), [from](const auto& s) { return s[from]; }));
  }
};

// Runs body(rank, team) on 32 threads at once.
void in_team(const std::function<void(int, const ThreadTeam&)>& body) {
  Meeting m;
  std::vector<std::thread> threads;
  for (int r = 0; r < owners; ++r)
    threads.emplace_back([&, r] {
      const ThreadTeam team{&m, r};
      body(r, team);
    });
  for (auto& t : threads) t.join();
}

template <int Words>
using Acc = std::array<std::int64_t, Words>;
template <int Words>
inline constexpr int slice = (Words + owners - 1) / owners;

// The words as the team leaves them after normalize_slice.
template <int Words>
Acc<Words> team_normalized(const Acc<Words>& a) {
  Acc<Words> out{};
  in_team([&](int rank, const ThreadTeam& team) {
    std::int64_t w[slice<Words>];
    const int first = rank * slice<Words>;
    for (int p = 0; p < slice<Words>; ++p) w[p] = first + p < Words ? a[first + p] : 0;
    gpureduce::detail::exact::normalize_slice(w, first, Words, team);
    for (int p = 0; p < slice<Words>; ++p)
      if (first + p < Words) out[first + p] = w[p];
  });
  return out;
}

// Every owner's result of round_slice; all must agree.
template <class Out, int Words>
std::vector<Out> team_rounded(const Acc<Words>& a, int lsb_exp, unsigned flags) {
  std::vector<Out> got(owners);
  in_team([&](int rank, const ThreadTeam& team) {
    std::int64_t w[slice<Words>];
    const int first = rank * slice<Words>;
    for (int p = 0; p < slice<Words>; ++p) w[p] = first + p < Words ? a[first + p] : 0;
    got[rank] = gpureduce::detail::exact::round_slice<Out>(w, first, Words, lsb_exp, flags, team);
  });
  return got;
}

template <class T>
std::uint64_t bits_of(T x) {
  std::uint64_t b = 0;
  std::memcpy(&b, &x, sizeof x);
  return b;
}

// Accumulators in the states the kernel rounds: words of either sign below 2^45 (sums of
// carry-stepped words over blocks), a band of them around a random word with zeros above and
// below (a negative band makes runs of zero digits that carries must cross), or all-ones digits.
template <int Words>
Acc<Words> random_accumulator(std::mt19937_64& rng, int kind) {
  Acc<Words> a{};
  std::uniform_int_distribution<int> at(0, Words - 4);
  const auto word = [&](int bits) {
    const std::int64_t v = std::int64_t(rng() >> (64 - bits));
    return rng() & 1 ? -v : v;
  };
  switch (kind) {
    case 0:  // every word
      for (auto& w : a) w = word(45);
      a[Words - 1] = word(10);
      break;
    case 1:  // a band of three words, either sign
    case 2: {
      const int b = at(rng);
      for (int i = b; i < b + 3; ++i) a[i] = kind == 1 ? word(40) : -std::int64_t(rng() >> 24);
      break;
    }
    case 3: {  // digits all ones from a random word up, then one more at the bottom
      const int b = at(rng);
      for (int i = b; i < Words - 1; ++i) a[i] = 0xffffffff;
      a[b] += 1 + std::int64_t(rng() % 3);
      break;
    }
    default:  // a single word of either sign, or none
      if (kind == 4) a[at(rng)] = word(33);
      break;
  }
  return a;
}

template <class Out, int Words>
void check_team(std::uint64_t seed) {
  constexpr gpureduce::detail::exact::TermRange r = gpureduce::detail::exact::sum_terms<Out>();
  static_assert(r.words() == Words);
  std::mt19937_64 rng(seed);
  for (int round = 0; round < 60; ++round) {
    const int kind = round % 6;
    const Acc<Words> a = random_accumulator<Words>(rng, kind);
    Acc<Words> one = a;
    gpureduce::detail::exact::normalize(*reinterpret_cast<std::int64_t(*)[Words]>(one.data()));
    EXPECT_EQ(team_normalized<Words>(a), one) << "kind " << kind << " round " << round;
    for (unsigned flags : {0u, unsigned(gpureduce::detail::exact::flag_not_neg_zero)}) {
      Acc<Words> w = a;
      const Out want = gpureduce::detail::exact::round_to<Out>(*reinterpret_cast<std::int64_t(*)[Words]>(w.data()),
                                                       r.lsb_exp, flags);
      for (Out got : team_rounded<Out, Words>(a, r.lsb_exp, flags))
        ASSERT_EQ(bits_of(got), bits_of(want)) << "kind " << kind << " round " << round << " flags " << flags;
    }
  }
}

TEST(ExactTeam, thirty_two_owners_give_one_owners_words_and_rounding) {
  const std::uint64_t seed = test_seed();
  check_team<float, gpureduce::detail::exact::sum_terms<float>().words()>(seed);
  check_team<double, gpureduce::detail::exact::sum_terms<double>().words()>(seed);
  check_team<__half, gpureduce::detail::exact::sum_terms<__half>().words()>(seed);
  check_team<__nv_bfloat16, gpureduce::detail::exact::sum_terms<__nv_bfloat16>().words()>(seed);
}

TEST(ExactTeam, specials_are_decided_before_the_words) {
  using gpureduce::detail::exact::flag_nan;
  using gpureduce::detail::exact::flag_neg_inf;
  using gpureduce::detail::exact::flag_pos_inf;
  constexpr int words = gpureduce::detail::exact::sum_terms<double>().words();
  Acc<words> a{};
  a[3] = 12345;
  for (unsigned flags : {unsigned(flag_nan), unsigned(flag_pos_inf), unsigned(flag_neg_inf),
                         unsigned(flag_pos_inf | flag_neg_inf)})
    for (double got : team_rounded<double, words>(a, -1074, flags)) {
      if (flags == flag_pos_inf) EXPECT_TRUE(got > 0 && got - got != 0);
      else if (flags == flag_neg_inf) EXPECT_TRUE(got < 0 && got - got != 0);
      else EXPECT_NE(got, got);
    }
}

}  // namespace
