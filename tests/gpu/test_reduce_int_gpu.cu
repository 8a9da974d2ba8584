#include "reduce_typed_tests.cuh"

namespace gpureduce::test {
using namespace gpureduce::detail;
using IntTypes = ::testing::Types<std::int8_t, std::uint8_t, std::int16_t, std::uint16_t, std::int32_t, std::uint32_t,
                                  std::int64_t, std::uint64_t>;
INSTANTIATE_TYPED_TEST_SUITE_P(ints, test_reduce_types, IntTypes);

namespace {

// Sums of 8- and 16-bit integers add each 16-byte vector in 32 bits first (thread/packed_sum.hpp):
// inputs at the type's extremes, and accumulators the caller chose (a narrower one wraps in its
// own width, as element-by-element addition would).
template <class T>
void check_small_integer_sums(std::uint64_t seed) {
  for (const std::uint64_t n : {33ull, 4097ull, 300007ull, (1ull << 20) + 3}) {
    for (const T fill : {std::numeric_limits<T>::lowest(), std::numeric_limits<T>::max()}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " fill=" + std::to_string(+fill));
      const std::vector<T> h(n, fill);
      const DeviceInput<T> d(h, 3);
      const std::int64_t exact = std::int64_t(n) * fill;
      EXPECT_EQ(std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { sum(d.get(), n, o); })), exact);
      EXPECT_EQ(run_to_host<std::int32_t>([&](std::int32_t* o) { sum<std::int32_t>(d.get(), n, o); }),
                static_cast<std::int32_t>(exact));
      EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { sum<std::int16_t>(d.get(), n, o); }),
                static_cast<std::int16_t>(exact));
      EXPECT_EQ(run_to_host<std::uint64_t>([&](std::uint64_t* o) { sum<std::uint64_t>(d.get(), n, o); }),
                static_cast<std::uint64_t>(exact));
    }
    const auto h = random_input<T>(n, seed + n);
    const DeviceInput<T> d(h, 1);
    const std::uint64_t exact = reference::int_sum(h.data(), n);
    EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { sum<std::int16_t>(d.get(), n, o); }),
              static_cast<std::int16_t>(exact))
        << "n=" << n;
  }
}

TEST(test_reduce_small_integers, packed_sums_at_extremes_and_other_accumulators) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  check_small_integer_sums<std::int8_t>(seed);
  check_small_integer_sums<std::uint8_t>(seed);
  check_small_integer_sums<std::int16_t>(seed);
  check_small_integer_sums<std::uint16_t>(seed);
}

// Dot products of 8-bit arrays form each vector's 16 products in 32 bits (packed_dot, dp4a): two
// different arrays, at the extremes and random, b misaligned against a or not, sizes through
// the one-block and grid kernels, and accumulators the caller chose.
template <class T>
void check_byte_dots(std::uint64_t seed) {
  constexpr T lo = std::numeric_limits<T>::lowest(), hi = std::numeric_limits<T>::max();
  for (const std::uint64_t n : {1ull, 31ull, 33ull, 4097ull, 40000ull, 300007ull, (1ull << 20) + 3}) {
    for (const unsigned b_offset : {0u, 5u}) {
      SCOPED_TRACE("n=" + std::to_string(n) + " b offset=" + std::to_string(b_offset));
      for (const auto [x, y] : {std::pair{lo, lo}, std::pair{hi, hi}, std::pair{lo, hi}}) {
        const DeviceInput<T> a(std::vector<T>(n, x), 0), b(std::vector<T>(n, y), b_offset);
        const std::int64_t exact = std::int64_t(n) * x * y;
        EXPECT_EQ(
            std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { dot(a.get(), b.get(), n, o); })),
            exact);
        EXPECT_EQ(run_to_host<std::int32_t>([&](std::int32_t* o) { dot<std::int32_t>(a.get(), b.get(), n, o); }),
                  static_cast<std::int32_t>(exact));
        EXPECT_EQ(run_to_host<std::int16_t>([&](std::int16_t* o) { dot<std::int16_t>(a.get(), b.get(), n, o); }),
                  static_cast<std::int16_t>(exact));
      }
      const auto ha = random_input<T>(n, seed + n), hb = random_input<T>(n, seed + 2 * n + 1);
      const DeviceInput<T> a(ha, 3), b(hb, 3 + b_offset);
      std::int64_t exact = 0;
      for (std::uint64_t i = 0; i < n; ++i) exact += std::int64_t(ha[i]) * hb[i];
      EXPECT_EQ(std::int64_t(run_to_host<result_t<T, Sum>>([&](result_t<T, Sum>* o) { dot(a.get(), b.get(), n, o); })),
                exact);
      EXPECT_EQ(run_to_host<std::uint64_t>([&](std::uint64_t* o) { dot<std::uint64_t>(a.get(), b.get(), n, o); }),
                static_cast<std::uint64_t>(exact));
      EXPECT_EQ(run_to_host<double>([&](double* o) { dot<double>(a.get(), b.get(), n, o); }), double(exact));
    }
  }
}

TEST(test_reduce_small_integers, byte_dot_products_exact) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  check_byte_dots<std::int8_t>(seed);
  check_byte_dots<std::uint8_t>(seed);
}

// Masks: bool elements (bytes of 0 or 1; the host keeps them as bytes, std::vector<bool> having no
// data()). Sums, products and dot products count in int64, as NumPy and PyTorch do; a bool
// accumulator had made a sum an `any`. all/any, min/max, argmin/argmax and the bitwise operators
// stay bool, their results read back as bytes so that a poisoned one shows. Empty, all-false,
// sparse, half and all-true masks at edge and random sizes, from byte offsets 0 to 15.
class DeviceMask {
 public:
  DeviceMask(const std::vector<std::uint8_t>& h, unsigned offset) {
    EXPECT_EQ(cudaMalloc(&base_, h.size() + 16), cudaSuccess);
    if (!h.empty()) EXPECT_EQ(cudaMemcpy(base_ + offset, h.data(), h.size(), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // landed before any stream reads it (DeviceInput)
    ptr_ = reinterpret_cast<const bool*>(base_ + offset);
  }
  ~DeviceMask() { cudaFree(base_); }
  DeviceMask(const DeviceMask&) = delete;
  DeviceMask& operator=(const DeviceMask&) = delete;
  const bool* get() const { return ptr_; }

 private:
  unsigned char* base_ = nullptr;
  const bool* ptr_ = nullptr;
};

TEST(test_reduce_bools, masks_count_in_int64_and_test_in_bool) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  std::mt19937_64 rng(seed);
  std::vector<std::uint64_t> sizes{0, 1, 2, 31, 33, 1023, 1025, 4097, 65537, (1u << 20) + 3, (1u << 24) + 1};
  for (int k = 0; k < 3; ++k) sizes.push_back(1 + rng() % (1u << 22));
  const auto byte = [](const auto& x) {  // a result's byte: 0, 1, or the poison
    unsigned char b;
    std::memcpy(&b, &x, 1);
    return int(b);
  };
  for (const std::uint64_t n : sizes) {
    for (const unsigned every : {0u, 8u, 2u, 1u}) {  // true never, 1 in 8, 1 in 2, always
      const unsigned offset = unsigned(rng() % 16);
      SCOPED_TRACE("n=" + std::to_string(n) + " true 1 in " + std::to_string(every) +
                   " offset=" + std::to_string(offset));
      std::vector<std::uint8_t> h(n), g(n);
      for (auto& x : h) x = every != 0 && rng() % every == 0;
      for (auto& x : g) x = rng() % 2;
      const DeviceMask d(h, offset), e(g, 15 - offset);
      std::int64_t count = 0, both = 0;
      for (std::uint64_t i = 0; i < n; ++i) {
        count += h[i];
        both += h[i] & g[i];
      }
      const bool all_true = count == std::int64_t(n), any_true = count > 0;
      EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { sum(d.get(), n, o); }), count) << "sum";
      EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { product(d.get(), n, o); }), all_true ? 1 : 0);
      EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { dot(d.get(), e.get(), n, o); }), both) << "dot";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { all(d.get(), n, o); })), all_true) << "all";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { any(d.get(), n, o); })), any_true) << "any";
      if (n == 0) continue;
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { max(d.get(), n, o); })), any_true) << "max";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { min(d.get(), n, o); })), all_true) << "min";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { bit_or(d.get(), n, o); })), any_true) << "bit_or";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { bit_and(d.get(), n, o); })), all_true) << "bit_and";
      EXPECT_EQ(byte(run_to_host<bool>([&](bool* o) { bit_xor(d.get(), n, o); })), int(count % 2)) << "bit_xor";
      const auto first = [&](std::uint8_t v) {  // every element ties where none is v: index 0
        const auto it = std::find(h.begin(), h.end(), v);
        return std::int64_t(it == h.end() ? 0 : it - h.begin());
      };
      const auto amax = run_to_host<IndexedValue<bool>>([&](IndexedValue<bool>* o) { argmax(d.get(), n, o); });
      EXPECT_EQ(amax.index, first(1)) << "argmax";
      EXPECT_EQ(byte(amax.value), any_true) << "argmax";
      const auto amin = run_to_host<IndexedValue<bool>>([&](IndexedValue<bool>* o) { argmin(d.get(), n, o); });
      EXPECT_EQ(amin.index, first(0)) << "argmin";
      EXPECT_EQ(byte(amin.value), int(all_true)) << "argmin";  // the least value: true only if all are
    }
  }
}

}  // namespace
}  // namespace gpureduce::test
