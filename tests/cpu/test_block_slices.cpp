// The slicing of short runs within a block (grid/block_slices.hpp): slices cover the run exactly,
// each a multiple of the kernel's multiple, none empty, at most one a warp, and every block's runs
// fit its warps.
#include <gpureduce/grid/block_slices.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

namespace gpureduce::detail {
namespace {

TEST(BlockSlices, CoverShortRunsWithinABlock) {
  for (unsigned warps : {2u, 4u, 8u})
    for (std::uint64_t most : {2u, 3u, 5u, 8u, 1000u})
      for (std::uint64_t multiple : {64u, 93u, 128u, 480u, 512u, 1024u})
        for (std::uint64_t reach = 1; reach <= warps * block_slice_reach + 3000; reach += 7) {
          const std::string what = std::to_string(warps) + " warps, at most " + std::to_string(most) +
                                   ", multiple " + std::to_string(multiple) + ", reach " + std::to_string(reach);
          const BlockSlices b = block_slices(reach, multiple, warps, most);
          if (reach > warps * block_slice_reach) {
            EXPECT_EQ(b.slices, 0u) << what;
            continue;
          }
          if (b.slices == 0) {  // not split: one warp's least or one multiple holds it
            EXPECT_LE(reach, max_u64(min_slice_elements, multiple)) << what;
            continue;
          }
          EXPECT_GE(b.slices, 2u) << what;
          EXPECT_LE(b.slices, warps) << what;
          EXPECT_LE(b.slices, most) << what;
          EXPECT_EQ(b.slice % multiple, 0u) << what;
          EXPECT_LT((b.slices - 1) * b.slice, reach) << what;  // the last slice holds something
          EXPECT_GE(b.slices * b.slice, reach) << what;
          EXPECT_GE(b.runs, 1u) << what;
          EXPECT_LE(b.runs * b.slices, warps) << what;
        }
}

TEST(BlockSlices, TheBenchmarksRuns) {
  // 2^14 float32 as 8192 rows of 2 interleaved columns: 8 slices of 2048, one run a block.
  const BlockSlices two = block_slices(16384, 32 << 1, 8, 16);
  EXPECT_EQ(two.slices, 8u);
  EXPECT_EQ(two.slice, 2048u);
  EXPECT_EQ(two.runs, 1u);
  // 5461 rows of 3 (narrow columns: 30 lanes x 4 floats, positions up to 3 more).
  const BlockSlices three = block_slices(16383 + 3, 120, 8, 16);
  EXPECT_EQ(three.slices, 8u);
  EXPECT_EQ(three.runs, 1u);
  // 2^28 bfloat16 as 16384 x 4096 x 4 over the middle axis: two slices a run fill the device, so
  // two warps a run, four runs a block; five would leave three of a block's warps idle, so four.
  const BlockSlices middle = block_slices(16384, 256, 8, 2);
  EXPECT_EQ(middle.slices, 2u);
  EXPECT_EQ(middle.slice, 8192u);
  EXPECT_EQ(middle.runs, 4u);
  EXPECT_EQ(block_slices(16384, 256, 8, 5).slices, 4u);
  // Longer runs are sliced across blocks and combined by a second kernel.
  EXPECT_EQ(block_slices(8 * block_slice_reach + 1, 64, 8, 16).slices, 0u);
}

}  // namespace
}  // namespace gpureduce::detail
