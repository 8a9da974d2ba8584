// Callers' functors, lambdas and transforms: the _sync calls, functors with state, __device__ and
// __host__ __device__ lambdas, transforms under every kind of operator and into struct
// accumulators, and caller workspaces.
#include "reduce_checks.cuh"

#include <cuda/functional>

#include <algorithm>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

struct AbsMax {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
struct Square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};

TEST(test_functors, sync_calls_functors_transforms_and_caller_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = 300001;
  const auto hi = random_input<std::int32_t>(n, seed);
  DeviceInput<std::int32_t> di(hi, 1);
  EXPECT_EQ(std::uint64_t(sum_sync(di.get(), n)), reference::int_sum(hi.data(), n));
  const auto am = reduce_sync(di.get(), n, ArgMin{});
  EXPECT_EQ(am.index, reference::arg_extreme<true>(hi.data(), n, false).index);

  // A user functor (identity given), and the int32 accumulator chosen over the default int64.
  const int mx = run_to_host<int>([&](int* o) { reduce(di.get(), n, o, AbsMax{}, std::numeric_limits<int>::min()); });
  EXPECT_EQ(mx, *std::max_element(hi.begin(), hi.end()));
  // The same at a one-block size, where a functor's partials are staged in shared memory.
  const std::uint64_t small = 3001;
  const int mx_small =
      run_to_host<int>([&](int* o) { reduce(di.get(), small, o, AbsMax{}, std::numeric_limits<int>::min()); });
  EXPECT_EQ(mx_small, *std::max_element(hi.begin(), hi.begin() + small));
  const auto s32 = run_to_host<std::int32_t>([&](std::int32_t* o) { sum<std::int32_t>(di.get(), n, o); });
  EXPECT_EQ(s32, wrapped<std::int32_t>(std::int64_t(reference::int_sum(hi.data(), n))));

  // transform_reduce: sum of squares in double.
  const auto hf = random_input<float>(n, seed + 1);
  DeviceInput<float> df(hf, 2);
  reference::FloatSum sq;
  for (float x : hf) sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
  expect_float_sum(run_to_host<double>([&](double* o) { transform_reduce(df.get(), n, o, Square{}, Sum{}); }), sq, n,
                   "sum of squares");

  // half input, float accumulator, result rounded once to half.
  const auto hh = random_input<__half>(n, seed + 2);
  DeviceInput<__half> dh(hh, 5);
  const float fs = sum_sync(dh.get(), n);
  const __half hs = run_to_host<__half>([&](__half* o) { sum(dh.get(), n, o); });
  EXPECT_EQ(__half2float(hs), __half2float(__float2half_rn(fs)));

  // A caller-provided workspace, zero-filled once and reused.
  void* ws = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&ws, workspace_bytes));
  GPUREDUCE_CHECK_CUDA(cudaMemset(ws, 0, workspace_bytes));
  Options opt;
  opt.workspace = ws;
  opt.workspace_size = workspace_bytes;
  for (int k = 0; k < 3; ++k) {
    const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(di.get(), n, o, nullptr, opt); });
    EXPECT_EQ(std::uint64_t(s), reference::int_sum(hi.data(), n));
  }
  cudaFree(ws);
}

// A functor with state and no default constructor: the sum modulo m (of values below 2^32, so the
// 64-bit sum of two never wraps).
struct SumModulo {
  std::uint64_t m;
  __host__ __device__ explicit SumModulo(std::uint64_t modulus) : m(modulus) {}
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return (a + b) % m; }
};

}  // namespace

// Lambdas as operators and transforms, as Thrust and CUB take them (nvcc --extended-lambda). nvcc
// wants an extended lambda's enclosing function named, public and of external linkage: not a TEST
// body, which is a private member.
struct LambdaResults {
  int max_device = 0, max_host_device = 0;
  std::int64_t scaled_sum = 0;
  double squares = 0, squares_proclaimed = 0;
};

LambdaResults reduce_with_lambdas(const int* di, const float* df, std::uint64_t n, int k) {
  const auto max_device = [] __device__(int a, int b) { return a > b ? a : b; };
  const auto max_host_device = [] __host__ __device__(int a, int b) { return a > b ? a : b; };
  const auto scaled = [k] __device__(int x) -> std::int64_t { return std::int64_t(x) * k; };
  const auto square = [] __device__(float x) -> double { return double(x) * x; };
  const auto square_proclaimed = cuda::proclaim_return_type<double>([] __device__(float x) { return double(x) * x; });
  constexpr int lowest = std::numeric_limits<int>::min();
  LambdaResults r;
  r.max_device = run_to_host<int>([&](int* o) { reduce(di, n, o, max_device, lowest); });
  r.max_host_device = run_to_host<int>([&](int* o) { reduce(di, n, o, max_host_device, lowest); });
  r.scaled_sum = run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(di, n, o, scaled, Sum{}); });
  r.squares = run_to_host<double>([&](double* o) { transform_reduce(df, n, o, square, Sum{}); });
  r.squares_proclaimed = run_to_host<double>([&](double* o) { transform_reduce(df, n, o, square_proclaimed, Sum{}); });
  return r;
}

namespace {

// One block (3001) and a grid (300001): each kernel gets the lambda or functor.
TEST(test_functors, device_lambdas_functors_with_state_and_the_null_stream) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {3001ull, 300001ull}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto hi = random_input<std::int32_t>(n, seed + n);
    const auto hf = random_input<float>(n, seed + n + 1);
    const auto hu = random_input<std::uint32_t>(n, seed + n + 2);
    DeviceInput<std::int32_t> di(hi, 0);
    DeviceInput<float> df(hf, 0);
    DeviceInput<std::uint32_t> du(hu, 0);
    const int k = -7;
    const LambdaResults r = reduce_with_lambdas(di.get(), df.get(), n, k);
    const int want_max = *std::max_element(hi.begin(), hi.end());
    EXPECT_EQ(r.max_device, want_max);
    EXPECT_EQ(r.max_host_device, want_max);
    EXPECT_EQ(r.scaled_sum, std::int64_t(reference::int_sum(hi.data(), n)) * k);
    reference::FloatSum sq;
    for (float x : hf) sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
    expect_float_sum(r.squares, sq, n, "sum of squares, __device__ lambda");
    expect_float_sum(r.squares_proclaimed, sq, n, "sum of squares, cuda::proclaim_return_type");

    constexpr std::uint64_t m = 1000003;
    std::uint64_t want_mod = 0;
    for (std::uint32_t x : hu) want_mod += x;
    const auto got_mod = run_to_host<std::uint64_t>(
        [&](std::uint64_t* o) { reduce(du.get(), n, o, SumModulo(m), std::uint64_t(0)); });
    EXPECT_EQ(got_mod, want_mod % m);
    EXPECT_EQ(reduce_sync(du.get(), n, SumModulo(m), std::uint64_t(0)), want_mod % m);

    // A 0 after a built-in operator is the null stream, not an identity: the max of negative
    // numbers is negative.
    std::vector<std::int32_t> negative(hi.size());
    std::transform(hi.begin(), hi.end(), negative.begin(), [](std::int32_t x) { return -1 - std::abs(x % 1000); });
    DeviceInput<std::int32_t> dn(negative, 0);
    const int want_negative = *std::max_element(negative.begin(), negative.end());
    EXPECT_EQ(run_to_host<int>([&](int* o) { reduce(dn.get(), n, o, Max{}, 0); }), want_negative);
    EXPECT_EQ(reduce_sync(dn.get(), n, Max{}, 0), want_negative);
  }
}

struct AbsFloat {
  __host__ __device__ float operator()(float x) const { return fabsf(x); }
};
struct Magnitude {  // int16 to int: |-32768| fits
  __host__ __device__ int operator()(std::int16_t x) const { return x < 0 ? -int(x) : int(x); }
};
struct Positive {
  __host__ __device__ bool operator()(std::int8_t x) const { return x > 0; }
};
struct Thousandths {
  __host__ __device__ int operator()(float x) const { return int(floorf(x * 1000.f)); }
};

// transform_reduce under the other operators, the transform changing the type: max and argmax of
// |x| (BLAS's amax and iamax, a NaN placed in one of two runs), argmin/argmax of |int16| as int,
// a count, any and all of int8 > 0 (bool, counted in int64), minmax of floats floored to int. One
// block to a grid of several hundred blocks, from an odd element offset.
TEST(test_functors, transforms_under_every_kind_of_operator) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {1ull, 33ull, 3001ull, 300001ull, (1ull << 22) + 5}) {
    for (const bool with_nan : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (with_nan ? " with a NaN" : ""));
      auto hf = random_input<float>(n, seed + n);
      if (with_nan) hf[(seed + n) % n] = -std::numeric_limits<float>::quiet_NaN();
      std::vector<float> abs_f(n);
      std::transform(hf.begin(), hf.end(), abs_f.begin(), AbsFloat{});
      DeviceInput<float> df(hf, 3);
      const auto want_amax = reference::arg_extreme<false>(abs_f.data(), n, false);
      const float amax = run_to_host<float>([&](float* o) { transform_reduce(df.get(), n, o, AbsFloat{}, Max{}); });
      const auto iamax = run_to_host<IndexedValue<float>>(
          [&](IndexedValue<float>* o) { transform_reduce(df.get(), n, o, AbsFloat{}, ArgMax{}); });
      EXPECT_EQ(iamax.index, want_amax.index);
      if (with_nan) {
        EXPECT_TRUE(std::isnan(amax));
        EXPECT_TRUE(std::isnan(iamax.value));
      } else {
        EXPECT_EQ(amax, float(want_amax.value));
        EXPECT_EQ(iamax.value, float(want_amax.value));
      }
      if (with_nan) continue;

      const auto h16 = random_input<std::int16_t>(n, seed + n + 1);
      std::vector<int> mag(n);
      std::transform(h16.begin(), h16.end(), mag.begin(), Magnitude{});
      DeviceInput<std::int16_t> d16(h16, 3);
      const auto lo = run_to_host<IndexedValue<int>>(
          [&](IndexedValue<int>* o) { transform_reduce(d16.get(), n, o, Magnitude{}, ArgMin{}); });
      const auto hi = run_to_host<IndexedValue<int>>(
          [&](IndexedValue<int>* o) { transform_reduce(d16.get(), n, o, Magnitude{}, ArgMax{}); });
      const auto want_lo = reference::arg_extreme<true>(mag.data(), n, false);
      const auto want_hi = reference::arg_extreme<false>(mag.data(), n, false);
      EXPECT_EQ(lo.index, want_lo.index);
      EXPECT_EQ(lo.value, int(want_lo.value));
      EXPECT_EQ(hi.index, want_hi.index);
      EXPECT_EQ(hi.value, int(want_hi.value));

      const auto h8 = random_input<std::int8_t>(n, seed + n + 2);
      DeviceInput<std::int8_t> d8(h8, 3);
      const auto positives = std::count_if(h8.begin(), h8.end(), [](std::int8_t x) { return x > 0; });
      EXPECT_EQ(
          run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(d8.get(), n, o, Positive{}, Sum{}); }),
          positives);
      const auto as_byte = [&](auto op) {
        return run_to_host<unsigned char>(
            [&](unsigned char* o) { transform_reduce(d8.get(), n, reinterpret_cast<bool*>(o), Positive{}, op); });
      };
      EXPECT_EQ(as_byte(Any{}), positives > 0 ? 1 : 0);
      EXPECT_EQ(as_byte(All{}), positives == std::int64_t(n) ? 1 : 0);

      std::vector<int> floored(n);
      std::transform(hf.begin(), hf.end(), floored.begin(), Thousandths{});
      const auto mm = run_to_host<MinMax<int>>(
          [&](MinMax<int>* o) { transform_reduce(df.get(), n, o, Thousandths{}, MinMaxOp{}); });
      EXPECT_EQ(mm.min, *std::min_element(floored.begin(), floored.end()));
      EXPECT_EQ(mm.max, *std::max_element(floored.begin(), floored.end()));
    }
  }
}

// A sum and a sum of squares in one pass (mean and variance, Thrust's summary statistics), and the
// range of int16 as an 8-byte pair: struct accumulators of 16 bytes (handed between blocks with a
// ticket) and of 8 (with a flag in the slot's second word), from transform_reduce with a functor
// and its identity.
struct Moments {
  double sum, squares;
};
struct ToMoments {
  __host__ __device__ Moments operator()(float x) const { return {x, double(x) * x}; }
};
struct AddMoments {
  __host__ __device__ Moments operator()(Moments a, Moments b) const { return {a.sum + b.sum, a.squares + b.squares}; }
};
struct Span {
  int lo, hi;
};
struct ToSpan {
  __host__ __device__ Span operator()(std::int16_t x) const { return {x, x}; }
};
struct Widen {
  __host__ __device__ Span operator()(Span a, Span b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};

TEST(test_functors, transform_reduce_with_a_functor_into_a_struct) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  constexpr Moments no_moments{0, 0};
  constexpr Span no_span{std::numeric_limits<int>::max(), std::numeric_limits<int>::min()};
  for (const std::uint64_t n : {0ull, 1ull, 33ull, 3001ull, 300001ull, (1ull << 22) + 5}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto hf = random_input<float>(n, seed + n);
    const auto h16 = random_input<std::int16_t>(n, seed + n + 1);
    DeviceInput<float> df(hf, 3);
    DeviceInput<std::int16_t> d16(h16, 5);
    reference::FloatSum s, sq;
    for (float x : hf) {
      s.sum += x, s.abs_sum += std::fabs((long double)x);
      sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
    }
    Span want_span = no_span;
    for (std::int16_t x : h16) want_span = Widen{}(want_span, ToSpan{}(x));
    const auto check = [&](const Moments& m, const Span& r, const std::string& how) {
      SCOPED_TRACE(how);
      expect_float_sum(m.sum, s, n, "sum");
      expect_float_sum(m.squares, sq, n, "sum of squares");
      EXPECT_EQ(r.lo, want_span.lo);
      EXPECT_EQ(r.hi, want_span.hi);
    };
    check(run_to_host<Moments>(
              [&](Moments* o) { transform_reduce(df.get(), n, o, ToMoments{}, AddMoments{}, no_moments); }),
          run_to_host<Span>([&](Span* o) { transform_reduce(d16.get(), n, o, ToSpan{}, Widen{}, no_span); }),
          "automatic");
    check(transform_reduce_sync(df.get(), n, ToMoments{}, AddMoments{}, no_moments),
          transform_reduce_sync(d16.get(), n, ToSpan{}, Widen{}, no_span), "_sync");
    // Every kernel: one block, grids of 3 (the combiner block under evict-first) and 300 blocks.
    each_kernel([&](const Options& opt, const std::string& how) {
      check(run_to_host<Moments>([&](Moments* o) {
              transform_reduce(df.get(), n, o, ToMoments{}, AddMoments{}, no_moments, nullptr, opt);
            }),
            run_to_host<Span>(
                [&](Span* o) { transform_reduce(d16.get(), n, o, ToSpan{}, Widen{}, no_span, nullptr, opt); }),
            how);
    });

    // The other _sync calls: a transform under a built-in operator, and a dot product.
    if (n == 0) continue;
    EXPECT_EQ(transform_reduce_sync(df.get(), n, AbsFloat{}, Max{}),
              std::fabs(*std::max_element(hf.begin(), hf.end(),
                                          [](float a, float b) { return std::fabs(a) < std::fabs(b); })));
    std::int64_t want_dot = 0;
    for (std::int16_t x : h16) want_dot += std::int64_t(x) * x;
    EXPECT_EQ(dot_sync(d16.get(), d16.get(), n), want_dot);
  }
}

}  // namespace
}  // namespace gpureduce::test
