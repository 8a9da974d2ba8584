// Records (structs) as elements of a caller's functor or transform: which source reads them
// (agent/sources.cuh), how the launch plan counts them, and the argument checks, all on the host.
#include <gpureduce/gpureduce.cuh>

#include <cuda/std/complex>
#include <cuda/std/functional>

#include <gtest/gtest.h>

#include <cstdint>

namespace gpureduce {
namespace {

struct Pair {  // 8 bytes, 4-byte aligned
  float a, b;
};
struct Pixel {
  std::uint8_t r, g, b;
};
struct Point {
  double x, y, z;
};
struct NotCopyable {
  NotCopyable(const NotCopyable&) {}
  float x;
};

static_assert(is_record_v<Pair> && is_record_v<float3> && is_record_v<cuda::std::complex<double>>);
static_assert(!is_record_v<float> && !is_record_v<__half> && !is_record_v<NotCopyable>);

// Records whose size divides 16 and whose alignment equals it are read as 16-byte vectors, as the
// numbers are; the rest one record per load.
static_assert(std::is_same_v<array_source_t<cuda::std::complex<float>>, ArraySource<cuda::std::complex<float>>>);
static_assert(std::is_same_v<array_source_t<cuda::std::complex<double>>, ArraySource<cuda::std::complex<double>>>);
static_assert(std::is_same_v<array_source_t<int2>, ArraySource<int2>> && std::is_same_v<array_source_t<float4>, ArraySource<float4>>);
static_assert(std::is_same_v<array_source_t<Pair>, RecordSource<Pair>>);
static_assert(std::is_same_v<array_source_t<float3>, RecordSource<float3>>);
static_assert(std::is_same_v<array_source_t<Pixel>, RecordSource<Pixel>>);
static_assert(std::is_same_v<array_source_t<Point>, RecordSource<Point>>);
static_assert(std::is_same_v<array_source_t<float>, ArraySource<float>>);

// Which calls compile: records under a caller's functor or a transform (a built-in operator on
// records is a static_assert: tests/compile_fail/element_type.cu).
template <class T, class F, class Init>
concept reduces_with = requires(const T* in, Init* out, F f, Init init) { try_reduce(in, 1, out, f, init); };
struct PairMax {
  __host__ __device__ Pair operator()(Pair x, Pair y) const { return {x.a > y.a ? x.a : y.a, x.b > y.b ? x.b : y.b}; }
};
struct Norm2 {
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};
static_assert(reduces_with<Pair, PairMax, Pair>);
static_assert(reduces_with<cuda::std::complex<float>, cuda::std::plus<>, cuda::std::complex<float>>);
static_assert(requires(const float3* in, IndexedValue<float>* out) { try_transform_reduce(in, 1, out, Norm2{}, ArgMax{}); });

TEST(test_record_sources, a_record_source_has_no_scalar_edges) {
  alignas(16) static const float3 points[8]{};
  for (const std::uint64_t n : {0ull, 1ull, 7ull}) {
    const VectorSplit s = RecordSource<float3>{points + 1, {}}.split(n);
    EXPECT_EQ(s.head, 0u);
    EXPECT_EQ(s.vectors, n);
    EXPECT_EQ(s.tail, 0u);
  }
}

// The launch plan counts a record as one 16-byte vector, from any address: no head, and one block
// up to the one-block limit in vectors.
TEST(test_record_sources, the_plan_counts_one_vector_per_record) {
  using Source = RecordSource<float3>;
  const ReduceTuning& t = TuningSm90<sizeof(float3)>::value;
  const std::uint64_t one_block_records = t.single_block_max_bytes / Source::split_bytes;
  for (const std::uint64_t addr : {256ull, 260ull, 268ull}) {
    EXPECT_EQ(VectorSplit::make(addr, 1000, Source::split_bytes).head, 0u);
    EXPECT_EQ(plan_launch(one_block_records, addr, Source::split_bytes, t, 1056).kernel, Kernel::one_block);
    const LaunchPlan grid = plan_launch(one_block_records + 1, addr, Source::split_bytes, t, 1056);
    EXPECT_EQ(grid.kernel, Kernel::grid);
    EXPECT_EQ(grid.blocks, 5u);  // batches of 256 threads x 4 records
  }
}

TEST(test_record_sources, records_misaligned_for_their_type_are_refused) {
  EXPECT_EQ(Norm2{}(float3{1, 2, 2}), 9.0f);
  auto* out = reinterpret_cast<Pair*>(16);
  EXPECT_EQ(try_reduce(reinterpret_cast<const Pair*>(18), 10, out, PairMax{}, Pair{}).code, Errc::invalid_argument);
  // 4 bytes into an 8-byte word is a Pair's own alignment: no argument error (the call then fails
  // on the host for want of a device, or runs).
  EXPECT_NE(try_reduce(reinterpret_cast<const Pair*>(20), 10, out, PairMax{}, Pair{}).code, Errc::invalid_argument);
}

}  // namespace
}  // namespace gpureduce
