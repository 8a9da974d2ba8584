// Whether a grid could end without a hand-off (issue 3: the 2 MB rows at 2^18 that miss 0.7x of
// CUB's time by 0.1-0.3 us): every reading block adds its partial into the result with one
// atomic (red.global.add, no return), so no block waits for the others and the kernel ends when the
// last block's add is performed. The result must hold the identity before the first add, in one
// launch and on graph replay, so an extra block stores it and then releases a flag, whose value
// (a generation) every block learns from a ticket it draws at its start:
//   ticket word = generation << 32 | tickets drawn; the block that draws the last ticket of the
//   launch starts the next generation; the extra block stores the identity, then flag = g + 1
//   (st.release); a reader adds only once it has seen flag == g + 1 (acquire).
// Not part of the library: a stand-alone measurement, same protocol as `gpureduce bench` (a
// memset of twice the L2 before each sample, CUDA events), every way's samples alternating, run by
// `tools/device-run COMMIT atomicend`. 256 threads x 4 vectors of 16 bytes (16 KB) per block, as
// the library's grid, evict-first loads; int32 values summed into an unsigned 64-bit result.
//   read only     each block stores its partial; no combine: the floor of any grid
//   red zeroed    adds into a result zeroed before the sample (not a real call: the bound)
//   red late      the ticket protocol, the flag polled after the block's reduction
//   red early     the flag polled (acquire) right after the loads are issued, before they are used
//   red fence     the flag polled relaxed as early, one fence.acq_rel after the block's reduction
//   gpureduce     gpureduce::sum of the same bytes (int32 -> int64, or int64 -> int64)
//   CUB           DeviceReduce::Sum of the same
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <random>
#include <vector>

namespace {

using u64 = unsigned long long;
constexpr unsigned threads = 256, unroll = 4, warps = threads / 32;
constexpr unsigned flag_word = 16;  // ticket in word 0, flag in word 16: separate 128-byte lines
constexpr int samples = 101;

enum Way { read_only, red_zeroed, red_late, red_early, red_fence, lib32, lib64, cub32, cub64, ways };
const char* const names[ways] = {"read only", "red zeroed", "red late", "red early", "red fence",
                                 "gpureduce i32", "gpureduce i64", "CUB i32", "CUB i64"};

__device__ __forceinline__ u64 ld_acquire(const u64* p) {
  u64 v;
  asm volatile("ld.acquire.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ u64 ld_relaxed(const u64* p) {
  u64 v;
  asm volatile("ld.relaxed.gpu.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
  return v;
}
__device__ __forceinline__ void st_release(u64* p, u64 v) {
  asm volatile("st.release.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void st_relaxed(u64* p, u64 v) {
  asm volatile("st.relaxed.gpu.global.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}
__device__ __forceinline__ void red_add(u64* p, u64 v) {
  asm volatile("red.relaxed.gpu.global.add.u64 [%0], %1;" ::"l"(p), "l"(v) : "memory");
}

__device__ __forceinline__ u64 block_sum(u64 v) {
  __shared__ u64 part[warps];
  for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(~0u, v, d);
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x < 32) {
    v = threadIdx.x < warps ? part[threadIdx.x] : 0;
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(~0u, v, d);
  }
  return v;  // thread 0's
}

// The block's one batch of unroll x threads vectors (the grid has one block per batch).
struct Batch {
  int4 x[unroll];
  __device__ void load(const int4* in, u64 vectors) {
#pragma unroll
    for (unsigned k = 0; k < unroll; ++k) {
      const u64 i = u64(blockIdx.x) * threads * unroll + k * threads + threadIdx.x;
      x[k] = i < vectors ? __ldcs(in + i) : make_int4(0, 0, 0, 0);
    }
  }
  __device__ u64 sum() const {
    u64 a = 0;
#pragma unroll
    for (unsigned k = 0; k < unroll; ++k) a += u64(unsigned(x[k].x + x[k].y + x[k].z + x[k].w));
    return a;
  }
};

__global__ void __launch_bounds__(threads) read_only_kernel(const int4* in, u64 vectors, u64* partials) {
  Batch b;
  b.load(in, vectors);
  const u64 s = block_sum(b.sum());
  if (threadIdx.x == 0) partials[blockIdx.x] = s;
}

__global__ void __launch_bounds__(threads) red_zeroed_kernel(const int4* in, u64 vectors, u64* out) {
  Batch b;
  b.load(in, vectors);
  const u64 s = block_sum(b.sum());
  if (threadIdx.x == 0) red_add(out, s);
}

enum Poll { late, early, early_fence };

// gridDim.x - 1 reading blocks and the extra block that stores the identity.
template <Poll P>
__global__ void __launch_bounds__(threads) red_kernel(const int4* in, u64 vectors, u64* out, u64* ws) {
  const unsigned readers = gridDim.x - 1;
  u64 ticket = 0;
  if (threadIdx.x == 0) {
    ticket = atomicAdd(ws, 1ull);
  }
  if (blockIdx.x == readers) {
    if (threadIdx.x == 0) {
      const u64 g = ticket >> 32;
      if ((ticket & 0xffffffffu) == readers) st_relaxed(ws, (g + 1) << 32);
      *out = 0;
      st_release(ws + flag_word, g + 1);
    }
    return;
  }
  Batch b;
  b.load(in, vectors);
  const u64 g = ticket >> 32;
  if (threadIdx.x == 0 && (ticket & 0xffffffffu) == readers) st_relaxed(ws, (g + 1) << 32);
  if (P == early && threadIdx.x == 0)
    while (ld_acquire(ws + flag_word) != g + 1) {
    }
  if (P == early_fence && threadIdx.x == 0)
    while (ld_relaxed(ws + flag_word) != g + 1) {
    }
  const u64 s = block_sum(b.sum());
  if (threadIdx.x == 0) {
    if (P == late)
      while (ld_acquire(ws + flag_word) != g + 1) {
      }
    if (P == early_fence) asm volatile("fence.acq_rel.gpu;" ::: "memory");
    red_add(out, s);
  }
}

}  // namespace

int main() {
  ProbeSetup p = probe_setup();
  cudaStream_t s = p.stream;
  std::printf("%s; us, median of %d samples per way, L2 flushed (memset of 2x L2) before each\n",
              device_line().c_str(), samples);
  const std::size_t flush_bytes = 2 * p.l2_bytes;
  void* flush = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&flush, flush_bytes));
  gpureduce::GpuTimer timer(s, 0);  // flushes in `before`, with the way's own set-up after it
  u64 *ws = nullptr, *out = nullptr, *partials = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&ws, 256));
  GPUREDUCE_CUDA(cudaMemset(ws, 0, 256));
  GPUREDUCE_CUDA(cudaMalloc(&out, ways * sizeof(u64)));
  GPUREDUCE_CUDA(cudaMalloc(&partials, 4096 * sizeof(u64)));
  std::printf("%8s %6s", "bytes", "blocks");
  for (const char* name : names) std::printf(" %13s", name);
  std::printf("\n");
  int wrong = 0;
  std::mt19937 rng(12345);
  for (const std::size_t kb : {64, 256, 512, 1024, 1536, 2048, 4096}) {
    const std::size_t bytes = kb * 1024;
    const u64 vectors = bytes / 16;
    const unsigned blocks = unsigned((vectors + threads * unroll - 1) / (threads * unroll));
    std::vector<int> host(bytes / 4);
    for (int& v : host) v = int(rng() % 2001) - 1000;
    int* in = nullptr;
    GPUREDUCE_CUDA(cudaMalloc(&in, bytes));
    GPUREDUCE_CUDA(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    u64 want = 0;  // the kernels' sum: each vector's four int32 added in 32 bits, then in 64
    for (std::size_t i = 0; i < host.size(); i += 4)
      want += u64(unsigned(host[i] + host[i + 1] + host[i + 2] + host[i + 3]));
    std::int64_t want32 = 0, want64 = 0;
    for (int v : host) want32 += v;
    for (std::size_t i = 0; i < host.size(); i += 2)
      want64 += std::int64_t(std::uint64_t(unsigned(host[i])) | std::uint64_t(unsigned(host[i + 1])) << 32);
    const auto* in4 = reinterpret_cast<const int4*>(in);
    auto* out32 = reinterpret_cast<std::int64_t*>(out + lib32);
    auto* out64 = reinterpret_cast<std::int64_t*>(out + lib64);
    const auto* in64 = reinterpret_cast<const std::int64_t*>(in);
    std::size_t t32 = 0, t64 = 0;
    GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, t32, in, out32, std::int64_t(bytes / 4), s));
    GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, t64, in64, out64, std::int64_t(bytes / 8), s));
    void *temp32 = nullptr, *temp64 = nullptr;
    GPUREDUCE_CUDA(cudaMalloc(&temp32, t32));
    GPUREDUCE_CUDA(cudaMalloc(&temp64, t64));
    auto run = [&](Way w) {
      switch (w) {
        case read_only: read_only_kernel<<<blocks, threads, 0, s>>>(in4, vectors, partials); break;
        case red_zeroed: red_zeroed_kernel<<<blocks, threads, 0, s>>>(in4, vectors, out + w); break;
        case red_late: red_kernel<late><<<blocks + 1, threads, 0, s>>>(in4, vectors, out + w, ws); break;
        case red_early: red_kernel<early><<<blocks + 1, threads, 0, s>>>(in4, vectors, out + w, ws); break;
        case red_fence: red_kernel<early_fence><<<blocks + 1, threads, 0, s>>>(in4, vectors, out + w, ws); break;
        case lib32: gpureduce::sum(in, bytes / 4, out32, s); break;
        case lib64: gpureduce::sum(in64, bytes / 8, out64, s); break;
        case cub32: {
          std::size_t b = t32;
          GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp32, b, in, out + w, std::int64_t(bytes / 4), s));
          break;
        }
        case cub64: {
          std::size_t b = t64;
          GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp64, b, in64, out + w, std::int64_t(bytes / 8), s));
          break;
        }
        default: break;
      }
      GPUREDUCE_CUDA(cudaGetLastError());
    };
    std::vector<std::vector<double>> us(ways);
    for (int i = -3; i < samples; ++i) {  // three warm-up rounds
      for (int j = 0; j < ways; ++j) {
        const Way w = Way((j + i + 3) % ways);
        const auto before = [&](cudaStream_t st) {
          GPUREDUCE_CUDA(cudaMemsetAsync(out + w, 0xA5, sizeof(u64), st));
          GPUREDUCE_CUDA(cudaMemsetAsync(flush, i & 0xff, flush_bytes, st));
          if (w == red_zeroed) GPUREDUCE_CUDA(cudaMemsetAsync(out + w, 0, sizeof(u64), st));
        };
        const gpureduce::TimingStats t = timer.measure([&](cudaStream_t) { run(w); }, 1, 0, before);
        if (i >= 0) us[w].push_back(t.median_ms * 1000.0);
        if (w == read_only) continue;
        u64 got = 0;
        GPUREDUCE_CUDA(cudaMemcpy(&got, out + w, sizeof(u64), cudaMemcpyDeviceToHost));
        const u64 expect = w == lib32 || w == cub32 ? u64(want32) : w == lib64 || w == cub64 ? u64(want64) : want;
        if (got != expect && wrong++ < 10)
          std::printf("WRONG: %zu KB %s sample %d: %llu, want %llu\n", kb, names[w], i, got, expect);
      }
    }
    std::printf("%7zuK %6u", kb, blocks);
    print_medians(us, 13);
    GPUREDUCE_CUDA(cudaFree(in));
    GPUREDUCE_CUDA(cudaFree(temp32));
    GPUREDUCE_CUDA(cudaFree(temp64));
  }
  std::printf(wrong ? "%d WRONG results\n" : "every result checked: right\n", wrong);
  return wrong ? 1 : 0;
}
