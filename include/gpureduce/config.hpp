// Portability macros shared by every layer. This header compiles with the host compiler, so the
// arithmetic marked GPUREDUCE_HD below it runs (and is tested) on the CPU as well as the GPU.
#pragma once

#if defined(__CUDACC__)
#define GPUREDUCE_HD __host__ __device__ __forceinline__
// Before a GPUREDUCE_HD template that calls a caller's functor: host code passes host lambdas,
// which nvcc would otherwise warn about (as CCCL's _CCCL_EXEC_CHECK_DISABLE).
#define GPUREDUCE_EXEC_CHECK_DISABLE _Pragma("nv_exec_check_disable")
// A rare path kept out of line, so that its code exists once rather than at every unrolled site.
#define GPUREDUCE_HD_NOINLINE __host__ __device__ __noinline__
#else
#define GPUREDUCE_HD inline
#define GPUREDUCE_EXEC_CHECK_DISABLE
#define GPUREDUCE_HD_NOINLINE inline
#endif

// `#pragma unroll` for the device compilation only, in code the host compiler also sees (the
// GPUREDUCE_HD headers): host compilers do not know it and warn under -Wall (-Wunknown-pragmas),
// which fails the builds of users who add -Werror.
#if defined(__CUDA_ARCH__)
#define GPUREDUCE_UNROLL _Pragma("unroll")
#define GPUREDUCE_NO_UNROLL _Pragma("unroll 1")
#else
#define GPUREDUCE_UNROLL
#define GPUREDUCE_NO_UNROLL
#endif

namespace gpureduce::detail {
inline constexpr int warp_threads = 32;
}  // namespace gpureduce::detail
