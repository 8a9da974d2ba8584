// The driver's functions the library calls, reached through the runtime's entry points, so that
// neither the library nor its users link libcuda.
#pragma once

#include <cuda.h>  // types only
#include <cuda_runtime_api.h>

namespace gpureduce::detail {

// Sets *fn to the driver's function `name` of the CUDA 12.0 ABI, or to nullptr where the driver
// has none (a failed lookup leaves no runtime error behind).
template <class Fn>
void find_driver_entry_point(const char* name, Fn** fn) {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult found{};
#if CUDART_VERSION >= 12050
  const cudaError_t r = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
#else
  const cudaError_t r = cudaGetDriverEntryPoint(name, &p, cudaEnableDefault, &found);
#endif
  if (r != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    p = nullptr;
  }
  *fn = reinterpret_cast<Fn*>(p);
}

}  // namespace gpureduce::detail
