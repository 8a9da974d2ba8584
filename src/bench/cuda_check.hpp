// CUDA errors become exceptions carrying the call and the CUDA message.
#pragma once

#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace gpureduce {

class cuda_error : public std::runtime_error {
 public:
  cuda_error(cudaError_t e, const char* what)
      : std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")") {}
};

inline void cuda_check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw cuda_error(e, what);
}

#define GPUREDUCE_CUDA(call) ::gpureduce::cuda_check((call), #call)

// A cudaMalloc'ed buffer, freed on scope exit.
template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) GPUREDUCE_CUDA(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(o.ptr_), count_(o.count_) { o.ptr_ = nullptr; o.count_ = 0; }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(ptr_, o.ptr_);
    std::swap(count_, o.count_);
    return *this;
  }
  ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace gpureduce
