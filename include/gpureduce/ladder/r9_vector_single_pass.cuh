// r9 - 16-byte vector loads, shuffles, and a single launch (the last block combines).
//
// Changed from r8: (1) the body of the array is read as 16-byte vectors (LDG.128: 4 int/float or 2
// double per load), Unroll of them issued back to back per thread before any is used, so each
// thread keeps 64 bytes in flight and the memory system sees a quarter of the load instructions;
// a scalar head up to the first aligned address and a scalar tail are peeled off, so any pointer
// and any n work. (2) No second launch and no host loop: each block writes its partial, then
// increments a device-wide counter; the block that draws the last ticket knows every partial is
// written, reduces them in index order (so the result is the same on every run) and writes the
// answer. The counter lives in the zero-filled workspace and is reset by that last block, so it is
// zero again for the next launch on the stream. Workspace: the counter, then one partial per block.
#pragma once

#include <gpureduce/block/block_reduce.cuh>
#include <gpureduce/dispatch/block_size.hpp>
#include <gpureduce/grid/vector_split.hpp>
#include <gpureduce/ladder/launch_context.hpp>
#include <gpureduce/thread/operators.hpp>

#include <cuda/atomic>

namespace gpureduce::ladder::r9 {
using namespace gpureduce::detail;

// Four vectors of 16 bytes in flight per thread: enough bytes outstanding per SM to cover HBM3
// latency at full occupancy (H100: 2048 threads x 64 B = 128 KB per SM).
inline constexpr int unroll = 4;
inline constexpr std::size_t partials_offset = 16;  // bytes: the counter, padded to a vector

template <class T>
struct alignas(vector_bytes) Vector {
  static constexpr unsigned size = vector_bytes / sizeof(T);
  T v[size];
};

template <class T, class Op>
__device__ __forceinline__ T reduce_vector(T acc, const Vector<T>& x, Op op) {
#pragma unroll
  for (unsigned k = 0; k < Vector<T>::size; ++k) acc = op(acc, x.v[k]);
  return acc;
}

template <unsigned BlockThreads, class T, class Op>
__global__ void __launch_bounds__(BlockThreads)
    vector_single_pass_kernel(const T* __restrict__ in, std::uint64_t n, T* out, void* workspace, Op op) {
  __shared__ T warp_partials[warp_threads];
  __shared__ bool is_last_block;
  unsigned* counter = static_cast<unsigned*>(workspace);
  T* partials = reinterpret_cast<T*>(static_cast<unsigned char*>(workspace) + partials_offset);

  const VectorSplit split = VectorSplit::make(reinterpret_cast<std::uintptr_t>(in), n, sizeof(T));
  const auto* body = reinterpret_cast<const Vector<T>*>(in + split.head);
  T acc = Op::template identity<T>();
  for_each_scalar_edge(split, Vector<T>::size, std::uint64_t(blockIdx.x) * BlockThreads + threadIdx.x,
                       [&](std::uint64_t i) { acc = op(acc, in[i]); });
  VectorGrid<unroll>{split.vectors, BlockThreads, gridDim.x}.for_each(
      blockIdx.x, threadIdx.x,
      [&](std::uint64_t v) {
        Vector<T> x[unroll];
#pragma unroll
        for (int k = 0; k < unroll; ++k) x[k] = body[v + std::uint64_t(k) * BlockThreads];
#pragma unroll
        for (int k = 0; k < unroll; ++k) acc = reduce_vector(acc, x[k], op);
      },
      [&](std::uint64_t v) { acc = reduce_vector(acc, body[v], op); });

  const T block_total = block_reduce(acc, op, warp_partials);
  if (threadIdx.x == 0) {
    partials[blockIdx.x] = block_total;
    // acq_rel: releases this block's partial, and the last block acquires everyone's.
    const unsigned ticket =
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).fetch_add(1, cuda::memory_order_acq_rel);
    is_last_block = ticket == gridDim.x - 1;
  }
  __syncthreads();
  if (!is_last_block) return;

  T v = Op::template identity<T>();
  for (unsigned i = threadIdx.x; i < gridDim.x; i += BlockThreads) v = op(v, __ldcg(partials + i));
  v = block_reduce(v, op, warp_partials);
  if (threadIdx.x == 0) {
    *out = v;
    cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*counter).store(0, cuda::memory_order_relaxed);
  }
}

template <unsigned BlockThreads, class T>
std::uint64_t max_blocks(DeviceShape device) {
  static const int per_sm = [] {
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, vector_single_pass_kernel<BlockThreads, T, Sum>,
                                                  BlockThreads, 0);
    return blocks > 0 ? blocks : 1;
  }();
  return std::uint64_t(per_sm) * device.sm_count;
}

inline std::size_t workspace_bytes(std::uint64_t, std::size_t elem_bytes, unsigned block, DeviceShape device) {
  return partials_offset + device.max_resident_blocks(block) * elem_bytes;
}

template <class T>
cudaError_t launch(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx) {
  return dispatch_block_size(ctx.block, [&](auto block) {
    constexpr unsigned B = decltype(block)::value;
    const VectorSplit split = VectorSplit::make(reinterpret_cast<std::uintptr_t>(in), n, sizeof(T));
    const std::uint64_t grid = VectorGrid<unroll>{split.vectors, B, max_blocks<B, T>(ctx.device)}.grid();
    vector_single_pass_kernel<B><<<unsigned(grid), B, 0, ctx.stream>>>(in, n, out, ctx.workspace, Sum{});
    return cudaGetLastError();
  });
}

}  // namespace gpureduce::ladder::r9
