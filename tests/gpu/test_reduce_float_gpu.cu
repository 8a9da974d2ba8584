#include "reduce_typed_tests.cuh"

namespace gpureduce::test {
using namespace gpureduce::detail;
using FloatTypes = ::testing::Types<float, double, __half, __nv_bfloat16>;
INSTANTIATE_TYPED_TEST_SUITE_P(floats, test_reduce_types, FloatTypes);

template <class T>
class test_reduce_nan_inf : public ::testing::Test {};
TYPED_TEST_SUITE(test_reduce_nan_inf, FloatTypes);

// NaN of either sign, quiet and signalling, with and without payload: argmin/argmax return the
// winner's own bits (check_all_ops compares them).
template <class T>
std::vector<T> nan_patterns() {
  std::vector<T> v;
  const auto add = [&](auto bits) { v.push_back(bits_as<T>(bits)); };
  if constexpr (std::is_same_v<T, __half>)
    for (std::uint16_t b : {0xfe02, 0x7c01, 0xfd55, 0x7e00, 0xffff}) add(b);
  else if constexpr (std::is_same_v<T, __nv_bfloat16>)
    for (std::uint16_t b : {0xffc2, 0x7f81, 0xffaa, 0x7fc0, 0xffff}) add(b);
  else if constexpr (std::is_same_v<T, float>)
    for (std::uint32_t b : {0xffc00002u, 0x7f800001u, 0xff955555u, 0x7fc00000u, 0xffffffffu}) add(b);
  else
    for (std::uint64_t b : {0xfff8000000000002ull, 0x7ff0000000000001ull, 0xfff5555555555555ull,
                            0x7ff8000000000000ull, 0xffffffffffffffffull})
      add(b);
  return v;
}

// NaN at the first, the last and a random position, +-inf alone and together, under both NaN
// policies, on one block and on grids; every operator is checked against the references' NaN
// rules.
TYPED_TEST(test_reduce_nan_inf, placed_specials_under_both_policies) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const std::vector<T> nan = nan_patterns<T>();
  const T inf = convert<T>(highest<float>()), minf = convert<T>(lowest<float>());
  std::mt19937_64 rng(seed);
  for (const std::uint64_t n : {1ull, 33ull, 100003ull, (1ull << 22) + 1}) {
    const auto base = random_input<T>(n, seed + n);
    const std::uint64_t r = rng() % n, r2 = rng() % n;
    struct Case {
      const char* name;
      std::vector<std::pair<std::uint64_t, T>> set;
    };
    const Case cases[] = {{"nan first", {{0, nan[0]}}},
                          {"nan last", {{n - 1, nan[1]}}},
                          {"nan random", {{r, nan[2]}}},
                          {"two nans", {{r, nan[3]}, {r2, nan[4]}}},
                          {"+inf", {{r, inf}}},
                          {"-inf", {{r2, minf}}},
                          {"+inf and -inf", {{r, inf}, {n - 1 - r, minf}}},
                          {"nan and +inf", {{r, inf}, {r2, nan[0]}}},
                          {"all nan", {}}};
    for (const Case& c : cases) {
      auto h = base;
      if (std::string(c.name) == "all nan")
        for (std::uint64_t i = 0; i < n; ++i) h[i] = nan[(i + r) % nan.size()];
      for (auto [i, v] : c.set) h[i] = v;
      for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
        SCOPED_TRACE(std::string(c.name) + " n=" + std::to_string(n) +
                     (p == NanPolicy::ignore ? " ignore" : " propagate"));
        Options opt;
        opt.nan = p;
        const DeviceInput<T> d(h, 0);
        check_all_ops(h, d.get(), opt);
      }
    }
  }
}
// min/max/minmax of no elements: the identity, +inf and -inf, under NanPolicy::propagate; NaN under
// NanPolicy::ignore, as of an input of only NaN (docs/api.md, "Empty input"). Results poisoned first.
TYPED_TEST(test_reduce_nan_inf, empty_min_and_max_under_both_policies) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const DeviceInput<T> d(std::vector<T>{convert<T>(1.0f)}, 0);
  for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
    SCOPED_TRACE(p == NanPolicy::ignore ? "ignore" : "propagate");
    const Options opt{.nan = p};
    const float mn = convert<float>(run_to_host<T>([&](T* o) { min(d.get(), 0, o, nullptr, opt); }));
    const float mx = convert<float>(run_to_host<T>([&](T* o) { max(d.get(), 0, o, nullptr, opt); }));
    const auto both = run_to_host<MinMax<T>>([&](MinMax<T>* o) { minmax(d.get(), 0, o, nullptr, opt); });
    if (p == NanPolicy::propagate) {
      EXPECT_EQ(mn, std::numeric_limits<float>::infinity());
      EXPECT_EQ(mx, -std::numeric_limits<float>::infinity());
      EXPECT_EQ(convert<float>(both.min), std::numeric_limits<float>::infinity());
      EXPECT_EQ(convert<float>(both.max), -std::numeric_limits<float>::infinity());
    } else {
      EXPECT_TRUE(std::isnan(mn));
      EXPECT_TRUE(std::isnan(mx));
      EXPECT_TRUE(std::isnan(convert<float>(both.min)));
      EXPECT_TRUE(std::isnan(convert<float>(both.max)));
    }
  }
}

// Dense specials: +0 and -0 (equal, so the first wins argmin/argmax), +-1, +-inf and many NaN of
// several patterns, so that a thread meets NaN and ties in several of its vectors, under both NaN
// policies.
TYPED_TEST(test_reduce_nan_inf, dense_signed_zeros_infinities_and_nan) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  const std::uint64_t seed = test_seed();
  const float values[] = {0.0f, -0.0f, 1.0f, -1.0f, highest<float>(), lowest<float>()};
  const std::vector<T> nan = nan_patterns<T>();
  std::mt19937_64 rng(seed);
  for (const std::uint64_t n : {1000ull, 100003ull, (1ull << 20) + 5}) {
    for (const unsigned nan_in : {5u, 40u, 2000u}) {  // about one element in nan_in is NaN
      std::vector<T> h(n);
      for (auto& x : h)
        x = rng() % nan_in == 0 ? nan[rng() % nan.size()] : convert<T>(values[rng() % 6]);
      const DeviceInput<T> d(h, 0);
      for (NanPolicy p : {NanPolicy::propagate, NanPolicy::ignore}) {
        SCOPED_TRACE("n=" + std::to_string(n) + " nan_in=" + std::to_string(nan_in) +
                     (p == NanPolicy::ignore ? " ignore" : " propagate"));
        Options opt;
        opt.nan = p;
        check_all_ops(h, d.get(), opt);
      }
    }
  }
}
}  // namespace gpureduce::test
