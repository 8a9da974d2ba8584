// Portability macros shared by every layer. This header compiles with the host compiler, so the
// arithmetic marked GPUREDUCE_HD below it runs (and is tested) on the CPU as well as the GPU.
#pragma once

#if defined(__CUDACC__)
#define GPUREDUCE_HD __host__ __device__ __forceinline__
#else
#define GPUREDUCE_HD inline
#endif

namespace gpureduce {
inline constexpr int warp_threads = 32;
}  // namespace gpureduce
