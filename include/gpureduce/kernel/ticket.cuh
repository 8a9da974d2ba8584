// The ticket counter of the grid kernel's ticketed end (reduce_kernels.cuh): each block draws a
// ticket after writing its partial; the block that draws the last one combines the partials. In
// PTX, rather than through cuda::atomic_ref, whose header costs every caller's compile seconds.
#pragma once

namespace gpureduce::detail {

// The counter's value before this draw. acq_rel at device scope: releases the drawing block's
// partial, and the last drawer acquires every partial released before its draw.
__device__ __forceinline__ unsigned draw_ticket(unsigned* counter) {
  unsigned before;
  asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(counter) : "memory");
  return before;
}

// Zeroes the counter for the next launch (relaxed: the next launch starts after this one ends).
__device__ __forceinline__ void reset_tickets(unsigned* counter) {
  asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(counter) : "memory");
}

}  // namespace gpureduce::detail
