// Turns a run-time block size into a compile-time one, for kernels templated on BlockThreads.
#pragma once

#include <cuda_runtime_api.h>

#include <type_traits>

namespace gpureduce::detail {

// Calls f(std::integral_constant<unsigned, B>{}) for block in {64, 128, 256, 512, 1024}; any other
// size returns cudaErrorInvalidValue without calling f.
template <class F>
cudaError_t dispatch_block_size(unsigned block, F&& f) {
  switch (block) {
    case 64: return f(std::integral_constant<unsigned, 64>{});
    case 128: return f(std::integral_constant<unsigned, 128>{});
    case 256: return f(std::integral_constant<unsigned, 256>{});
    case 512: return f(std::integral_constant<unsigned, 512>{});
    case 1024: return f(std::integral_constant<unsigned, 1024>{});
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace gpureduce::detail
