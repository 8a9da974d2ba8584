// The multi-pass driver never reads and writes one buffer in the same pass (the classic in-place
// relaunch race) and ends in the caller's output, checked with a host stand-in for the kernel.
#include <gpureduce/grid/block_tile.hpp>
#include <gpureduce/ladder/multipass_driver.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace gpureduce::ladder {
using namespace gpureduce::detail;
namespace {

TEST(test_ladder_multipass, ping_pong_never_aliases_and_sums) {
  for (std::uint64_t n : {0ull, 1ull, 2ull, 511ull, 512ull, 513ull, 262144ull, 262145ull, 1000003ull}) {
    std::vector<std::int64_t> in(n);
    std::iota(in.begin(), in.end(), 1);
    auto grid_of = [](std::uint64_t m) { return BlockTile<2>{m, 256}.grid(); };
    const std::uint64_t g = grid_of(n);
    std::vector<std::int64_t> a(g, -1), b(g, -1);
    std::int64_t out = -7;
    int passes = 0;
    const cudaError_t e = run_multipass(
        in.data(), n, &out, a.data(), b.data(), grid_of,
        [&](const std::int64_t* src, std::uint64_t m, std::int64_t* dst, std::uint64_t grid) {
          ++passes;
          EXPECT_NE(static_cast<const void*>(src), static_cast<const void*>(dst));
          EXPECT_EQ(grid, grid_of(m));
          if (dst != &out) EXPECT_TRUE(dst == a.data() || dst == b.data());
          for (std::uint64_t blk = 0; blk < grid; ++blk) {
            std::int64_t s = 0;
            for (std::uint64_t i = blk * 512; i < std::min<std::uint64_t>(m, (blk + 1) * 512); ++i) s += src[i];
            dst[blk] = s;
          }
          return cudaSuccess;
        });
    ASSERT_EQ(e, cudaSuccess);
    EXPECT_EQ(out, std::int64_t(n) * std::int64_t(n + 1) / 2) << "n=" << n;
    int expected_passes = 1;  // n -> grid(n) -> ... -> 1
    for (std::uint64_t m = g; m > 1; m = grid_of(m)) ++expected_passes;
    EXPECT_EQ(passes, expected_passes);
  }
}

TEST(test_ladder_multipass, stops_at_first_launch_error) {
  std::vector<int> in(10000), a(20), b(20);
  int out = 0, calls = 0;
  const cudaError_t e = run_multipass(
      in.data(), in.size(), &out, a.data(), b.data(), [](std::uint64_t m) { return BlockTile<2>{m, 256}.grid(); },
      [&](const int*, std::uint64_t, int*, std::uint64_t) {
        ++calls;
        return cudaErrorLaunchFailure;
      });
  EXPECT_EQ(e, cudaErrorLaunchFailure);
  EXPECT_EQ(calls, 1);
}

TEST(test_ladder_multipass, pass_counts) {
  auto passes = [](std::uint64_t n) {
    int count = 0;
    std::vector<int> in(1), a(1 << 25), b(1 << 25);
    int out = 0;
    run_multipass(in.data(), n, &out, a.data(), b.data(), [](std::uint64_t m) { return BlockTile<2>{m, 256}.grid(); },
                  [&](const int*, std::uint64_t, int*, std::uint64_t) {
                    ++count;
                    return cudaSuccess;
                  });
    return count;
  };
  EXPECT_EQ(passes(0), 1);
  EXPECT_EQ(passes(1), 1);
  EXPECT_EQ(passes(512), 1);
  EXPECT_EQ(passes(513), 2);
  EXPECT_EQ(passes(512 * 512), 2);
  EXPECT_EQ(passes(512 * 512 + 1), 3);
  EXPECT_EQ(passes(std::uint64_t(1) << 33), 4);  // 2^24, 2^15, 64, 1
}

}  // namespace
}  // namespace gpureduce::ladder
