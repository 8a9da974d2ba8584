// The per-type GPU tests, instantiated for integer types in test_reduce_int_gpu.cu and floating
// types in test_reduce_float_gpu.cu (two files so the build compiles them in parallel).
#pragma once

#include "reduce_checks.cuh"

#include <array>

namespace gpureduce::test {
using namespace gpureduce::detail;

template <class T>
class test_reduce_types : public ::testing::Test {};
TYPED_TEST_SUITE_P(test_reduce_types);

// The library's edge sizes, sizes that end a one-block kernel's batch within its last quarter (14, 28
// and 60 KB: some of its threads hold a full batch and others not, VectorGrid::for_each_batch),
// plus three seeded random sizes.
template <class T>
std::vector<std::uint64_t> issue_sizes(std::uint64_t seed) {
  std::vector<std::uint64_t> sizes{0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 65537, (1u << 20) + 3, (1u << 24) + 1};
  for (const std::uint64_t kb : {14u, 28u, 60u}) sizes.push_back(kb * 1024 / sizeof(T) + 1);
  std::mt19937_64 rng(seed);
  for (int k = 0; k < 3; ++k) sizes.push_back(1 + rng() % (std::uint64_t(1) << 22));
  return sizes;
}

// Every operator at the edge sizes, aligned input.
TYPED_TEST_P(test_reduce_types, every_operator_at_edge_and_random_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : issue_sizes<T>(seed)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h = random_input<T>(n, seed + n);
    const DeviceInput<T> d(h, 0);
    check_all_ops(h, d.get());
  }
}

// Every misalignment a T* can have against 16 bytes (offsets 1..15 bytes for int8), so the scalar
// head and tail are peeled at every length.
TYPED_TEST_P(test_reduce_types, misaligned_pointers) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {1ull, 17ull, 1025ull, 100003ull}) {
    const auto h = random_input<T>(n, seed ^ n);
    for (unsigned offset = 1; offset < 16 / sizeof(T); ++offset) {
      SCOPED_TRACE("n=" + std::to_string(n) + " offset=" + std::to_string(offset * sizeof(T)) + " bytes");
      const DeviceInput<T> d(h, offset);
      check_all_ops(h, d.get());
    }
  }
}

// The one-block kernel and grids of several sizes give the right answer on the same inputs.
TYPED_TEST_P(test_reduce_types, forced_launch_shapes) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {33ull, 65537ull, (1ull << 20) + 3}) {
    const auto h = random_input<T>(n, seed + 7 * n);
    const DeviceInput<T> d(h, 1);
    {
      const detail::testing::ForceLaunch forced({.kernel = Kernel::one_block});
      check_all_ops(h, d.get(), Options{});
    }
    // 2-129: a combiner block's warp polls 4 slots per lane at most; 130-257: the last block's
    // warps poll one slot each; beyond, chunks of slots (kernel/reduce_kernels.cuh).
    for (const std::uint64_t blocks : {1ull, 2ull, 7ull, 129ull, 130ull, 257ull, 258ull, 1000ull, 4096ull}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " grid blocks=" + std::to_string(blocks));
      const detail::testing::ForceLaunch forced({.kernel = Kernel::grid, .blocks = blocks});
      check_all_ops(h, d.get(), Options{});
    }
  }
}

// Many equal extremes (argmin/argmax must return the first), and an all-equal input.
TYPED_TEST_P(test_reduce_types, ties_and_all_equal) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  for (const std::uint64_t n : {5ull, 4097ull, 300007ull}) {
    std::vector<T> h(n);
    for (auto& x : h) x = convert<T>(int(rng() % 7) - 3);
    const DeviceInput<T> d(h, 0);
    check_all_ops(h, d.get());
    std::vector<T> same(n, convert<T>(7));
    const DeviceInput<T> e(same, 0);
    check_all_ops(same, e.get());
  }
}

TYPED_TEST_P(test_reduce_types, product) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : issue_sizes<T>(seed)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h = product_input<T>(n, seed + n);
    const DeviceInput<T> d(h, 1);
    check_product(h, d.get());
  }
}

// Every operator on seeded random cases: counts around the library's boundaries and in between,
// every offset from a 16-byte boundary, NaN and infinities (floats) or the type's extremes and zero
// (integers) at the ends and at random places, either NaN policy, any L2 policy (FuzzBudget).
TYPED_TEST_P(test_reduce_types, fuzz_sizes_offsets_and_specials) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const FuzzBudget budget;
  std::mt19937_64 rng(seed ^ (0x9e3779b97f4a7c15ull * sizeof(T)) ^ (std::is_signed_v<T> ? 1 : 0));
  for (int round = 0; round < budget.rounds && !::testing::Test::HasFailure(); ++round) {
    const std::uint64_t n = fuzz_count<T>(rng, budget.max_bytes);
    const unsigned offset = unsigned(rng() % (16 / sizeof(T)));
    auto h = random_input<T>(n, rng());
    std::string specials;
    if (n > 0 && rng() % 3 == 0) {
      const int count = 1 + int(rng() % 3);
      for (int k = 0; k < count; ++k) {
        const std::uint64_t at = k == 0 ? 0 : k == 1 ? n - 1 : rng() % n;
        const unsigned which = unsigned(rng() % 3);
        if constexpr (is_floating_v<T>)
          h[at] = convert<T>(which == 0 ? NAN : which == 1 ? INFINITY : -INFINITY);
        else
          h[at] = which == 0 ? highest<T>() : which == 1 ? lowest<T>() : T(0);
        specials += " " + std::to_string(which) + "@" + std::to_string(at);
      }
    }
    Options opt;
    opt.nan = rng() % 2 ? NanPolicy::ignore : NanPolicy::propagate;
    opt.l2 = std::array{L2Policy::automatic, L2Policy::normal, L2Policy::evict_first}[rng() % 3];
    SCOPED_TRACE("round " + std::to_string(round) + ": n=" + std::to_string(n) + " offset=" + std::to_string(offset) +
                 " nan=" + std::to_string(int(opt.nan)) + " l2=" + std::to_string(int(opt.l2)) +
                 " specials (floats: 0 NaN, 1 +inf, 2 -inf; integers: 0 highest, 1 lowest, 2 zero):" + specials);
    const DeviceInput<T> d(h, offset);
    check_all_ops(h, d.get(), opt);
  }
}

// Dot products of two arrays at independent offsets from a 16-byte boundary (where they differ, b
// is read in shifted vectors or element by element: agent/sources.cuh), counts as in the fuzz
// above (half the bytes per array), any L2 policy.
TYPED_TEST_P(test_reduce_types, fuzz_dot_products_at_two_offsets) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  using A = accumulator_t<T, Sum>;
  const std::uint64_t seed = test_seed();
  const FuzzBudget budget;
  std::mt19937_64 rng(~seed ^ (0x9e3779b97f4a7c15ull * sizeof(T)) ^ (std::is_signed_v<T> ? 1 : 0));
  for (int round = 0; round < budget.rounds && !::testing::Test::HasFailure(); ++round) {
    const std::uint64_t n = fuzz_count<T>(rng, budget.max_bytes / 2);
    const unsigned offset_a = unsigned(rng() % (16 / sizeof(T))), offset_b = unsigned(rng() % (16 / sizeof(T)));
    const auto ha = random_input<T>(n, rng()), hb = random_input<T>(n, rng());
    Options opt;
    opt.l2 = std::array{L2Policy::automatic, L2Policy::normal, L2Policy::evict_first}[rng() % 3];
    SCOPED_TRACE("round " + std::to_string(round) + ": n=" + std::to_string(n) + " offsets " +
                 std::to_string(offset_a) + " and " + std::to_string(offset_b) + " l2=" + std::to_string(int(opt.l2)));
    const DeviceInput<T> da(ha, offset_a), db(hb, offset_b);
    const A got = run_to_host<A>([&](A* o) { dot(da.get(), db.get(), n, o, nullptr, opt); });
    if constexpr (std::is_integral_v<A>) {
      EXPECT_EQ(std::uint64_t(got), wrapped_product_sum(ha.data(), hb.data(), n));
    } else {
      reference::FloatSum ref;
      ref.sum = product_sum(ha.data(), hb.data(), n, &ref.abs_sum);
      expect_float_sum(got, ref, n, "dot");
    }
  }
}

REGISTER_TYPED_TEST_SUITE_P(test_reduce_types, every_operator_at_edge_and_random_sizes, misaligned_pointers,
                            forced_launch_shapes, ties_and_all_equal, product, fuzz_sizes_offsets_and_specials,
                            fuzz_dot_products_at_two_offsets);

}  // namespace gpureduce::test
