// The list of long batch-invariant segments (grid/long_segments.hpp) on the host: its arrays lie
// within long_segments_bytes, apart and aligned; and segments listed back to back, each taking its
// slices from the cursor as the kernel does, get entries of their own (long_entry) and own every
// slice they took, up to the room.
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

TEST(LongSegments, ListedSegmentsOwnTheirSlices) {
  constexpr std::uint64_t slice = 16384;
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> owner(long_slices, unowned_slice);
  std::vector<int> entry_of(long_slices / 2, -1);
  std::uint64_t cursor = 0;
  int listed = 0;
  for (int s = 0; cursor < long_slices; ++s) {
    const std::uint64_t length = slice + 1 + rng() % (70 * slice);  // two slices or more
    const std::uint64_t slices = ceil_div(length, slice), first = cursor;
    cursor += slices;
    if (first + slices > long_slices) break;  // no room: the warp folds it itself
    ASSERT_LT(long_entry(first), long_slices / 2);
    ASSERT_EQ(entry_of[long_entry(first)], -1) << "segment " << s;
    entry_of[long_entry(first)] = s;
    for (std::uint64_t g = first; g < first + slices; ++g) {
      ASSERT_EQ(owner[g], unowned_slice);
      owner[g] = std::uint32_t(first);
    }
    ++listed;
  }
  EXPECT_GT(listed, 1000);
}

}  // namespace
}  // namespace gpureduce::detail
