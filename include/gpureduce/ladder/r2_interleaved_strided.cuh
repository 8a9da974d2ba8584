// r2 - interleaved addressing with a strided index: no divergence, bank conflicts.
//
// Changed from r1: thread t works on element 2*s*t instead of testing t % 2s, so the active threads
// are the first block/2s ones - whole warps are either fully busy or idle, and idle warps are not
// scheduled - and the integer division is gone. What limits it: at stride s, lane t touches word
// 2*s*t, so for s >= 1 lanes 16 apart (s = 1), 8 apart (s = 2), ... hit the same shared-memory bank
// and the warp's access is split into 2, 4, ... serial transactions.
#pragma once

#include <gpureduce/ladder/launch_multipass.cuh>
#include <gpureduce/ladder/r1_interleaved_divergent.cuh>

namespace gpureduce::ladder::r2 {
using namespace gpureduce::detail;

template <class T, class Op>
__global__ void interleaved_strided_kernel(const T* in, std::uint64_t n, T* out, Op op) {
  T* sdata = dynamic_shared<T>();
  const unsigned t = threadIdx.x;
  r1::load_one_per_thread(in, n, sdata, op);
  for (unsigned s = 1; s < blockDim.x; s *= 2) {
    const unsigned index = 2 * s * t;
    if (index < blockDim.x) sdata[index] = op(sdata[index], sdata[index + s]);
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = sdata[0];
}

using r1::partition;
using r1::workspace_bytes;

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return launch_multipass(interleaved_strided_kernel<T, Sum>, ctx.block * sizeof(T), in, n, out, ctx,
                          [&](std::uint64_t m) { return partition(m, ctx.block); });
}

}  // namespace gpureduce::ladder::r2
