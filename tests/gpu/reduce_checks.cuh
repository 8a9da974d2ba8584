// Shared by the production GPU tests: device buffers at a chosen misalignment, seeded inputs, and
// one check per operator against the sequential host references in tests/common.
#pragma once

#include <gpureduce/gpureduce.cuh>

#include "../../src/common/host_reference.hpp"
#include "../../src/common/random_data.hpp"
#include "../common/reference_ops.hpp"
#include "../common/test_seed.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <tuple>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;

inline bool gpu_available(std::string& why) {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) why = cudaGetErrorString(e);
  else if (count == 0) why = "no CUDA device";
  return e == cudaSuccess && count > 0;
}

#define GPUREDUCE_REQUIRE_GPU()                                   \
  do {                                                            \
    std::string why_;                                             \
    if (!::gpureduce::test::gpu_available(why_)) GTEST_SKIP() << why_; \
  } while (0)

#define GPUREDUCE_CHECK_CUDA(call) ASSERT_EQ((call), cudaSuccess) << #call

// Mixed-sign values: integers over the whole type, floats in [-1, 1); half and bfloat16 are the
// float values rounded.
template <class T>
std::vector<T> random_input(std::uint64_t n, std::uint64_t seed) {
  if constexpr (std::is_arithmetic_v<T>) {
    return random_values<T>(n, seed);
  } else {
    const std::vector<float> f = random_values<float>(n, seed);
    std::vector<T> v(n);
    std::transform(f.begin(), f.end(), v.begin(), [](float x) { return convert<T>(x); });
    return v;
  }
}

// Factors for products of any length: odd integers over the whole type (a product of odd numbers
// never collapses to 0 modulo 2^64); for floats, random values in (1 - 1/16, 1] while the product
// so far exceeds 1 and in [1, 1 + 1/16) otherwise. The whole product stays within 1/16 of 1, and
// the partial products the kernels form (strided subsets of up to 2^14 factors at n = 2^24) within
// about 2^+-20, far from overflow and underflow, while every multiplication rounds.
template <class T>
std::vector<T> product_input(std::uint64_t n, std::uint64_t seed) {
  std::vector<T> v(n);
  std::mt19937_64 rng(seed);
  if constexpr (std::is_integral_v<T>) {
    for (auto& x : v) x = static_cast<T>(rng() | 1u);
  } else {
    std::uniform_real_distribution<double> step(0, 1.0 / 16);
    long double product = 1;
    for (auto& x : v) {
      x = convert<T>(product > 1 ? 1 - step(rng) : 1 + step(rng));
      product *= reference::to_ld(x);
    }
  }
  return v;
}

// Sizes in bytes where the library changes course (dispatch/tuning_sm90.hpp, launch_plan.hpp): a
// grid batch (256 threads x 64 bytes) and a one-block batch (512 x 64), the one-block limits (16,
// 56 and 64 KB; 32 KB for 1-byte elements), the combiner block's last grid (128 batches), the last
// block polling one slot per thread (256), the few-blocks grids (2048 batches, 32 MB).
inline constexpr std::uint64_t fuzz_boundaries[] = {16u << 10, 32u << 10, 56u << 10, 64u << 10,
                                                   (128u << 14), (129u << 14), (256u << 14), (257u << 14),
                                                   (2048ull << 14), (2049ull << 14)};

// Cases per type and their largest input: GPUREDUCE_FUZZ_ROUNDS (default 6) and
// GPUREDUCE_FUZZ_MAX_BYTES (default 16 MB) widen them for a long run
// (tools/device-run COMMIT fuzz).
struct FuzzBudget {
  int rounds = 6;
  std::uint64_t max_bytes = std::uint64_t(16) << 20;
  FuzzBudget() {
    if (const char* r = std::getenv("GPUREDUCE_FUZZ_ROUNDS")) rounds = std::atoi(r);
    if (const char* b = std::getenv("GPUREDUCE_FUZZ_MAX_BYTES")) max_bytes = std::strtoull(b, nullptr, 0);
  }
};

// One fuzz case's count: a boundary or a multiple of the grid's batch, a few elements either way
// (2 in 5); log-uniform (2 in 5); or at most 300 elements. At most about max_bytes.
template <class T>
std::uint64_t fuzz_count(std::mt19937_64& rng, std::uint64_t max_bytes) {
  const std::uint64_t kind = rng() % 5;
  std::uint64_t bytes;
  if (kind < 2) {
    bytes = rng() % 2 ? fuzz_boundaries[rng() % std::size(fuzz_boundaries)] : (1 + rng() % 4096) << 14;
    bytes = std::min(bytes, max_bytes);
    const std::int64_t n = std::int64_t(bytes / sizeof(T)) + std::int64_t(rng() % 7) - 3;
    return std::uint64_t(std::max<std::int64_t>(n, 0));
  }
  if (kind < 4) {
    const double e = std::uniform_real_distribution<double>(0, std::log2(double(max_bytes)))(rng);
    return std::uint64_t(std::exp2(e)) / sizeof(T);
  }
  return rng() % 301;
}

// Device copy of host data starting `offset` elements and `offset_bytes` bytes past a 256-byte
// aligned allocation (bytes: records that start inside a word).
template <class T>
class DeviceInput {
 public:
  DeviceInput(const std::vector<T>& h, unsigned offset, unsigned offset_bytes = 0) {
    EXPECT_EQ(cudaMalloc(&base_, (h.size() + offset + 1) * sizeof(T) + offset_bytes), cudaSuccess);
    ptr_ = reinterpret_cast<T*>(static_cast<unsigned char*>(base_) + offset * sizeof(T) + offset_bytes);
    if (!h.empty()) EXPECT_EQ(cudaMemcpy(ptr_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    // A copy from pageable memory may return before its DMA lands, and streams created
    // non-blocking do not wait for it: the input is whole before any stream reads it.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceInput() { cudaFree(base_); }
  DeviceInput(const DeviceInput&) = delete;
  DeviceInput& operator=(const DeviceInput&) = delete;
  const T* get() const { return ptr_; }

 private:
  void* base_ = nullptr;
  T* ptr_ = nullptr;
};

// f(opt, how) under the automatic choice and with each kernel forced (detail::testing::ForceLaunch
// around the call): one block, grids of 3 blocks under both L2 policies (with and without the
// combiner block) and of 300 blocks.
template <class F>
void each_kernel(F&& f) {
  f(Options{}, std::string("automatic"));
  for (const auto [kernel, l2, blocks] : {std::tuple{Kernel::one_block, L2Policy::automatic, 0ull},
                                          std::tuple{Kernel::grid, L2Policy::normal, 3ull},
                                          std::tuple{Kernel::grid, L2Policy::evict_first, 3ull},
                                          std::tuple{Kernel::grid, L2Policy::evict_first, 300ull}}) {
    Options opt;
    opt.l2 = l2;
    const detail::testing::ForceLaunch forced({.kernel = kernel, .blocks = blocks});
    f(opt, "kernel " + std::to_string(int(kernel)) + " l2 " + std::to_string(int(l2)) + " blocks " +
               std::to_string(blocks));
  }
}

// The library's workspace pool of the current device's context (its slot counts, for tests).
inline detail::WorkspacePool& current_pool() {
  detail::WorkspacePool* pool = nullptr;
  throw_if_error(detail::WorkspacePool::current(&pool));
  return *pool;
}

// Runs `call(out)` on a poisoned device result and returns the result.
template <class R, class Call>
R run_to_host(Call&& call) {
  R* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, sizeof(R)), cudaSuccess);
  EXPECT_EQ(cudaMemset(d, 0xA5, sizeof(R)), cudaSuccess);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // the poison lands first on any stream the call uses
  call(d);
  EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  R r;
  EXPECT_EQ(cudaMemcpy(&r, d, sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return r;
}

template <class T>
long double ld(T x) {
  return reference::to_ld(x);
}

// Same value, NaN equal to NaN (the library's results are compared exactly).
inline bool same_value(long double a, long double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Float sums: within gamma_h * sum|x| (host_reference.hpp); h bounded with the fewest threads any
// launch uses (256).
template <class A>
void expect_float_sum(A got, const reference::FloatSum& ref, std::uint64_t n, const char* what) {
  if (ref.has_nan || std::isnan(ref.sum)) {  // a NaN, or +inf and -inf together
    EXPECT_TRUE(std::isnan(ld(got))) << what;
    return;
  }
  if (std::isinf(ref.sum)) {
    EXPECT_EQ(ld(got), ref.sum) << what;
    return;
  }
  const FloatCheck c = check_float_sum(got, ref.sum, ref.abs_sum, n, summation_depth_bound(n, 256));
  EXPECT_TRUE(c.ok) << what << ": got " << double(ld(got)) << " reference " << double(ref.sum) << " error "
                    << double(c.error) << " bound " << double(c.bound);
}

// sum a[k] * b[k] over k < m, the products exact in long double (and the sum of their
// magnitudes), or wrapped in 64 bits as the library's integer accumulators wrap.
template <class T>
long double product_sum(const T* a, const T* b, std::uint64_t m, long double* abs_sum) {
  long double s = 0;
  *abs_sum = 0;
  for (std::uint64_t k = 0; k < m; ++k) {
    const long double p = ld(a[k]) * ld(b[k]);
    s += p, *abs_sum += std::fabs(p);
  }
  return s;
}
template <class T>
std::uint64_t wrapped_product_sum(const T* a, const T* b, std::uint64_t m) {
  std::uint64_t s = 0;
  for (std::uint64_t k = 0; k < m; ++k) s += std::uint64_t(std::int64_t(a[k])) * std::uint64_t(std::int64_t(b[k]));
  return s;
}

// Every built-in operator on one input (already on the device at d), against the host references.
template <class T>
void check_all_ops(const std::vector<T>& h, const T* d, const Options& opt = {}) {
  const std::uint64_t n = h.size();
  const bool ignore = opt.nan == NanPolicy::ignore;
  using SumA = accumulator_t<T, Sum>;
  const auto s = run_to_host<SumA>([&](SumA* o) { sum(d, n, o, nullptr, opt); });
  if constexpr (std::is_integral_v<T>) {
    EXPECT_EQ(static_cast<std::uint64_t>(s), reference::int_sum(h.data(), n)) << "sum";
    EXPECT_EQ(static_cast<std::uint64_t>(run_to_host<SumA>([&](SumA* o) { dot(d, d, n, o, nullptr, opt); })),
              [&] {
                std::uint64_t r = 0;
                for (T x : h)
                  r += static_cast<std::uint64_t>(std::int64_t(x)) * static_cast<std::uint64_t>(std::int64_t(x));
                return r;
              }())
        << "dot";
    EXPECT_EQ(run_to_host<T>([&](T* o) { bit_and(d, n, o, nullptr, opt); }),
              [&] { T r = T(~T(0)); for (T x : h) r &= x; return r; }()) << "bit_and";
    EXPECT_EQ(run_to_host<T>([&](T* o) { bit_or(d, n, o, nullptr, opt); }),
              [&] { T r = 0; for (T x : h) r |= x; return r; }()) << "bit_or";
    EXPECT_EQ(run_to_host<T>([&](T* o) { bit_xor(d, n, o, nullptr, opt); }),
              [&] { T r = 0; for (T x : h) r ^= x; return r; }()) << "bit_xor";
  } else {
    expect_float_sum(s, reference::float_sum(h.data(), n, ignore), n, "sum");
    reference::FloatSum sq;
    for (T x : h) {
      const long double v = ld(x) * ld(x);
      if (std::isnan(v)) sq.has_nan = true;
      sq.sum += v, sq.abs_sum += std::fabs(v);
    }
    if (!ignore) expect_float_sum(run_to_host<SumA>([&](SumA* o) { dot(d, d, n, o, nullptr, opt); }), sq, n, "dot");
  }
  // min / max / minmax: exact.
  {
    long double mn = std::numeric_limits<long double>::infinity(), mx = -mn;
    bool any_nan = false, all_nan = true;
    for (T x : h) {
      const long double v = ld(x);
      if (std::isnan(v)) { any_nan = true; continue; }
      all_nan = false;
      mn = std::min(mn, v), mx = std::max(mx, v);
    }
    if constexpr (std::is_integral_v<T>) mn = n ? mn : ld(highest<T>()), mx = n ? mx : ld(lowest<T>());
    if (any_nan && !ignore) mn = mx = NAN;
    if (is_floating_v<T> && ignore && all_nan) mn = mx = NAN;  // only NaN, or nothing
    const T gmin = run_to_host<T>([&](T* o) { min(d, n, o, nullptr, opt); });
    const T gmax = run_to_host<T>([&](T* o) { max(d, n, o, nullptr, opt); });
    const auto gmm = run_to_host<MinMax<T>>([&](MinMax<T>* o) { minmax(d, n, o, nullptr, opt); });
    EXPECT_TRUE(same_value(ld(gmin), mn)) << "min " << double(ld(gmin)) << " vs " << double(mn);
    EXPECT_TRUE(same_value(ld(gmax), mx)) << "max " << double(ld(gmax)) << " vs " << double(mx);
    EXPECT_TRUE(same_value(ld(gmm.min), mn) && same_value(ld(gmm.max), mx)) << "minmax";
  }
  if (n > 0) {
    const auto rmin = reference::arg_extreme<true>(h.data(), n, ignore);
    const auto rmax = reference::arg_extreme<false>(h.data(), n, ignore);
    const auto gmin = run_to_host<IndexedValue<T>>([&](IndexedValue<T>* o) { argmin(d, n, o, nullptr, opt); });
    const auto gmax = run_to_host<IndexedValue<T>>([&](IndexedValue<T>* o) { argmax(d, n, o, nullptr, opt); });
    EXPECT_EQ(gmin.index, rmin.index) << "argmin";
    EXPECT_TRUE(same_value(ld(gmin.value), rmin.value)) << "argmin value";
    EXPECT_EQ(gmax.index, rmax.index) << "argmax";
    EXPECT_TRUE(same_value(ld(gmax.value), rmax.value)) << "argmax value";
    // The value is the element's own bits (which zero, which NaN).
    EXPECT_EQ(std::memcmp(&gmin.value, &h[std::size_t(gmin.index)], sizeof(T)), 0) << "argmin value bits";
    EXPECT_EQ(std::memcmp(&gmax.value, &h[std::size_t(gmax.index)], sizeof(T)), 0) << "argmax value bits";
  } else {
    IndexedValue<T>* o = nullptr;
    EXPECT_EQ(try_reduce(d, 0, o, ArgMax{}).code, Errc::empty_input);
  }
  bool all_ref = true, any_ref = false;
  for (T x : h) all_ref = all_ref && ld(x) != 0, any_ref = any_ref || ld(x) != 0;
  EXPECT_EQ(run_to_host<bool>([&](bool* o) { all(d, n, o, nullptr, opt); }), all_ref) << "all";
  EXPECT_EQ(run_to_host<bool>([&](bool* o) { any(d, n, o, nullptr, opt); }), any_ref) << "any";
}

// Product of product_input factors: integers exact modulo 2^64; floats within
// product_relative_error_bound * |p| of the long double product p (every multiplication counts,
// not the tree's height), plus p's own rounding.
template <class T>
void check_product(const std::vector<T>& h, const T* d) {
  using A = accumulator_t<T, Product>;
  const std::uint64_t n = h.size();
  const A got = run_to_host<A>([&](A* o) { product(d, n, o); });
  if constexpr (std::is_integral_v<T>) {
    EXPECT_EQ(static_cast<std::uint64_t>(got), reference::int_product(h.data(), n));
  } else {
    long double p = 1;
    for (T x : h) p *= ld(x);
    const long double u = std::numeric_limits<A>::epsilon() / 2.0L;
    const long double bound =
        (product_relative_error_bound(n, u) + n * std::numeric_limits<long double>::epsilon()) * std::fabs(p);
    EXPECT_LE(std::fabs(ld(got) - p), bound) << "product of " << n << ": got " << double(ld(got)) << " reference "
                                             << double(p);
  }
}

// Sums of an int32 input large enough for the grid kernel, so each takes a workspace slot of its
// stream, into `outs` poisoned results, checked against the host.
class GridSums {
 public:
  static constexpr std::uint64_t n = (1u << 18) + 3;
  GridSums(std::uint64_t seed, std::size_t outs)
      : h_(random_input<std::int32_t>(n, seed)), d_(h_, 0), want_(reference::int_sum(h_.data(), n)) {
    EXPECT_EQ(cudaMalloc(&out_, outs * sizeof(std::int64_t)), cudaSuccess);
  }
  ~GridSums() { cudaFree(out_); }
  GridSums(const GridSums&) = delete;
  GridSums& operator=(const GridSums&) = delete;
  void run(cudaStream_t s, std::size_t i) {
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out_ + i, 0xA5, sizeof(std::int64_t), s));
    sum(d_.get(), n, out_ + i, s);
  }
  void check(std::size_t i) const {
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out_ + i, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got), want_) << "result " << i;
  }

 private:
  std::vector<std::int32_t> h_;
  DeviceInput<std::int32_t> d_;
  std::uint64_t want_;
  std::int64_t* out_ = nullptr;
};

}  // namespace gpureduce::test
