// Every rung and every reference library, for every type, at edge and random sizes, against the
// host reference: integers exact (modulo 2^32), floating point within gamma_depth * sum|x|, and
// exact where the data make every partial sum exact. Skipped when no CUDA device is present.
#include "../../src/bench/variants.hpp"
#include "../../src/common/host_reference.hpp"
#include "../../src/common/random_data.hpp"
#include "../common/test_seed.hpp"

#include <gpureduce/ladder/registry.hpp>

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

namespace gpureduce {
namespace {

using test::test_seed;

std::vector<std::uint64_t> test_sizes() {
  std::vector<std::uint64_t> s = {0, 1, 2, 31, 32, 33, 255, 256, 257, 1023, 1024, 1025, 65537,
                                  (1u << 20) + 3, 1u << 24};
  std::mt19937_64 rng(test_seed());
  for (int i = 0; i < 3; ++i) s.push_back(std::uniform_int_distribution<std::uint64_t>(1, 1u << 26)(rng));
  return s;
}

template <class T>
class LadderGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    device_ = query_device(why);
    if (!device_) GTEST_SKIP() << "no CUDA device: " << why;
    res_ = std::make_unique<VariantResources>(*device_);
  }

  // Runs every variant (rungs at `block`, then references) on in[offset, offset + n) of data,
  // which is uploaded here, and checks each against the host reference. exact: floating-point
  // results must equal the reference exactly (the data keep every partial sum exact).
  void check_all(const std::vector<T>& data, std::uint64_t offset, std::uint64_t n, unsigned block, bool exact,
                 const std::string& only = "") {
    const std::string where =
        "n=" + std::to_string(n) + " offset=" + std::to_string(offset) + " block=" + std::to_string(block);
    DeviceBuffer<T> in(data.size());
    DeviceBuffer<T> out(1);
    if (!data.empty())
      GPUREDUCE_CUDA(cudaMemcpy(in.get(), data.data(), data.size() * sizeof(T), cudaMemcpyHostToDevice));
    const HostSum<T> ref = host_sum(data.data() + offset, n);
    std::vector<T> abs_data(data.begin() + offset, data.begin() + offset + n);
    for (T& x : abs_data) x = x < 0 ? T(-x) : x;
    const HostSum<T> abs_ref = host_sum(abs_data.data(), n);
    // block threads per block on at least one block per SM: the shortest first pass of any variant.
    const std::uint64_t depth = summation_depth_bound(n, std::uint64_t(device_->sm_count) * block);
    for (const Variant<T>& v : make_variants<T>(*res_, block, n)) {
      if (!only.empty() && v.name != only) continue;
      SCOPED_TRACE(v.name + " " + where);
      T host_out{};
      GPUREDUCE_CUDA(cudaMemset(out.get(), 0xA5, sizeof(T)));  // poison
      ASSERT_EQ(v.run(in.get() + offset, n, out.get(), &host_out, nullptr), cudaSuccess);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      T got = host_out;
      if (!v.result_on_host) GPUREDUCE_CUDA(cudaMemcpy(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
      const HostSum<T>& want = v.abs_sum ? abs_ref : ref;
      if constexpr (std::is_integral_v<T>) {
        EXPECT_EQ(got, wrapped<T>(want.exact));
      } else if (exact) {
        EXPECT_EQ(got, static_cast<T>(want.sum));
      } else {
        const FloatCheck c = check_float_sum(got, want.sum, want.abs_sum, n, depth);
        EXPECT_TRUE(c.ok) << "got " << got << " reference " << double(want.sum) << " error " << double(c.error)
                          << " bound " << double(c.bound);
      }
    }
    // The input is the caller's: no rung may write to it (r0 works in a copy).
    std::vector<T> after(data.size());
    if (!data.empty())
      GPUREDUCE_CUDA(cudaMemcpy(after.data(), in.get(), data.size() * sizeof(T), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::memcmp(after.data(), data.data(), data.size() * sizeof(T)), 0) << "input modified, " << where;
  }

  std::optional<DeviceInfo> device_;
  std::unique_ptr<VariantResources> res_;
};

using Types = ::testing::Types<std::int32_t, float, double>;
TYPED_TEST_SUITE(LadderGpu, Types);

TYPED_TEST(LadderGpu, random_data_every_size) {
  for (std::uint64_t n : test_sizes()) {
    this->check_all(random_values<TypeParam>(n, test_seed() + n), 0, n, 256, false);
    if (this->HasFatalFailure()) return;
  }
}

TYPED_TEST(LadderGpu, exactly_representable_sums_every_size) {
  if constexpr (std::is_integral_v<TypeParam>) GTEST_SKIP() << "integer sums are always checked exactly";
  for (std::uint64_t n : test_sizes()) {
    const std::int64_t range = exact_integer_range<TypeParam>(n);
    if (std::uint64_t(range) * n > (std::uint64_t(1) << std::numeric_limits<TypeParam>::digits)) continue;
    this->check_all(random_small_integers<TypeParam>(n, test_seed() + 7 * n, range), 0, n, 256, true);
    if (this->HasFatalFailure()) return;
  }
}

TYPED_TEST(LadderGpu, every_block_size) {
  for (unsigned block : {64u, 128u, 512u, 1024u})
    for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(1000), std::uint64_t(3) * 1024 * 1024 + 1}) {
      this->check_all(random_values<TypeParam>(n, test_seed() + block + n), 0, n, block, false);
      if (this->HasFatalFailure()) return;
    }
}

// r9 reads 16-byte vectors: start 1..3 elements past an aligned address (a scalar head to peel).
TYPED_TEST(LadderGpu, r9_misaligned_pointers) {
  for (std::uint64_t offset = 1; offset <= 3; ++offset)
    for (std::uint64_t n : {std::uint64_t(0), std::uint64_t(1), std::uint64_t(5), std::uint64_t(1027),
                            std::uint64_t(1) << 20, (std::uint64_t(1) << 22) + 5}) {
      this->check_all(random_values<TypeParam>(n + offset, test_seed() + offset + n), offset, n, 256, false, "r9");
      if (this->HasFatalFailure()) return;
    }
}

// Small sizes for compute-sanitizer (tools/sanitize.sh runs this suite under memcheck, racecheck
// and synccheck): every rung, one and several passes, partial tiles.
TYPED_TEST(LadderGpu, sanitizer_sizes) {
  for (std::uint64_t n : {std::uint64_t(1), std::uint64_t(33), std::uint64_t(1025), std::uint64_t(65537)}) {
    this->check_all(random_values<TypeParam>(n + 1, test_seed() + n), 1, n, 256, false);
    if (this->HasFatalFailure()) return;
  }
}

}  // namespace
}  // namespace gpureduce
