// The per-type GPU tests, instantiated for integer types in test_reduce_int_gpu.cu and floating
// types in test_reduce_float_gpu.cu (two files so the build compiles them in parallel).
#pragma once

#include "reduce_checks.cuh"

namespace gpureduce::test {

template <class T>
class test_reduce_types : public ::testing::Test {};
TYPED_TEST_SUITE_P(test_reduce_types);

// The issue's size list, sizes that end a one-block kernel's batch within its last quarter (14, 28
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

// Every operator at the issue's sizes, aligned input.
TYPED_TEST_P(test_reduce_types, every_operator_at_edge_and_random_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : {33ull, 65537ull, (1ull << 20) + 3}) {
    const auto h = random_input<T>(n, seed + 7 * n);
    const DeviceInput<T> d(h, 1);
    Options opt;
    opt.force_kernel = Kernel::one_block;
    check_all_ops(h, d.get(), opt);
    // 2-129: a combiner block's warp polls 4 slots per lane at most; 130-257: the last block's
    // warps poll one slot each; beyond, chunks of slots (kernel/reduce_kernels.cuh).
    for (const std::uint64_t blocks : {1ull, 2ull, 7ull, 129ull, 130ull, 257ull, 258ull, 1000ull, 4096ull}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " grid blocks=" + std::to_string(blocks));
      opt.force_kernel = Kernel::grid;
      opt.force_blocks = blocks;
      check_all_ops(h, d.get(), opt);
    }
  }
}

// Many equal extremes (argmin/argmax must return the first), and an all-equal input.
TYPED_TEST_P(test_reduce_types, ties_and_all_equal) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : issue_sizes<T>(seed)) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h = product_input<T>(n, seed + n);
    const DeviceInput<T> d(h, 1);
    check_product(h, d.get());
  }
}

REGISTER_TYPED_TEST_SUITE_P(test_reduce_types, every_operator_at_edge_and_random_sizes, misaligned_pointers,
                            forced_launch_shapes, ties_and_all_equal, product);

}  // namespace gpureduce::test
