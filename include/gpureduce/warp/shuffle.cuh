// __shfl_down_sync, __shfl_up_sync and __shfl_xor_sync for any trivially copyable value (the composite
// accumulators included): the value moves as 32-bit words.
#pragma once

#include <gpureduce/config.hpp>

#include <cstring>
#include <type_traits>

namespace gpureduce::detail {

// `v` moved by `shuffle(word)` (a 32-bit shuffle of the full warp), word by word where it is not
// one arithmetic value of 32 or 64 bits.
template <class T, class Shuffle>
__device__ __forceinline__ T shuffle_words(T v, Shuffle shuffle) {
  static_assert(std::is_trivially_copyable_v<T>, "warp shuffles copy values bit by bit");
  if constexpr (std::is_arithmetic_v<T> && sizeof(T) >= 4) {
    return shuffle(v);
  } else {
    constexpr int words = (sizeof(T) + 3) / 4;
    unsigned w[words] = {};
    std::memcpy(w, &v, sizeof(T));
#pragma unroll
    for (int k = 0; k < words; ++k) w[k] = shuffle(w[k]);
    std::memcpy(&v, w, sizeof(T));
    return v;
  }
}

template <class T>
__device__ __forceinline__ T shuffle_down(T v, unsigned delta) {
  return shuffle_words(v, [delta](auto w) { return __shfl_down_sync(0xffffffffu, w, delta); });
}

template <class T>
__device__ __forceinline__ T shuffle_up(T v, unsigned delta) {
  return shuffle_words(v, [delta](auto w) { return __shfl_up_sync(0xffffffffu, w, delta); });
}

template <class T>
__device__ __forceinline__ T shuffle_xor(T v, unsigned mask) {
  return shuffle_words(v, [mask](auto w) { return __shfl_xor_sync(0xffffffffu, w, mask); });
}

}  // namespace gpureduce::detail
