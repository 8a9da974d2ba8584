// The exact sum's hand-off from reading blocks to the combiner (grid/exact_packets.hpp) on the
// host: random blocks (words of either sign up to the bound, the extremes included) packed and
// added back in a shuffled order give every word's sum over the blocks and the OR of their flags;
// every packet is full, even a zero block's, and an empty slot is not.
#include <gpureduce/dispatch/exact_plan.hpp>
#include <gpureduce/grid/exact_packets.hpp>

#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace {

using gpureduce::detail::FlaggedPartial;
using namespace gpureduce::detail::exact;
using gpureduce::test::test_seed;

void check_round_trip(int words, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int blocks = 37, rows = packets(words);
  std::vector<std::vector<std::int64_t>> w(blocks, std::vector<std::int64_t>(words));
  std::vector<std::int64_t> expected(words, 0);
  std::vector<unsigned> flags(blocks);
  unsigned all_flags = 0;
  for (int b = 0; b < blocks; ++b) {
    for (int i = 0; i < words; ++i) {
      // block 3 is zero, block 4 the extremes; the others random words of either sign
      const std::int64_t d = b == 3   ? 0
                             : b == 4 ? (i % 2 ? 1 - packet_word_bound : packet_word_bound - 1)
                                      : std::int64_t(rng() % (2 * packet_word_bound - 1)) - (packet_word_bound - 1);
      w[b][i] = d;
      expected[i] += d;
    }
    flags[b] = b == 3 ? 0u : unsigned(rng() % 16);  // flag_nan ... flag_not_neg_zero
    all_flags |= flags[b];
  }
  std::vector<std::pair<int, int>> order;  // (block, packet)
  for (int b = 0; b < blocks; ++b)
    for (int p = 0; p < rows; ++p) order.emplace_back(b, p);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::int64_t> got(rows * packet_words, 0);
  unsigned got_flags = 0;
  for (const auto& [b, p] : order) {
    const FlaggedPartial v = pack_words(w[b].data(), words, p, flags[b]);
    ASSERT_TRUE(packet_is_full(v)) << "block " << b << " packet " << p;
    std::int64_t s[packet_words] = {0, 0, 0};
    add_packet(v, p, s, got_flags);
    for (int j = 0; j < packet_words; ++j) got[p * packet_words + j] += s[j];
  }
  for (int i = 0; i < words; ++i) EXPECT_EQ(got[i], expected[i]) << "word " << i << " of " << words;
  for (int i = words; i < rows * packet_words; ++i) EXPECT_EQ(got[i], 0) << "padding word " << i;
  EXPECT_EQ(got_flags, all_flags);
}

TEST(ExactPackets, every_word_summed_over_blocks_with_the_flags) {
  const std::uint64_t seed = test_seed();
  for (const int words : {SumOf<double>::range.words(), SumOf<float>::range.words(), SumOf<__half>::range.words(),
                          SumOf<__nv_bfloat16>::range.words(), FloatProducts::range.words()})
    check_round_trip(words, seed + std::uint64_t(words));
}

TEST(ExactPackets, empty_slots_are_not_full) {
  EXPECT_FALSE(packet_is_full(FlaggedPartial{0, 0}));
  EXPECT_FALSE(packet_is_full(FlaggedPartial{~0ull, 0x00ffffffffffffffull}));  // fields alone are no flag
  const std::int64_t zeros[5] = {};
  EXPECT_TRUE(packet_is_full(pack_words(zeros, 5, 0, 0)));
  EXPECT_TRUE(packet_is_full(pack_words(zeros, 5, 1, 0)));
}

// Packets per block and the grid they allow: every reader's packets fit the workspace's flagged
// slots, and the ticketed region after them is untouched.
TEST(ExactPackets, readers_fit_the_flagged_slots) {
  EXPECT_EQ(packets(SumOf<double>::range.words()), 23);
  EXPECT_EQ(packets(SumOf<float>::range.words()), 5);
  EXPECT_EQ(packets(SumOf<__half>::range.words()), 2);
  for (const int words : {SumOf<double>::range.words(), SumOf<float>::range.words(), SumOf<__half>::range.words(),
                          SumOf<__nv_bfloat16>::range.words(), FloatProducts::range.words()}) {
    EXPECT_LE(max_readers(words) * std::uint64_t(packets(words)), gpureduce::detail::max_grid_blocks) << words;
    EXPECT_GT((max_readers(words) + 1) * std::uint64_t(packets(words)), gpureduce::detail::max_grid_blocks) << words;
    EXPECT_GE(max_readers(words), 132u) << words;  // a reader per SM of an H100, at least
  }
}

}  // namespace
