// Shared by the bench runners: seeded device-generated inputs and dispatch on an element type.
#pragma once

#include "../common/elem_type.hpp"

#include <gpureduce/thread/numeric.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

namespace gpureduce {

// Seeded hash data, generated on the device (host generation of 2^30 elements would dominate the
// run): integers in [-100, 100], floating values in [-1, 1). Never constant, mixed signs.
template <class T>
__global__ void fill_kernel(T* x, std::uint64_t n, std::uint64_t seed) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + seed) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    if constexpr (std::is_integral_v<T>) x[i] = static_cast<T>(int(h % 201) - 100);
    else x[i] = detail::convert<T>(float(double(h >> 11) * 0x1.0p-52 - 1.0));
  }
}

template <class T>
struct Tag {
  using type = T;
};

template <class F>
void with_type(ElemType t, F&& f) {
  switch (t) {
    case ElemType::int8: return f(Tag<std::int8_t>{});
    case ElemType::int32: return f(Tag<std::int32_t>{});
    case ElemType::int64: return f(Tag<std::int64_t>{});
    case ElemType::float32: return f(Tag<float>{});
    case ElemType::float64: return f(Tag<double>{});
    case ElemType::float16: return f(Tag<__half>{});
    case ElemType::bfloat16: return f(Tag<__nv_bfloat16>{});
  }
}

}  // namespace gpureduce
