// How a thread loads the 16-byte vectors of the input body, and records read whole: plainly, or
// evict-first in L2 (a variant of the grid kernel; dispatch picks it per call, tuning_sm90.hpp
// says when).
//
// Why a priority: a kernel that runs after another one's writes finds L2 full of their dirty lines.
// With normal loads it evicts those lines, and their write-back competes with its own reads for
// DRAM. When a producer has just written the input, it also evicts the input's own resident tail
// before reaching it. Evict-first loads replace each other and leave those lines in L2. On the
// H100 this took a 2^24 int32 read from 33.1 to 28.5 us after a memset of 2x L2, and from 27.1 to
// 19.0 us after a memset of the input itself. Reads after a clean L2 were unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace gpureduce::detail {

// One word of 1, 2, 4, 8 or 16 bytes: ld.global.cs (evict-first in L1 and L2), or with KeepInL1
// ld.global.L1::evict_last under an L2 cache policy (sm_80+).
template <bool KeepInL1, class W>
__device__ __forceinline__ W load_word(const W* p, [[maybe_unused]] std::uint64_t policy) {
  if constexpr (sizeof(W) == 16) {
    uint4 w;
    if constexpr (KeepInL1)
      asm("ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
          : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
          : "l"(p), "l"(policy));
    else asm("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w) : "l"(p));
    W r;
    __builtin_memcpy(&r, &w, sizeof r);
    return r;
  } else if constexpr (sizeof(W) == 8) {
    static_assert(std::is_unsigned_v<W>);
    unsigned long long w;
    if constexpr (KeepInL1)
      asm("ld.global.L1::evict_last.L2::cache_hint.u64 %0, [%1], %2;" : "=l"(w) : "l"(p), "l"(policy));
    else asm("ld.global.cs.u64 %0, [%1];" : "=l"(w) : "l"(p));
    return W(w);
  } else if constexpr (sizeof(W) == 4) {
    static_assert(std::is_unsigned_v<W>);
    unsigned w;
    if constexpr (KeepInL1)
      asm("ld.global.L1::evict_last.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(w) : "l"(p), "l"(policy));
    else asm("ld.global.cs.u32 %0, [%1];" : "=r"(w) : "l"(p));
    return W(w);
  } else if constexpr (sizeof(W) == 2) {
    static_assert(std::is_unsigned_v<W>);
    unsigned short w;
    if constexpr (KeepInL1)
      asm("ld.global.L1::evict_last.L2::cache_hint.u16 %0, [%1], %2;" : "=h"(w) : "l"(p), "l"(policy));
    else asm("ld.global.cs.u16 %0, [%1];" : "=h"(w) : "l"(p));
    return W(w);
  } else {
    static_assert(std::is_unsigned_v<W> && sizeof(W) == 1);
    unsigned short w;
    if constexpr (KeepInL1)
      asm("ld.global.L1::evict_last.L2::cache_hint.u8 %0, [%1], %2;" : "=h"(w) : "l"(p), "l"(policy));
    else asm("ld.global.cs.u8 %0, [%1];" : "=h"(w) : "l"(p));
    return W(w);
  }
}
// One word of 1, 2, 4, 8 or 16 bytes of a record, kept in L1 (L1::evict_last) and evict-first in L2
// (an evict-first cache policy): the loads of a record's other words, which cover the same sectors
// across the warp's lanes, then find them in L1. With ld.global.cs (evict-first in L1 as well)
// those sectors were gone before the last word's load came, where a grid of one wave streamed an
// input of 2 to 4x L2 through L2 after the bench's flush: 36-byte records of floats at 2^22
// (151 MB) took 74.4 us against CUB's 68.6 (below sm_80, which has neither createpolicy nor cache
// hints, they still are loaded so). H100, record_probe: that row 0.885x of the time with this
// (1.04x CUB); plain loads (evict-normal in L2) fixed it too but took 1.02-1.25x the time from
// 2^20 to 2^23.
template <class W>
__device__ __forceinline__ W load_record_word(const W* p) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return load_word<false>(p, 0);  // createpolicy and cache hints need sm_80
#else
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return load_word<true>(p, policy);
#endif
}
template <std::size_t Bytes>
using unsigned_word_t = std::conditional_t<
    Bytes == 1, std::uint8_t,
    std::conditional_t<Bytes == 2, std::uint16_t, std::conditional_t<Bytes == 4, std::uint32_t, std::uint64_t>>>;

// EvictFirst: ld.global.cs, whose lines L2 evicts first (vectors of records spanning several
// words: detail::load_record_word, above); otherwise a plain load. A kernel template
// argument, not a runtime choice: each runtime choice measured slowed some kernels (H100: a C++
// branch between the two loads made the compiler keep two copies of the loop, int8 argmax twice
// as slow; both loads predicated in one asm statement, int32 sums of 2^16-2^20 8% slower; an L2
// cache policy per launch, 1-2% slower from 2^14 to 2^20).
template <bool EvictFirst>
struct VectorLoad {
  template <class V>
  __device__ __forceinline__ V operator()(const V* p) const {
    static_assert(sizeof(V) % 16 == 0 && alignof(V) >= 16, "whole 16-byte words only");
    if constexpr (sizeof(V) > 16) {
      // A vector of records spanning several 16-byte words (grid/vector_split.hpp): one load per
      // word, where the compiler might copy a struct of 1-byte-aligned records byte by byte.
      // Evict-first ones kept in L1 as a record's words are (detail::load_record_word): the
      // warp's loads of one word cover half of each sector that the next word's cover again.
      // H100, record_probe: 5-byte records (80-byte vectors) at 2^24 0.94-0.96x of ld.global.cs's
      // time; 48-byte vectors unchanged.
      constexpr unsigned words = sizeof(V) / 16;
      const auto* q = reinterpret_cast<const uint4*>(p);
      uint4 w[words];
#pragma unroll
      for (unsigned k = 0; k < words; ++k) {
        if constexpr (EvictFirst) w[k] = detail::load_record_word(q + k);
        else w[k] = q[k];
      }
      V r;
      __builtin_memcpy(&r, w, sizeof r);
      return r;
    } else if constexpr (EvictFirst) {
      return detail::load_word<false>(p, 0);
    } else {
      return *p;
    }
  }
};
using PlainLoad = VectorLoad<false>;

// How many loads load_record takes for a record of T: one per word of its alignment (at most 16
// bytes).
template <class T>
inline constexpr std::size_t record_loads_v = sizeof(T) / (alignof(T) < 16 ? alignof(T) : 16);

// A record read whole, one per load (RecordSource in agent/sources.cuh), evict-first in L2 where
// the kernel's vectors are (detail::load_record_word): in words of its alignment (at most 16
// bytes), as the compiler splits a plain load of it.
template <bool EvictFirst, class T>
__device__ __forceinline__ T load_record(const VectorLoad<EvictFirst>&, const T* p) {
  if constexpr (!EvictFirst) {
    return *p;
  } else {
    constexpr std::size_t align = alignof(T) < 16 ? alignof(T) : 16;
    using W = std::conditional_t<align == 16, uint4, detail::unsigned_word_t<align>>;
    constexpr std::size_t words = record_loads_v<T>;
    W w[words];
#pragma unroll
    for (std::size_t k = 0; k < words; ++k) w[k] = detail::load_record_word(reinterpret_cast<const W*>(p) + k);
    T r;
    __builtin_memcpy(&r, w, sizeof r);
    return r;
  }
}

// A load called where the 32 lanes of a warp load consecutive vectors together, lane l + 1 the
// vector after lane l's (the whole batches of agent/thread_partial.cuh): a shifted load
// (thread/shifted_load.cuh) then takes the word it shares with the next lane from that lane, and
// in a block of StagingWarps warps (0: the one-block kernel, which does not stage) vectors of many
// words may be loaded by the warp together and handed round through shared memory (ArraySource in
// agent/sources.cuh).
template <class Load, unsigned StagingWarps = 0>
struct WarpContiguous : Load {};
template <class Load>
inline constexpr bool is_warp_contiguous_v = false;
template <class Load, unsigned StagingWarps>
inline constexpr bool is_warp_contiguous_v<WarpContiguous<Load, StagingWarps>> = true;
template <class Load>
inline constexpr unsigned staging_warps_v = 0;
template <class Load, unsigned StagingWarps>
inline constexpr unsigned staging_warps_v<WarpContiguous<Load, StagingWarps>> = StagingWarps;

}  // namespace gpureduce::detail
