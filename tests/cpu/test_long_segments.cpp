// The list of long batch-invariant segments (grid/long_segments.hpp) on the host: its arrays lie
// within long_segments_bytes, apart and aligned; and segments listed back to back, each taking its
// slices from the cursor as the kernel does, get entries of their own (long_entry), up to the room.
#include <gpureduce/grid/long_segments.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gpureduce::detail {
namespace {

template <class A>
void expect_layout() {
  alignas(16) static unsigned char bytes[long_segments_bytes<A>];
  unsigned long long cursor = 0;
  const LongSegments<A> list = long_segments_at<A>(&cursor, bytes, long_slices);
  const auto at = [&](const void* p) { return static_cast<const unsigned char*>(p) - bytes; };
  EXPECT_EQ(at(list.entries), 0);
  EXPECT_EQ(at(list.owner), std::ptrdiff_t(long_slices / 2 * sizeof(LongSegment)));
  EXPECT_EQ(at(list.partials), at(list.owner + long_slices));
  EXPECT_EQ(at(list.partials) % 16, 0);
  EXPECT_EQ(at(list.partials + long_slices), std::ptrdiff_t(long_segments_bytes<A>));
  EXPECT_EQ(list.room, long_slices);
}

TEST(LongSegments, ArraysWithinTheirBytes) {
  expect_layout<float>();
  expect_layout<double>();
}

TEST(LongSegments, ListedSegmentsHaveEntriesOfTheirOwn) {
  constexpr std::uint64_t slice = 16384;
  std::mt19937_64 rng(7);
  std::vector<int> entry_of(long_slices / 2, -1);
  std::uint64_t cursor = 0;
  int listed = 0;
  for (int s = 0;; ++s) {
    // Every other segment of the fewest slices a listed one has (two), the others up to 71.
    const std::uint64_t length = s % 2 ? slice + 1 : slice + 1 + rng() % (70 * slice);
    const std::uint64_t first = cursor;
    cursor += ceil_div(length, slice);
    if (cursor > long_slices) break;  // no room: the warp folds it itself
    ASSERT_LT(long_entry(first), long_slices / 2);
    ASSERT_EQ(entry_of[long_entry(first)], -1) << "segment " << s << " shares segment "
                                                << entry_of[long_entry(first)] << "'s entry";
    entry_of[long_entry(first)] = s;
    ++listed;
  }
  EXPECT_GT(listed, 1000);
}

}  // namespace
}  // namespace gpureduce::detail
