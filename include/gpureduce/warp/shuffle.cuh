// __shfl_down_sync for any trivially copyable value (the composite accumulators included): the
// value moves as 32-bit words.
#pragma once

#include <gpureduce/config.hpp>

#include <cstring>
#include <type_traits>

namespace gpureduce::detail {

template <class T>
__device__ __forceinline__ T shuffle_down(T v, unsigned delta) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles copy values bit by bit");
  if constexpr (std::is_arithmetic_v<T> && sizeof(T) >= 4) {
    return __shfl_down_sync(0xffffffffu, v, delta);
  } else {
    constexpr int words = (sizeof(T) + 3) / 4;
    unsigned w[words] = {};
    std::memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < words; ++k) w[k] = __shfl_down_sync(0xffffffffu, w[k], delta);
    std::memcpy(&v, w, sizeof(T));
    return v;
  }
}

}  // namespace gpureduce::detail
