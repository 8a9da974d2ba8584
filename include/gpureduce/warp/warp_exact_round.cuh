// A warp's end of an exact sum: the lanes' expansions added exactly as pairs of doubles where
// that holds (group_pair_sum), and the carry propagation and rounding of the superaccumulator
// (exact/superaccumulator.hpp), in place of one thread walking every word: each lane holds ceil(Words/32)
// consecutive words in registers, carries cross between lanes (exact::normalize_slice: two
// rounds, then a prefix scan of the lanes' carry transfers); the word of the leading bit is a warp
// maximum, and its digit and the two below reach every lane by shuffles (exact::round_slice). One
// thread took 69 dependent steps per pass over a double's words, and up to three passes.
#pragma once

#include <gpureduce/exact/expansion.hpp>
#include <gpureduce/exact/superaccumulator.hpp>
#include <gpureduce/thread/operators.hpp>
#include <gpureduce/warp/warp_redux.cuh>

#include <cstdint>

namespace gpureduce::detail {

// The lanes of one warp as the superaccumulator's team (every lane must take part).
struct WarpTeam {
  static constexpr int owners = warp_threads;
  __device__ __forceinline__ bool any(bool x) const { return __any_sync(~0u, x); }
  __device__ __forceinline__ int max(int x) const { return warp_allreduce(x, Max{}); }
  __device__ __forceinline__ std::int64_t from_below(std::int64_t x, int d = 1, std::int64_t none = 0) const {
    const std::int64_t v = __shfl_up_sync(~0u, x, d);
    return int(threadIdx.x % warp_threads) < d ? none : v;
  }
  __device__ __forceinline__ std::int64_t broadcast(std::int64_t x, int lane) const {
    return __shfl_sync(~0u, x, lane);
  }
};

template <int Words>
inline constexpr int lane_words = (Words + warp_threads - 1) / warp_threads;

// This lane's slice of words[0, Words) (shared memory), zero past the end.
template <int Words>
__device__ __forceinline__ void load_slice(const std::int64_t* words, std::int64_t (&w)[lane_words<Words>]) {
  const int first = int(threadIdx.x % warp_threads) * lane_words<Words>;
#pragma unroll
  for (int p = 0; p < lane_words<Words>; ++p) w[p] = first + p < Words ? words[first + p] : 0;
}

// words[0, Words) (any carry state; left as they are) rounded once into Out, in every lane.
template <class Out, int Words>
__device__ __forceinline__ Out warp_round_to(const std::int64_t* words, int lsb_exp, unsigned flags) {
  std::int64_t w[lane_words<Words>];
  load_slice<Words>(words, w);
  const int first = int(threadIdx.x % warp_threads) * lane_words<Words>;
  return exact::round_slice<Out>(w, first, Words, lsb_exp, flags, WarpTeam{});
}

// Whether v holds in every lane of this lane's group of G (aligned groups of a warp; every lane
// calls).
template <unsigned G>
__device__ __forceinline__ bool group_all(bool v) {
  const unsigned fails = __ballot_sync(~0u, !v);
  if constexpr (G == warp_threads) return fails == 0;
  else return ((fails >> (threadIdx.x % warp_threads / G * G)) & ((1u << G) - 1)) == 0;
}

// The pairs (h, l) of each group of G lanes (aligned groups of a warp) added down a shuffle tree,
// each step with TwoSum on both halves and on the carry between them, for as long as no step
// leaves a remainder beyond two doubles: then the group's first lane holds exactly the sum of the
// group's pairs, and the group's lanes return true. Otherwise (rare where the terms' magnitudes
// are close: docs/exact.md) they return false, and the caller deposits the pairs it kept into the
// superaccumulator.
template <unsigned G>
__device__ __forceinline__ bool group_pair_sum(double& h, double& l) {
  const unsigned k = threadIdx.x % G;
  bool clean = true;
#pragma unroll
  for (unsigned offset = G / 2; offset >= 1; offset /= 2) {
    const double h2 = __shfl_down_sync(~0u, h, offset, G), l2 = __shfl_down_sync(~0u, l, offset, G);
    const exact::TwoSum a = exact::two_sum(h, h2), b = exact::two_sum(l, l2), c = exact::two_sum(b.s, a.e);
    const exact::TwoSum d = exact::two_sum(a.s, c.s);  // a.s + c.s is the whole sum when b.e, c.e are 0
    if (k < offset) clean &= b.e == 0 && c.e == 0 && d.s - d.s == 0;  // and no overflow
    h = d.s;
    l = d.e;
  }
  return group_all<G>(clean);
}

}  // namespace gpureduce::detail
