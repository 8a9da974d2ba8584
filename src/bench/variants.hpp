// Everything the ladder table times, behind one interface: the registry's rungs and the reference
// libraries (CUB, Thrust, cuBLAS). The GPU tests verify the same list.
#pragma once

#include "cuda_check.hpp"
#include "device_info.hpp"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gpureduce {

template <class T>
struct Variant {
  std::string name;
  std::string adds;
  bool abs_sum = false;         // computes sum |x| (cuBLAS asum), verified against that
  bool result_on_host = false;  // thrust::reduce returns the value to the host
  // Enqueues the reduction of in[0, n) into *out_device (or *out_host when result_on_host).
  std::function<cudaError_t(const T* in, std::uint64_t n, T* out_device, T* out_host, cudaStream_t)> run;
};

// Device state the variants share: the rungs' workspace, CUB's temporary storage, a cuBLAS handle.
class VariantResources {
 public:
  explicit VariantResources(const DeviceInfo& device);
  ~VariantResources();
  VariantResources(const VariantResources&) = delete;
  VariantResources& operator=(const VariantResources&) = delete;

  const DeviceInfo& device() const { return device_; }
  // The scratch buffer, grown to at least `bytes` and zero-filled; synchronises the device.
  // Variants take disjoint slices of it, so a rung that relies on zeroed workspace (r9) finds it
  // zero and keeps it so.
  void* scratch(std::size_t bytes);
  void* cublas() const { return cublas_; }

 private:
  DeviceInfo device_;
  DeviceBuffer<unsigned char> scratch_;
  void* cublas_ = nullptr;
};

// The rungs (block threads per block) and then the references, for element type T. Each variant
// prepares its workspace for n elements here, outside any timed region.
template <class T>
std::vector<Variant<T>> make_variants(VariantResources& res, unsigned block, std::uint64_t n);

}  // namespace gpureduce
