// The staged kernels' stage (grid/staged_tile.hpp): loads, capacity and slots; the layout each row
// length takes against a count of the bank conflicts of both; segments per tile.
#include <gpureduce/grid/staged_tile.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

namespace gpureduce::detail {
namespace {

TEST(StagedTile, LoadsAndCapacity) {
  EXPECT_EQ(staged_load_elements(4, 4), 4u);
  EXPECT_EQ(staged_load_elements(2, 2), 8u);
  EXPECT_EQ(staged_load_elements(8, 8), 2u);
  EXPECT_EQ(staged_load_elements(16, 16), 1u);  // one element is one vector
  EXPECT_EQ(staged_load_elements(4, 2), 1u);    // a record of two shorts: not aligned to its size
  EXPECT_EQ(staged_load_elements(12, 4), 1u);
  // 32 KB of float32: 8 vectors per thread of 256; 33 KB with its padding.
  EXPECT_EQ(staged_capacity(256, 8, 4), 8192u);
  EXPECT_EQ(staged_slots(8192, 4), 8192u + 3u + 256u);  // and 3 a fold reads past the end
  EXPECT_EQ(staged_slots(2048, 12), 2051u);  // records of 12 bytes: unpadded
  // The most loads whose padded stage fits: 5 of float32 in 21,588 bytes (5,283 slots).
  EXPECT_EQ(staged_loads(256, 21588, 4, 4), 5u);
  EXPECT_EQ(staged_loads(256, 100, 4, 4), 0u);
  // Segments of 33 elements or more that fit in a stage together: 124 of 4,096 elements.
  EXPECT_EQ(staged_long_room(4096), 125u);
  for (unsigned capacity : {1u, 32u, 33u, 66u, 4096u, 8192u}) EXPECT_GT(staged_long_room(capacity), capacity / 33);
}

// Every slot of a padded stage is distinct and within the stage.
TEST(StagedTile, SlotsAreDistinctAndInRange) {
  for (unsigned bytes : {1u, 2u, 4u, 8u, 16u}) {
    const unsigned shift = staged_pad_shift(bytes);
    EXPECT_EQ(1u << shift, 128u / bytes);
    const unsigned capacity = staged_capacity(256, 8, 16 / bytes);
    std::set<unsigned> seen;
    for (unsigned e = 0; e < capacity; ++e) {
      const unsigned slot = staged_slot(e, shift);
      EXPECT_LT(slot, staged_slots(capacity, bytes));
      seen.insert(slot);
    }
    EXPECT_EQ(seen.size(), capacity);
    EXPECT_LT(staged_slot(capacity + staged_fold_width - 2, shift), staged_slots(capacity, bytes));  // the fold's reads
    EXPECT_EQ(staged_slot(capacity - 1, staged_no_pad), capacity - 1);
  }
}

// Bank conflicts counted independently: the distinct 4-byte words per bank of a warp's reads.
unsigned conflicts(unsigned bytes, unsigned length, unsigned shift) {
  unsigned worst = 0;
  for (unsigned k = 0; k < length; ++k) {
    std::set<std::uint64_t> words;
    for (unsigned t = 0; t < 32; ++t) {
      const std::uint64_t slot = t * length + k + (shift < 31 ? (t * length + k) >> shift : 0);
      for (std::uint64_t b = slot * bytes; b < (slot + 1) * bytes; ++b) words.insert(b / 4);
    }
    std::vector<unsigned> per_bank(32);
    for (auto w : words) worst = std::max(worst, ++per_bank[w % 32]);
  }
  return worst;
}

TEST(StagedTile, EachLengthTakesTheLayoutWithFewerConflicts) {
  for (unsigned bytes : {1u, 2u, 4u, 8u, 16u})
    for (unsigned length = 1; length <= 32; ++length) {
      const unsigned padded = conflicts(bytes, length, staged_pad_shift(bytes));
      const unsigned plain = conflicts(bytes, length, staged_no_pad);
      EXPECT_EQ(staged_bank_conflicts(bytes, length, staged_pad_shift(bytes)), padded) << bytes << " " << length;
      EXPECT_EQ(staged_bank_conflicts(bytes, length, staged_no_pad), plain) << bytes << " " << length;
      if (bytes == 4) {
        const unsigned chosen = staged_rows_shifts<4, 32>.shift[length];
        EXPECT_EQ(conflicts(4, length, chosen), std::min(padded, plain)) << length;
        EXPECT_LE(conflicts(4, length, chosen), 2u) << length;  // float32 rows: at most two-way
      }
    }
  // Rows of 31 float32 padded would read 31 words from one bank; of 2, unpadded, 2.
  EXPECT_EQ(staged_bank_conflicts(4, 31, staged_pad_shift(4)), 31u);
  EXPECT_EQ((staged_rows_shifts<4, 32>.shift[31]), staged_no_pad);
  EXPECT_EQ((staged_rows_shifts<4, 32>.shift[2]), staged_pad_shift(4));
  EXPECT_EQ((staged_rows_shifts<12, 32>.shift[3]), staged_no_pad);  // records: unpadded
}

TEST(StagedTile, SegmentsPerTile) {
  // Rows of 3 float32 at 2^28 on 2,112 blocks: as many as 32 KB hold.
  EXPECT_EQ(staged_per_tile(89478485, 3, 8192, 256, 2112), 2730u);
  // 64 KB of rows of 3: a block's 256 threads each take one, over 22 blocks.
  EXPECT_EQ(staged_per_tile(5461, 3, 8192, 256, 2112), 256u);
  // Empty segments (mean 0) and rows longer than the stage: never 0.
  EXPECT_EQ(staged_per_tile(1000000, 0, 3840, 256, 528), 2048u);
  EXPECT_EQ(staged_per_tile(10, 100000, 8192, 256, 2112), 1u);
}

// A segment's place in its tile from the low 32 bits of its offsets: exact past 2^32 elements,
// within the tile for offsets that decrease or leave it.
TEST(StagedTile, BoundsFromTheLow32Bits) {
  const auto at = [](std::int64_t begin, std::int64_t end, std::int64_t first, unsigned n) {
    const StagedBounds s = staged_bounds(std::uint32_t(begin), std::uint32_t(end), first, n);
    return std::pair<unsigned, unsigned>{s.lo, s.hi};
  };
  using P = std::pair<unsigned, unsigned>;
  EXPECT_EQ(at(100, 107, 100, 50), P(0, 7));
  const std::int64_t far = (std::int64_t(1) << 32) - 5;  // a tile across 2^32
  EXPECT_EQ(at(far + 3, far + 9, far, 4000), P(3, 9));
  EXPECT_EQ(at(far + 6, far + 4000, far, 4000), P(6, 4000));
  const std::int64_t farther = (std::int64_t(7) << 32) + 11;
  EXPECT_EQ(at(farther + 2047, farther + 2048, farther, 2048), P(2047, 2048));
  EXPECT_EQ(at(far + 40, far + 10, far, 100), P(40, 40));  // decreasing: empty
  EXPECT_EQ(at(far - 8, far + 10, far, 100), P(0, 10));    // before the tile
  EXPECT_EQ(at(far + 90, far + 500, far, 100), P(90, 100));
  EXPECT_EQ(at(far + 500, far + 900, far, 100), P(100, 100));  // past it
  EXPECT_EQ(at(far + (std::int64_t(3) << 31), far + 5, far, 100), P(0, 5));  // 2^31 or more away
  // From 64-bit offsets relative to the tile (the reads from global memory): 2^32 past it is past it.
  const auto place = [](std::int64_t begin, std::int64_t end, unsigned n) {
    const StagedBounds s = staged_place(begin, end, n);
    return P(s.lo, s.hi);
  };
  EXPECT_EQ(place(3, 9, 100), P(3, 9));
  EXPECT_EQ(place(std::int64_t(1) << 32, (std::int64_t(1) << 32) + 5, 100), P(100, 100));
  EXPECT_EQ(place(-7, std::int64_t(1) << 32, 100), P(0, 100));
  EXPECT_EQ(place(50, 20, 100), P(50, 50));
}

}  // namespace
}  // namespace gpureduce::detail
