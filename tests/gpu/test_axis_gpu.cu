// Axis and segmented reductions (axis.cuh) against a host reference that walks every kept index
// and, within it, the reduced elements row-major: integers and min/max/argmin/argmax exact,
// floating sums within the summation bound of a long double reference.
#include <gpureduce/axis.cuh>

#include "axis_walk.hpp"
#include "reduce_checks.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace gpureduce::test {
namespace {

template <class Op>
inline constexpr bool float_sum_op_v = std::is_same_v<Op, Sum>;

template <class A, class Out>
void expect_same(const Out& got, const A& want, const std::string& what) {
  if constexpr (requires { want.index; }) {
    EXPECT_EQ(got.index, want.index) << what;
    EXPECT_TRUE(same_value(ld(got.value), ld(want.value))) << what << ": " << double(ld(got.value)) << " vs "
                                                            << double(ld(want.value));
  } else if constexpr (requires { want.min; }) {
    EXPECT_TRUE(same_value(ld(got.min), ld(want.min))) << what;
    EXPECT_TRUE(same_value(ld(got.max), ld(want.max))) << what;
  } else {
    EXPECT_TRUE(same_value(ld(got), ld(convert_result<Out>(want)))) << what << ": " << double(ld(got)) << " vs "
                                                                    << double(ld(convert_result<Out>(want)));
  }
}

// The reference of output `o`'s reduction: `elements(f)` calls f(value, index) for each reduced
// element in order.
template <class T, class Op, class Out, class Elements>
void check_output(const Out& got, Op op, std::uint64_t n, Elements&& elements, const std::string& what) {
  using A = accumulator_t<T, Op>;
  if constexpr (float_sum_op_v<Op> && is_floating_v<A>) {
    reference::FloatSum ref;
    elements([&](T x, std::int64_t) {
      const long double v = reference::to_ld(x);
      if (std::isnan(v)) {
        if (op.nan == NanPolicy::propagate) ref.has_nan = true;
        return;
      }
      ref.sum += v;
      ref.abs_sum += std::fabs(v);
    });
    if (ref.has_nan || std::isnan(ref.sum)) {
      EXPECT_TRUE(std::isnan(ld(got))) << what;
      return;
    }
    const FloatCheck c = check_float_sum(got, ref.sum, ref.abs_sum, n, n + 64);
    EXPECT_TRUE(c.ok) << what << ": got " << double(ld(got)) << " reference " << double(ref.sum);
  } else {
    A acc = op.template identity<A>();
    elements([&](T x, std::int64_t i) { acc = op(acc, op.template lift<A>(x, i)); });
    if constexpr (requires { acc.index; })
      if (acc.index == highest<std::int64_t>()) acc.index = -1;
    expect_same(got, acc, what);
  }
}

// Reduces a view of `host` (origin at element `origin`) over `axes` and checks every output.
template <class T, class Op, class Out = result_t<T, Op>>
void check_axes(const std::vector<T>& host, std::int64_t origin, const Shape& shape, const Axes& axes, Op op,
                const std::string& what, unsigned misalign = 0) {
  Walk kept, reduced;
  split_dims(shape, axes, &kept, &reduced);
  const std::uint64_t outputs = kept.size(), n = reduced.size();
  DeviceInput<T> d_in(host, misalign);
  Out* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, (outputs + 1) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_out, 0xA5, (outputs + 1) * sizeof(Out)), cudaSuccess);
  Options opt;  // the built-in operators take their NaN policy from the options
  if constexpr (requires { op.nan; }) opt.nan = op.nan;
  const Status s = try_reduce_axes(d_in.get() + origin, shape, axes, d_out, op, nullptr, opt);
  ASSERT_TRUE(bool(s)) << what << ": " << s.message;
  std::vector<Out> got(outputs);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
  if (outputs) ASSERT_EQ(cudaMemcpy(got.data(), d_out, outputs * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_out);
  for (std::uint64_t o = 0; o < outputs; ++o) {
    const std::int64_t base = origin + kept.offset(o);
    check_output<T>(got[o], op, n,
                    [&](auto&& f) {
                      for (std::uint64_t p = 0; p < n; ++p)
                        f(host[std::size_t(base + reduced.offset(p))], std::int64_t(p));
                    },
                    what + " output " + std::to_string(o));
    if (::testing::Test::HasFailure()) return;
  }
}

// Values in a small range, so that argmin/argmax see ties; floats integral (exact sums).
template <class T>
std::vector<T> tie_input(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = convert<T>(float(int(rng() % 17) - 8));
  return v;
}

template <class T, class Op>
void check_matrix(std::int64_t rows, std::int64_t cols, int axis, Op op, const char* name) {
  const std::uint64_t seed = test_seed() ^ std::uint64_t(rows * 1000003 + cols * 31 + axis);
  const std::uint64_t n = std::uint64_t(rows * cols);
  const bool uniform = std::is_floating_point_v<T> && !is_arg_extreme_v<Op>;
  const auto host = uniform ? random_input<T>(n, seed) : tie_input<T>(n, seed);
  check_axes(host, 0, Shape{rows, cols}, {axis}, op,
             std::string(name) + " " + std::to_string(rows) + "x" + std::to_string(cols) + " axis " +
                 std::to_string(axis));
}

TEST(AxisGpu, RowsOfEveryLengthClass) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {0, 1, 2, 3, 5, 8, 17, 31, 32, 33, 100, 1000, 1025, 4097, 70001})
    for (std::int64_t rows : {1, 3, 1000}) {
      if (rows * cols > (1 << 24)) continue;
      check_matrix<std::int32_t>(rows, cols, 1, Sum{}, "int32 sum");
      check_matrix<float>(rows, cols, -1, Sum{}, "float sum");
      check_matrix<float>(rows, cols, 1, ArgMax{}, "float argmax");
      check_matrix<__half>(rows, cols, 1, ArgMin{}, "half argmin");
    }
}

// Rows of 33 up to 2048 elements on 4, 8 or 32 lanes each in 16-byte vectors (row_lanes), at every
// start alignment: a misaligned row's head and tail take an element a lane, so the fewest lanes
// each type takes (V - 1) cover them. Origins 0 and 3 elements into the allocation.
TEST(AxisGpu, MediumRowsOnFewLanes) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {33, 47, 65, 100, 127, 259, 520, 1030, 2047})
    for (unsigned misalign : {0u, 3u}) {
      const std::int64_t rows = 999;
      const std::uint64_t n = std::uint64_t(rows * cols), seed = test_seed() ^ std::uint64_t(cols * 131 + misalign);
      const std::string what = " " + std::to_string(rows) + "x" + std::to_string(cols) + ", " +
                               std::to_string(misalign) + " elements in";
      const Shape shape{rows, cols};
      check_axes(random_input<float>(n, seed), 0, shape, {1}, Sum{}, "float sum" + what, misalign);
      check_axes(tie_input<float>(n, seed), 0, shape, {1}, ArgMax{}, "float argmax" + what, misalign);
      check_axes(tie_input<__nv_bfloat16>(n, seed), 0, shape, {1}, ArgMin{}, "bfloat16 argmin" + what, misalign);
      check_axes(random_input<__nv_bfloat16>(n, seed), 0, shape, {1}, Sum{}, "bfloat16 sum" + what, misalign);
      check_axes(tie_input<std::int8_t>(n, seed), 0, shape, {1}, Max{}, "int8 max" + what, misalign);
      check_axes(tie_input<std::int8_t>(n, seed), 0, shape, {1}, ArgMax{}, "int8 argmax" + what, misalign);
      check_axes(random_input<double>(n, seed), 0, shape, {1}, Sum{}, "double sum" + what, misalign);
      check_axes(tie_input<std::int32_t>(n, seed), 0, shape, {1}, Sum{}, "int32 sum" + what, misalign);
    }
}

// Short rows back to back over many full tiles of the staged kernel, and more tiles than blocks.
TEST(AxisGpu, StagedTilesAtScale) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {3, 7, 12, 33, 127}) {
    const std::int64_t rows = (std::int64_t(1) << 24) / cols + 1;
    check_matrix<float>(rows, cols, 1, Sum{}, "float sum");
    check_matrix<float>(rows, cols, 1, ArgMax{}, "float argmax");
    check_matrix<__nv_bfloat16>(rows, cols, 1, Max{}, "bfloat16 max");
    check_matrix<double>(rows / 2, cols, 1, Sum{}, "double sum");
  }
  check_matrix<std::int32_t>((std::int64_t(1) << 26) / 3 + 5, 3, 1, Sum{}, "int32 sum");
}

// Dense rows shorter than a vector (a vector holds several rows, whose results a warp writes out
// through shared memory, in rounds where they are more than 4 a lane), over many blocks and a
// partial last warp.
TEST(AxisGpu, DenseShortRowsAtScale) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {1, 2, 4}) {
    const std::int64_t rows = (std::int64_t(1) << 22) / cols + 7;
    check_matrix<float>(rows, cols, 1, ArgMax{}, "float argmax");
    check_matrix<std::int32_t>(rows, cols, 1, Sum{}, "int32 sum");
    check_matrix<__nv_bfloat16>(rows, cols, 1, Max{}, "bfloat16 max");
    check_matrix<std::int8_t>(rows, cols, 1, Max{}, "int8 max");
  }
}

// Rows of a power-of-two length either side of the dense kernel's limit (dense_rows_vectors: 8
// vectors for sums and max, one for argmin/argmax), back to back and aligned.
TEST(AxisGpu, PowerOfTwoRowsAroundTheDenseLimit) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {4, 8, 16, 32, 64, 128, 256, 512}) {
    const std::int64_t rows = 5001;
    check_matrix<float>(rows, cols, 1, ArgMax{}, "float argmax");
    check_matrix<float>(rows, cols, -1, Sum{}, "float sum");
    check_matrix<__nv_bfloat16>(rows, cols, 1, ArgMin{}, "bfloat16 argmin");
    check_matrix<__nv_bfloat16>(rows, cols, -1, Sum{}, "bfloat16 sum");
    check_matrix<std::int8_t>(rows, cols, 1, Max{}, "int8 max");
    check_matrix<std::int32_t>(rows, cols, 1, ArgMax{}, "int32 argmax");
  }
}

// Columns over the middle axis of an outer x length x cols array: float sum and argmax, bfloat16
// argmax, and bfloat16 max from `misalign` elements past the allocation's start.
void check_middle_axis(std::int64_t outer, std::int64_t length, std::int64_t cols, unsigned misalign) {
  const std::string what = " " + std::to_string(outer) + "x" + std::to_string(length) + "x" + std::to_string(cols) +
                           " middle axis";
  const std::uint64_t n = std::uint64_t(outer * length * cols);
  const auto hf = random_input<float>(n, test_seed() ^ std::uint64_t(cols * 7 + length));
  const auto hb = tie_input<__nv_bfloat16>(n, test_seed() ^ std::uint64_t(cols * 11 + length));
  const Shape shape{outer, length, cols};
  check_axes(hf, 0, shape, {1}, Sum{}, "float sum" + what);
  check_axes(hf, 0, shape, {1}, ArgMax{}, "float argmax" + what);
  check_axes(hb, 0, shape, {1}, ArgMax{}, "bfloat16 argmax" + what);
  check_axes(hb, 0, shape, {1}, Max{}, "bfloat16 max " + std::to_string(misalign) + " elements in" + what, misalign);
}

TEST(AxisGpu, ColumnsOfEveryWidth) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {1, 2, 3, 4, 8, 16, 32, 33, 256, 1000})
    for (std::int64_t rows : {0, 1, 7, 1280, 5000}) {
      check_matrix<std::int32_t>(rows, cols, 0, Sum{}, "int32 sum");
      check_matrix<float>(rows, cols, 0, Sum{}, "float sum");
      check_matrix<float>(rows, cols, 0, Max{}, "float max");
      check_matrix<float>(rows, cols, 0, ArgMax{}, "float argmax");
    }
}

// Adjacent narrow columns (2 to 32) read as rows of interleaved columns in 16-byte vectors: each
// type's vector width, sliced and unsliced, 2-D and over the middle axis of 3-D arrays; lengths
// that leave a partial vector, and a misaligned base, take the element-by-element rows instead.
TEST(AxisGpu, InterleavedColumnsAtScale) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {2, 4, 8, 16, 32}) {
    const std::int64_t rows = (std::int64_t(1) << 21) / cols;
    check_matrix<float>(rows, cols, 0, Sum{}, "float sum");
    check_matrix<float>(rows, cols, 0, ArgMax{}, "float argmax");
    check_matrix<float>(rows + 1, cols, 0, ArgMax{}, "float argmax");
    check_matrix<__nv_bfloat16>(rows, cols, 0, Sum{}, "bfloat16 sum");
    check_matrix<__nv_bfloat16>(rows + 3, cols, 0, ArgMax{}, "bfloat16 argmax");
    check_matrix<std::int8_t>(rows, cols, 0, Max{}, "int8 max");
    check_matrix<std::int8_t>(rows, cols, 0, ArgMin{}, "int8 argmin");
    check_matrix<double>(rows / 2, cols, 0, Sum{}, "double sum");
    check_matrix<std::int32_t>(rows, cols, 0, Sum{}, "int32 sum");
    for (const auto& [outer, length] : {std::pair<std::int64_t, std::int64_t>{5, 4096}, {3, 40000}, {9, 1001}})
      check_middle_axis(outer, length, cols, 2);
  }
}

// Adjacent narrow columns of a count that is not a power of two, read as rows of interleaved
// columns in 16-byte vectors from any alignment: sliced and unsliced, a partial last vector;
// types whose accumulators leave the kernel (bfloat16 and int8 argmin/argmax) take the columns
// kernel.
TEST(AxisGpu, NarrowColumnsAtScale) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {3, 5, 6, 7, 12, 17, 24, 31}) {
    const std::int64_t rows = (std::int64_t(1) << 21) / cols;
    for (std::int64_t r : {std::int64_t(50), rows, rows + 1}) {
      check_matrix<float>(r, cols, 0, Sum{}, "float sum");
      check_matrix<float>(r, cols, 0, ArgMax{}, "float argmax");
      check_matrix<__nv_bfloat16>(r, cols, 0, Sum{}, "bfloat16 sum");
    }
    check_matrix<__nv_bfloat16>(rows + 3, cols, 0, ArgMax{}, "bfloat16 argmax");
    check_matrix<std::int8_t>(rows, cols, 0, Max{}, "int8 max");
    check_matrix<std::int8_t>(rows + 1, cols, 0, ArgMin{}, "int8 argmin");
    check_matrix<std::int8_t>(rows + 2, cols, 0, Sum{}, "int8 sum");
    check_matrix<double>(rows / 2, cols, 0, Sum{}, "double sum");
    check_matrix<std::int32_t>(rows + 1, cols, 0, Sum{}, "int32 sum");
  }
}

// The same narrow columns from bases 1-3 elements past a 16-byte boundary, and over the middle
// axis of 3-D arrays whose runs start at every misfit (small: the sanitizers run it).
TEST(AxisGpu, ColumnsNarrowMisaligned) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {3, 5, 7, 12, 31}) {
    for (std::int64_t rows : {50, 1000, 1001}) {
      const std::uint64_t n = std::uint64_t(rows * cols);
      const auto hf = random_input<float>(n, test_seed() ^ std::uint64_t(cols * 13 + rows));
      const auto hi = tie_input<std::int32_t>(n, test_seed() ^ std::uint64_t(cols * 17 + rows));
      const auto hb = tie_input<__nv_bfloat16>(n, test_seed() ^ std::uint64_t(cols * 19 + rows));
      const auto h8 = tie_input<std::int8_t>(n, test_seed() ^ std::uint64_t(cols * 23 + rows));
      for (unsigned misalign : {1u, 2u, 3u}) {
        const std::string at = " " + std::to_string(rows) + "x" + std::to_string(cols) + " " +
                               std::to_string(misalign) + " elements in";
        check_axes(hf, 0, Shape{rows, cols}, {0}, Sum{}, "float sum" + at, misalign);
        check_axes(hi, 0, Shape{rows, cols}, {0}, ArgMin{}, "int32 argmin" + at, misalign);
        // Blocks of 128 and 64 threads: their lanes' slots take 128 and 256 bytes.
        check_axes(hb, 0, Shape{rows, cols}, {0}, ArgMax{}, "bfloat16 argmax" + at, misalign);
        check_axes(h8, 0, Shape{rows, cols}, {0}, ArgMax{}, "int8 argmax" + at, misalign);
        check_axes(h8, 0, Shape{rows, cols}, {0}, Sum{}, "int8 sum" + at, misalign);
      }
    }
    for (const auto& [outer, length] : {std::pair<std::int64_t, std::int64_t>{5, 409}, {3, 4001}, {9, 101}})
      check_middle_axis(outer, length, cols, 0);
  }
}

// Few long rows and few long columns: sliced over the device, then combined; columns a few
// thousand wide in a few dozen slices, combined by 8 threads an output.
TEST(AxisGpu, SlicedLongRowsAndColumns) {
  GPUREDUCE_REQUIRE_GPU();
  check_matrix<std::int32_t>(2, (1 << 22) + 3, 1, Sum{}, "int32 sum");
  check_matrix<float>(3, (1 << 21) + 1, 1, Sum{}, "float sum");
  check_matrix<float>(2, 1 << 21, 1, ArgMax{}, "float argmax");
  check_matrix<std::int32_t>((1 << 20) + 1, 4, 0, Sum{}, "int32 sum");
  check_matrix<float>(1 << 18, 64, 0, ArgMax{}, "float argmax");
  check_matrix<float>(1 << 16, 256, 0, Sum{}, "float sum");
  check_matrix<float>(100000, 3, 0, Max{}, "float max");
  check_matrix<float>(1300, 2200, 0, Sum{}, "float sum");
  check_matrix<float>(1301, 2200, 0, ArgMax{}, "float argmax");
  check_matrix<__nv_bfloat16>(1300, 2200, 0, ArgMax{}, "bfloat16 argmax");
  check_matrix<std::int32_t>(3000, 4100, 0, Sum{}, "int32 sum");
}

TEST(AxisGpu, ThreeDimensionsEveryAxisSet) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<std::int64_t> e = {37, 64, 5};
  const auto host = tie_input<std::int32_t>(37 * 64 * 5, test_seed() ^ 3);
  const auto hf = random_input<float>(37 * 64 * 5, test_seed() ^ 4);
  const std::vector<Axes> sets = {{}, {0}, {1}, {2}, {0, 1}, {0, 2}, {1, 2}, {0, 1, 2}, {-1, 0}};
  for (const Axes& a : sets) {
    const std::string what = "axes set of " + std::to_string(a.count);
    check_axes(host, 0, Shape{37, 64, 5}, a, Sum{}, "int32 sum " + what);
    check_axes(host, 0, Shape{37, 64, 5}, a, ArgMin{}, "int32 argmin " + what);
    check_axes(hf, 0, Shape{37, 64, 5}, a, Sum{}, "float sum " + what);
    check_axes(hf, 0, Shape{37, 64, 5}, a, MinMaxOp{}, "float minmax " + what);
  }
}

// Transposed, sliced, reversed and broadcast views of one buffer.
TEST(AxisGpu, StridedViews) {
  GPUREDUCE_REQUIRE_GPU();
  const std::int64_t n = 300, m = 70;
  const auto host = tie_input<std::int32_t>(n * m, test_seed() ^ 5);
  const auto hf = random_input<float>(n * m, test_seed() ^ 6);
  for (int axis : {0, 1}) {
    const std::string a = " axis " + std::to_string(axis);
    check_axes(host, 0, Shape{{m, n}, {1, m}}, {axis}, Sum{}, "transposed int32 sum" + a);
    check_axes(host, 0, Shape{{m, n}, {1, m}}, {axis}, ArgMin{}, "transposed argmin" + a);
    check_axes(hf, 0, Shape{{n / 2, m / 3}, {2 * m, 3}}, {axis}, Sum{}, "sliced float sum" + a);
    check_axes(host, n * m - 1, Shape{{n, m}, {-m, -1}}, {axis}, Sum{}, "reversed int32 sum" + a);
    check_axes(host, n * m - 1, Shape{{n, m}, {-m, -1}}, {axis}, ArgMin{}, "reversed argmin" + a);
    check_axes(host, 0, Shape{{n, 9, m}, {m, 0, 1}}, {2 * axis, 1}, Sum{}, "broadcast int32 sum" + a);
    check_axes(host, 0, Shape{{n, 9, m}, {m, 0, 1}}, {axis}, ArgMin{}, "broadcast argmin" + a);
  }
}

// Every base offset of 1..15 bytes: int8 and int16 rows and columns.
TEST(AxisGpu, MisalignedBases) {
  GPUREDUCE_REQUIRE_GPU();
  const auto h8 = tie_input<std::int8_t>(257 * 33, test_seed() ^ 7);
  for (unsigned off = 1; off < 16; ++off) {
    check_axes(h8, 0, Shape{257, 33}, {1}, Sum{}, "int8 rows at +" + std::to_string(off), off);
    check_axes(h8, 0, Shape{257, 33}, {0}, Sum{}, "int8 columns at +" + std::to_string(off), off);
  }
}

TEST(AxisGpu, NanPerRow) {
  GPUREDUCE_REQUIRE_GPU();
  std::vector<float> h = random_input<float>(64 * 40, test_seed() ^ 9);
  for (int r = 0; r < 64; r += 3) h[std::size_t(r * 40 + r % 40)] = std::numeric_limits<float>::quiet_NaN();
  for (int axis : {0, 1}) {
    check_axes(h, 0, Shape{64, 40}, {axis}, Sum{}, "sum propagate");
    check_axes(h, 0, Shape{64, 40}, {axis}, Sum{NanPolicy::ignore}, "nansum");
    check_axes(h, 0, Shape{64, 40}, {axis}, Max{}, "max propagate");
    check_axes(h, 0, Shape{64, 40}, {axis}, Max{NanPolicy::ignore}, "max ignore");
    check_axes(h, 0, Shape{64, 40}, {axis}, ArgMax{}, "argmax propagate");
    check_axes(h, 0, Shape{64, 40}, {axis}, ArgMax{NanPolicy::ignore}, "argmax ignore");
  }
}

// argmin/argmax of rows read in vectors: rows all NaN (ignore: the first NaN) beside rows of -0 and
// +0 only (a tie: the first index) and rows with one NaN late, at misaligned bases.
template <class T>
void check_arg_ties(std::int64_t cols) {
  const std::int64_t rows = 48;
  std::vector<T> h(std::size_t(rows * cols));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < cols; ++c)
      h[std::size_t(r * cols + c)] = convert<T>(r % 3 == 0 ? nan
                                                : r % 3 == 1 ? ((c + r) % 5 ? 0.0f : -0.0f)
                                                             : (c == cols - 1 - r % 7 ? nan : float(c % 9)));
  const std::string name = std::string(sizeof(T) == 2 ? "bfloat16" : "float32") + " rows of " + std::to_string(cols);
  for (unsigned misalign : {0u, 1u, 3u}) {
    check_axes(h, 0, Shape{rows, cols}, {1}, ArgMax{}, name + " argmax propagate", misalign);
    check_axes(h, 0, Shape{rows, cols}, {1}, ArgMax{NanPolicy::ignore}, name + " argmax ignore", misalign);
    check_axes(h, 0, Shape{rows, cols}, {1}, ArgMin{}, name + " argmin propagate", misalign);
    check_axes(h, 0, Shape{rows, cols}, {1}, ArgMin{NanPolicy::ignore}, name + " argmin ignore", misalign);
  }
}

TEST(AxisGpu, ArgExtremeTiesAndNanRows) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t cols : {40, 200, 5000}) {
    check_arg_ties<float>(cols);
    check_arg_ties<__nv_bfloat16>(cols);
  }
}

// A result laid out as given: keepdim, and a strided (transposed) result.
TEST(AxisGpu, ResultLayouts) {
  GPUREDUCE_REQUIRE_GPU();
  const auto host = tie_input<std::int32_t>(6 * 7 * 8, test_seed() ^ 10);
  DeviceInput<std::int32_t> d(host, 0);
  std::int64_t* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 6 * 8 * sizeof(std::int64_t)), cudaSuccess);
  // Result 8 x 6 transposed: out[i][k] with strides {1, 8} for kept axes (6, 8).
  ASSERT_TRUE(bool(try_sum_axes(d.get(), Shape{6, 7, 8}, {1}, out)));
  std::vector<std::int64_t> plain(48), strided(48), keep(48);
  ASSERT_EQ(cudaMemcpy(plain.data(), out, 48 * 8, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_TRUE(bool(try_reduce_axes(d.get(), Shape{6, 7, 8}, {1}, out, Shape{{6, 8}, {1, 6}}, Sum{})));
  ASSERT_EQ(cudaMemcpy(strided.data(), out, 48 * 8, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_TRUE(bool(try_reduce_axes(d.get(), Shape{6, 7, 8}, {1}, out, Shape{6, 1, 8}, Sum{})));
  ASSERT_EQ(cudaMemcpy(keep.data(), out, 48 * 8, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 8; ++k) {
      std::int64_t want = 0;
      for (int j = 0; j < 7; ++j) want += host[std::size_t((i * 7 + j) * 8 + k)];
      EXPECT_EQ(plain[std::size_t(i * 8 + k)], want);
      EXPECT_EQ(strided[std::size_t(k * 6 + i)], want);
      EXPECT_EQ(keep[std::size_t(i * 8 + k)], want);
    }
  cudaFree(out);
}

template <class Offset>
void check_segment_results(const std::vector<std::int64_t>& lengths) {
  std::vector<Offset> offsets{0};
  for (auto l : lengths) offsets.push_back(Offset(offsets.back() + l));
  const std::uint64_t segments = lengths.size(), total = std::uint64_t(offsets.back());
  const auto hf = random_input<float>(total, test_seed() ^ total);
  const auto hi = tie_input<std::int32_t>(total, test_seed() ^ (total + 1));
  DeviceInput<float> df(hf, 0);
  DeviceInput<std::int32_t> di(hi, 0);
  DeviceInput<Offset> doff(offsets, 0);
  float* sums = nullptr;
  IndexedValue<std::int32_t>* best = nullptr;
  ASSERT_EQ(cudaMalloc(&sums, segments * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&best, segments * sizeof(*best)), cudaSuccess);
  segmented_sum(df.get(), segments, doff.get(), sums);
  segmented_argmin(di.get(), segments, doff.get(), doff.get() + 1, best);
  std::vector<float> s(segments);
  std::vector<IndexedValue<std::int32_t>> b(segments);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  cudaMemcpy(s.data(), sums, segments * sizeof(float), cudaMemcpyDeviceToHost);
  cudaMemcpy(b.data(), best, segments * sizeof(*best), cudaMemcpyDeviceToHost);
  for (std::uint64_t r = 0; r < segments && !::testing::Test::HasFailure(); ++r) {
    const auto walk = [&](const auto& h) {
      return [&, b0 = offsets[r], e0 = offsets[r + 1]](auto&& f) {
        for (auto k = b0; k < e0; ++k) f(h[std::size_t(k)], std::int64_t(k - b0));
      };
    };
    const std::uint64_t n = std::uint64_t(offsets[r + 1] - offsets[r]);
    const std::string what = "segment " + std::to_string(r) + " of length " + std::to_string(n);
    check_output<float>(s[r], Sum{}, n, walk(hf), "sum " + what);
    check_output<std::int32_t>(b[r], ArgMin{}, n, walk(hi), "argmin " + what);
  }
  cudaFree(sums);
  cudaFree(best);
}

TEST(AxisGpu, SegmentsRaggedAndEmpty) {
  GPUREDUCE_REQUIRE_GPU();
  std::mt19937_64 rng(test_seed() ^ 11);
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < 3000; ++k) lengths.push_back(k % 7 == 0 ? 0 : std::int64_t(1) << (rng() % 14));
  lengths.push_back(0);
  check_segment_results<std::int32_t>(lengths);
  check_segment_results<std::int64_t>(lengths);
  check_segment_results<std::int32_t>({0});
  check_segment_results<std::int64_t>({5, 0, 0, 100000, 1});
}

// CSR segments of `lengths`, starting `skip` elements into the input (offsets[0] = skip), through
// the merge-path kernel: every result against the host reference of its segment.
template <class T, class Offset, class Op, class Out = result_t<T, Op>>
void check_csr(const std::vector<std::int64_t>& lengths, std::int64_t skip, Op op, const std::string& name,
               unsigned misalign = 0) {
  std::vector<Offset> offsets{Offset(skip)};
  for (auto l : lengths) offsets.push_back(Offset(offsets.back() + l));
  const std::uint64_t segments = lengths.size(), total = std::uint64_t(offsets.back());
  const std::uint64_t seed = test_seed() ^ (total * 31 + segments);
  const bool uniform = std::is_floating_point_v<T> && !is_arg_extreme_v<Op>;
  const auto host = uniform ? random_input<T>(total, seed) : tie_input<T>(total, seed);
  DeviceInput<T> d_in(host, misalign);
  DeviceInput<Offset> d_off(offsets, 0);
  Out* d_out = nullptr;
  ASSERT_EQ(cudaMalloc(&d_out, (segments + 1) * sizeof(Out)), cudaSuccess);
  ASSERT_EQ(cudaMemset(d_out, 0xA5, (segments + 1) * sizeof(Out)), cudaSuccess);
  const Status st = try_segmented_reduce(d_in.get(), segments, d_off.get(), d_out, op);
  ASSERT_TRUE(bool(st)) << name << ": " << st.message;
  std::vector<Out> got(segments);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << name;
  ASSERT_EQ(cudaMemcpy(got.data(), d_out, segments * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d_out);
  for (std::uint64_t r = 0; r < segments && !::testing::Test::HasFailure(); ++r) {
    const std::int64_t b = std::int64_t(offsets[r]), e = std::int64_t(offsets[r + 1]);
    check_output<T>(got[r], op, std::uint64_t(e - b),
                    [&](auto&& f) {
                      for (std::int64_t k = b; k < e; ++k) f(host[std::size_t(k)], k - b);
                    },
                    name + ": segment " + std::to_string(r) + " of " + std::to_string(segments) + ", length " +
                        std::to_string(e - b));
  }
}

// Lengths drawn log-uniform in [0, longest], every seventh segment empty, until `total` elements.
std::vector<std::int64_t> ragged_lengths(std::uint64_t total, double longest, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(0, std::log(longest + 1));
  std::vector<std::int64_t> lengths;
  std::uint64_t at = 0;
  while (at < total) {
    const std::int64_t l = lengths.size() % 7 == 3 ? 0 : std::int64_t(std::exp(u(rng)));
    lengths.push_back(std::min<std::int64_t>(l, std::int64_t(total - at)));
    at += std::uint64_t(lengths.back());
  }
  return lengths;
}

// The CSR kernel's cases: many short segments over many tiles and blocks (staged, a thread per
// segment), long segments among short ones (a staged tile past its stage), segments that span
// tiles and blocks (merge path), one long segment, only empty segments, offsets that
// start past 0, and inputs 1-3 elements past an aligned allocation.
TEST(AxisGpu, SegmentsAlongTheMergePath) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t s = test_seed();
  const auto short_ones = ragged_lengths(3u << 20, 8, s ^ 1);
  const auto medium = ragged_lengths(5u << 20, 3000, s ^ 2);
  const auto wide = ragged_lengths(6u << 20, 1 << 21, s ^ 3);
  check_csr<std::int32_t, std::int32_t>(short_ones, 0, Sum{}, "int32 sum, short");
  check_csr<std::int32_t, std::int64_t>(medium, 5, Sum{}, "int32 sum, medium, int64 offsets");
  check_csr<std::int32_t, std::int32_t>(wide, 0, Sum{}, "int32 sum, wide");
  check_csr<float, std::int32_t>(short_ones, 0, Sum{}, "float sum, short", 1);
  check_csr<float, std::int32_t>(medium, 0, Sum{}, "float sum, medium");
  check_csr<float, std::int64_t>(wide, 3, Sum{}, "float sum, wide", 3);
  check_csr<float, std::int32_t>(short_ones, 0, Max{}, "float max, short");
  check_csr<std::int32_t, std::int32_t>(short_ones, 0, ArgMax{}, "int32 argmax, short");
  check_csr<std::int32_t, std::int32_t>(wide, 0, ArgMin{}, "int32 argmin, wide");
  check_csr<float, std::int64_t>(medium, 0, ArgMax{}, "float argmax, medium");
  check_csr<__nv_bfloat16, std::int32_t>(medium, 0, Sum{}, "bfloat16 sum, medium", 1);
  check_csr<std::int8_t, std::int32_t>(short_ones, 0, MinMaxOp{}, "int8 minmax, short", 2);
  check_csr<std::uint16_t, std::int32_t>(medium, 0, BitOr{}, "uint16 bit_or, medium");
  check_csr<std::int32_t, std::int32_t>({std::int64_t(9) << 20}, 0, Sum{}, "int32 sum, one segment");
  check_csr<float, std::int32_t>({0, 0, std::int64_t(7) << 20, 0, 1}, 2, ArgMax{}, "float argmax, one long");
  check_csr<float, std::int32_t>(std::vector<std::int64_t>(3u << 20, 0), 4, Sum{}, "float sum, all empty");
  check_csr<float, std::int32_t>(std::vector<std::int64_t>(1000, 1), 0, ArgMin{}, "float argmin, ones");
  check_csr<float, std::int32_t>({1}, 0, Sum{}, "float sum, one element");
  const auto mid = ragged_lengths(300000, 60, s ^ 4);
  check_csr<float, std::int64_t>(mid, 0, Sum{}, "float sum, mean 15", 1);
  std::vector<std::int64_t> spiky(30000, 2);
  for (std::size_t k = 17; k < spiky.size(); k += 1000) spiky[k] = 4000;
  check_csr<float, std::int32_t>(spiky, 0, Sum{}, "float sum, long among short");
}

// CSR segments at scale: a mean of 15 (staged, a thread each) and of about 40 (the merge path's
// tiles), staged tiles past their stage (long segments among short ones), one long segment after a
// million short ones.
TEST(AxisGpu, CsrSegmentsAtScale) {
  GPUREDUCE_REQUIRE_GPU();
  const auto mid = ragged_lengths(4u << 20, 60, test_seed() ^ 4);
  check_csr<float, std::int64_t>(mid, 0, Sum{}, "float sum, mean 15", 1);
  check_csr<double, std::int32_t>(mid, 0, ArgMin{}, "double argmin, mean 15");
  check_csr<__nv_bfloat16, std::int32_t>(mid, 0, Max{}, "bfloat16 max, mean 15", 3);
  const auto tiles = ragged_lengths(4u << 20, 256, test_seed() ^ 5);
  check_csr<float, std::int32_t>(tiles, 0, Sum{}, "float sum, mean 40", 1);
  check_csr<std::int32_t, std::int64_t>(tiles, 0, ArgMax{}, "int32 argmax, mean 40");
  for (std::int64_t every : {1000, 5000}) {
    std::vector<std::int64_t> spiky(1u << 20, 2);
    for (std::size_t k = 17; k < spiky.size(); k += std::size_t(every)) spiky[k] = 4 * every;
    check_csr<float, std::int32_t>(spiky, 0, Sum{}, "float sum, long among short, every " + std::to_string(every));
    check_csr<std::int32_t, std::int32_t>(spiky, 0, ArgMax{}, "int32 argmax, long among short");
  }
  std::vector<std::int64_t> tall(1u << 20, 1);
  tall.push_back(5 << 20);
  check_csr<float, std::int32_t>(tall, 0, Sum{}, "float sum, ones then one long");
}

// Segments of a long mean (warp shares of the merge path): segments within a warp's part, across
// warps and across blocks, empty ones between, offsets past 0, misaligned inputs, every accumulator
// width.
TEST(AxisGpu, SegmentsInWarpShares) {
  GPUREDUCE_REQUIRE_GPU();
  const auto longs = ragged_lengths(12u << 20, 1 << 18, test_seed() ^ 41);
  check_csr<float, std::int32_t>(longs, 0, Sum{}, "float sum, mean 2x10^4", 1);
  check_csr<float, std::int64_t>(longs, 7, ArgMax{}, "float argmax, mean 2x10^4");
  check_csr<std::int32_t, std::int32_t>(longs, 0, Sum{}, "int32 sum, mean 2x10^4", 3);
  check_csr<__nv_bfloat16, std::int32_t>(longs, 0, ArgMin{}, "bfloat16 argmin, mean 2x10^4", 1);
  check_csr<std::int8_t, std::int32_t>(longs, 0, MinMaxOp{}, "int8 minmax, mean 2x10^4", 5);
  check_csr<double, std::int64_t>(longs, 0, Sum{}, "double sum, mean 2x10^4");
  const std::vector<std::int64_t> spans = {std::int64_t(3) << 20, 0, 0, 1, 9000, std::int64_t(5) << 20, 0, 33, 0};
  check_csr<float, std::int32_t>(spans, 2, Sum{}, "float sum, segments across blocks", 2);
  check_csr<std::int32_t, std::int64_t>(spans, 0, ArgMax{}, "int32 argmax, segments across blocks");
}

// Every CSR path, forced (detail::testing::ForceLaunch), on every distribution of lengths, whatever
// path its mean would take: short, medium and long segments, empty ones, segments across blocks.
TEST(AxisGpu, EveryCsrPathOnEveryDistribution) {
  GPUREDUCE_REQUIRE_GPU();
  using detail::CsrPath;
  const std::uint64_t s = test_seed();
  const std::vector<std::vector<std::int64_t>> distributions = {
      ragged_lengths(1u << 20, 8, s ^ 51), ragged_lengths(1u << 20, 60, s ^ 52),
      ragged_lengths(2u << 20, 3000, s ^ 53), ragged_lengths(4u << 20, 1 << 20, s ^ 54),
      {std::int64_t(3) << 20, 0, 0, 1, 9000, 0, 33, 0}};
  for (CsrPath path : {CsrPath::staged, CsrPath::tiles, CsrPath::warps, CsrPath::shares}) {
    const detail::testing::ForceLaunch forced({.csr = path});
    const std::string p = ", path " + std::to_string(int(path));
    for (const auto& lengths : distributions) {
      check_csr<float, std::int32_t>(lengths, 0, Sum{}, "float sum" + p, 1);
      check_csr<std::int32_t, std::int64_t>(lengths, 3, ArgMax{}, "int32 argmax" + p);
      check_csr<__nv_bfloat16, std::int32_t>(lengths, 0, Max{}, "bfloat16 max" + p, 2);
    }
  }
}

// A NaN in a segment, propagated or ignored, through the merge-path kernel.
TEST(AxisGpu, SegmentsAlongTheMergePathWithNan) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<std::int64_t> lengths(4000, 700);
  std::vector<float> h = random_input<float>(4000 * 700, test_seed() ^ 31);
  for (std::size_t k = 0; k < h.size(); k += 9001) h[k] = NAN;
  std::vector<std::int32_t> offsets{0};
  for (auto l : lengths) offsets.push_back(std::int32_t(offsets.back() + l));
  DeviceInput<float> d(h, 0);
  DeviceInput<std::int32_t> off(offsets, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 4000 * sizeof(float)), cudaSuccess);
  for (NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
    segmented_max(d.get(), 4000, off.get(), out, nullptr, {.nan = nan});
    std::vector<float> got(4000);
    ASSERT_EQ(cudaMemcpy(got.data(), out, 4000 * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::size_t r = 0; r < 4000; ++r) {
      float want = -INFINITY;
      bool has_nan = false;
      for (std::size_t k = r * 700; k < (r + 1) * 700; ++k)
        if (std::isnan(h[k])) has_nan = true;
        else want = std::max(want, h[k]);
      if (has_nan && nan == NanPolicy::propagate) EXPECT_TRUE(std::isnan(got[r])) << "segment " << r;
      else EXPECT_EQ(got[r], want) << "segment " << r;
    }
  }
  cudaFree(out);
}

TEST(AxisGpu, FixedSizeSegments) {
  GPUREDUCE_REQUIRE_GPU();
  const auto h = tie_input<std::int32_t>(1000 * 12, test_seed() ^ 12);
  DeviceInput<std::int32_t> d(h, 0);
  std::int64_t* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 1000 * sizeof(std::int64_t)), cudaSuccess);
  segmented_sum(d.get(), 1000, 12, out);
  std::vector<std::int64_t> got(1000);
  ASSERT_EQ(cudaMemcpy(got.data(), out, 8000, cudaMemcpyDeviceToHost), cudaSuccess);
  for (int r = 0; r < 1000; ++r) {
    std::int64_t want = 0;
    for (int k = 0; k < 12; ++k) want += h[std::size_t(r * 12 + k)];
    EXPECT_EQ(got[std::size_t(r)], want) << "segment " << r;
  }
  cudaFree(out);
}

// check_segments: the first segment that breaks a rule, by name; refused while capturing.
TEST(AxisGpu, CheckSegmentsNamesTheFirstBadSegment) {
  GPUREDUCE_REQUIRE_GPU();
  const auto check = [](const std::vector<std::int64_t>& offsets, std::uint64_t n, const char* want,
                        std::uint64_t want_bad) {
    DeviceInput<std::int64_t> d(offsets, 0);
    std::uint64_t bad = 0;
    const Status s = check_segments(offsets.size() - 1, d.get(), n, nullptr, &bad);
    EXPECT_EQ(std::string(s.message), want);
    EXPECT_EQ(bad, want_bad);
  };
  check({0, 3, 3, 10}, 10, "success", ~std::uint64_t(0));
  check({0, 5, 4, 10}, 10, "CSR offsets decrease", 1);
  check({0, 3, 11, 10}, 10, "a segment ends outside the input", 1);
  check({-1, 3, 3, 10}, 10, "a segment begins outside the input", 0);
  // begin/end arrays: an end before its begin is an empty segment, not an error.
  const std::vector<std::int32_t> h{0, 5, 4, 2};
  DeviceInput<std::int32_t> d(h, 0);
  EXPECT_TRUE(bool(check_segments(2, d.get(), d.get() + 2, 10)));
  EXPECT_EQ(check_segments(2, d.get(), d.get() + 2, 4).code, Errc::invalid_argument);  // begin 5 > n
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal), cudaSuccess);
  EXPECT_EQ(std::string(check_segments(2, d.get(), d.get() + 2, 10, s).message),
            "check_segments waits for its stream: not while it is captured");
  cudaGraph_t g = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(s, &g), cudaSuccess);
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

// Bad arguments: a named error, nothing launched.
TEST(AxisGpu, BadArgumentsAreNamed) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<float> h(100, 1.0f);
  DeviceInput<float> d(h, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, 100 * sizeof(float)), cudaSuccess);
  const auto message = [](Status s) { return std::string(s.message); };
  EXPECT_EQ(message(try_sum_axes(d.get(), Shape{10, 10}, {2}, out)), "axis out of range for the array");
  EXPECT_EQ(message(try_sum_axes(d.get(), Shape{10, 10}, {1, -1}, out)), "axes: the same axis twice");
  EXPECT_EQ(message(try_sum_axes(d.get(), Shape{10, 10}, {1}, const_cast<float*>(d.get()) + 5)),
            "result overlaps the input");
  EXPECT_EQ(try_sum_axes(d.get(), Shape{20, 10}, {1}, out).code, Errc::invalid_argument);  // input too small
  EXPECT_EQ(try_sum_axes(d.get(), Shape{10, -1}, {1}, out).code, Errc::invalid_argument);
  EXPECT_EQ(try_sum_axes(static_cast<const float*>(nullptr), Shape{10, 10}, {1}, out).code, Errc::null_pointer);
  const std::int64_t* no_offsets = nullptr;
  EXPECT_EQ(try_segmented_reduce(d.get(), 3, no_offsets, out, Sum{}).code, Errc::null_pointer);
  const std::int64_t* offsets = reinterpret_cast<const std::int64_t*>(out);
  EXPECT_EQ(message(try_segmented_reduce(static_cast<const float*>(nullptr), 3, offsets, out, Sum{})),
            "input pointer is null");
  cudaFree(out);
}

}  // namespace
}  // namespace gpureduce::test
