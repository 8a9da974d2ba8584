// Batch-invariant mode (Options::batch_invariant): a row, column or segment reduced among any
// number of others, at any position and input alignment, gives the bits it gives alone; and each
// result is a sum within the summation bound of a long double reference.
#include <gpureduce/axis.cuh>

#include "../common/exact_cases.hpp"
#include "reduce_checks.cuh"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace gpureduce::test {
namespace {

Options invariant() {
  Options o;
  o.batch_invariant = true;
  return o;
}

// sum_axes of `h` (placed `misalign` elements past an aligned allocation) over `axes`, invariant.
template <class T, class Out = result_t<T, Sum>>
std::vector<Out> invariant_sums(const std::vector<T>& h, const Shape& shape, const Axes& axes, std::uint64_t outputs,
                                unsigned misalign) {
  DeviceInput<T> d(h, misalign);
  Out* out = nullptr;
  EXPECT_EQ(cudaMalloc(&out, outputs * sizeof(Out)), cudaSuccess);
  EXPECT_EQ(cudaMemset(out, 0x5a, outputs * sizeof(Out)), cudaSuccess);
  const Status s = try_sum_axes(d.get(), shape, axes, out, nullptr, invariant());
  EXPECT_TRUE(bool(s)) << s.message;
  std::vector<Out> got(outputs);
  EXPECT_EQ(cudaMemcpy(got.data(), out, outputs * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(out);
  return got;
}

template <class T, class Out>
void expect_sum_of(Out got, const T* x, std::uint64_t n, std::uint64_t step, const std::string& what) {
  long double sum = 0, abs_sum = 0;
  for (std::uint64_t k = 0; k < n; ++k) {
    sum += ld(x[k * step]);
    abs_sum += std::fabs(ld(x[k * step]));
  }
  const FloatCheck c = check_float_sum(got, sum, abs_sum, n, n + 64);
  EXPECT_TRUE(c.ok) << what << ": got " << double(ld(got)) << " reference " << double(sum);
}

// Rows of every kernel class: one thread (up to 32), 4, 8 or 32 lanes, a warp per slice of a long
// row; short rows back to back (staged) and a stride apart.
template <class T>
void rows_in_any_batch(std::int64_t length) {
  const auto row = random_input<T>(std::uint64_t(length), test_seed() ^ std::uint64_t(length));
  const auto alone = invariant_sums(row, Shape{1, length}, {1}, 1, 0)[0];
  expect_sum_of(alone, row.data(), std::uint64_t(length), 1, "row of " + std::to_string(length));
  // 200,000 rows of up to 167 elements take 4 or 8 lanes each; fewer rows, a warp.
  for (std::int64_t batch : {1, 7, 1000, 200000, 1000000}) {
    if (batch * length > (std::int64_t(1) << 25)) continue;
    std::vector<T> h = random_input<T>(std::uint64_t(batch * length), test_seed() ^ std::uint64_t(batch));
    for (std::int64_t at : {std::int64_t(0), batch / 2, batch - 1}) {
      std::copy(row.begin(), row.end(), h.begin() + at * length);
      for (unsigned misalign : {0u, 1u, 3u}) {
        const auto got = invariant_sums(h, Shape{batch, length}, {1}, std::uint64_t(batch), misalign);
        ASSERT_EQ(exact_cases::bits_of(got[std::size_t(at)]), exact_cases::bits_of(alone))
            << "row of " << length << " at " << at << " of " << batch << ", +" << misalign << " elements";
      }
    }
  }
  // Rows a stride apart (a slice of a wider array) take another kernel than rows back to back.
  const std::int64_t batch = 7, stride = length + 1;
  std::vector<T> h = random_input<T>(std::uint64_t(batch * stride), test_seed() ^ 77);
  std::copy(row.begin(), row.end(), h.begin() + 3 * stride);
  const auto got = invariant_sums(h, Shape{{batch, length}, {stride, 1}}, {1}, std::uint64_t(batch), 0);
  ASSERT_EQ(exact_cases::bits_of(got[3]), exact_cases::bits_of(alone)) << "row of " << length << " among sliced rows";
}

TEST(InvariantGpu, RowsInAnyBatch) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t length : {1, 3, 17, 32, 33, 65, 100, 127, 128, 259, 1000, 2047, 5000, 40000})
    rows_in_any_batch<float>(length);
  for (std::int64_t length : {47, 100, 1000, 1500, 16391}) rows_in_any_batch<__nv_bfloat16>(length);
  for (std::int64_t length : {33, 1000}) rows_in_any_batch<double>(length);
}

// Rows of no elements give the identity: back to back and a stride apart.
TEST(InvariantGpu, EmptyRowsGiveTheIdentity) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<float> none;
  for (const Shape& shape : {Shape{5, 0}, Shape{{5, 0}, {3, 1}}})
    for (float got : invariant_sums(none, shape, {1}, 5, 0)) EXPECT_EQ(got, 0.0f);
}

// A column among 2 to 1000 (a column of a one-column array is contiguous: a row), of 2-D arrays
// and of the middle axis of 3-D ones: up to 32 columns of one kept index, or of several whose
// length is whole slices, are staged (invariant_columns_kernel); others a thread per column.
template <class T>
void columns_in_any_batch(std::int64_t length) {
  const auto col = random_input<T>(std::uint64_t(length), test_seed() ^ std::uint64_t(length + 1));
  using Out = result_t<T, Sum>;
  Out first{};
  bool have_first = false;
  const auto check = [&](Out got, const std::string& where) {
    if (!have_first) {
      expect_sum_of(got, col.data(), std::uint64_t(length), 1, "column of " + std::to_string(length));
      first = got;
      have_first = true;
    }
    ASSERT_EQ(exact_cases::bits_of(got), exact_cases::bits_of(first)) << "column of " << length << " " << where;
  };
  for (std::int64_t batch : {2, 3, 7, 16, 32, 33, 1000}) {
    if (batch * length > (std::int64_t(1) << 25)) continue;
    std::vector<T> h = random_input<T>(std::uint64_t(batch * length), test_seed() ^ std::uint64_t(batch));
    for (std::int64_t at : {std::int64_t(0), batch - 1}) {
      for (std::int64_t r = 0; r < length; ++r) h[std::size_t(r * batch + at)] = col[std::size_t(r)];
      for (unsigned misalign : {0u, 1u}) {
        check(invariant_sums(h, Shape{length, batch}, {0}, std::uint64_t(batch), misalign)[std::size_t(at)],
              "at " + std::to_string(at) + " of " + std::to_string(batch) + ", +" + std::to_string(misalign));
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
    // The middle axis of 3 x length x batch: the column at kept index 1.
    if (3 * batch * length > (std::int64_t(1) << 25)) continue;
    std::vector<T> h3 = random_input<T>(std::uint64_t(3 * batch * length), test_seed() ^ std::uint64_t(batch + 3));
    const std::int64_t at = batch / 2;
    for (std::int64_t r = 0; r < length; ++r) h3[std::size_t((length + r) * batch + at)] = col[std::size_t(r)];
    check(invariant_sums(h3, Shape{3, length, batch}, {1}, std::uint64_t(3 * batch), 0)[std::size_t(batch + at)],
          "at 1, " + std::to_string(at) + " of 3 x " + std::to_string(batch));
    if (::testing::Test::HasFatalFailure()) return;
  }
}

TEST(InvariantGpu, ColumnsInAnyBatch) {
  GPUREDUCE_REQUIRE_GPU();
  // 600,000 rows: 2,344 slices, whose partials are combined in groups of 2,048.
  for (std::int64_t length : {5, 300, 512, 70000, 600000}) columns_in_any_batch<float>(length);
  for (std::int64_t length : {300, 4096}) columns_in_any_batch<__nv_bfloat16>(length);
  for (std::int64_t length : {300, 1024}) columns_in_any_batch<double>(length);
}

// The batch-invariant sums of `segments` segments of `in` into `out`, poisoned first: by CSR
// offsets, or by the same offsets as begin/end arrays.
template <class T, class Out>
Status invariant_segment_sums(const T* in, std::uint64_t segments, const std::int64_t* offsets, Out* out, bool csr) {
  EXPECT_EQ(cudaMemset(out, 0x5a, segments * sizeof(Out)), cudaSuccess);
  return csr ? try_segmented_sum(in, segments, offsets, out, nullptr, invariant())
             : try_segmented_sum(in, segments, offsets, offsets + 1, out, nullptr, invariant());
}

// A segment among others of random lengths, by CSR offsets and by begin/end arrays: among none, a
// few and many of up to 2000 elements (a warp per segment), and among 50,000 of up to 7 (CSR:
// staged tiles; the longest segments take a warp from the stage, or past it); at 0, 1 and 5
// elements past a 16-byte boundary. Elements under 4 bytes: the same bits as the row alone (one
// tree, up to a slice of a row).
template <class T>
void segment_among_any(std::int64_t length) {
  using Out = result_t<T, Sum>;
  std::mt19937_64 rng(test_seed() ^ 0x5e9 ^ std::uint64_t(length));
  const auto seg = random_input<T>(std::uint64_t(length), test_seed() ^ std::uint64_t(length + 2));
  Out first{};
  bool have_first = false;
  if constexpr (sizeof(T) < 4) {
    first = invariant_sums(seg, Shape{1, length}, {1}, 1, 0)[0];
    have_first = true;
  }
  for (int neighbours : {0, 6, 999, 50000}) {
    std::vector<std::int64_t> lengths;
    const std::uint64_t longest = neighbours == 50000 ? 8 : 2000;
    for (int k = 0; k < neighbours; ++k) lengths.push_back(std::int64_t(rng() % longest));
    const std::size_t at = neighbours ? std::size_t(rng() % std::uint64_t(neighbours)) : 0;
    lengths.insert(lengths.begin() + std::ptrdiff_t(at), length);
    std::vector<std::int64_t> offsets{0};
    for (auto l : lengths) offsets.push_back(offsets.back() + l);
    std::vector<T> h = random_input<T>(std::uint64_t(offsets.back()), rng());
    std::copy(seg.begin(), seg.end(), h.begin() + offsets[at]);
    for (unsigned misalign : {0u, 1u, 5u}) {
      DeviceInput<T> d(h, misalign);
      DeviceInput<std::int64_t> off(offsets, 0);
      Out* out = nullptr;
      ASSERT_EQ(cudaMalloc(&out, lengths.size() * sizeof(Out)), cudaSuccess);
      for (bool csr : {true, false}) {
        const Status s = invariant_segment_sums(d.get(), lengths.size(), off.get(), out, csr);
        ASSERT_TRUE(bool(s)) << s.message;
        Out got{};
        ASSERT_EQ(cudaMemcpy(&got, out + at, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
        if (!have_first) {
          first = got;
          have_first = true;
        }
        if (neighbours == 0 && misalign == 0 && csr)
          expect_sum_of(got, seg.data(), std::uint64_t(length), 1, "segment of " + std::to_string(length));
        ASSERT_EQ(exact_cases::bits_of(got), exact_cases::bits_of(first))
            << "segment of " << length << " at " << at << " among " << lengths.size()
            << (csr ? ", CSR" : ", begin/end") << ", +" << misalign << " elements";
      }
      cudaFree(out);
    }
  }
}

TEST(InvariantGpu, SegmentsAmongAny) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::int64_t length : {3, 20, 40, 700, 100000, (1 << 20) + 5}) segment_among_any<float>(length);
  // Up to 63 slices of 16,384 a bfloat16 segment has the bits of the same row.
  for (std::int64_t length : {33, 40, 700, 1030, 5000, 16384, 16385, 16416, 40000, 1000000})
    segment_among_any<__nv_bfloat16>(length);
  for (std::int64_t length : {40, 3000, 20000}) segment_among_any<double>(length);
}

// The segments' tree on the host, in float: up to 32 elements in order; up to a slice, lane k of
// 32 folding elements k, k + 32, ... in order, then the butterfly (lanes i and i ^ offset, offsets
// 16 down to 1, the lower lane's value first); longer, slices so folded (the last too, however
// short), their results in order.
template <class T>
float host_segment_tree(const T* x, std::uint64_t n) {
  const auto slice_tree = [&](const T* p, std::uint64_t m, bool in_order_upto_32) {
    float lanes[32];
    for (float& l : lanes) l = Sum::identity<float>();
    if (in_order_upto_32 && m <= 32) {
      for (std::uint64_t i = 0; i < m; ++i) lanes[0] += float(ld(p[i]));
      return lanes[0];
    }
    for (std::uint64_t i = 0; i < m; ++i) lanes[i % 32] += float(ld(p[i]));
    for (unsigned offset = 16; offset >= 1; offset /= 2) {
      float next[32];
      for (unsigned i = 0; i < 32; ++i)
        next[i] = (i & offset) ? lanes[i ^ offset] + lanes[i] : lanes[i] + lanes[i ^ offset];
      std::copy(next, next + 32, lanes);
    }
    return lanes[0];
  };
  const std::uint64_t slice = detail::invariant_row_slice;
  if (n <= slice) return slice_tree(x, n, true);
  float acc = Sum::identity<float>();
  for (std::uint64_t lo = 0; lo < n; lo += slice) acc += slice_tree(x + lo, std::min(slice, n - lo), false);
  return acc;
}

// Segments (CSR and begin/end) of every path's length, and bfloat16 rows (whose tree is the
// segments'), among 3,000 others of up to 1,500 or 4,000 elements (CSR: several a warp, or a warp
// each) and at 0, 1 and 3 elements past a 16-byte boundary, have the host tree's bits.
template <class T>
void segments_have_the_host_tree(std::uint64_t longest) {
  std::mt19937_64 rng(test_seed() ^ 0x7ee ^ longest);
  for (std::int64_t length : {1, 17, 32, 33, 40, 100, 128, 129, 255, 511, 1000, 1023, 1024, 1500, 5000, 16384, 16400,
                              17000}) {
    std::vector<std::int64_t> lengths;
    for (int k = 0; k < 3000; ++k) lengths.push_back(std::int64_t(rng() % longest));
    const std::size_t at = std::size_t(rng() % lengths.size());
    lengths[at] = length;
    std::vector<std::int64_t> offsets{0};
    for (auto l : lengths) offsets.push_back(offsets.back() + l);
    const std::vector<T> h = random_input<T>(std::uint64_t(offsets.back()), rng());
    const float want = host_segment_tree(h.data() + offsets[at], std::uint64_t(length));
    for (unsigned misalign : {0u, 1u, 3u}) {
      DeviceInput<T> d(h, misalign);
      DeviceInput<std::int64_t> off(offsets, 0);
      float* out = nullptr;
      ASSERT_EQ(cudaMalloc(&out, lengths.size() * sizeof(float)), cudaSuccess);
      for (bool csr : {true, false}) {
        const Status s = invariant_segment_sums(d.get(), lengths.size(), off.get(), out, csr);
        ASSERT_TRUE(bool(s)) << s.message;
        float got = 0;
        ASSERT_EQ(cudaMemcpy(&got, out + at, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
        ASSERT_EQ(exact_cases::bits_of(got), exact_cases::bits_of(want))
            << "segment of " << length << " at " << at << (csr ? ", CSR" : ", begin/end") << ", +" << misalign
            << " elements: " << got << " against " << want;
      }
      cudaFree(out);
    }
    if (sizeof(T) < 4 && longest == 1500) {
      // 500 rows of this length, the segment's values among them as row 250.
      std::vector<T> rows = random_input<T>(std::uint64_t(500 * length), rng());
      std::copy(h.begin() + offsets[at], h.begin() + offsets[at] + length, rows.begin() + 250 * length);
      for (unsigned misalign : {0u, 1u, 3u}) {
        const auto got = invariant_sums(rows, Shape{500, length}, {1}, 500, misalign);
        ASSERT_EQ(exact_cases::bits_of(got[250]), exact_cases::bits_of(want))
            << "row of " << length << ", +" << misalign << " elements: " << got[250] << " against " << want;
      }
    }
  }
}

TEST(InvariantGpu, SegmentsHaveTheHostTree) {
  GPUREDUCE_REQUIRE_GPU();
  for (std::uint64_t longest : {1500, 4000}) {
    segments_have_the_host_tree<float>(longest);
    segments_have_the_host_tree<__nv_bfloat16>(longest);
    segments_have_the_host_tree<__half>(longest);
  }
}

// Segments of several slices (over 16,384 elements) are listed for a second kernel, or folded by
// the warp that meets them where the list is full (forced here): the same bits either way, CSR or
// begin/end, as each segment alone, and each within the summation bound.
template <class T>
void long_segments_listed_or_not() {
  using Out = result_t<T, Sum>;
  constexpr std::int64_t slice = 16384;
  std::mt19937_64 rng(test_seed() ^ 0x10e9);
  std::vector<std::int64_t> lengths{slice + 1, 2 * slice, 2 * slice + 1, 3 * slice + 31, 0, 5};
  for (int k = 0; k < 150; ++k)
    lengths.push_back(std::int64_t(k % 3 == 0 ? rng() % 64 : rng() % std::uint64_t(5 * slice)));
  std::shuffle(lengths.begin(), lengths.end(), rng);
  std::vector<std::int64_t> offsets{0};
  for (auto l : lengths) offsets.push_back(offsets.back() + l);
  const std::uint64_t segments = lengths.size();
  const std::vector<T> h = random_input<T>(std::uint64_t(offsets.back()), rng());
  DeviceInput<T> d(h, 3);
  DeviceInput<std::int64_t> off(offsets, 0);
  Out* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, segments * sizeof(Out)), cudaSuccess);
  std::vector<Out> first;
  for (bool unlisted : {false, true})
    for (bool csr : {true, false}) {
      const detail::testing::ForceLaunch forced({.unlisted = unlisted});
      const Status s = invariant_segment_sums(d.get(), segments, off.get(), out, csr);
      ASSERT_TRUE(bool(s)) << s.message;
      std::vector<Out> got(segments);
      ASSERT_EQ(cudaMemcpy(got.data(), out, segments * sizeof(Out), cudaMemcpyDeviceToHost), cudaSuccess);
      if (first.empty()) {
        first = got;
        for (std::uint64_t r = 0; r < segments; ++r) {
          const std::vector<T> seg(h.begin() + offsets[r], h.begin() + offsets[r + 1]);
          expect_sum_of(got[r], seg.data(), seg.size(), 1, "segment of " + std::to_string(seg.size()));
          if (lengths[r] <= slice) continue;
          const std::vector<std::int64_t> alone_offsets{0, lengths[r]};
          DeviceInput<T> alone(seg, 0);
          DeviceInput<std::int64_t> alone_off(alone_offsets, 0);
          ASSERT_TRUE(bool(try_segmented_sum(alone.get(), 1, alone_off.get(), out, nullptr, invariant())));
          Out one{};
          ASSERT_EQ(cudaMemcpy(&one, out, sizeof one, cudaMemcpyDeviceToHost), cudaSuccess);
          ASSERT_EQ(exact_cases::bits_of(got[r]), exact_cases::bits_of(one)) << "segment " << r << " of " << lengths[r];
        }
      }
      for (std::uint64_t r = 0; r < segments; ++r)
        ASSERT_EQ(exact_cases::bits_of(got[r]), exact_cases::bits_of(first[r]))
            << "segment " << r << " of " << lengths[r] << (csr ? ", CSR" : ", begin/end")
            << (unlisted ? ", unlisted" : ", listed");
    }
  cudaFree(out);
}

TEST(InvariantGpu, LongSegmentsListedOrNot) {
  GPUREDUCE_REQUIRE_GPU();
  long_segments_listed_or_not<float>();
  long_segments_listed_or_not<__nv_bfloat16>();
  long_segments_listed_or_not<double>();
}

// CSR offsets that decrease (which check_segments refuses) give unspecified sums, but read only the
// segments' span and write every result: segment x is [x / 2, x / 2 + 40) where x is even, and
// empty where odd, so the staged tiles (2,048 segments each) hold overlapping segments of more than
// 32 elements, more than a batch-invariant tile lists. Each result is a sum of at most 40 of the
// elements; in either mode, under compute-sanitizer too.
TEST(InvariantGpu, DecreasingOffsetsReadTheirSpan) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t segments = std::uint64_t(1) << 20;
  std::vector<std::int64_t> offsets(segments + 1);
  for (std::uint64_t x = 0; x <= segments; ++x) offsets[x] = std::int64_t(x / 2 + (x % 2) * 40);
  const std::vector<float> h = random_input<float>(segments / 2 + 40, test_seed() ^ 0xdec);
  float largest = 0;
  for (float v : h) largest = std::max(largest, std::abs(v));
  DeviceInput<float> d(h, 0);
  DeviceInput<std::int64_t> off(offsets, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, segments * sizeof(float)), cudaSuccess);
  for (bool batch_invariant : {false, true}) {
    ASSERT_EQ(cudaMemset(out, 0x5a, segments * sizeof(float)), cudaSuccess);  // 1.5e16
    const Status s =
        try_segmented_sum(d.get(), segments, off.get(), out, nullptr, batch_invariant ? invariant() : Options{});
    ASSERT_TRUE(bool(s)) << s.message;
    std::vector<float> got(segments);
    ASSERT_EQ(cudaMemcpy(got.data(), out, segments * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
    for (std::uint64_t x = 0; x < segments; ++x)
      ASSERT_LE(std::abs(got[x]), 40.5f * largest)
          << "segment " << x << (batch_invariant ? ", batch-invariant" : "") << ": not written, or not its elements";
  }
  cudaFree(out);
}

// The whole-array calls refuse it, by name.
TEST(InvariantGpu, WholeArrayCallsRefuse) {
  GPUREDUCE_REQUIRE_GPU();
  const std::vector<float> h(1000, 0.5f);
  DeviceInput<float> d(h, 0);
  float* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof(float)), cudaSuccess);
  const Status s = try_sum(d.get(), h.size(), out, nullptr, invariant());
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_EQ(std::string(s.message), "Options::batch_invariant is for the axis and segmented reductions (axis.cuh)");
  EXPECT_EQ(try_exact_sum(d.get(), h.size(), out, nullptr, invariant()).code, Errc::invalid_argument);
  EXPECT_TRUE(bool(try_exact_sum_axes(d.get(), Shape{1000}, {0}, out, nullptr, invariant())));  // one row
  cudaFree(out);
}

}  // namespace
}  // namespace gpureduce::test
