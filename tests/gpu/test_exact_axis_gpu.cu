// Exact sums per row, column, slice and segment (axis.cuh): every result bit-identical to the host
// exact sum (exact_sum_host, itself checked against MPFR on the CPU) of its elements, on values
// over the whole exponent range (cancellations, subnormals, huge terms) and on uniform ones; and
// one row's bits the same in batches of 1, 7, 1000 and 10^6 rows, at any position and alignment.
#include <gpureduce/axis.cuh>

#include "../common/exact_cases.hpp"
#include "axis_walk.hpp"
#include "reduce_checks.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gpureduce::test {
namespace {

using exact_cases::bits_of;
using exact_cases::same;

// Values over the whole exponent range (1 in 2) or uniform in [-1, 1).
template <class T>
std::vector<T> exact_input(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> x = random_input<T>(n, seed);
  for (T& v : x)
    if (rng() % 2) v = exact_cases::random_finite<T>(rng);
  return x;
}

// The exact sums of a view of `host` (origin at element `origin`, `misalign` elements past an
// aligned allocation) over `axes`, one per kept index.
template <class Out, class T>
std::vector<Out> gpu_exact_axes(const std::vector<T>& host, std::int64_t origin, const Shape& shape, const Axes& axes,
                                std::uint64_t outputs, unsigned misalign = 0) {
  DeviceInput<T> d(host, misalign);
  Out* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, (outputs + 1) * sizeof(Out)), cudaSuccess);
  EXPECT_EQ(cudaMemset(out, 0x5a, (outputs + 1) * sizeof(Out)), cudaSuccess);  // poison
  const Status s = try_exact_sum_axes(d.get() + origin, shape, axes, out);
  EXPECT_TRUE(bool(s)) << s.message;
  std::vector<Out> got(outputs);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  if (outputs) EXPECT_EQ(cudaMemcpy(got.data(), out, outputs * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(out);
  return got;
}

template <class Out, class T>
void check_exact_axes(const std::vector<T>& host, std::int64_t origin, const Shape& shape, const Axes& axes,
                      const std::string& what, unsigned misalign = 0) {
  Walk kept, reduced;
  split_dims(shape, axes, &kept, &reduced);
  const std::uint64_t outputs = kept.size(), n = reduced.size();
  const std::vector<Out> got = gpu_exact_axes<Out>(host, origin, shape, axes, outputs, misalign);
  std::vector<T> row(n);
  for (std::uint64_t o = 0; o < outputs; ++o) {
    const std::int64_t base = origin + kept.offset(o);
    for (std::uint64_t p = 0; p < n; ++p) row[p] = host[std::size_t(base + reduced.offset(p))];
    const Out want = exact_sum_host<Out>(row.data(), n);
    ASSERT_TRUE(same(got[o], want)) << what << " output " << o << " of " << outputs << " (length " << n << ")"
                                    << std::hex << ": got 0x" << bits_of(got[o]) << " want 0x" << bits_of(want);
  }
}

template <class T>
class ExactAxisGpu : public ::testing::Test {};
using Types = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(ExactAxisGpu, Types);

// Rows (a thread or a warp each), columns and transposed views (walked by index), into T and into
// double.
TYPED_TEST(ExactAxisGpu, RowsAndColumns) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  for (std::int64_t cols : {0, 1, 3, 32, 33, 1000, 4097})
    for (std::int64_t rows : {2, 3, 1000}) {
      if (rows * cols > (1 << 22)) continue;
      const auto h = exact_input<T>(std::uint64_t(rows * cols), test_seed() ^ std::uint64_t(rows * 7919 + cols));
      const std::string what = std::to_string(rows) + "x" + std::to_string(cols);
      check_exact_axes<T>(h, 0, Shape{rows, cols}, {1}, "rows " + what);
      check_exact_axes<double>(h, 0, Shape{rows, cols}, {-1}, "rows into double " + what);
      check_exact_axes<T>(h, 0, Shape{rows, cols}, {0}, "columns " + what);
      check_exact_axes<T>(h, 0, Shape{{cols, rows}, {1, cols}}, {1}, "transposed " + what);
    }
}

// Many rows and columns of a few hundred elements: eight lanes each (from 16896 results up on an
// H200), the warp taking again those whose pairs do not add up exactly.
TYPED_TEST(ExactAxisGpu, ManyMediumRows) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const auto h = exact_input<T>(40000 * 129, test_seed() ^ 16);
  check_exact_axes<T>(h, 0, Shape{40000, 129}, {1}, "40000 rows of 129");
  check_exact_axes<T>(h, 0, Shape{129, 40000}, {0}, "40000 columns of 129");
  const auto u = random_input<T>(20000 * 2048, test_seed() ^ 17);
  check_exact_axes<float>(u, 3, Shape{19999, 2048}, {1}, "19999 uniform rows of 2048 from element 3");
}

// Few long rows: sliced over the device, the slices' words then added.
TYPED_TEST(ExactAxisGpu, SlicedLongRows) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::int64_t cols = (std::int64_t(1) << 21) + 3;
  const auto h = exact_input<T>(std::uint64_t(3 * cols), test_seed() ^ 13);
  check_exact_axes<T>(h, 0, Shape{3, cols}, {1}, "3 long rows");
  check_exact_axes<float>(h, 1, Shape{2, cols}, {1}, "2 long rows from element 1");
}

TEST(ExactAxisGpu, ThreeDimensionsAndViews) {
  GPUREDUCE_REQUIRE_GPU();
  const auto h = exact_input<float>(37 * 64 * 5, test_seed() ^ 14);
  for (const Axes& a : std::vector<Axes>{{1}, {0, 2}, {2}, {0}, {0, 1}})
    check_exact_axes<float>(h, 0, Shape{37, 64, 5}, a, "3-D, axes set of " + std::to_string(a.count));
  check_exact_axes<float>(h, 37 * 64 * 5 - 1, Shape{{37, 320}, {-320, -1}}, {1}, "reversed rows");
  check_exact_axes<float>(h, 0, Shape{{37, 9, 320}, {320, 0, 1}}, {1, 2}, "broadcast");
  for (unsigned off = 1; off < 4; ++off)
    check_exact_axes<float>(h, 0, Shape{37, 320}, {1}, "rows at +" + std::to_string(off), off);
}

// NaN, infinities of both signs, overflow and back, the sign of zero, empty rows.
TEST(ExactAxisGpu, SpecialValuesPerRow) {
  GPUREDUCE_REQUIRE_GPU();
  const float inf = std::numeric_limits<float>::infinity(), big = std::numeric_limits<float>::max();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<std::vector<float>> rows = {
      {1, nan, 2}, {inf, 1, 2}, {-inf, 1, 2}, {inf, -inf, 1}, {big, big, 0}, {big, big, -big},
      {-0.0f, -0.0f, -0.0f}, {0.0f, -0.0f, -0.0f}, {1e-45f, -1e-45f, 0}, {1, 1e30f, -1e30f}};
  std::vector<float> h;
  for (const auto& r : rows) h.insert(h.end(), r.begin(), r.end());
  const std::int64_t n = std::int64_t(rows.size());
  check_exact_axes<float>(h, 0, Shape{n, 3}, {1}, "special rows");
  check_exact_axes<double>(h, 0, Shape{n, 3}, {1}, "special rows into double");
  const std::vector<float> got = gpu_exact_axes<float>(h, 0, Shape{n, 0}, {1}, std::uint64_t(n));
  for (float g : got) EXPECT_EQ(bits_of(g), 0u) << "the empty sum is +0";
}

// One row of whole-range values in batches of 1, 7, 1000 and 10^6 rows of its length, at the
// first, a middle and the last position, the batch starting 0-3 elements past an aligned
// allocation: the same bits as the row alone.
TEST(ExactAxisGpu, BatchInvariance) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t length : {100, 4097}) {
    const auto row = exact_input<float>(std::uint64_t(length), test_seed() ^ std::uint64_t(length));
    const float alone = exact_sum_host(row.data(), row.size());
    for (std::int64_t batch : {1, 7, 1000, 1000000}) {
      if (batch * length > (std::int64_t(1) << 28)) continue;
      std::vector<float> h = random_input<float>(std::uint64_t(batch * length), test_seed() ^ std::uint64_t(batch));
      for (std::int64_t at : {std::int64_t(0), batch / 2, batch - 1}) {
        std::copy(row.begin(), row.end(), h.begin() + at * length);
        for (unsigned misalign : {0u, 1u, 3u}) {
          const std::vector<float> got =
              gpu_exact_axes<float>(h, 0, Shape{batch, length}, {1}, std::uint64_t(batch), misalign);
          ASSERT_EQ(bits_of(got[std::size_t(at)]), bits_of(alone))
              << "row of " << length << " at " << at << " of " << batch << ", +" << misalign << " elements";
        }
      }
    }
  }
}

template <class T, class Offset>
void check_exact_segments(const std::vector<std::int64_t>& lengths) {
  std::vector<Offset> offsets{0};
  for (auto l : lengths) offsets.push_back(Offset(offsets.back() + l));
  const std::uint64_t segments = lengths.size(), total = std::uint64_t(offsets.back());
  const auto h = exact_input<T>(total, test_seed() ^ total);
  DeviceInput<T> d(h, 0);
  DeviceInput<Offset> doff(offsets, 0);
  T* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, segments * sizeof(T)), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0x5a, segments * sizeof(T)), cudaSuccess);
  ASSERT_TRUE(bool(try_exact_segmented_sum(d.get(), segments, doff.get(), out)));
  std::vector<T> got(segments);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(got.data(), out, segments * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(out);
  for (std::uint64_t r = 0; r < segments; ++r) {
    const T want = exact_sum_host(h.data() + offsets[r], std::uint64_t(offsets[r + 1] - offsets[r]));
    ASSERT_TRUE(same(got[r], want)) << "segment " << r << " of length " << lengths[r] << std::hex << ": got 0x"
                                    << bits_of(got[r]) << " want 0x" << bits_of(want);
  }
}

TEST(ExactAxisGpu, SegmentsRaggedAndEmpty) {
  GPUREDUCE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed() ^ 15);
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < 2000; ++k) lengths.push_back(k % 7 == 0 ? 0 : std::int64_t(rng() % (1u << (rng() % 14))));
  check_exact_segments<float, std::int32_t>(lengths);
  check_exact_segments<__half, std::int64_t>(lengths);
  check_exact_segments<double, std::int64_t>({0, 5, 0, 300000, 1});
}

TEST(ExactAxisGpu, RefusedAndBadArguments) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<float> h(100, 1.0f);
  DeviceInput<float> d(h, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 100 * sizeof(float)), cudaSuccess);
  Options ignore;
  ignore.nan = NanPolicy::ignore;
  EXPECT_EQ(try_exact_sum_axes(d.get(), Shape{10, 10}, {1}, out, nullptr, ignore).code, Errc::invalid_argument);
  EXPECT_EQ(try_exact_sum_axes(d.get(), Shape{10, 10}, {1}, reinterpret_cast<int*>(out)).code,
            Errc::invalid_argument);
  EXPECT_EQ(try_exact_sum_axes(d.get(), Shape{10, 10}, {3}, out).code, Errc::invalid_argument);
  const std::int32_t* no_offsets = nullptr;
  EXPECT_EQ(try_exact_segmented_sum(d.get(), 3, no_offsets, out).code, Errc::null_pointer);
  cudaFree(out);
}

}  // namespace
}  // namespace gpureduce::test
