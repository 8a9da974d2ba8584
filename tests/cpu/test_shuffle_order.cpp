// The shuffle tree's order as folds of arrays (warp/shuffle_order.hpp), checked against an emulated
// warp running warp_reduce's steps (shfl.down: a lane whose source is past the warp keeps its own
// value). An operator that writes out its expression shows the order exactly.
#include <gpureduce/warp/shuffle_order.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>

namespace gpureduce {
namespace {

constexpr unsigned lanes = 32;

const auto spell = [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; };

// Every lane's value after warp_reduce's steps of offset from down to stop.
template <class T, class Op>
std::array<T, lanes> shuffle_steps(std::array<T, lanes> v, unsigned from, unsigned stop, Op op) {
  for (unsigned offset = from; offset >= stop; offset /= 2) {
    std::array<T, lanes> next{};
    for (unsigned i = 0; i < lanes; ++i) next[i] = op(v[i], i + offset < lanes ? v[i + offset] : v[i]);
    v = next;
  }
  return v;
}

std::array<std::string, lanes> named_lanes() {
  std::array<std::string, lanes> v;
  for (unsigned i = 0; i < lanes; ++i) v[i] = "v" + std::to_string(i);
  return v;
}

template <unsigned L>
void expect_fold_matches_warp_reduce() {
  const auto v = named_lanes();
  std::string values[L];
  for (unsigned i = 0; i < L; ++i) values[i] = v[i];
  EXPECT_EQ(fold_in_shuffle_order(values, spell), shuffle_steps(v, L / 2, 1, spell)[0]) << "L = " << L;
}

TEST(ShuffleOrder, FoldIsLaneZeroOfWarpReduce) {
  expect_fold_matches_warp_reduce<2>();
  expect_fold_matches_warp_reduce<4>();
  expect_fold_matches_warp_reduce<8>();
  expect_fold_matches_warp_reduce<16>();
  expect_fold_matches_warp_reduce<32>();
  std::string one[1] = {"v0"};
  EXPECT_EQ(fold_in_shuffle_order(one, spell), "v0");
}

// warp/warp_fold_shared.cuh's two stages: lanes 0-7 fold four each, then lane 0 their eight.
template <unsigned Stop>
void expect_two_stages_match() {
  const auto v = named_lanes();
  const auto value = [&](unsigned j) { return v[j]; };
  const auto after = shuffle_steps(v, lanes / 2, Stop, spell);
  std::string firsts[Stop];
  for (unsigned i = 0; i < Stop; ++i) {
    firsts[i] = fold_lane_in_shuffle_order<lanes, Stop, std::string>(i, value, spell);
    EXPECT_EQ(firsts[i], after[i]) << "Stop = " << Stop << ", lane " << i;
  }
  EXPECT_EQ(fold_in_shuffle_order(firsts, spell), shuffle_steps(v, lanes / 2, 1, spell)[0]) << "Stop = " << Stop;
}

TEST(ShuffleOrder, TwoStagesAreTheWholeTree) {
  expect_two_stages_match<1>();
  expect_two_stages_match<4>();
  expect_two_stages_match<8>();
  expect_two_stages_match<32>();
}

// The same bits for a float sum of values whose order matters (magnitudes 2^-20..2^20).
TEST(ShuffleOrder, FloatSumBitsMatch) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> mantissa(-1.f, 1.f);
  std::uniform_int_distribution<int> exponent(-20, 20);
  const auto add = [](float a, float b) { return a + b; };
  for (int round = 0; round < 100; ++round) {
    std::array<float, lanes> v;
    for (auto& x : v) x = std::ldexp(mantissa(rng), exponent(rng));
    const auto value = [&](unsigned j) { return v[j]; };
    float firsts[8];
    for (unsigned i = 0; i < 8; ++i) firsts[i] = fold_lane_in_shuffle_order<lanes, 8, float>(i, value, add);
    const float two_stages = fold_in_shuffle_order(firsts, add);
    const float tree = shuffle_steps(v, lanes / 2, 1, add)[0];
    std::uint32_t a, b;
    std::memcpy(&a, &two_stages, 4);
    std::memcpy(&b, &tree, 4);
    ASSERT_EQ(a, b) << "round " << round;
  }
}

}  // namespace
}  // namespace gpureduce
