// argmin/argmax over the 16-byte vectors one thread reads, which it reads in increasing index order
// (agent/thread_partial.cuh). Per vector it takes only the vector's best value (a min/max chain,
// two 16-bit values per instruction for half and bfloat16), compares that strictly with the best so
// far, and on a win keeps the vector's values and first index in registers. Which element of the
// winning vector holds the best, and its 64-bit index, is worked out once, at the end. A strict
// comparison keeps the earlier vector on ties, so the first index still wins.
//
// Per element this replaces a NaN-aware compare, a search for the position and a 64-bit index
// select with about one min/max instruction: float32 argmax took 16.9 us at 2^22 against 14.4 us
// for int32 and 15.2 us for CUB (H100, 05380f2), and half/bfloat16 argmax at 2^28 was bound by
// instructions, not bytes.
#pragma once

#include <gpureduce/thread/operators.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

template <class V>
using pair_t = std::conditional_t<std::is_same_v<V, __half>, __half2, __nv_bfloat162>;

// min (Less) or max of two values under a NaN policy: NaN if either is (propagate) or if both are
// (ignore). Which of two equal values (+0, -0) it returns does not matter here: only the value is
// used, and the final search treats them as equal.
template <bool Less, NanPolicy Nan, class A>
GPUREDUCE_HD A extreme2(A a, A b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<A, float>) {
    if constexpr (Nan == NanPolicy::ignore) return Less ? fminf(a, b) : fmaxf(a, b);
    float r;
    if constexpr (Less) asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    else asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
    return r;
  }
#endif
  if constexpr (std::is_same_v<A, __half2> || std::is_same_v<A, __nv_bfloat162>) {
    if constexpr (Less) return Nan == NanPolicy::propagate ? __hmin2_nan(a, b) : __hmin2(a, b);
    else return Nan == NanPolicy::propagate ? __hmax2_nan(a, b) : __hmax2(a, b);
  } else {
    return pick<Less>(a, b, Nan);
  }
}

// Whether `later` (a value at larger indices) replaces `best`: strictly better, NaN counting as the
// best value under propagate and the worst under ignore.
template <bool Less, NanPolicy Nan, class A>
GPUREDUCE_HD constexpr bool later_beats(A later, A best) {
  const bool better = Less ? later < best : best < later;
  if constexpr (is_floating_v<A>) {
    if constexpr (Nan == NanPolicy::propagate) return !is_nan(best) && (is_nan(later) || better);
    else return !is_nan(later) && (is_nan(best) || better);
  }
  return better;
}

template <bool Less, NanPolicy Nan, class A, class V, int N>
struct VectorWinner {
  static constexpr bool packed = is_half_v<V> && N % 2 == 0;
  using Stored = std::conditional_t<packed, pair_t<V>, V>;
  static constexpr int stored = packed ? N / 2 : N;

  Stored values[stored] = {};
  A best = A{};
  std::int64_t first = 0;
  bool empty = true;

  // The vector of elements at, at + 1, ..., at + N - 1; `at` larger than every earlier call's.
  GPUREDUCE_HD void add(const V (&x)[N], std::int64_t at) {
    Stored s[stored];
    A m;
    if constexpr (packed) {
#pragma unroll
      for (int k = 0; k < stored; ++k) s[k] = Stored{x[2 * k], x[2 * k + 1]};
      Stored p = s[0];
#pragma unroll
      for (int k = 1; k < stored; ++k) p = extreme2<Less, Nan>(p, s[k]);
      m = extreme2<Less, Nan>(convert<A>(p.x), convert<A>(p.y));
    } else {
      m = convert<A>(x[0]);
#pragma unroll
      for (int k = 0; k < N; ++k) {
        s[k] = x[k];
        if (k > 0) m = extreme2<Less, Nan>(m, convert<A>(x[k]));
      }
    }
    if (empty || later_beats<Less, Nan>(m, best)) {
#pragma unroll
      for (int k = 0; k < stored; ++k) values[k] = s[k];
      best = m;
      first = at;
      empty = false;
    }
  }

  // acc combined with the winning element (value and index); acc itself if no vector was added.
  template <class P>
  GPUREDUCE_HD P fold_into(P acc, const ArgExtreme<Less>& op) const {
    if (empty) return acc;
    V x[N];
#pragma unroll
    for (int k = 0; k < stored; ++k) {
      if constexpr (packed) {
        x[2 * k] = values[k].x;
        x[2 * k + 1] = values[k].y;
      } else {
        x[k] = values[k];
      }
    }
    return op(acc, op.template lift_vector<P>(x, first));
  }
};

}  // namespace gpureduce::detail
