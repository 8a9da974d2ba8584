// Arrays whose vectors start off a 16-byte boundary: the second array of a dot product at another
// offset than the first, at every offset its type allows (1- and 2-byte elements read as the
// aligned words around each vector shifted into place, thread/shifted_load.cuh, 2-byte ones also
// element by element; the others element by element), and records whose address never reaches a
// boundary (shifted, or one per load: agent/sources.cuh, shifts_records_v). Each array ends where
// its allocation ends, so that compute-sanitizer's memcheck (tools/sanitize.sh) sees any load past
// it. Every kernel: one block, grids of 3 blocks (with and without the combiner block) and of 300.
#include "reduce_checks.cuh"

#include <cuda/std/complex>

#include <climits>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

constexpr std::uint64_t sizes[] = {0, 1, 2, 3, 31, 33, 1025, 4099, 65537, (1ull << 20) + 3};

// Allocations of exactly the values given, freed at scope exit.
template <class T>
class ExactBuffer {
 public:
  explicit ExactBuffer(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&base_, bytes == 0 ? 1 : bytes), cudaSuccess); }
  ~ExactBuffer() { cudaFree(base_); }
  ExactBuffer(const ExactBuffer&) = delete;
  ExactBuffer& operator=(const ExactBuffer&) = delete;
  // The array at `offset_bytes` into the allocation, holding h.
  T* at(std::size_t offset_bytes, const std::vector<T>& h) const {
    T* p = reinterpret_cast<T*>(static_cast<unsigned char*>(base_) + offset_bytes);
    if (!h.empty()) EXPECT_EQ(cudaMemcpy(p, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);  // landed before any stream reads it (DeviceInput)
    return p;
  }

 private:
  void* base_ = nullptr;
};

// dot(x + i, x + j, m) for a at offsets 0 and 1 and b at every offset mod 16 (so b - a takes every
// value), m the elements left after the later start: the later array ends at the allocation's end.
template <class T>
void check_dots_at_offsets(std::uint64_t seed) {
  using A = accumulator_t<T, Sum>;
  constexpr std::size_t per16 = 16 / sizeof(T);
  for (const std::uint64_t n : sizes) {
    const std::vector<T> x = random_input<T>(n + per16, seed + n);
    const ExactBuffer<T> buf(x.size() * sizeof(T));
    const T* d = buf.at(0, x);
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t j = 0; j < per16; ++j) {
        const std::uint64_t m = x.size() - std::max(i, j);
        SCOPED_TRACE("dot(x + " + std::to_string(i) + ", x + " + std::to_string(j) + ", " + std::to_string(m) + ")");
        const auto check = [&](A got) {
          if constexpr (std::is_integral_v<A>) {
            EXPECT_EQ(std::uint64_t(got), wrapped_product_sum(x.data() + i, x.data() + j, m));
          } else {
            reference::FloatSum ref;
            ref.sum = product_sum(x.data() + i, x.data() + j, m, &ref.abs_sum);
            expect_float_sum(got, ref, m, "dot");
          }
        };
        each_kernel([&](const Options& opt, const std::string& how) {
          SCOPED_TRACE(how);
          check(run_to_host<A>([&](A* o) { dot(d + i, d + j, m, o, nullptr, opt); }));
          // 2-byte elements: dot() picks shifted vectors or element loads by size
          // (TuningSm90::shifted_dot_b); both, at every size, where b lies at another offset from
          // a 16-byte boundary than a (the only place with_product_source shifts it).
          if constexpr (sizeof(T) == 2) {
            if (ProductSource<T, A>{d + i, d + j}.b_offset() == 0) return;
            const auto both = [&]<bool ShiftedB>() {
              SCOPED_TRACE(ShiftedB ? "b shifted" : "b element by element");
              check(run_to_host<A>([&](A* o) {
                throw_if_error(detail::dispatch_reduce<A>(ProductSource<T, A, ShiftedB>{d + i, d + j}, m, o,
                                                          detail::with_options(Sum{}, opt), nullptr, opt));
              }));
            };
            both.template operator()<true>();
            both.template operator()<false>();
          }
        });
      }
  }
}

TEST(test_shifted, dot_products_of_arrays_at_every_offset) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  check_dots_at_offsets<std::int8_t>(seed);
  check_dots_at_offsets<std::uint8_t>(seed + 1);
  check_dots_at_offsets<std::int16_t>(seed + 2);
  check_dots_at_offsets<std::int32_t>(seed + 3);
  check_dots_at_offsets<std::int64_t>(seed + 4);
  check_dots_at_offsets<float>(seed + 5);
  check_dots_at_offsets<double>(seed + 6);
  check_dots_at_offsets<__half>(seed + 7);
  check_dots_at_offsets<__nv_bfloat16>(seed + 8);
}

// Complex dot products (unconjugated) with b one element (8 bytes) past a, and the exact float dot
// product: the same bits as with b copied to a's offset.
TEST(test_shifted, complex_and_exact_dot_products) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  using C = cuda::std::complex<float>;
  for (const std::uint64_t n : sizes) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto re = random_input<float>(n + 1, seed + n), im = random_input<float>(n + 1, seed + n + 1);
    std::vector<C> z(n + 1);
    for (std::uint64_t k = 0; k <= n; ++k) z[k] = C(re[k], im[k]);
    reference::FloatSum want_re, want_im;
    for (std::uint64_t k = 0; k < n; ++k) {
      const long double ar = re[k], ai = im[k], br = re[k + 1], bi = im[k + 1];
      want_re.sum += ar * br - ai * bi, want_re.abs_sum += std::fabs(ar * br) + std::fabs(ai * bi);
      want_im.sum += ar * bi + ai * br, want_im.abs_sum += std::fabs(ar * bi) + std::fabs(ai * br);
    }
    const ExactBuffer<C> zbuf(z.size() * sizeof(C));
    const C* dz = zbuf.at(0, z);
    // a, b copied at a's offset mod 16, and b 4 bytes past it, ending at the allocation's end.
    const auto round16 = [](std::uint64_t bytes) { return (bytes + 15) / 16 * 16; };
    const std::uint64_t b_aligned_at = round16(n * 4), b_shifted_at = round16(b_aligned_at + n * 4) + 4;
    const ExactBuffer<float> fbuf(b_shifted_at + n * 4);
    const std::vector<float> a(re.begin(), re.end() - 1), b(re.begin() + 1, re.end());
    const float* da = fbuf.at(0, a);
    const float* db_aligned = fbuf.at(b_aligned_at, b);
    const float* db_shifted = fbuf.at(b_shifted_at, b);
    each_kernel([&](const Options& opt, const std::string& how) {
      SCOPED_TRACE(how);
      const C got = run_to_host<C>([&](C* o) { dot(dz, dz + 1, n, o, nullptr, opt); });
      expect_float_sum(got.real(), want_re, 2 * n, "real");
      expect_float_sum(got.imag(), want_im, 2 * n, "imag");
    });
    const double aligned = run_to_host<double>([&](double* o) { exact_dot(da, db_aligned, n, o); });
    const double shifted = run_to_host<double>([&](double* o) { exact_dot(da, db_shifted, n, o); });
    const double swapped = run_to_host<double>([&](double* o) { exact_dot(db_shifted, da, n, o); });
    EXPECT_EQ(shifted, aligned);
    EXPECT_EQ(swapped, aligned);
  }
}

struct Doubles {  // 16 bytes, 8-byte aligned
  double a, b;
};
struct DoublesRange {  // the largest a and the smallest b: exact in any order
  __host__ __device__ Doubles operator()(Doubles x, Doubles y) const {
    return {x.a > y.a ? x.a : y.a, x.b < y.b ? x.b : y.b};
  }
};
struct Rgba {  // 4 bytes, 1-byte aligned
  std::uint8_t r, g, b, a;
};
struct Chars12 {  // 12 bytes, 1-byte aligned: shifted vectors of 4 records (48 bytes)
  std::uint8_t c[12];
};
struct Longs4 {  // 32 bytes, 8-byte aligned: shifted vectors of two 16-byte words
  std::int64_t v[4];
};
struct FieldSum {  // to a number: summed in int64
  template <class R>
  __host__ __device__ std::int64_t operator()(const R& r) const {
    std::int64_t t = 0;
    if constexpr (requires { r.c; }) {
      for (auto x : r.c) t += x;
    } else if constexpr (requires { r.v; }) {
      for (auto x : r.v) t += x;
    } else {
      t = r.r + 2 * r.g + 3 * r.b + 4 * r.a;
    }
    return t;
  }
};

// Records from offsets off a 16-byte boundary that their alignment allows, each array ending where
// its allocation ends: want(d, h, opt) checks the array d holding h.
template <class R, class Make, class Check>
void check_shifted_records(std::uint64_t n, std::uint64_t seed, std::initializer_list<unsigned> offsets, Make&& make,
                           Check&& want) {
  std::mt19937_64 rng(seed);
  std::vector<R> h(n);
  for (R& r : h) r = make(rng);
  for (const unsigned offset : offsets) {
    SCOPED_TRACE("from " + std::to_string(offset) + " bytes past a 16-byte boundary");
    const ExactBuffer<R> buf(n * sizeof(R) + offset);
    const R* d = buf.at(offset, h);
    each_kernel([&](const Options& opt, const std::string& how) {
      SCOPED_TRACE(how);
      want(d, h, opt);
    });
  }
}

template <class R>
R random_bytes(std::mt19937_64& rng) {
  unsigned char bytes[sizeof(R)];
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  R r;
  std::memcpy(&r, bytes, sizeof r);
  return r;
}

// 16-byte pairs of doubles 8 bytes past a boundary (one per load); 4-byte pixels from 1, 2, 3 and 5
// bytes past a multiple of 16, 12 bytes of chars from odd addresses (vectors of 48 bytes), 32-byte
// records 8 bytes past a boundary (vectors of two words), all shifted.
TEST(test_shifted, records_off_16_byte_boundaries) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : sizes) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto field_sums = [n](const auto* d, const auto& h, const Options& opt) {
      std::int64_t want = 0;
      for (const auto& r : h) want += FieldSum{}(r);
      EXPECT_EQ(run_to_host<std::int64_t>(
                    [&](std::int64_t* o) { transform_reduce(d, n, o, FieldSum{}, Sum{}, nullptr, opt); }),
                want);
    };
    std::uniform_real_distribution<double> unit(-1, 1);
    check_shifted_records<Doubles>(
        n, seed + n, {8u}, [&](std::mt19937_64& rng) { return Doubles{unit(rng), unit(rng)}; },
        [n](const Doubles* d, const std::vector<Doubles>& h, const Options& opt) {
          const Doubles none{-INFINITY, INFINITY};
          Doubles want = none;
          for (const Doubles& r : h) want = DoublesRange{}(want, r);
          const Doubles got =
              run_to_host<Doubles>([&](Doubles* o) { reduce(d, n, o, DoublesRange{}, none, nullptr, opt); });
          EXPECT_EQ(got.a, want.a);
          EXPECT_EQ(got.b, want.b);
        });
    check_shifted_records<Rgba>(n, seed + n + 1, {1u, 2u, 3u, 5u}, random_bytes<Rgba>, field_sums);
    check_shifted_records<Chars12>(n, seed + n + 2, {1u, 7u}, random_bytes<Chars12>, field_sums);
    check_shifted_records<Longs4>(
        n, seed + n + 3, {8u},
        [](std::mt19937_64& rng) {
          return Longs4{{std::int32_t(rng()), std::int32_t(rng()), std::int32_t(rng()), std::int32_t(rng())}};
        },
        field_sums);
  }
}

}  // namespace
}  // namespace gpureduce::test
