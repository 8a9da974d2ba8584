// The production path's launch arithmetic, on the host.
#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/dispatch/tuning_sm90.hpp>
#include <gpureduce/dispatch/workspace.hpp>

#include <gtest/gtest.h>

namespace gpureduce {
namespace {

constexpr ReduceTuning t = TuningSm90<4>::value;
constexpr std::uint64_t resident = 132 * 8;  // H100, 8 blocks of 256 threads per SM

TEST(test_dispatch_launch_plan, small_inputs_take_one_block) {
  for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(31), t.single_block_max_bytes / 4}) {
    const LaunchPlan p = plan_launch(n, 0, 4, t, resident);
    EXPECT_TRUE(p.single_block) << n;
    EXPECT_EQ(p.blocks, 1u);
    EXPECT_EQ(p.threads, t.single_threads);
  }
  EXPECT_FALSE(plan_launch(t.single_block_max_bytes / 4 + 1, 0, 4, t, resident).single_block);
}

TEST(test_dispatch_launch_plan, grid_covers_the_vectors_up_to_one_wave) {
  const std::uint64_t per_block = std::uint64_t(t.grid_unroll) * t.grid_threads * 4;  // int32 elements
  EXPECT_EQ(plan_launch(10 * per_block, 0, 4, t, resident).blocks, 10u);
  EXPECT_EQ(plan_launch(10 * per_block + 4, 0, 4, t, resident).blocks, 11u);
  EXPECT_EQ(plan_launch(std::uint64_t(1) << 32, 0, 4, t, resident).blocks, resident);
  EXPECT_EQ(plan_launch(std::uint64_t(1) << 32, 0, 4, t, 100000).blocks, max_grid_blocks);
}

TEST(test_dispatch_launch_plan, forced_shapes) {
  EXPECT_TRUE(plan_launch(1u << 28, 0, 4, t, resident, 1).single_block);
  const LaunchPlan p = plan_launch(5, 0, 4, t, resident, 7);
  EXPECT_FALSE(p.single_block);
  EXPECT_EQ(p.blocks, 7u);
  EXPECT_EQ(plan_launch(5, 0, 4, t, resident, 1u << 20).blocks, max_grid_blocks);
}

TEST(test_dispatch_launch_plan, workspace_holds_a_partial_per_block) {
  EXPECT_GE(workspace_bytes, 16 + max_grid_blocks * 16);
  EXPECT_EQ(detail::slot_bytes % 256, 0u);
  EXPECT_GE(detail::slot_bytes, detail::slot_result_bytes + workspace_bytes);
}

}  // namespace
}  // namespace gpureduce
