// The registry is the single list of rungs: names in ladder order, every rung launchable for every
// type, only the last one single-launch, and workspace sizes that grow with n as each rung needs.
#include <gpureduce/ladder/registry.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace gpureduce::ladder {
namespace {

TEST(test_ladder_registry, names_in_order_and_unique) {
  const auto all = rungs();
  ASSERT_GE(all.size(), 10u);
  std::set<std::string> names;
  for (std::size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(std::string(all[i].name), "r" + std::to_string(i));
    EXPECT_TRUE(names.insert(all[i].name).second);
    EXPECT_GT(std::string(all[i].adds).size(), 5u);
    EXPECT_EQ(find_rung(all[i].name), &all[i]);
  }
  EXPECT_EQ(find_rung("r99"), nullptr);
}

TEST(test_ladder_registry, every_rung_has_launchers_and_workspace) {
  const DeviceShape h100{132, 2048};
  for (const Rung& r : rungs()) {
    EXPECT_NE(r.launcher<std::int32_t>(), nullptr) << r.name;
    EXPECT_NE(r.launcher<float>(), nullptr) << r.name;
    EXPECT_NE(r.launcher<double>(), nullptr) << r.name;
    ASSERT_NE(r.workspace_bytes, nullptr) << r.name;
    for (unsigned block : {64u, 256u, 1024u}) {
      const std::size_t small = r.workspace_bytes(1000, 4, block, h100);
      const std::size_t large = r.workspace_bytes(std::uint64_t(1) << 30, 4, block, h100);
      EXPECT_GT(small, 0u) << r.name;
      EXPECT_GE(large, small) << r.name;
      EXPECT_GE(r.workspace_bytes(1000, 8, block, h100), small) << r.name;
    }
  }
}

TEST(test_ladder_registry, only_r9_is_single_launch) {
  for (const Rung& r : rungs()) EXPECT_EQ(r.single_launch, std::string(r.name) == "r9") << r.name;
}

TEST(test_ladder_registry, block_sizes) {
  for (unsigned b : {64u, 128u, 256u, 512u, 1024u}) EXPECT_TRUE(is_valid_block(b));
  for (unsigned b : {0u, 1u, 32u, 96u, 100u, 2048u}) EXPECT_FALSE(is_valid_block(b));
  EXPECT_EQ((DeviceShape{132, 2048}.max_resident_blocks(256)), 132u * 8);
}

}  // namespace
}  // namespace gpureduce::ladder
