// r5 - the last warp unrolled, warp-synchronously.
//
// Changed from r4: the block-wide tree stops at stride 64; the last six steps (32 ... 1) involve
// one warp only, so they run unrolled with __syncwarp() instead of __syncthreads(): no loop, no
// block barrier, the other warps are free to exit. The classic version relies on `volatile` and implicit
// lock-step execution; since Volta, lanes of a warp may be scheduled independently, so a lane can
// read sdata[t + 16] before lane t + 16 has written it. Each step therefore reads, syncs the warp,
// writes, and syncs again. Needs block >= 64.
#pragma once

#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r4_first_add_during_load.cuh>

namespace gpureduce::ladder::r5 {
using namespace gpureduce::detail;

// Called by warp 0 (all 32 lanes) once sdata[0, 64) holds the values to reduce; lane 0 returns the
// reduction. Used by r5-r7.
template <class T, class Op>
__device__ __forceinline__ T last_warp_reduce(T* sdata, Op op) {
  const unsigned t = threadIdx.x;
  T v = op(sdata[t], sdata[t + 32]);
  sdata[t] = v;
  __syncwarp();
#pragma unroll
  for (unsigned s = 16; s > 0; s >>= 1) {
    v = op(v, sdata[t + s]);
    __syncwarp();  // every lane has read before any lane overwrites
    sdata[t] = v;
    __syncwarp();  // every lane has written before the next step reads
  }
  return v;
}

template <class T, class Op>
__global__ void unrolled_last_warp_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  r4::load_two_per_thread(in, n, sdata, op);
  r3::sequential_tree(sdata, blockDim.x / 2, 64, op);
  if (threadIdx.x < warp_threads) {
    const T v = last_warp_reduce(sdata, op);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
  }
}

using r4::partition;
using r4::workspace_bytes;

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(unrolled_last_warp_kernel<T, Sum>, ctx.block * sizeof(T), in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block); });
}

}  // namespace gpureduce::ladder::r5
