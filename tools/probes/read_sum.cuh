// The probes' stand-in for the production grid's reads (tools/probes): an int32 sum of int4
// vectors, a block's batch `Unroll` x `Threads` vectors one grid of batches apart, every load of a
// batch in flight before any is used. load(p) reads the vector at p.
#pragma once

template <unsigned Threads, unsigned Unroll, class Load>
__device__ __forceinline__ unsigned long long read_sum(const int4* in, unsigned long long vectors, Load load) {
  using u64 = unsigned long long;
  u64 acc = 0;
  for (u64 base = u64(blockIdx.x) * Threads * Unroll; base < vectors; base += u64(gridDim.x) * Threads * Unroll) {
    int4 x[Unroll];
#pragma unroll
    for (unsigned k = 0; k < Unroll; ++k) {
      const u64 i = base + k * Threads + threadIdx.x;
      x[k] = i < vectors ? load(in + i) : make_int4(0, 0, 0, 0);
    }
#pragma unroll
    for (unsigned k = 0; k < Unroll; ++k) acc += u64(unsigned(x[k].x + x[k].y + x[k].z + x[k].w));
  }
  return acc;
}
