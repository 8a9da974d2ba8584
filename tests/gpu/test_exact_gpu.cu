// The exact sum on the GPU: bit-identical to the host implementation (itself checked against
// MPFR in the CPU suite) on the same cases, up to n = 2^28; the same bits across launch
// configurations, misaligned starts and input permutations.
#include "../common/exact_cases.hpp"
#include "reduce_checks.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

using namespace exact_cases;

// The GPU's exact sum of x (starting `offset` elements into its allocation) into Out.
template <class Out, class T>
Out gpu_exact(const std::vector<T>& x, unsigned offset = 0, detail::ForcedLaunch force = {}) {
  DeviceInput<T> d(x, offset);
  Out* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, sizeof(Out)), cudaSuccess);
  EXPECT_EQ(cudaMemset(out, 0x5a, sizeof(Out)), cudaSuccess);  // poison
  const detail::testing::ForceLaunch forced(force);
  const Status s = try_exact_sum(d.get(), x.size(), out);
  EXPECT_TRUE(bool(s)) << s.message;
  Out r{};
  EXPECT_EQ(cudaMemcpy(&r, out, sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(out);
  return r;
}

template <class T>
void expect_matches_host(const std::vector<T>& x, const char* what, unsigned offset = 0) {
  const T want = exact_sum_host(x.data(), x.size());
  const T got = gpu_exact<T>(x, offset);
  EXPECT_TRUE(same(got, want)) << what << ": n=" << x.size() << " offset=" << offset
                               << std::hex << " got 0x" << bits_of(got) << " want 0x" << bits_of(want);
  const double want_d = exact_sum_host<double>(x.data(), x.size());
  EXPECT_TRUE(same(gpu_exact<double>(x, offset), want_d)) << what << " (into double): n=" << x.size();
}

template <class T>
std::vector<T> whole_range(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> x(n);
  for (T& v : x) v = random_finite<T>(rng);
  return x;
}

template <class T>
class ExactGpu : public ::testing::Test {};
using Types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactGpu, Types);

TYPED_TEST(ExactGpu, random_whole_range_every_size_and_offset) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : {0, 1, 2, 3, 31, 32, 33, 1023, 1024, 1025, 65537, (1 << 20) + 3})
    expect_matches_host(whole_range<T>(n, test_seed() + n), "whole range");
  for (unsigned offset = 1; offset < 16 / sizeof(T); ++offset)
    expect_matches_host(whole_range<T>(4099, test_seed() + offset), "misaligned", offset);
}

// NaN under both policies: propagated (the result is NaN wherever the NaN lies), and skipping them
// refused by name rather than silently not done.
TYPED_TEST(ExactGpu, nan_under_both_policies) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  for (std::size_t n : {3, 4099, 200003}) {
    std::vector<T> x = whole_range<T>(n, test_seed() + n);
    x[n / 2] = value<T>(std::numeric_limits<double>::quiet_NaN());
    EXPECT_TRUE(std::isnan(double(convert<float>(gpu_exact<T>(x))))) << "n=" << n;
    const DeviceInput<T> d(x, 0);
    T* out = nullptr;
    ASSERT_EQ(cudaMalloc(&out, sizeof(T)), cudaSuccess);
    EXPECT_EQ(try_exact_sum(d.get(), n, out, nullptr, {.nan = NanPolicy::ignore}).code, Errc::invalid_argument);
    cudaFree(out);
  }
}

TYPED_TEST(ExactGpu, cancellation_ties_overflow_subnormals_specials) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const Layout l = layout_of<T>();
  std::mt19937_64 rng(test_seed());
  std::vector<T> x;
  for (int i = 0; i < 5000; ++i) {
    const T v = random_finite<T>(rng);
    x.push_back(v);
    x.push_back(negate(v));
  }
  x.push_back(random_subnormal<T>(rng));
  std::shuffle(x.begin(), x.end(), rng);
  expect_matches_host(x, "cancellation");

  const T max = from_bits<T>(exp_mask<T>() - 1);
  const T half_ulp_of_max = value<T>(std::ldexp(1.0, l.bias() - l.frac_bits - 1));
  expect_matches_host(std::vector<T>{max, max}, "overflow");
  expect_matches_host(std::vector<T>{max, max, negate(max)}, "overflow and back");
  expect_matches_host(std::vector<T>{max, half_ulp_of_max}, "tie at the overflow threshold");
  const double half_ulp_of_one = std::ldexp(1.0, -l.frac_bits - 1);
  expect_matches_host(std::vector<T>{value<T>(1.0), value<T>(half_ulp_of_one / 2), value<T>(half_ulp_of_one / 2)},
                      "tie");

  std::vector<T> sub(100000);
  for (T& v : sub) v = random_subnormal<T>(rng);
  expect_matches_host(sub, "subnormals");

  const T inf = from_bits<T>(exp_mask<T>()), zero = value<T>(0.0), nzero = negate(zero);
  const T nan = from_bits<T>(exp_mask<T>() | 1);
  std::vector<T> big = whole_range<T>(70000, test_seed());
  for (std::size_t pos : {std::size_t(0), big.size() / 3, big.size() - 1}) {
    std::vector<T> y = big;
    y[pos] = nan;
    expect_matches_host(y, "NaN");
    y[pos] = inf;
    expect_matches_host(y, "+inf");
    y[big.size() - 1 - pos / 2] = negate(inf);
    expect_matches_host(y, "+inf and -inf");
  }
  expect_matches_host(std::vector<T>(70000, nzero), "all -0");
  std::vector<T> zeros(70000, nzero);
  zeros[12345] = zero;
  expect_matches_host(zeros, "-0 and one +0");
}

// Exponent fields in a band of 9 (zeros among them) from the subnormals to the largest finite
// field, and values in [-1, 1): the 16-bit types' vectors take their exact sum in float
// (exact/narrow_batch.hpp), near the bottom subnormal floats, near the top beyond the type's range.
TYPED_TEST(ExactGpu, narrow_exponent_bands_and_well_conditioned_values) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t top = top_field<T>();
  std::mt19937_64 rng(test_seed());
  for (std::uint64_t low : {std::uint64_t(0), std::uint64_t(1), top / 2, top - 8})
    for (std::size_t n : {std::size_t(1000), std::size_t(65537), std::size_t(1 << 20) + 3}) {
      std::vector<T> x(n);
      for (T& v : x) v = in_exponent_band<T>(low, rng);
      expect_matches_host(x, "narrow band", unsigned(rng() % (16 / sizeof(T))));
    }
  std::uniform_real_distribution<double> d(-1, 1);
  std::vector<T> x((1 << 22) + 5);
  for (T& v : x) v = value<T>(d(rng));
  expect_matches_host(x, "[-1, 1)");
}

// Seeded random counts and offsets (fuzz_count: around the library's boundaries and log-uniform),
// values over the whole range or in a band of it, some cases with subnormals, NaN or infinities at
// the ends and at random places: the same bits as the host.
TYPED_TEST(ExactGpu, fuzz_counts_offsets_and_specials) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const FuzzBudget budget;
  std::mt19937_64 rng(test_seed() ^ (0x243f6a8885a308d3ull * sizeof(T)) ^ bits_of(value<T>(1.0)));
  for (int round = 0; round < budget.rounds && !::testing::Test::HasFailure(); ++round) {
    const std::uint64_t n = fuzz_count<T>(rng, budget.max_bytes);
    const unsigned offset = unsigned(rng() % (16 / sizeof(T)));
    // Values over the whole range, or (1 in 3) in a band of exponents somewhere in it.
    std::vector<T> x = whole_range<T>(n, rng());
    if (rng() % 3 == 0) {
      const std::uint64_t low = rng() % (top_field<T>() - 7);
      for (T& v : x) v = in_exponent_band<T>(low, rng);
    }
    const T inf = from_bits<T>(exp_mask<T>()), nan = from_bits<T>(exp_mask<T>() | 1);
    if (n > 0 && rng() % 2)
      for (int k = 0, count = 1 + int(rng() % 4); k < count; ++k) {
        const std::uint64_t at = k == 0 ? 0 : k == 1 ? n - 1 : rng() % n;
        const T special[] = {random_subnormal<T>(rng), nan, inf, negate(inf)};
        x[at] = special[rng() % 4];
      }
    SCOPED_TRACE("round " + std::to_string(round));
    expect_matches_host(x, "fuzz", offset);
  }
}

// The same bits whatever the block size, the grid, the start alignment or the order of the input.
TYPED_TEST(ExactGpu, same_bits_across_launches_and_permutations) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  std::vector<T> x = whole_range<T>(1 << 20, test_seed());
  for (std::size_t i = 0; i < x.size(); i += 7) x[i] = value<T>(std::ldexp(double(rng() % 1000) - 500, -8));
  const T want = exact_sum_host(x.data(), x.size());
  for (unsigned threads : {128u, 256u, 512u})
    for (std::uint64_t blocks : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(0), std::uint64_t(100)}) {
      EXPECT_TRUE(same(gpu_exact<T>(x, 0, {.blocks = blocks, .threads = threads}), want))
          << "threads=" << threads << " blocks=" << blocks;
    }
  for (int round = 0; round < 3; ++round) {
    std::shuffle(x.begin(), x.end(), rng);
    EXPECT_TRUE(same(gpu_exact<T>(x, round + 1), want)) << "permutation " << round;
  }
}

// Tiny inputs on a grid (the grid kernel forced, or blocks forced), where readers hold nothing: the
// empty sum is +0, a sum of -0 alone stays -0 (an empty reader must not make it +0), and one
// value or a few come back exact.
TYPED_TEST(ExactGpu, tiny_inputs_on_a_forced_grid) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  std::mt19937_64 rng(test_seed());
  const T neg_zero = value<T>(-0.0);
  std::vector<std::vector<T>> inputs = {{}, {neg_zero}, {neg_zero, neg_zero, neg_zero}, {value<T>(0.0), neg_zero}};
  for (std::size_t n : {1, 2, 33}) inputs.push_back(whole_range<T>(n, rng()));
  for (const auto& x : inputs)
    for (std::uint64_t blocks : {std::uint64_t(0), std::uint64_t(2), std::uint64_t(7)}) {
      const T want = exact_sum_host(x.data(), x.size());
      const T got = gpu_exact<T>(x, 0, {.kernel = Kernel::grid, .blocks = blocks});
      EXPECT_TRUE(same(got, want)) << "n=" << x.size() << " blocks=" << blocks << std::hex << " got 0x" << bits_of(got)
                                   << " want 0x" << bits_of(want);
    }
}

TEST(ExactGpuLarge, float_2_pow_28_and_double_2_pow_26) {
  GPUREDUCE_REQUIRE_GPU();
  {
    std::vector<float> x = random_input<float>(std::uint64_t(1) << 28, test_seed());
    for (std::size_t i = 0; i < x.size(); i += 1001) x[i] *= 1e30f;  // wide magnitudes
    EXPECT_TRUE(same(gpu_exact<float>(x), exact_sum_host(x.data(), x.size())));
  }
  std::vector<double> y = random_input<double>(std::uint64_t(1) << 26, test_seed());
  for (std::size_t i = 0; i < y.size(); i += 999) y[i] *= 1e200;
  EXPECT_TRUE(same(gpu_exact<double>(y), exact_sum_host(y.data(), y.size())));
}

TEST(ExactGpuDot, float_dot_matches_host) {
  GPUREDUCE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed());
  for (std::size_t n : {0, 1, 33, 4099, 1 << 20}) {
    std::vector<float> a(n), b(n);
    for (std::size_t i = 0; i < n; ++i) {
      a[i] = random_finite<float>(rng);
      b[i] = random_finite<float>(rng);
    }
    DeviceInput<float> da(a, 0), db(b, 0);
    float* out = nullptr;
    ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
    exact_dot(da.get(), db.get(), n, out);
    float got = 0;
    ASSERT_EQ(cudaMemcpy(&got, out, sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    cudaFree(out);
    EXPECT_TRUE(same(got, exact_dot_host(a.data(), b.data(), n))) << "n=" << n;
  }
}

TEST(ExactGpuErrors, bad_options_and_result_types) {
  GPUREDUCE_REQUIRE_GPU();
  DeviceInput<float> d(std::vector<float>{1.f, 2.f}, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  {
    const detail::testing::ForceLaunch forced({.threads = 100});
    EXPECT_EQ(try_exact_sum(d.get(), 2, out).code, Errc::invalid_argument);
  }
  int* iout = nullptr;
  ASSERT_EQ(cudaMalloc(&iout, sizeof(int)), cudaSuccess);
  EXPECT_EQ(try_exact_sum(d.get(), 2, iout).code, Errc::invalid_argument);
  EXPECT_EQ(try_exact_sum(d.get(), 2, static_cast<float*>(nullptr)).code, Errc::null_pointer);
  // Exact sums propagate NaN: skipping them is refused by name, for sums and dot products alike.
  const Status ignored = try_exact_sum(d.get(), 2, out, nullptr, {.nan = NanPolicy::ignore});
  EXPECT_EQ(ignored.code, Errc::invalid_argument);
  EXPECT_NE(std::string(ignored.message).find("NanPolicy::ignore"), std::string::npos) << ignored.message;
  EXPECT_EQ(try_exact_dot(d.get(), d.get(), 2, out, nullptr, {.nan = NanPolicy::ignore}).code, Errc::invalid_argument);
  EXPECT_THROW(exact_sum(d.get(), 2, out, nullptr, {.nan = NanPolicy::ignore}), error);
  cudaFree(out);
  cudaFree(iout);
}

// Small sizes for compute-sanitizer (tools/sanitize.sh): one block, several blocks, misaligned.
TEST(ExactGpu, sanitizer_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::size_t n : {0, 5, 4099, 200000}) {
    const std::vector<float> x = whole_range<float>(n, test_seed());
    EXPECT_TRUE(same(gpu_exact<float>(x, 1), exact_sum_host(x.data(), x.size())));
    const std::vector<double> y = whole_range<double>(n, test_seed());
    EXPECT_TRUE(same(gpu_exact<double>(y), exact_sum_host(y.data(), y.size())));
  }
}

}  // namespace
}  // namespace gpureduce::test
