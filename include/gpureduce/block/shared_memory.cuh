// Typed view of the kernel's dynamic shared memory (extern __shared__ arrays cannot be templated
// on the element type directly: every instantiation would redeclare one symbol with another type).
#pragma once

namespace gpureduce::detail {

template <class T>
__device__ __forceinline__ T* dynamic_shared() {
  extern __shared__ __align__(16) unsigned char gpureduce_dynamic_smem[];
  return reinterpret_cast<T*>(gpureduce_dynamic_smem);
}

}  // namespace gpureduce::detail
