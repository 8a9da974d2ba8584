// Programmatic dependent launch (sm_90+). A reduction launched with Options::dependent_launch may
// start while the stream's previous kernel is still finishing: its blocks are scheduled as that
// kernel's blocks exit, and each waits here, before touching global memory, until that kernel has
// completed and its writes are visible. Launched the ordinary way, the wait returns at once.
// The kernels never signal their own dependents early (griddepcontrol.launch_dependents): a kernel
// launched after one of them as a dependent is scheduled as its blocks exit. In chains of sums that
// saved more than a signal right after the wait (H100, 2^10-2^22 int32: 1.19-1.35 us per sum
// against 0.85-1.19; docs/design.md, "Dependent launch").
#pragma once

namespace gpureduce::detail {

__device__ __forceinline__ void wait_for_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

}  // namespace gpureduce::detail
