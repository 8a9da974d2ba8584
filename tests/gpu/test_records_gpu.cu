// Arrays of records (structs) under a caller's functor or transform, as CUB's Reduce and Thrust's
// reduce take any type, and complex numbers under the built-in sum, product and dot. Records in
// 16-byte vectors as the numbers (complex, int2), in vectors of 32, 48 and 64 bytes (two ints8,
// float3, 3-byte pixels, short3, 24-byte points, 64-byte records; from addresses that need a scalar
// head), and one per load (a pair of floats 4 bytes into an 8-byte word; records of 5 to 80 bytes
// whose vectors would span 80). Every kernel: one block, grids of 3 blocks (with and without the
// combiner block) and of 300.
#include "reduce_checks.cuh"

#include <cuda/std/complex>
#include <cuda/std/functional>
#include <thrust/complex.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

using complex64 = cuda::std::complex<float>;
using complex128 = cuda::std::complex<double>;

struct Pair {  // 8 bytes, 4-byte aligned: may start in the middle of an 8-byte word
  float a, b;
};
struct PairRange {  // the largest a and the smallest b: exact in any order
  __host__ __device__ Pair operator()(Pair x, Pair y) const { return {x.a > y.a ? x.a : y.a, x.b < y.b ? x.b : y.b}; }
};
struct Pixel {  // 3 bytes
  std::uint8_t r, g, b;
};
struct Brightest {
  __host__ __device__ Pixel operator()(Pixel x, Pixel y) const {
    return {x.r > y.r ? x.r : y.r, x.g > y.g ? x.g : y.g, x.b > y.b ? x.b : y.b};
  }
};
struct Luma {  // to a number: summed in int64
  __host__ __device__ int operator()(Pixel p) const { return p.r + 2 * p.g + p.b; }
};
struct Norm2 {  // integer coordinates below 2^10: exact in float, contracted or not
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};
struct X {
  __host__ __device__ double operator()(float3 p) const { return p.x; }
};
struct Point {  // 24 bytes
  double x, y, z;
};
struct Coordinates {
  __host__ __device__ double operator()(const Point& p) const { return p.x + p.y + p.z; }
};
// Records whose vectors span 32, 48 and 64 bytes: two 16-byte words, and a whole 64-byte record
// (one or two vectors per thread in flight, tuning_sm90.hpp).
struct alignas(16) Ints8 {  // 32 bytes
  int v[8];
};
struct alignas(16) Ints16 {  // 64 bytes
  int v[16];
};
struct FieldSum {  // to a number: summed in int64
  template <class R>
  __host__ __device__ std::int64_t operator()(const R& r) const {
    std::int64_t t = 0;
    for (const auto x : r.v) t += std::int64_t(x);
    return t;
  }
};
// Records of fields: 5 int8 or int16 (and 20 int8) read in vectors of 80 bytes; 5 int32, 5 int64
// and 20 int32 of 16-byte alignment one per load (agent/sources.cuh, vector_fits_v); 7, 9 and 11
// int8 and 7, 9, 11 and 15 int16 one per load or, from a size, in vectors of 112-240 bytes.
template <class F, int N, std::size_t Align = alignof(F)>
struct alignas(Align) Fields {
  F v[N];
};
struct Short3Max {  // short3, 6 bytes of 2-byte alignment: vectors of 8
  __host__ __device__ short3 operator()(short3 a, short3 b) const {
    return {a.x > b.x ? a.x : b.x, a.y > b.y ? a.y : b.y, a.z > b.z ? a.z : b.z};
  }
};
struct LowHigh {  // int2 component-wise: the smallest x, the largest y
  __host__ __device__ int2 operator()(int2 p, int2 q) const { return {p.x < q.x ? p.x : q.x, p.y > q.y ? p.y : q.y}; }
};

template <class C>
void check_complex_sum(std::uint64_t n, std::uint64_t seed) {
  using R = typename C::value_type;
  const auto re = random_input<R>(n, seed), im = random_input<R>(n, seed + 1);
  std::vector<C> h(n);
  reference::FloatSum sre, sim;
  for (std::uint64_t i = 0; i < n; ++i) {
    h[i] = C(re[i], im[i]);
    sre.sum += re[i], sre.abs_sum += std::fabs((long double)re[i]);
    sim.sum += im[i], sim.abs_sum += std::fabs((long double)im[i]);
  }
  // From a 16-byte boundary, and one element past one (a scalar head for 8-byte complex).
  for (const unsigned offset : {0u, unsigned(sizeof(C))}) {
    const DeviceInput<C> d(h, 0, offset);
    each_kernel([&](const Options& opt, const std::string& how) {
      SCOPED_TRACE(how + " offset " + std::to_string(offset));
      const C got = run_to_host<C>([&](C* o) { reduce(d.get(), n, o, cuda::std::plus<>{}, C{}, nullptr, opt); });
      expect_float_sum(got.real(), sre, n, "real");
      expect_float_sum(got.imag(), sim, n, "imag");
    });
    const C got = reduce_sync(d.get(), n, cuda::std::plus<>{}, C{});
    expect_float_sum(got.real(), sre, n, "real, _sync");
  }
}

void check_records(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> coordinate(-1000, 1000), byte(0, 255);
  std::uniform_real_distribution<double> unit(-1, 1);

  check_complex_sum<complex64>(n, seed);
  check_complex_sum<complex128>(n, seed + 2);

  // Pairs of floats from 4 bytes past an 8-byte boundary, and 8.
  std::vector<Pair> pairs(n);
  for (auto& p : pairs) p = {float(coordinate(rng)), float(coordinate(rng))};
  const Pair no_pair{-1e30f, 1e30f};
  Pair want_pair = no_pair;
  for (const Pair& p : pairs) want_pair = PairRange{}(want_pair, p);
  for (const unsigned offset : {4u, 8u}) {
    const DeviceInput<Pair> d(pairs, 0, offset);
    each_kernel([&](const Options& opt, const std::string& how) {
      SCOPED_TRACE(how + " pairs from " + std::to_string(offset));
      const Pair got = run_to_host<Pair>([&](Pair* o) { reduce(d.get(), n, o, PairRange{}, no_pair, nullptr, opt); });
      EXPECT_EQ(got.a, want_pair.a);
      EXPECT_EQ(got.b, want_pair.b);
    });
  }

  // int2 (8-byte aligned): vectors of two, from one record past a 16-byte boundary.
  std::vector<int2> ints(n);
  for (auto& p : ints) p = {int(rng()), int(rng())};
  const int2 no_ints{INT_MAX, INT_MIN};
  int2 want_ints = no_ints;
  for (const int2& p : ints) want_ints = LowHigh{}(want_ints, p);
  const DeviceInput<int2> d_ints(ints, 0, 8);

  // 3-byte pixels from an odd address: the brightest channels, and a sum through a transform.
  std::vector<Pixel> pixels(n);
  for (auto& p : pixels) p = {std::uint8_t(byte(rng)), std::uint8_t(byte(rng)), std::uint8_t(byte(rng))};
  Pixel want_pixel{0, 0, 0};
  std::int64_t want_luma = 0;
  for (const Pixel& p : pixels) want_pixel = Brightest{}(want_pixel, p), want_luma += Luma{}(p);
  const DeviceInput<Pixel> d_pixels(pixels, 0, 1);

  // float3 (12 bytes): the first point farthest from the origin, and the sum of x.
  std::vector<float3> points(n);
  for (auto& p : points) p = {coordinate(rng) / 2.0f, coordinate(rng) / 2.0f, coordinate(rng) / 2.0f};
  std::int64_t farthest = 0;
  double sum_x = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    if (Norm2{}(points[i]) > Norm2{}(points[farthest])) farthest = std::int64_t(i);
    sum_x += points[i].x;
  }
  const DeviceInput<float3> d_points(points, 0, 4);

  // 24-byte points: the sum of x + y + z over random doubles, within the sum's bound.
  std::vector<Point> big(n);
  reference::FloatSum big_sum;
  for (auto& p : big) {
    p = {unit(rng), unit(rng), unit(rng)};
    const double c = Coordinates{}(p);
    big_sum.sum += c, big_sum.abs_sum += std::fabs((long double)c);
  }
  const DeviceInput<Point> d_big(big, 0, 8);

  // 32- and 64-byte records from one record past a 16-byte boundary, short3 from 2 bytes past one.
  std::vector<Ints8> i8(n);
  std::vector<Ints16> i16(n);
  std::vector<short3> s3(n);
  std::int64_t want_i8 = 0, want_i16 = 0;
  const short3 no_s3{SHRT_MIN, SHRT_MIN, SHRT_MIN};
  short3 want_s3 = no_s3;
  for (std::uint64_t i = 0; i < n; ++i) {
    for (int& x : i8[i].v) x = int(rng());
    for (int& x : i16[i].v) x = int(rng());
    s3[i] = {short(rng()), short(rng()), short(rng())};
    want_i8 += FieldSum{}(i8[i]), want_i16 += FieldSum{}(i16[i]), want_s3 = Short3Max{}(want_s3, s3[i]);
  }
  const DeviceInput<Ints8> d_i8(i8, 1);
  const DeviceInput<Ints16> d_i16(i16, 1);
  const DeviceInput<short3> d_s3(s3, 0, 2);

  each_kernel([&](const Options& opt, const std::string& how) {
    SCOPED_TRACE(how);
    const int2 got_ints =
        run_to_host<int2>([&](int2* o) { reduce(d_ints.get(), n, o, LowHigh{}, no_ints, nullptr, opt); });
    EXPECT_EQ(got_ints.x, want_ints.x);
    EXPECT_EQ(got_ints.y, want_ints.y);
    const Pixel got_pixel =
        run_to_host<Pixel>([&](Pixel* o) { reduce(d_pixels.get(), n, o, Brightest{}, Pixel{0, 0, 0}, nullptr, opt); });
    EXPECT_EQ(got_pixel.r, want_pixel.r);
    EXPECT_EQ(got_pixel.g, want_pixel.g);
    EXPECT_EQ(got_pixel.b, want_pixel.b);
    EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) {
                transform_reduce(d_pixels.get(), n, o, Luma{}, Sum{}, nullptr, opt);
              }),
              want_luma);
    EXPECT_EQ(run_to_host<double>([&](double* o) {
                transform_reduce(d_points.get(), n, o, X{}, cuda::std::plus<>{}, 0.0, nullptr, opt);
              }),
              sum_x);  // halves of integers below 2^10: exact in double in any order
    if (n > 0) {
      const auto got = run_to_host<IndexedValue<float>>(
          [&](IndexedValue<float>* o) { transform_reduce(d_points.get(), n, o, Norm2{}, ArgMax{}, nullptr, opt); });
      EXPECT_EQ(got.index, farthest);
      EXPECT_EQ(got.value, Norm2{}(points[farthest]));
    }
    expect_float_sum(
        run_to_host<double>(
            [&](double* o) { transform_reduce(d_big.get(), n, o, Coordinates{}, Sum{}, nullptr, opt); }),
        big_sum, n, "24-byte points");
    EXPECT_EQ(run_to_host<std::int64_t>(
                  [&](std::int64_t* o) { transform_reduce(d_i8.get(), n, o, FieldSum{}, Sum{}, nullptr, opt); }),
              want_i8);
    EXPECT_EQ(run_to_host<std::int64_t>(
                  [&](std::int64_t* o) { transform_reduce(d_i16.get(), n, o, FieldSum{}, Sum{}, nullptr, opt); }),
              want_i16);
    const short3 got_s3 =
        run_to_host<short3>([&](short3* o) { reduce(d_s3.get(), n, o, Short3Max{}, no_s3, nullptr, opt); });
    EXPECT_EQ(got_s3.x, want_s3.x);
    EXPECT_EQ(got_s3.y, want_s3.y);
    EXPECT_EQ(got_s3.z, want_s3.z);
  });
}

TEST(test_records, records_with_functors_and_transforms) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {0ull, 1ull, 2ull, 33ull, 1023ull, 3001ull, 65537ull, 300001ull, (1ull << 21) + 3}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_records(n, seed + n);
  }
}

// n records R of random fields, each the low bits of a xorshift draw (fast enough for 2^28 draws),
// and in *sum the sum of all their fields.
template <class R>
std::vector<R> random_fields(std::uint64_t n, std::uint64_t seed, std::int64_t* sum) {
  std::vector<R> h(n);
  using F = std::remove_cvref_t<decltype(h[0].v[0])>;
  std::uint64_t x = seed | 1;
  std::int64_t total = 0;
  for (R& r : h)
    for (F& v : r.v) {
      x ^= x << 13, x ^= x >> 7, x ^= x << 17;
      v = F(std::int64_t(x) >> 30);  // narrower fields take the low bits
      total += std::int64_t(v);
    }
  *sum = total;
  return h;
}

// Sums of the fields of n random records R from `offset_bytes` past a 16-byte boundary, and for
// records of up to 9 fields the first record of the largest field sum (argmax, its partial batch
// loaded whole), exact under each kernel, and on grids of several waves forced on 3 and 300 blocks.
// argmin/argmax of wider records: argmin_argmax_of_floating_keys_in_staged_vectors (their kernels
// took a third of this file's compile time).
template <class R>
void check_field_sums(std::uint64_t n, std::uint64_t seed, unsigned offset_bytes = 0) {
  std::int64_t want = 0;
  const std::vector<R> h = random_fields<R>(n, seed, &want);
  const DeviceInput<R> d(h, 0, offset_bytes);
  IndexedValue<std::int64_t> want_max{INT64_MIN, 0};
  for (std::uint64_t i = 0; i < n; ++i)
    if (const std::int64_t v = FieldSum{}(h[i]); v > want_max.value) want_max = {v, std::int64_t(i)};
  const auto check = [&](const Options& opt, const std::string& how) {
    SCOPED_TRACE(how + ", " + std::to_string(sizeof(R)) + "-byte records of " + std::to_string(alignof(R)) +
                 "-byte alignment from byte " + std::to_string(offset_bytes));
    EXPECT_EQ(run_to_host<std::int64_t>(
                  [&](std::int64_t* o) { transform_reduce(d.get(), n, o, FieldSum{}, Sum{}, nullptr, opt); }),
              want);
    if constexpr (sizeof(R) / alignof(R) <= 9) {
      if (n == 0) return;
      const auto got = run_to_host<IndexedValue<std::int64_t>>([&](IndexedValue<std::int64_t>* o) {
        transform_reduce(d.get(), n, o, FieldSum{}, ArgMax{}, nullptr, opt);
      });
      EXPECT_EQ(got.value, want_max.value);
      EXPECT_EQ(got.index, want_max.index);
    }
  };
  each_kernel(check);
  for (const std::uint64_t blocks : {3ull, 300ull}) {
    const detail::testing::ForceLaunch forced({.kernel = Kernel::waves, .blocks = blocks});
    check(Options{}, "waves kernel, blocks " + std::to_string(blocks));
  }
}

// Loaded evict-first (thread/vector_load.cuh, load_record) as words of 1, 2, 4, 8 and 16 bytes,
// and plainly on several waves (7 int8, 7 int16, 5 and 9 int32); up to 256 records, one per thread
// in one block of 256 (tuning_sm90.hpp, one_per_load).
TEST(test_records, records_one_per_load_in_words_of_their_alignment) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(!vector_fits_v<Fields<std::int8_t, 7>> && !vector_fits_v<Fields<std::int16_t, 7>> &&
                !vector_fits_v<Fields<std::int32_t, 5>> && !vector_fits_v<Fields<std::int64_t, 5>> &&
                !vector_fits_v<Fields<std::int32_t, 20, 16>> && !vector_fits_v<Fields<std::int32_t, 9>>);
  for (const std::uint64_t n : {0ull, 1ull, 33ull, 255ull, 256ull, 257ull, 3001ull, 65537ull, 300001ull}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_field_sums<Fields<std::int8_t, 7>>(n, seed + n, 16 + 1);
    check_field_sums<Fields<std::int16_t, 7>>(n, seed + n + 1, 16 + 2);
    check_field_sums<Fields<std::int32_t, 5>>(n, seed + n + 2, 16 + 4);
    check_field_sums<Fields<std::int64_t, 5>>(n, seed + n + 3, 16 + 8);
    check_field_sums<Fields<std::int32_t, 20, 16>>(n, seed + n + 4, 16);
    check_field_sums<Fields<std::int32_t, 9>>(n, seed + n + 5, 16 + 4);
  }
}

// Records of more than 16 int8 or int16 fields read one per load, one per thread (dispatch/
// tuning_sm90.hpp, narrow_fields): 17 and 43 int8 fields from bytes 1 and 3, 23 and 47
// int16 from bytes 2 and 6, around the one-block kernel's 256 records and a batch of 256, sum and
// argmax under every kernel and the waves kernel, exact.
TEST(test_records, many_narrow_fields_one_record_per_thread) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(detail::reduce_tuning<std::int64_t, RecordSource<Fields<std::int8_t, 17>, FieldSum>, Sum>()
                        .grid_unroll == 1 &&
                detail::reduce_tuning<std::int64_t, RecordSource<Fields<std::int16_t, 47>, FieldSum>, Sum>()
                        .single_threads == 256);
  for (const std::uint64_t n : {1ull, 31ull, 255ull, 256ull, 257ull, 1000ull, 4097ull, 65537ull}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_field_sums<Fields<std::int8_t, 17>>(n, seed + n, 1);
    check_field_sums<Fields<std::int8_t, 43>>(n, seed + n + 1, 3);
    check_field_sums<Fields<std::int16_t, 23>>(n, seed + n + 2, 2);
    check_field_sums<Fields<std::int16_t, 47>>(n, seed + n + 3, 6);
  }
}

// Records of 1- and 2-byte alignment whose vectors span 80 bytes: 5 int8 fields from bytes 0 to 3
// and 5 int16 from bytes 0 and 2 (aligned vectors after a scalar head), 20 int8 from bytes 0 to 3
// (from byte 4 aligned, from the others in shifted vectors: thread/shifted_load.cuh). Those read
// in aligned vectors are read one per load in one block up to 2048 records (dispatch/
// dispatch_reduce.cuh, one_per_load_of): 2048 and 2049 on either side.
TEST(test_records, narrow_records_in_vectors_of_80_bytes) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(Vector<Fields<std::int8_t, 5>>::size == 16 && Vector<Fields<std::int16_t, 5>>::size == 8 &&
                Vector<Fields<std::int8_t, 20>>::size == 4);
  for (const std::uint64_t n : {0ull, 1ull, 15ull, 17ull, 2048ull, 2049ull, 3001ull, 65537ull, 300001ull}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    for (const unsigned offset : {0u, 1u, 2u, 3u}) {
      check_field_sums<Fields<std::int8_t, 5>>(n, seed + n + offset, offset);
      check_field_sums<Fields<std::int8_t, 20>>(n, seed + n + offset + 4, offset);
    }
    for (const unsigned offset : {0u, 2u}) check_field_sums<Fields<std::int16_t, 5>>(n, seed + n + offset + 8, offset);
  }
}

// Record counts around where R is read in staged vectors (wide_vectors_min): one short of it, at
// it, and past it with a partial batch and a scalar tail.
template <class R>
std::array<std::uint64_t, 3> sizes_around_staging(R) {
  const std::uint64_t per_vec = Vector<R>::size, from = wide_vectors_min<R> * per_vec;
  return {from - 1, from, from + 256 * per_vec + 5};
}

// Records of 1- and 2-byte alignment whose vectors span 112-240 bytes: one per load below
// wide_vectors_min vectors, in vectors from there (agent/sources.cuh, reads_wide_vectors_v), staged
// through shared memory in the grid kernels' whole batches, those of 208-240 bytes in two parts
// (int16) or in blocks of 128 threads (int8); 7 and 9 int8 fields from two bytes each, 7 int16 from
// bytes 0 and 2, 9 int16 from byte 6, 15 int16 from byte 0, 13 int8 from byte 7, one record short
// of their size, at it, and past it with a partial batch and a scalar tail (11 int8 from byte 5,
// 11 int16 from byte 2 and 15 int8 from byte 1, whose sizes are those of 9 int8, 9 int16 and 13
// int8, short of it and past it).
TEST(test_records, narrow_records_in_staged_vectors) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(reads_wide_vectors_v<Fields<std::int8_t, 7>> && reads_wide_vectors_v<Fields<std::int8_t, 9>> &&
                reads_wide_vectors_v<Fields<std::int16_t, 7>> && reads_wide_vectors_v<Fields<std::int16_t, 9>> &&
                reads_wide_vectors_v<Fields<std::int8_t, 11>> && reads_wide_vectors_v<Fields<std::int16_t, 11>> &&
                reads_wide_vectors_v<Fields<std::int16_t, 15>> && reads_wide_vectors_v<Fields<std::int8_t, 13>> &&
                reads_wide_vectors_v<Fields<std::int8_t, 15>>);
  for (const std::uint64_t n : sizes_around_staging(Fields<std::int8_t, 9>{})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    for (const unsigned offset : {0u, 3u}) check_field_sums<Fields<std::int8_t, 7>>(n, seed + n + offset, offset);
    for (const unsigned offset : {1u, 2u}) check_field_sums<Fields<std::int8_t, 9>>(n, seed + n + offset + 4, offset);
    if (n % 16 != 0) check_field_sums<Fields<std::int8_t, 11>>(n, seed + n + 24, 5);
  }
  for (const std::uint64_t n : sizes_around_staging(Fields<std::int16_t, 9>{})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    for (const unsigned offset : {0u, 2u}) check_field_sums<Fields<std::int16_t, 7>>(n, seed + n + offset + 8, offset);
    check_field_sums<Fields<std::int16_t, 9>>(n, seed + n + 12, 6);
    if (n % 8 != 0) check_field_sums<Fields<std::int16_t, 11>>(n, seed + n + 16, 2);
  }
  for (const std::uint64_t n : sizes_around_staging(Fields<std::int16_t, 15>{})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_field_sums<Fields<std::int16_t, 15>>(n, seed + n + 20, 0);
  }
  for (const std::uint64_t n : sizes_around_staging(Fields<std::int8_t, 13>{})) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_field_sums<Fields<std::int8_t, 13>>(n, seed + n + 28, 7);
    if (n % 16 != 0) check_field_sums<Fields<std::int8_t, 15>>(n, seed + n + 32, 1);
  }
}

// Records of 1- and 2-byte alignment whose vectors span 272-688 bytes, staged in one part in blocks
// of 128 threads (up to 352 bytes) or 64 (dispatch/tuning_sm90.hpp, tuning_sm90_for):
// one per load below wide_vectors_min vectors, in vectors from there; 17 int8 fields from byte 3,
// 23 int16 from byte 2, 43 int8 from byte 5 and 43 int16 from byte 6 one record short of their
// sizes, at them, and past them with a partial batch and a scalar tail, 31 int8 from byte 1, 23
// int16 from byte 4, 43 int8 from byte 2 and 43 int16 from byte 0 short of them and past them.
// Outside the sanitizers' filter (racecheck took more than 400 s of the H100's over it);
// test_records.staged_blocks_of_128_and_64_threads is in it.
TEST(test_record_blocks, wide_records_in_staged_vectors_of_small_blocks) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(ArraySource<Fields<std::int8_t, 17>>::one_part_threads == 128 &&
                ArraySource<Fields<std::int8_t, 31>>::one_part_threads == 64 &&
                ArraySource<Fields<std::int16_t, 23>>::one_part_threads == 64 &&
                ArraySource<Fields<std::int8_t, 43>>::one_part_threads == 64 &&
                ArraySource<Fields<std::int16_t, 43>>::one_part_threads == 64);
  // R from byte from_r around its size, W (of the same size) from byte from_w short of it and past
  // it.
  const auto around = [&]<class R, class W>(R, W, unsigned from_r, unsigned from_w, std::uint64_t salt) {
    static_assert(wide_vectors_min<R> == wide_vectors_min<W> && Vector<R>::size == Vector<W>::size);
    for (const std::uint64_t n : sizes_around_staging(R{})) {
      SCOPED_TRACE("n=" + std::to_string(n));
      check_field_sums<R>(n, seed + n + salt, from_r);
      if (n % Vector<R>::size != 0) check_field_sums<W>(n, seed + n + salt + 4, from_w);
    }
  };
  around(Fields<std::int8_t, 17>{}, Fields<std::int8_t, 31>{}, 3, 1, 0);
  around(Fields<std::int16_t, 23>{}, Fields<std::int16_t, 23>{}, 2, 4, 8);
  around(Fields<std::int8_t, 43>{}, Fields<std::int8_t, 43>{}, 5, 2, 16);
  around(Fields<std::int16_t, 43>{}, Fields<std::int16_t, 43>{}, 6, 0, 24);
}

// The staged kernels of blocks of 128 and 64 threads once each, for compute-sanitizer: 17, 31 and
// 43 int8 fields from byte 3, past their size with a partial batch and a scalar tail, summed under
// the library's plan, exact.
TEST(test_records, staged_blocks_of_128_and_64_threads) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const auto check = [&]<class R>(R) {
    const std::uint64_t n = wide_vectors_min<R> * Vector<R>::size + 100 * Vector<R>::size + 7;
    std::int64_t want = 0;
    const std::vector<R> h = random_fields<R>(n, seed + sizeof(R), &want);
    const DeviceInput<R> d(h, 0, 3);
    EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(d.get(), n, o, FieldSum{}, Sum{}); }),
              want)
        << sizeof(R) << "-byte records";
  };
  constexpr auto threads = []<class R>(R) {
    return detail::reduce_tuning<std::int64_t, ArraySource<R, FieldSum>, Sum>().grid_threads;
  };
  static_assert(threads(Fields<std::int8_t, 17>{}) == 128 && threads(Fields<std::int8_t, 31>{}) == 64 &&
                threads(Fields<std::int8_t, 43>{}) == 64);
  check(Fields<std::int8_t, 17>{});
  check(Fields<std::int8_t, 31>{});
  check(Fields<std::int8_t, 43>{});
}

// Floating keys of records: the sum of their fields, NaN where the first field is `nan_mark`
// (argmin/argmax take one kernel body per NaN policy: agent/thread_partial.cuh).
template <class K>
struct FieldSumOrNan {
  std::int64_t nan_mark;
  template <class R>
  __host__ __device__ K operator()(const R& r) const {
    return std::int64_t(r.v[0]) == nan_mark ? K(NAN) : K(FieldSum{}(r));
  }
};

// argmin/argmax of floating keys over records in staged vectors (one stage per kernel whatever
// the NaN policy: agent/sources.cuh, warp_stage): 9 int8 fields in blocks of 256 threads, 7 int16
// in one part and 13 int16 in two, 17 int8 in blocks of 128 and 43 int8 in blocks of 64, 100
// batches and 7 records past their size, from byte 3 (int16: 2); and in the one-block kernel, 3001
// records of 5 int8 fields (vectors of 80 bytes), 256, 300 and 2048 of them, 1000 of 5 int16 (read
// one per load up to 2048: dispatch/dispatch_reduce.cuh, one_per_load_of; the partial batch
// record by record), 1000 and 1500 of 9 int8 (the partial batch with repeats), and 256 of 9 int8,
// 100 of 13 int16 and 200 of 15 int8 (one per load, one per thread), 257 of 9 int8, 300 of 11 int8
// and 512 of 15 int16 (one per thread in a block of 512). The 16 keys of int8 fields'
// vectors and the 8 of a vector staged in two parts are compared one by one, 7 int16 fields' 8
// through the vector winner (agent/thread_partial.cuh).
// float argmin and double argmax, with NaN keys at the first and last records and at a random one
// (propagated: the first NaN; ignored: the first extreme of the others) and with none, under the
// library's plan and on a forced grid of 300 blocks. The extremes tie (the sums of 5-43 random
// fields repeat), so the first index is tested.
TEST(test_records, argmin_argmax_of_floating_keys_in_staged_vectors) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  // R from byte `offset`, n records (0: 100 batches and 7 records past where R is staged).
  const auto check = [&]<class R>(R, unsigned offset, std::uint64_t n) {
    using F = std::remove_cvref_t<decltype(R{}.v[0])>;
    if (n == 0) n = wide_vectors_min<R> * Vector<R>::size + 100 * Vector<R>::size + 7;
    std::int64_t unused = 0;
    std::vector<R> h = random_fields<R>(n, seed + sizeof(R), &unused);
    const std::int64_t mark = std::numeric_limits<F>::min();
    for (R& r : h)
      if (r.v[0] == F(mark)) r.v[0] = F(mark + 1);
    const std::uint64_t at = 1 + (seed % (n - 2));
    for (const bool with_nan : {false, true}) {
      SCOPED_TRACE(std::to_string(n) + " records of " + std::to_string(sizeof(R)) + " bytes, NaN keys " +
                   (with_nan ? "at 0, " + std::to_string(at) + ", n - 1" : "none"));
      if (with_nan)
        for (const std::uint64_t i : {std::uint64_t(0), at, n - 1}) h[i].v[0] = F(mark);
      const DeviceInput<R> d(h, 0, offset);
      for (const NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
        // The first index of the least (float) and of the largest (double) key of the records
        // that count under `nan`.
        IndexedValue<float> want_min{INFINITY, -1};
        IndexedValue<double> want_max{-INFINITY, -1};
        for (std::uint64_t i = 0; i < n; ++i) {
          const bool is_nan = std::int64_t(h[i].v[0]) == mark;
          if (is_nan && nan == NanPolicy::propagate) {
            want_min = {NAN, std::int64_t(i)}, want_max = {NAN, std::int64_t(i)};
            break;
          }
          const std::int64_t key = FieldSum{}(h[i]);
          if (is_nan) continue;
          if (want_min.index < 0 || float(key) < want_min.value) want_min = {float(key), std::int64_t(i)};
          if (want_max.index < 0 || double(key) > want_max.value) want_max = {double(key), std::int64_t(i)};
        }
        for (const std::uint64_t blocks : {0ull, 300ull}) {
          const Options opt{.nan = nan};
          const detail::testing::ForceLaunch forced(
              {.kernel = blocks ? Kernel::grid : Kernel::automatic, .blocks = blocks});
          SCOPED_TRACE(std::string(nan == NanPolicy::propagate ? "propagate" : "ignore") + ", blocks " +
                       std::to_string(blocks));
          const auto got_min = run_to_host<IndexedValue<float>>([&](IndexedValue<float>* o) {
            transform_reduce(d.get(), n, o, FieldSumOrNan<float>{mark}, ArgMin{}, nullptr, opt);
          });
          const auto got_max = run_to_host<IndexedValue<double>>([&](IndexedValue<double>* o) {
            transform_reduce(d.get(), n, o, FieldSumOrNan<double>{mark}, ArgMax{}, nullptr, opt);
          });
          EXPECT_EQ(got_min.index, want_min.index);
          EXPECT_EQ(got_max.index, want_max.index);
          if (std::isnan(want_min.value)) {
            EXPECT_TRUE(std::isnan(got_min.value) && std::isnan(got_max.value));
          } else {
            EXPECT_EQ(got_min.value, want_min.value);
            EXPECT_EQ(got_max.value, want_max.value);
          }
        }
      }
    }
  };
  static_assert(ArraySource<Fields<std::int8_t, 9>>::one_part_threads == 256 &&
                ArraySource<Fields<std::int16_t, 13>>::stage_parts<8> == 2 &&
                ArraySource<Fields<std::int8_t, 17>>::one_part_threads == 128 &&
                ArraySource<Fields<std::int8_t, 43>>::one_part_threads == 64);
  check(Fields<std::int8_t, 9>{}, 3, 0);
  check(Fields<std::int16_t, 7>{}, 2, 0);
  check(Fields<std::int16_t, 13>{}, 2, 0);
  check(Fields<std::int8_t, 17>{}, 3, 0);
  check(Fields<std::int8_t, 43>{}, 3, 0);
  check(Fields<std::int8_t, 5>{}, 1, 3001);
  check(Fields<std::int8_t, 5>{}, 1, 256);
  check(Fields<std::int8_t, 5>{}, 1, 300);
  check(Fields<std::int8_t, 5>{}, 0, 2048);
  check(Fields<std::int16_t, 5>{}, 2, 1000);
  check(Fields<std::int8_t, 9>{}, 3, 1000);
  check(Fields<std::int8_t, 9>{}, 3, 1500);
  check(Fields<std::int8_t, 9>{}, 3, 256);
  check(Fields<std::int16_t, 13>{}, 2, 100);
  check(Fields<std::int8_t, 15>{}, 1, 200);
  check(Fields<std::int8_t, 9>{}, 3, 257);
  check(Fields<std::int8_t, 11>{}, 5, 300);
  check(Fields<std::int16_t, 15>{}, 0, 512);
}

// Records read one per load that take many loads stay on 257 blocks up to 4096 batches (dispatch/
// tuning_sm90.hpp, in_loads): 20-byte records just below and just above that, each block
// reading 16 batches, then one wave; exact under the library's plan. Outside the sanitizers'
// filter, as below (84 MB).
TEST(test_record_waves, records_on_few_blocks_up_to_4096_batches_sum_exactly) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  using R = Fields<std::int32_t, 5>;
  constexpr std::uint64_t limit = 4096 * 1024;  // batches x records per batch
  static_assert(detail::reduce_tuning<std::int64_t, RecordSource<R, FieldSum>, Sum>().few_blocks_max_batches == 4096);
  for (const std::uint64_t n : {limit - 5, limit + 3}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    std::int64_t want = 0;
    const std::vector<R> h = random_fields<R>(n, seed + n, &want);
    const DeviceInput<R> d(h, 1);
    EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(d.get(), n, o, FieldSum{}, Sum{}); }),
              want);
  }
}

// Records read one per load take grids of several waves (dispatch/tuning_sm90.hpp, records and
// in_loads): `times` x the L2 size + 4097 records from
// `offset_bytes`, summed by field under the library's plan with either L2 policy, exact.
template <class R>
void check_waves(unsigned times, unsigned offset_bytes, std::uint64_t seed) {
  int device = 0, l2 = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
  const std::uint64_t n = times * std::uint64_t(l2) / sizeof(R) + 4097;
  SCOPED_TRACE(std::to_string(n) + " records of " + std::to_string(sizeof(R)) + " bytes from byte " +
               std::to_string(offset_bytes));
  std::size_t free_bytes = 0, total = 0;
  GPUREDUCE_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n * sizeof(R) + (1u << 28)) GTEST_SKIP() << "needs " << n * sizeof(R) << " bytes of device memory";
  std::int64_t want = 0;
  const std::vector<R> h = random_fields<R>(n, seed, &want);
  const DeviceInput<R> d(h, 0, offset_bytes);
  for (const L2Policy l2_policy : {L2Policy::automatic, L2Policy::evict_first}) {
    SCOPED_TRACE("l2 policy " + std::to_string(int(l2_policy)));
    Options opt;
    opt.l2 = l2_policy;
    EXPECT_EQ(run_to_host<std::int64_t>(
                  [&](std::int64_t* o) { transform_reduce(d.get(), n, o, FieldSum{}, Sum{}, nullptr, opt); }),
              want);
  }
}

// 20-byte records (several waves from 4x L2) at 4x and 16x, 7-byte records (in staged vectors of
// 112 bytes there) from byte 1 at 4x, pairs of int32 from 4 bytes past an 8-byte boundary (several
// waves from 16x) at 16x. Its own suite, out of tools/sanitize.sh's filter: a gigabyte is slow
// under the sanitizers.
TEST(test_record_waves, records_on_several_waves_sum_exactly) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  static_assert(detail::reduce_tuning<std::int64_t, RecordSource<Fields<std::int32_t, 5>, FieldSum>, Sum>()
                    .waves_min_l2 == 4);
  static_assert(detail::reduce_tuning<std::int64_t, RecordSource<Fields<std::int32_t, 2>, FieldSum>, Sum>()
                    .waves_min_l2 == 16);
  check_waves<Fields<std::int32_t, 5>>(4, 20, seed);
  check_waves<Fields<std::int32_t, 5>>(16, 20, seed + 1);
  check_waves<Fields<std::int8_t, 7>>(4, 1, seed + 3);
  check_waves<Fields<std::int32_t, 2>>(16, 4, seed + 2);
}

// The built-in sum, product and dot of complex numbers, in their own type (as NumPy and PyTorch;
// dot unconjugated, as numpy.dot and torch.dot). Sums of random parts within the bound per
// component, a NaN in one imaginary part propagated or skipped; products and dots of the units
// 1, i, -1, -i, exact in any order.
template <class C>
void check_complex_builtins(std::uint64_t n, std::uint64_t seed) {
  using R = typename C::value_type;
  const auto re = random_input<R>(n, seed), im = random_input<R>(n, seed + 1);
  std::mt19937_64 rng(seed + 2);
  const C units[4] = {C(1, 0), C(0, 1), C(-1, 0), C(0, -1)};
  std::vector<C> h(n), a(n), b(n);
  reference::FloatSum sre, sim;
  unsigned turns = 0;  // the product is i^turns
  std::int64_t dot_re = 0, dot_im = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    h[i] = C(re[i], im[i]);
    sre.sum += re[i], sre.abs_sum += std::fabs((long double)re[i]);
    sim.sum += im[i], sim.abs_sum += std::fabs((long double)im[i]);
    const unsigned ka = unsigned(rng() % 4), kb = unsigned(rng() % 4);
    a[i] = units[ka], b[i] = units[kb];
    turns += ka;
    const C p = units[(ka + kb) % 4];
    dot_re += std::int64_t(p.real()), dot_im += std::int64_t(p.imag());
  }
  const C want_product = units[turns % 4];
  const DeviceInput<C> d(h, 1), da(a, 0), db(b, 1);
  each_kernel([&](const Options& opt, const std::string& how) {
    SCOPED_TRACE(how);
    const C got = run_to_host<C>([&](C* o) { sum(d.get(), n, o, nullptr, opt); });
    expect_float_sum(got.real(), sre, n, "real");
    expect_float_sum(got.imag(), sim, n, "imag");
    EXPECT_EQ(run_to_host<C>([&](C* o) { product(da.get(), n, o, nullptr, opt); }), want_product);
    EXPECT_EQ(run_to_host<C>([&](C* o) { dot(da.get(), db.get(), n, o, nullptr, opt); }),
              C(R(dot_re), R(dot_im)));
  });
  const auto count = [&](const C& u) { return std::int64_t(std::count(a.begin(), a.end(), u)); };
  EXPECT_EQ(sum_sync(da.get(), n), C(R(count(units[0]) - count(units[2])), R(count(units[1]) - count(units[3]))));
  if (n == 0) return;
  // One NaN imaginary part: propagated, or skipped with the rest summed.
  const std::uint64_t at = rng() % n;
  std::vector<C> with_nan = h;
  with_nan[at] = C(re[at], std::numeric_limits<R>::quiet_NaN());
  const DeviceInput<C> dn(with_nan, 0);
  reference::FloatSum rest_re = sre, rest_im = sim;
  rest_re.sum -= re[at], rest_re.abs_sum -= std::fabs((long double)re[at]);
  rest_im.sum -= im[at], rest_im.abs_sum -= std::fabs((long double)im[at]);
  each_kernel([&](const Options& opt, const std::string& how) {
    SCOPED_TRACE(how + " NaN at " + std::to_string(at));
    EXPECT_TRUE(is_nan(run_to_host<C>([&](C* o) { sum(dn.get(), n, o, nullptr, opt); })));
    Options skip = opt;
    skip.nan = NanPolicy::ignore;
    const C got = run_to_host<C>([&](C* o) { sum(dn.get(), n, o, nullptr, skip); });
    expect_float_sum(got.real(), rest_re, n, "real, NaN skipped");
    expect_float_sum(got.imag(), rest_im, n, "imag, NaN skipped");
  });
}

TEST(test_records, complex_sums_products_and_dots) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {0ull, 1ull, 33ull, 3001ull, 65537ull, 300001ull, (1ull << 21) + 3}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    check_complex_builtins<complex64>(n, seed + n);
    check_complex_builtins<complex128>(n, seed + n + 7);
    check_complex_builtins<thrust::complex<float>>(n, seed + n + 11);  // recognised by its shape too
  }
}

// Argmax of an empty input is still an error when the elements are records.
TEST(test_records, argmax_of_no_records_is_an_error) {
  GPUREDUCE_REQUIRE_GPU();
  const DeviceInput<float3> d({}, 0, 0);
  IndexedValue<float>* out = nullptr;
  ASSERT_EQ(cudaMalloc(&out, sizeof *out), cudaSuccess);
  EXPECT_EQ(try_transform_reduce(d.get(), 0, out, Norm2{}, ArgMax{}).code, Errc::empty_input);
  cudaFree(out);
}

// Records at seeded random counts (fuzz_count: around the library's boundaries and log-uniform,
// up to a quarter of the fuzz budget's bytes): field sums and argmax of records that take each of
// the record paths (vectors of 80 bytes, staged vectors, one record per thread or per load, several
// waves forced), each from a random multiple of its alignment past a 16-byte boundary, and every
// record of records_with_functors_and_transforms.
TEST(test_records, fuzz_counts_and_offsets) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const FuzzBudget budget;
  std::mt19937_64 rng(seed ^ 0x5eedf00dull);
  const auto field_sums = [&]<class R>(R) {
    for (int round = 0; round < budget.rounds && !::testing::Test::HasFailure(); ++round) {
      const std::uint64_t n = fuzz_count<R>(rng, budget.max_bytes / 4);
      const unsigned offset = unsigned(alignof(R) * (rng() % (16 / std::min<std::size_t>(alignof(R), 16))));
      SCOPED_TRACE("round " + std::to_string(round) + ": n=" + std::to_string(n));
      check_field_sums<R>(n, rng(), offset);
    }
  };
  field_sums(Fields<std::int8_t, 5>{});
  field_sums(Fields<std::int8_t, 9>{});
  field_sums(Fields<std::int8_t, 13>{});
  field_sums(Fields<std::int8_t, 17>{});
  field_sums(Fields<std::int8_t, 43>{});
  field_sums(Fields<std::int16_t, 5>{});
  field_sums(Fields<std::int16_t, 11>{});
  field_sums(Fields<std::int16_t, 23>{});
  field_sums(Fields<std::int16_t, 47>{});
  field_sums(Fields<std::int32_t, 9>{});
  field_sums(Fields<std::int32_t, 20, 16>{});
  field_sums(Fields<std::int64_t, 5>{});
  for (int round = 0; round < budget.rounds / 2 && !::testing::Test::HasFailure(); ++round) {
    const std::uint64_t n = fuzz_count<Ints16>(rng, budget.max_bytes / 4);
    SCOPED_TRACE("records of every kind, round " + std::to_string(round) + ": n=" + std::to_string(n));
    check_records(n, rng());
  }
}

}  // namespace
}  // namespace gpureduce::test
