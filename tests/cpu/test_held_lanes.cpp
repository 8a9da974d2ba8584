// The batch-invariant fold's logical lanes on G threads (thread/held_lanes.hpp), run on the host:
// each thread's fold of the lanes it holds, then the butterfly over the G threads (device code,
// mirrored here), gives every thread the same tree as the 32-lane butterfly, for every G; and
// the other way round for the segments' tree read as vectors.
#include <gpureduce/thread/held_lanes.hpp>

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gpureduce {
using namespace gpureduce::detail;
namespace {

const auto bracket = [](const std::string& a, const std::string& b) { return "(" + a + " " + b + ")"; };

// The butterfly over `lanes` values (kernel/axis_kernels.cuh, butterfly): lanes i and i ^ offset
// combine for offset = lanes / 2 down to 1, the lower lane's value first.
std::vector<std::string> butterfly(std::vector<std::string> v) {
  const unsigned lanes = unsigned(v.size());
  for (unsigned offset = lanes / 2; offset >= 1; offset /= 2) {
    std::vector<std::string> next(lanes);
    for (unsigned i = 0; i < lanes; ++i)
      next[i] = (i & offset) ? bracket(v[i ^ offset], v[i]) : bracket(v[i], v[i ^ offset]);
    v = next;
  }
  return v;
}

template <unsigned G>
void expect_the_32_lane_tree() {
  constexpr unsigned M = 32 / G;
  std::vector<std::string> logical(32);
  for (unsigned k = 0; k < 32; ++k) logical[k] = std::to_string(k);
  const std::string want = butterfly(logical)[0];
  std::vector<std::string> held(G);
  for (unsigned l = 0; l < G; ++l) {
    std::string acc[M];
    for (unsigned m = 0; m < M; ++m) acc[m] = logical[l + m * G];
    fold_held_lanes(acc, bracket);
    held[l] = acc[0];
  }
  for (const std::string& got : butterfly(held)) EXPECT_EQ(got, want) << G << " threads";
}

TEST(test_held_lanes, every_thread_count_gives_the_32_lane_tree) {
  expect_the_32_lane_tree<1>();
  expect_the_32_lane_tree<2>();
  expect_the_32_lane_tree<4>();
  expect_the_32_lane_tree<8>();
  expect_the_32_lane_tree<16>();
  expect_the_32_lane_tree<32>();
}

// The segments' tree read as vectors (kernel/axis_kernels.cuh, element_tree_fold): thread l of
// G = 32 / V holds the V consecutive logical lanes l x V ... l x V + V - 1; the butterfly over the G
// threads on each of them, then fold_held_lanes, gives every thread the 32-lane butterfly's tree.
template <unsigned V>
void expect_the_element_tree() {
  constexpr unsigned G = 32 / V;
  std::vector<std::string> logical(32);
  for (unsigned k = 0; k < 32; ++k) logical[k] = std::to_string(k);
  const std::string want = butterfly(logical)[0];
  std::vector<std::vector<std::string>> across(V);  // across[e][l]: thread l's logical lane l x V + e
  for (unsigned e = 0; e < V; ++e)
    for (unsigned l = 0; l < G; ++l) across[e].push_back(logical[l * V + e]);
  for (unsigned e = 0; e < V; ++e) across[e] = butterfly(across[e]);
  for (unsigned l = 0; l < G; ++l) {
    std::string acc[V];
    for (unsigned e = 0; e < V; ++e) acc[e] = across[e][l];
    fold_held_lanes(acc, bracket);
    for (unsigned e = 0; e < V; ++e) EXPECT_EQ(acc[e], want) << V << " elements a vector, thread " << l;
  }
}

TEST(test_held_lanes, vectors_of_every_width_give_the_32_lane_tree) {
  expect_the_element_tree<1>();
  expect_the_element_tree<2>();
  expect_the_element_tree<4>();
  expect_the_element_tree<8>();
  expect_the_element_tree<16>();
}

TEST(test_held_lanes, the_tree_pairs_lanes_16_apart_first) {
  std::string acc[2] = {"0", "16"};
  fold_held_lanes(acc, bracket);
  EXPECT_EQ(acc[0], "(0 16)");
  EXPECT_EQ(acc[1], "(0 16)");
  std::string four[4] = {"0", "8", "16", "24"};
  fold_held_lanes(four, bracket);
  EXPECT_EQ(four[0], "((0 16) (8 24))");
}

}  // namespace
}  // namespace gpureduce
