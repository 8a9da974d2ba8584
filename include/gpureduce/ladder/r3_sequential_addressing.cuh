// r3 - sequential addressing: no divergence, no bank conflicts.
//
// Changed from r2: the stride runs downwards (block/2, block/4, ... 1) and thread t adds element
// t + s into element t. Active threads stay contiguous as in r2, and now a warp's 32 lanes read 32
// consecutive words - 32 different banks - so each shared-memory access is one transaction. What
// limits it: half the threads do nothing after loading their one element, and the last five steps
// run a single, partly idle warp with a full block barrier after each.
#pragma once

#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r1_interleaved_divergent.cuh>

namespace gpureduce::ladder::r3 {
using namespace gpureduce::detail;

// sdata[0] = reduction of sdata[0, 2*from); steps from, from/2, ..., down to (and including) to.
template <class T, class Op>
__device__ __forceinline__ void sequential_tree(T* sdata, unsigned from, unsigned to, Op op) {
  const unsigned t = threadIdx.x;
  for (unsigned s = from; s >= to; s >>= 1) {
    if (t < s) sdata[t] = op(sdata[t], sdata[t + s]);
    __syncthreads();
  }
}

template <class T, class Op>
__global__ void sequential_addressing_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  r1::load_one_per_thread(in, n, sdata, op);
  sequential_tree(sdata, blockDim.x / 2, 1, op);
  if (threadIdx.x == 0) out[blockIdx.x] = sdata[0];
}

using r1::partition;
using r1::workspace_bytes;

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(sequential_addressing_kernel<T, Sum>, ctx.block * sizeof(T), in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block); });
}

}  // namespace gpureduce::ladder::r3
