// A thread's 16-byte copies from global to shared memory that take no registers while in flight
// (cp.async, sm_80+): the staged warp fold keeps 2 KB a warp in flight at 64 registers a thread.
#pragma once

namespace gpureduce::detail {

// Starts copying the 16 bytes at `from` (global memory, 16-byte aligned) to `to` (shared memory,
// 16-byte aligned), bypassing L1.
__device__ __forceinline__ void copy_async_16(void* to, const void* from) {
  const unsigned slot = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(slot), "l"(from) : "memory");
}

// Waits for this thread's copies; other threads see them after a barrier (__syncwarp for a warp).
__device__ __forceinline__ void copy_async_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }

}  // namespace gpureduce::detail
