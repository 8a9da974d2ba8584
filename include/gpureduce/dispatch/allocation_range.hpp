// Whether n elements from a pointer stay inside the allocation it lies in: a count of bytes passed
// where elements were meant, or a count from another buffer, would have the kernel read past the
// end: from a neighbouring allocation with no fault where one lies close behind (cudaMalloc's and
// cudaMallocAsync's of 4000 bytes lie 4096 apart; past_end_probe on an H100 summed the next array
// into the result, with no error), or with an illegal address that ends the context.
//
// The driver reports the allocation (CU_POINTER_ATTRIBUTE_RANGE_START_ADDR and RANGE_SIZE) as
// exactly what cudaMalloc, cudaMallocAsync, cudaMallocManaged, cudaMallocHost and cudaHostRegister
// were asked for, interior pointers included; as the whole reservation for virtual memory mapped
// by hand (cuMemAddressReserve, where PyTorch's expandable segments map handle after handle; the
// per-handle cuMemGetAddressRange would refuse an array across two); and as nothing (size 0) for
// pageable memory, which is then not checked. The query takes 40-81 ns of host time against
// cudaPointerGetAttributes' 76-145 (H100).
#pragma once

#include <gpureduce/dispatch/driver_entry.hpp>

#include <cuda.h>  // types only
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpureduce::detail {

struct AllocationRange {
  std::uintptr_t start = 0;
  std::uint64_t size = 0;  // 0: unknown
};

// Whether elements [0, n) of element_bytes each from p lie in r; true where r says nothing of p.
constexpr bool fits_in(AllocationRange r, std::uintptr_t p, std::uint64_t n, std::uint64_t element_bytes) {
  if (r.size == 0 || p < r.start || p - r.start >= r.size) return true;
  return n <= (r.size - (p - r.start)) / element_bytes;
}

// Whether an object of q_bytes at q shares a byte with elements [0, n) of element_bytes each from
// p (a result inside the input). Without overflow for any n.
constexpr bool overlaps_elements(std::uintptr_t p, std::uint64_t n, std::uint64_t element_bytes, std::uintptr_t q,
                                 std::uint64_t q_bytes) {
  if (n == 0) return false;
  return q >= p ? (q - p) / element_bytes < n : p - q < q_bytes;
}

inline AllocationRange allocation_range(const void* p) {
  using GetAttributes = CUresult(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
  static GetAttributes* const get = [] {
    GetAttributes* f = nullptr;
    find_driver_entry_point("cuPointerGetAttributes", &f);
    return f;
  }();
  if (get == nullptr) return {};
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  CUdeviceptr start = 0;
  std::size_t size = 0;
  void* values[] = {&start, &size};
  if (get(2, which, values, reinterpret_cast<CUdeviceptr>(p)) != CUDA_SUCCESS) return {};
  return {std::uintptr_t(start), std::uint64_t(size)};
}

}  // namespace gpureduce::detail
