// Whether a device can dereference a pointer, from what cudaPointerGetAttributes says of it and
// whether the device reads pageable host memory. Kept apart from the query so the CPU tests cover
// every case.
#pragma once

#include <cuda_runtime_api.h>

namespace gpureduce::detail {

enum class Reach {
  yes,           // the device can dereference it
  host,          // host memory the device cannot read
  other_device,  // another device's memory out of this one's reach (no peer or pool access)
};

// The runtime gives a device pointer for the device's own memory, managed memory, mapped pinned
// host memory and another device's memory with peer (or memory-pool) access granted; a null one
// for pageable host memory and for another device's memory out of reach (device_access_probe on
// two H200s). A device with pageable memory access (cudaDevAttrPageableMemoryAccess: HMM on Linux,
// ATS on Grace Hopper) reads host memory at its own address all the same, as a kernel launched
// there by hand or CUB would; on the H100 machines we measure on it is 0, and a kernel reading
// malloc'd memory faults with an illegal address.
constexpr Reach reach_of(cudaMemoryType type, bool has_device_pointer, bool pageable_memory_access) {
  if (has_device_pointer) return Reach::yes;
  if (type == cudaMemoryTypeDevice) return Reach::other_device;
  return pageable_memory_access ? Reach::yes : Reach::host;
}

// A caller's workspace holds the flags that one block polls while others store them: device or
// managed memory only, never host memory, pinned or pageable, which no test or measurement covers.
constexpr Reach workspace_reach_of(cudaMemoryType type, bool has_device_pointer) {
  if (type != cudaMemoryTypeDevice && type != cudaMemoryTypeManaged) return Reach::host;
  return has_device_pointer ? Reach::yes : Reach::other_device;
}

}  // namespace gpureduce::detail
