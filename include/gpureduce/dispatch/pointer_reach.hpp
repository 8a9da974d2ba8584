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
  elsewhere,     // registered host memory the device reads at another address only
};

// What cudaPointerGetAttributes gives as the device's address for a pointer p: none, p itself, or
// another address.
enum class DeviceAddress { none, same, other };

// The runtime gives a device address for the device's own memory, managed memory, mapped pinned
// host memory and another device's memory with peer (or memory-pool) access granted; none for
// pageable host memory and for another device's memory out of reach. With unified addressing the
// address is p itself (every kind of memory, seen on two H200s), except for host memory
// registered on a device that cannot use the host's address for it
// (cudaDevAttrCanUseHostPointerForRegisteredMem 0; 1 on the H100 and H200), where a kernel must be
// given cudaHostGetDevicePointer's. A device with pageable memory access
// (cudaDevAttrPageableMemoryAccess: HMM on Linux, ATS on Grace Hopper) reads host memory at its own
// address all the same, as a kernel launched there by hand or CUB would; on the H100 and H200
// machines measured it is 0, and a kernel reading malloc'd memory faults with an illegal address.
constexpr Reach reach_of(cudaMemoryType type, DeviceAddress address, bool pageable_memory_access) {
  if (address == DeviceAddress::same) return Reach::yes;
  if (type == cudaMemoryTypeDevice) return Reach::other_device;
  if (pageable_memory_access) return Reach::yes;
  return address == DeviceAddress::other ? Reach::elsewhere : Reach::host;
}

// A caller's workspace holds the flags that one block polls while others store them: device or
// managed memory only, never host memory, pinned or pageable, which no test or measurement covers.
constexpr Reach workspace_reach_of(cudaMemoryType type, DeviceAddress address) {
  if (type != cudaMemoryTypeDevice && type != cudaMemoryTypeManaged) return Reach::host;
  return address == DeviceAddress::same ? Reach::yes : Reach::other_device;
}

}  // namespace gpureduce::detail
