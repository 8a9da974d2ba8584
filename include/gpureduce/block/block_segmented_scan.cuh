// Block-wide exclusive scan by key (a segmented scan): thread t gets the running value of the
// pairs before it whose key equals the last of them. The merge-path segmented reduction uses it to
// hand each thread the part of its first segment that the threads before it hold. A fixed tree
// (warp shuffles, then the warps' totals folded in order), so the bits depend only on the inputs.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/warp/shuffle.cuh>

#include <cstdint>

namespace gpureduce::detail {

template <class Key, class A>
struct Keyed {
  Key key;
  A value;
};

// a then b: b's key, and a's value folded in first where the keys match.
template <class Key, class A, class Op>
__device__ __forceinline__ Keyed<Key, A> then(const Keyed<Key, A>& a, const Keyed<Key, A>& b, const Op& op) {
  return {b.key, a.key == b.key ? op(a.value, b.value) : b.value};
}

// Shared memory block_segmented_scan needs: one pair per warp.
template <unsigned Threads, class Key, class A>
struct SegmentedScanScratch {
  Keyed<Key, A> warp_total[Threads / warp_threads];
};

// Thread t's exclusive scan of the block's pairs x, `carry` standing before thread 0's. Every
// thread returns; one barrier, and the scratch may be reused after the next one.
template <unsigned Threads, class Key, class A, class Op>
__device__ __forceinline__ Keyed<Key, A> block_segmented_scan(Keyed<Key, A> x, Keyed<Key, A> carry, const Op& op,
                                                              SegmentedScanScratch<Threads, Key, A>& scratch) {
  constexpr unsigned warps = Threads / warp_threads;
  const unsigned lane = threadIdx.x % warp_threads;
  const unsigned warp = threadIdx.x / warp_threads;
  Keyed<Key, A> inclusive = x;
#pragma unroll
  for (unsigned d = 1; d < warp_threads; d *= 2) {
    const Keyed<Key, A> up{shuffle_up(inclusive.key, d), shuffle_up(inclusive.value, d)};
    if (lane >= d) inclusive = then(up, inclusive, op);
  }
  if (lane == warp_threads - 1) scratch.warp_total[warp] = inclusive;
  const Keyed<Key, A> before{shuffle_up(inclusive.key, 1), shuffle_up(inclusive.value, 1)};
  __syncthreads();
  Keyed<Key, A> prefix = carry;
  for (unsigned w = 0; w < warps && w < warp; ++w) prefix = then(prefix, scratch.warp_total[w], op);
  return lane == 0 ? prefix : then(prefix, before, op);
}

}  // namespace gpureduce::detail
