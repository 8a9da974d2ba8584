// Every public call, for every element type, compiled with the warnings users turn on
// (-Wall -Wextra -Wshadow -Wconversion through the host compiler, and every nvcc warning) as
// errors: the library's headers must not break a -Werror build. Compiled only.
#include <gpureduce/axis.cuh>
#include <gpureduce/gpureduce.cuh>

#include <cuda/std/complex>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace {

struct Larger {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
struct Twice {
  template <class T>
  __host__ __device__ double operator()(T x) const {
    return 2.0 * double(x);
  }
};

struct Pair {
  double first, second;
};
struct Both {
  template <class T>
  __host__ __device__ Pair operator()(T x) const {
    return {double(x), -double(x)};
  }
};
struct AddPairs {
  __host__ __device__ Pair operator()(Pair a, Pair b) const { return {a.first + b.first, a.second + b.second}; }
};
// Records: one that tiles 16-byte vectors (Pair) and one read record by record.
struct Add3 {
  __host__ __device__ float3 operator()(float3 a, float3 b) const { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
};
struct Length2 {
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};

template <class T>
void every_call(const T* d, std::uint64_t n, void* o, cudaStream_t s) {
  using namespace gpureduce;
  sum(d, n, static_cast<result_t<T, Sum>*>(o), s);
  product(d, n, static_cast<result_t<T, Product>*>(o), s);
  min(d, n, static_cast<T*>(o), s, {.nan = NanPolicy::ignore});
  max(d, n, static_cast<T*>(o), s, {.dependent_launch = true});
  minmax(d, n, static_cast<MinMax<T>*>(o), s);
  argmin(d, n, static_cast<IndexedValue<T>*>(o), s);
  argmax(d, n, static_cast<IndexedValue<T>*>(o), s);
  dot(d, d, n, static_cast<result_t<T, Sum>*>(o), s);
  if constexpr (std::is_integral_v<T>) {
    bit_and(d, n, static_cast<T*>(o), s);
    bit_or(d, n, static_cast<T*>(o), s);
    bit_xor(d, n, static_cast<T*>(o), s);
  }
  all(d, n, static_cast<bool*>(o), s);
  any(d, n, static_cast<bool*>(o), s);
  if constexpr (!std::is_same_v<T, bool>) transform_reduce(d, n, static_cast<double*>(o), Twice{}, Sum{}, s);
  static_cast<void>(sum_sync(d, n, s));
  static_cast<void>(reduce_sync(d, n, ArgMax{}, s));
  static_cast<void>(dot_sync(d, d, n, s));
  if constexpr (!std::is_same_v<T, bool>) {
    static_cast<void>(transform_reduce_sync(d, n, Twice{}, Max{}, s));
    transform_reduce(d, n, static_cast<Pair*>(o), Both{}, AddPairs{}, Pair{0, 0}, s);
    static_cast<void>(transform_reduce_sync(d, n, Both{}, AddPairs{}, Pair{0, 0}, s));
  }
}

// The axis and segmented calls (axis.cuh), for the narrow types, where conversions warn.
template <class T>
void every_axis_call(const T* d, std::int64_t n, void* o, cudaStream_t s) {
  using namespace gpureduce;
  const Shape matrix{n, 3};
  const auto* offsets = static_cast<const std::int32_t*>(o);
  const auto* wide_offsets = static_cast<const std::int64_t*>(o);
  sum_axes(d, matrix, {1}, static_cast<result_t<T, Sum>*>(o), s);
  max_axes(d, Shape{{n, 4, 2}, {1, 0, -1}}, {0, 2}, static_cast<T*>(o), s, {.nan = NanPolicy::ignore});
  argmax_axes(d, matrix, {-2}, static_cast<IndexedValue<T>*>(o), s);
  minmax_axes(d, matrix, {0}, static_cast<MinMax<T>*>(o), s);
  all_axes(d, matrix, {}, static_cast<bool*>(o), s);
  reduce_axes(d, matrix, {1}, static_cast<T*>(o), Shape{n, 1}, Min{}, s);
  reduce_rows(d, n, 3, 4, static_cast<result_t<T, Sum>*>(o), Sum{}, s);
  reduce_columns(d, n, 3, 4, static_cast<T*>(o), Max{}, s);
  segmented_sum(d, std::uint64_t(n), offsets, static_cast<result_t<T, Sum>*>(o), s);
  segmented_argmin(d, std::uint64_t(n), wide_offsets, wide_offsets + 1, static_cast<IndexedValue<T>*>(o), s);
  segmented_reduce(d, std::uint64_t(n), std::uint64_t(8), static_cast<T*>(o), Max{}, s);
  static_cast<void>(try_segmented_reduce(d, std::uint64_t(n), offsets, static_cast<T*>(o), Min{}, s));
}

}  // namespace

void every_type(void* d, std::uint64_t n, void* o, cudaStream_t s) {
  every_call(static_cast<const bool*>(d), n, o, s);
  every_call(static_cast<const std::int8_t*>(d), n, o, s);
  every_call(static_cast<const std::uint8_t*>(d), n, o, s);
  every_call(static_cast<const std::int16_t*>(d), n, o, s);
  every_call(static_cast<const std::uint16_t*>(d), n, o, s);
  every_call(static_cast<const std::int32_t*>(d), n, o, s);
  every_call(static_cast<const std::uint32_t*>(d), n, o, s);
  every_call(static_cast<const std::int64_t*>(d), n, o, s);
  every_call(static_cast<const std::uint64_t*>(d), n, o, s);
  every_call(static_cast<const float*>(d), n, o, s);
  every_call(static_cast<const double*>(d), n, o, s);
  every_call(static_cast<const __half*>(d), n, o, s);
  every_call(static_cast<const __nv_bfloat16*>(d), n, o, s);
  const auto* i = static_cast<const int*>(d);
  gpureduce::reduce(i, n, static_cast<int*>(o), Larger{}, 0, s);
  static_cast<void>(gpureduce::reduce_sync(i, n, Larger{}, 0, s));
  gpureduce::exact_sum(static_cast<const float*>(d), n, static_cast<float*>(o), s);
  gpureduce::exact_dot(static_cast<const float*>(d), static_cast<const float*>(d), n, static_cast<double*>(o), s);
  static_cast<void>(gpureduce::try_exact_sum(static_cast<const double*>(d), n, static_cast<double*>(o), s));
  gpureduce::exact_sum_axes(static_cast<const __half*>(d), gpureduce::Shape{std::int64_t(n), 3}, {1},
                            static_cast<float*>(o), s);
  gpureduce::exact_segmented_sum(static_cast<const float*>(d), n, static_cast<const std::int64_t*>(o),
                                 static_cast<double*>(o), s);
  static_cast<void>(gpureduce::try_sum(i, n, static_cast<std::int64_t*>(o), s));
  static_cast<void>(gpureduce::try_argmax(i, n, static_cast<gpureduce::IndexedValue<int>*>(o), s));
  const auto* z = static_cast<const cuda::std::complex<float>*>(d);
  gpureduce::sum(z, n, static_cast<cuda::std::complex<float>*>(o), s);
  gpureduce::product(z, n, static_cast<cuda::std::complex<double>*>(o), s);
  gpureduce::dot(z, z, n, static_cast<cuda::std::complex<float>*>(o), s);
  static_cast<void>(gpureduce::sum_sync(static_cast<const cuda::std::complex<double>*>(d), n, s));
  const auto* pairs = static_cast<const Pair*>(d);
  const auto* points = static_cast<const float3*>(d);
  gpureduce::reduce(pairs, n, static_cast<Pair*>(o), AddPairs{}, Pair{0, 0}, s);
  gpureduce::reduce(points, n, static_cast<float3*>(o), Add3{}, float3{0, 0, 0}, s);
  static_cast<void>(gpureduce::reduce_sync(points, n, Add3{}, float3{0, 0, 0}, s));
  gpureduce::transform_reduce(points, n, static_cast<gpureduce::IndexedValue<float>*>(o), Length2{},
                              gpureduce::ArgMax{}, s);
  static_cast<void>(gpureduce::transform_reduce_sync(points, n, Length2{}, gpureduce::Sum{}, s));
  every_axis_call(static_cast<const std::int8_t*>(d), std::int64_t(n), o, s);
  every_axis_call(static_cast<const __half*>(d), std::int64_t(n), o, s);
  gpureduce::reduce_axes(i, gpureduce::Shape{std::int64_t(n)}, {0}, static_cast<int*>(o), Larger{}, 0, s);
  gpureduce::release_workspace(s);
  gpureduce::trim_workspace();
}
