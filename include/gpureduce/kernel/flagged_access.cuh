// The 16-byte accesses of the grid workspace's flagged slots (grid/flagged_partial.hpp): one
// vector store or load each, relaxed at device scope, so a slot's payload and its flag are seen
// together or not at all (as CUB's decoupled look-back relies on for its 16-byte tile
// descriptors). Used by the plain grids' combiner (reduce_kernels.cuh) and the exact sum's
// (exact_kernel.cuh).
#pragma once

#include <gpureduce/grid/flagged_partial.hpp>

namespace gpureduce::detail {

__device__ __forceinline__ void store_flagged(FlaggedPartial* p, FlaggedPartial v) {
  asm volatile("st.relaxed.gpu.global.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(v.lo), "l"(v.hi) : "memory");
}
__device__ __forceinline__ FlaggedPartial load_flagged(const FlaggedPartial* p) {
  FlaggedPartial v;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(v.lo), "=l"(v.hi) : "l"(p) : "memory");
  return v;
}

}  // namespace gpureduce::detail
