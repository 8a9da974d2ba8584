// The production API beyond per-type correctness: bit-identical results over repeated runs, the
// L2 policies' identical bits, counts beyond 2^31, and the small inputs compute-sanitizer runs
// through every kernel (tools/sanitize.sh).
#include "reduce_checks.cuh"

#include <tuple>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

TEST(test_reduce_api, bit_identical_over_ten_runs) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {1000ull, 1ull << 16, (1ull << 24) + 1}) {
    const auto h = random_input<float>(n, seed + n);
    DeviceInput<float> d(h, 3);
    const float first = run_to_host<float>([&](float* o) { sum(d.get(), n, o); });
    for (int run = 1; run < 10; ++run) {
      const float again = run_to_host<float>([&](float* o) { sum(d.get(), n, o); });
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "n=" << n << " run " << run;
    }
  }
}

// The L2 policy changes how lines are cached, never the result: the same bits from both grid loads,
// across the automatic limit (2^26 + 5 float32: 256 MB, above 4x an H100's L2) and below it.
TEST(test_reduce_api, l2_policies_give_the_same_bits) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {(1ull << 22) + 3, (1ull << 26) + 5}) {
    const auto h = random_input<float>(n, seed + n);
    DeviceInput<float> d(h, 4);
    const auto with = [&](L2Policy l2) {
      Options opt;
      opt.l2 = l2;
      return run_to_host<float>([&](float* o) { sum(d.get(), n, o, nullptr, opt); });
    };
    const float automatic = with(L2Policy::automatic), normal = with(L2Policy::normal),
                evict_first = with(L2Policy::evict_first);
    EXPECT_EQ(std::memcmp(&automatic, &normal, sizeof(float)), 0) << "n=" << n;
    EXPECT_EQ(std::memcmp(&automatic, &evict_first, sizeof(float)), 0) << "n=" << n;
    const auto ints = random_input<std::int32_t>(n, seed + n + 1);
    DeviceInput<std::int32_t> di(ints, 0);
    for (const L2Policy l2 : {L2Policy::normal, L2Policy::evict_first}) {
      Options opt;
      opt.l2 = l2;
      const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(di.get(), n, o, nullptr, opt); });
      EXPECT_EQ(std::uint64_t(s), reference::int_sum(ints.data(), n)) << "n=" << n << " l2=" << int(l2);
    }
  }
}

// More than 2^31 int8 elements: the sum (int64) and the argmax index beyond 2^31.
TEST(test_reduce_api, more_than_two_pow_31_int8) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = (1ull << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  GPUREDUCE_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n + (1u << 28)) GTEST_SKIP() << "needs " << n << " bytes of free device memory";
  std::vector<std::int8_t> h(n);
  std::uint64_t x = test_seed() | 1;
  for (auto& v : h) {  // xorshift: fast enough for 2^31 draws, values in [-100, 100]
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = std::int8_t(int(x % 201) - 100);
  }
  const std::uint64_t at = n - 77;
  h[at] = 127;
  DeviceInput<std::int8_t> d(h, 0);
  const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(d.get(), n, o); });
  EXPECT_EQ(std::uint64_t(s), reference::int_sum(h.data(), n));
  const auto m = run_to_host<IndexedValue<std::int8_t>>([&](IndexedValue<std::int8_t>* o) { argmax(d.get(), n, o); });
  EXPECT_EQ(m.value, 127);
  EXPECT_EQ(m.index, std::int64_t(at));
}

// 4- and 8-byte numbers of 16x the L2 size and more, where a device of the fastest memory (an H200,
// not an H100) runs them on several waves of blocks (dispatch/tuning_sm90.hpp, sm90::with_waves):
// sum, max and argmax (the first of two equal maxima, both past the first wave's share) exact under
// the library's plan and with the grid forced to one wave's 1056 and to 3168 blocks.
template <class T>
void check_large_numbers(std::uint64_t seed) {
  int device = 0, l2 = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const std::uint64_t n = 16 * std::uint64_t(l2) / sizeof(T) + 4099;
  std::size_t free_bytes = 0, total = 0;
  GPUREDUCE_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n * sizeof(T) + (1u << 28)) GTEST_SKIP() << "needs " << n * sizeof(T) << " bytes of device memory";
  std::vector<T> h(n);
  std::uint64_t x = seed | 1;
  for (auto& v : h) {  // xorshift, values in [-100, 100]
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = T(std::int64_t(x % 201) - 100);
  }
  const std::uint64_t first = n / 2 + 12345, second = n - 3;
  h[first] = h[second] = 1000;
  const DeviceInput<T> d(h, 1);
  const std::uint64_t want = reference::int_sum(h.data(), n);
  for (const std::uint64_t blocks : {0, 1056, 3168}) {
    SCOPED_TRACE(std::to_string(n) + " elements of " + std::to_string(sizeof(T)) + " bytes, blocks " +
                 std::to_string(blocks));
    const Options opt;
    const detail::testing::ForceLaunch forced({.kernel = blocks ? Kernel::grid : Kernel::automatic, .blocks = blocks});
    EXPECT_EQ(std::uint64_t(run_to_host<std::int64_t>([&](std::int64_t* o) { sum(d.get(), n, o, nullptr, opt); })),
              want);
    EXPECT_EQ(run_to_host<T>([&](T* o) { max(d.get(), n, o, nullptr, opt); }), T(1000));
    const auto m = run_to_host<IndexedValue<T>>([&](IndexedValue<T>* o) { argmax(d.get(), n, o, nullptr, opt); });
    EXPECT_EQ(m.value, T(1000));
    EXPECT_EQ(m.index, std::int64_t(first));
  }
}

TEST(test_reduce_api, large_numbers_on_several_waves) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  check_large_numbers<std::int32_t>(seed);
  check_large_numbers<std::int64_t>(seed + 1);
}

// Small inputs through every kernel (both loads of the grid kernel; the combiner block with 3
// blocks, the last block's poll of chunks of slots with 300), for compute-sanitizer
// (tools/sanitize.sh runs *sanitizer_sizes*).
// For floating types also signed zeros with one NaN, under both NaN policies: argmin/argmax then
// win at a zero or a NaN and read the value again from the input (thread/tree_key.hpp).
template <class T>
void sanitizer_sizes_for() {
  // 28 KB + 1 element: the one-block kernel's batch ends within its last quarter (VectorGrid).
  for (const std::uint64_t n : {1ull, 33ull, 1025ull, 28ull * 1024 / sizeof(T) + 1, 65537ull}) {
    std::vector<std::vector<T>> inputs{random_input<T>(n, test_seed() + n)};
    if constexpr (is_floating_v<T>) {
      std::vector<T> zeros(n);
      for (std::uint64_t i = 0; i < n; ++i) zeros[i] = convert<T>(i % 3 ? 0.0f : -0.0f);
      zeros[n / 2] = convert<T>(quiet_nan<float>());
      inputs.push_back(zeros);
    }
    for (const auto& h : inputs) {
      const DeviceInput<T> d(h, 1);
      struct Path {
        Kernel kernel;
        L2Policy l2;
        std::uint64_t blocks;
      };
      const Path paths[] = {{Kernel::one_block, L2Policy::automatic, 0},
                            {Kernel::grid, L2Policy::normal, 3},
                            {Kernel::grid, L2Policy::evict_first, 3},
                            {Kernel::grid, L2Policy::evict_first, 300}};
      for (const auto [k, l2, blocks] : paths) {
        for (const NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
          if (!is_floating_v<T> && nan == NanPolicy::ignore) continue;  // the same kernels
          SCOPED_TRACE("n=" + std::to_string(n) + " kernel=" + std::to_string(int(k)) +
                       " l2=" + std::to_string(int(l2)) + " blocks=" + std::to_string(blocks) +
                       " nan=" + std::to_string(int(nan)) + (&h == &inputs[0] ? " random" : " zeros and a NaN"));
          Options opt;
          const detail::testing::ForceLaunch forced({.kernel = k, .blocks = blocks});
          opt.l2 = l2;
          opt.nan = nan;
          check_all_ops(h, d.get(), opt);
        }
      }
    }
  }
}

TEST(test_reduce_api, sanitizer_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  sanitizer_sizes_for<std::int8_t>();
  sanitizer_sizes_for<float>();
  sanitizer_sizes_for<double>();
  sanitizer_sizes_for<__half>();
}

}  // namespace
}  // namespace gpureduce::test
