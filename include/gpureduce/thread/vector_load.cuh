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

// 16-byte loads, evict-first (ld.global.cs) or plain, chosen per launch. One asm statement holds
// both, predicated, so the compiler keeps one copy of the loop: written as a C++ branch, it made
// two (int8 argmax twice as slow). An L2 cache policy (createpolicy) of evict-first reads as .cs
// does, but costs an instruction the first load waits for (bench/results/*_l2policy_*.txt).
class StreamingLoad {
 public:
  __device__ __forceinline__ explicit StreamingLoad(bool evict_first) : evict_first_(evict_first) {}

  template <class V>
    requires(sizeof(V) == 16 && alignof(V) >= 16)
  __device__ __forceinline__ V operator()(const V* p) const {
    uint4 w;
    asm("{\n\t.reg .pred ef;\n\t"
        "setp.ne.u32 ef, %5, 0;\n\t"
        "@ef ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];\n\t"
        "@!ef ld.global.v4.u32 {%0, %1, %2, %3}, [%4];\n\t}"
        : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w)
        : "l"(p), "r"(unsigned(evict_first_)));
    V r;
    __builtin_memcpy(&r, &w, sizeof r);
    return r;
  }

 private:
  bool evict_first_;
};

}  // namespace gpureduce
