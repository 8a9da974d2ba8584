// argmin/argmax over the 16-byte vectors one thread reads, which it reads in increasing index order
// (agent/thread_partial.cuh; the axis rows' winner_fold_run, kernel/axis_kernels.cuh). Per vector
// it takes only the vector's best value (a min/max chain, two 16-bit values per instruction for
// half and bfloat16), compares that strictly with the best so far, and on a win keeps the vector's
// values and first index in registers. Which element of the winning vector holds the best, and its
// 64-bit index, is worked out once, at the end. A strict comparison keeps the earlier vector on
// ties, so the first index still wins.
//
// Per element this replaces a NaN-aware compare, a search for the position and a 64-bit index
// select with about one min/max instruction: float32 argmax took 16.9 us at 2^22 against 14.4 us
// for int32 and 15.2 us for CUB before (H100), and half/bfloat16 argmax at 2^28 was bound by
// instructions, not bytes.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/byte_perm.hpp>
#include <gpureduce/thread/operators.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpureduce::detail {

template <class V>
using pair_t = std::conditional_t<std::is_same_v<V, __half>, __half2, __nv_bfloat162>;

// min (Less) or max of two values under a NaN policy: NaN if either is (propagate) or if both are
// (ignore). Which of two equal values (+0, -0) it returns does not matter here: only the value is
// used, and the final search treats them as equal.
template <bool Less, NanPolicy Nan, class A>
GPUREDUCE_HD A extreme2(A a, A b) {
  if constexpr (std::is_same_v<A, __half2> || std::is_same_v<A, __nv_bfloat162>) {
    if constexpr (Less) return Nan == NanPolicy::propagate ? __hmin2_nan(a, b) : __hmin2(a, b);
    else return Nan == NanPolicy::propagate ? __hmax2_nan(a, b) : __hmax2(a, b);
  } else {
    return pick<Less>(a, b, Nan);  // float on the device: one min/max instruction (Nan is a constant)
  }
}

// min (Less) or max of the 8- or 16-bit integers V held in 32-bit words (little-endian, as loaded):
// 16-bit SIMD min/max across the words (bytes widened to 16-bit lanes first, even and odd bytes
// apart: one byte permute each), then of the two lanes. Extracting, widening and comparing each
// byte took about three instructions per element in the int8 argmax kernels.
template <bool Less, class V, int Units>
GPUREDUCE_HD V extreme_of_words(const std::uint32_t (&u)[Units]) {
  static_assert(std::is_integral_v<V> && (sizeof(V) == 1 || sizeof(V) == 2));
  constexpr bool sign = std::is_signed_v<V>;
  using L = std::conditional_t<sign, std::int16_t, std::uint16_t>;  // a lane
  const auto lanes = [](std::uint32_t w, bool odd) -> std::uint32_t {  // two 16-bit lanes
    if constexpr (sizeof(V) == 2) return w;
    // Byte selectors of prmt: 0-3 a byte of w, 4 a zero byte; 8 + b: byte b's sign replicated.
    const std::uint32_t sel = sign ? (odd ? 0xB391u : 0xA280u) : (odd ? 0x4341u : 0x4240u);
    return byte_perm(w, 0u, sel);
  };
  const auto pick2 = [](std::uint32_t a, std::uint32_t b) -> std::uint32_t {  // lane by lane
#if defined(__CUDA_ARCH__)
    if constexpr (sign) return Less ? __vmins2(a, b) : __vmaxs2(a, b);
    else return Less ? __vminu2(a, b) : __vmaxu2(a, b);
#else
    std::uint32_t r = 0;
    for (int i = 0; i < 2; ++i) {
      const L x = L(a >> (16 * i)), y = L(b >> (16 * i));
      r |= std::uint32_t(std::uint16_t(Less ? (y < x ? y : x) : (x < y ? y : x))) << (16 * i);
    }
    return r;
#endif
  };
  std::uint32_t m = lanes(u[0], false);
  if constexpr (sizeof(V) == 1) m = pick2(m, lanes(u[0], true));
GPUREDUCE_UNROLL
  for (int k = 1; k < Units; ++k) {
    m = pick2(m, lanes(u[k], false));
    if constexpr (sizeof(V) == 1) m = pick2(m, lanes(u[k], true));
  }
  const L lo = L(m), hi = L(m >> 16);
  return V(Less ? (hi < lo ? hi : lo) : (lo < hi ? hi : lo));
}

// Whether `later` (a value at larger indices) replaces `best`: strictly better, NaN counting as the
// best value under propagate and the worst under ignore. A compare that is also true when either is
// NaN, and one NaN test: two predicate instructions for float where three compares were.
template <bool Less, NanPolicy Nan, class A>
GPUREDUCE_HD constexpr bool later_beats(A later, A best) {
  if constexpr (is_floating_v<A>) {
    const bool better_or_unordered = !(Less ? later >= best : later <= best);
    return better_or_unordered & !is_nan(Nan == NanPolicy::propagate ? best : later);
  }
  return Less ? later < best : best < later;
}

// The unsigned type of V's bits (std::make_unsigned refuses bool, whose byte is 0 or 1).
template <class V>
struct unsigned_bits {
  using type = std::make_unsigned_t<V>;
};
template <>
struct unsigned_bits<bool> {
  using type = std::uint8_t;
};

// How the winning vector is kept: half/bfloat16 in pairs (as the packed min/max reads them), 8- and
// 16-bit integers in 32-bit words (one register per element made the int8 argmax kernel spill).
template <class V, int N>
struct VectorStore {
  static constexpr bool pairs = is_half_v<V> && N % 2 == 0;
  static constexpr bool words = std::is_integral_v<V> && sizeof(V) < 4 && (sizeof(V) * N) % 4 == 0;
  using Unit = std::conditional_t<pairs, pair_t<V>, std::conditional_t<words, std::uint32_t, V>>;
  static constexpr int units = int(sizeof(V) * N / sizeof(Unit));

  Unit u[units];

  GPUREDUCE_HD static VectorStore pack(const V (&x)[N]) {
    VectorStore s;
    if constexpr (pairs) {
      for (int k = 0; k < units; ++k) s.u[k] = Unit{x[2 * k], x[2 * k + 1]};
    } else if constexpr (words) {
      // The words as loaded (little-endian): no instructions where x is a loaded vector's bytes
      // (PackedWordSource, agent/sources.cuh).
      static_assert(sizeof(s.u) == sizeof(x));
      std::memcpy(s.u, x, sizeof(s.u));
    } else {
      for (int k = 0; k < units; ++k) s.u[k] = x[k];
    }
    return s;
  }
  GPUREDUCE_HD void unpack(V (&x)[N]) const {
    if constexpr (pairs) {
      for (int k = 0; k < units; ++k) {
        x[2 * k] = u[k].x;
        x[2 * k + 1] = u[k].y;
      }
    } else if constexpr (words) {
      for (int k = 0; k < N; ++k)
        x[k] = static_cast<V>(static_cast<typename unsigned_bits<V>::type>(
            u[k / (4 / sizeof(V))] >> (8 * sizeof(V) * (k % (4 / sizeof(V))))));
    } else {
      for (int k = 0; k < N; ++k) x[k] = u[k];
    }
  }
};

template <bool Less, NanPolicy Nan, class A, class V, int N>
struct VectorWinner {
  using Store = VectorStore<V, N>;

  Store values{};
  // The best value so far, kept apart from the winner's selects: extreme2 of every vector's best,
  // starting from the operator's identity value (extreme2 of it and any value is that value). One
  // min/max per vector on this chain, where a select on the outcome of the compare with it took
  // four instructions for float.
  A best = ArgExtreme<Less>{Nan}.template identity<IndexedValue<A>>().value;
  std::int64_t first = 0;
  bool empty = true;

  // The vector of elements at, at + 1, ..., at + N - 1; `at` larger than every earlier call's.
  GPUREDUCE_HD void add(const V (&x)[N], std::int64_t at) {
    Store s{};
    A m;
    if constexpr (Store::pairs) {
      s = Store::pack(x);
      auto p = s.u[0];
GPUREDUCE_UNROLL
      for (int k = 1; k < Store::units; ++k) p = extreme2<Less, Nan>(p, s.u[k]);
      m = extreme2<Less, Nan>(convert<A>(p.x), convert<A>(p.y));
    } else if constexpr (Store::words) {
      s = Store::pack(x);
      m = A(extreme_of_words<Less, V>(s.u));
    } else {
      m = convert<A>(x[0]);
GPUREDUCE_UNROLL
      for (int k = 1; k < N; ++k) m = extreme2<Less, Nan>(m, convert<A>(x[k]));
    }
    if (empty | later_beats<Less, Nan>(m, best)) {
      if constexpr (Store::pairs || Store::words) values = s;
      else values = Store::pack(x);
      first = at;
      empty = false;
    }
    best = extreme2<Less, Nan>(best, m);
  }

  // acc combined with the winning element (value and index); acc itself if no vector was added.
  // The element is the first of the kept vector equal to `best`, whose value it takes: -0 and +0
  // are equal here, and the trees give them one key (thread/tree_key.hpp). A NaN best is the kept
  // vector's first NaN under propagate (a vector with a NaN wins over any best that is not one, and
  // nothing wins over a NaN); under ignore, every vector so far was all NaN, so the first element.
  // op's NaN policy must be Nan.
  template <class P>
  GPUREDUCE_HD P fold_into(P acc, const ArgExtreme<Less>& op) const {
    if (empty) return acc;
    V element;
    return op(acc, P{best, winning_index(&element)});
  }

  // The winning element's index, and the element itself in `element` (its own bits: a NaN's
  // payload, -0 or +0), as fold_into finds it. Only where a vector was added.
  GPUREDUCE_HD std::int64_t winning_index(V* element) const {
    V x[N];
    values.unpack(x);
    int at = N - 1;
    V found = x[N - 1];
GPUREDUCE_UNROLL
    for (int k = N - 2; k >= 0; --k) {
      const A v = convert<A>(x[k]);
      if ((v == best) | is_nan(Nan == NanPolicy::propagate ? v : best)) {
        at = k;
        found = x[k];
      }
    }
    *element = found;
    return first + at;
  }
};

}  // namespace gpureduce::detail
