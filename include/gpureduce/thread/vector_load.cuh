// How a thread loads the 16-byte vectors of the input body: plainly, or with an L2 eviction
// priority (the grid kernel; dispatch picks the priority per call, tuning_sm90.hpp says when).
//
// Why a priority: a kernel that runs after another one's writes finds L2 full of their dirty lines.
// With normal loads it evicts those lines, and their write-back competes with its own reads for
// DRAM. When a producer has just written the input, it also evicts the input's own resident tail
// before reaching it. Evict-first loads replace each other and leave those lines in L2. On the
// H100 this took a 2^24 int32 read from 32.9 to 28.5 us after a memset of 2x L2, and from 27.1 to
// 18.9 us after a memset of the input itself. Reads after a clean L2 were unchanged
// (bench/results/*_l2policy_*.txt).
#pragma once

#include <cstdint>

namespace gpureduce {

struct PlainLoad {
  template <class V>
  __device__ __forceinline__ V operator()(const V* p) const {
    return *p;
  }
};

// 16-byte loads through the read-only path with an L2 policy made once per thread: evict-first, or
// evict-unchanged, which read as fast as plain loads at every size and L2 state measured (a policy
// of normal priority read 0.4% slower; a branch between hinted and plain loads made ptxas duplicate
// the loop and slowed int8 argmax twofold: bench/results/*_l2policy_*.txt).
class L2PolicyLoad {
 public:
  __device__ __forceinline__ explicit L2PolicyLoad(bool evict_first) {
#if __CUDA_ARCH__ >= 800
    if (evict_first)
      asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy_));
    else
      asm("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(policy_));
#endif
  }

  template <class V>
    requires(sizeof(V) == 16 && alignof(V) >= 16)
  __device__ __forceinline__ V operator()(const V* p) const {
#if __CUDA_ARCH__ >= 800
    uint4 w;
    asm("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
        : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
        : "l"(p), "l"(policy_));
    V r;
    __builtin_memcpy(&r, &w, sizeof r);
    return r;
#else
    return *p;  // no cache policies before sm_80
#endif
  }

 private:
  std::uint64_t policy_ = 0;
};

}  // namespace gpureduce
