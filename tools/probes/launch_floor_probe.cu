// What sets the fixed cost of one small kernel as `gpureduce bench` times it (src/bench/timer.hpp:
// events, a memset of 2x L2 before each sample, median)? An empty kernel takes about 3.0 us and one
// block reading one cold 128-byte line 3.7, so a target of 0.9x of CUB's ~4.05 us at n <= 2^12 is out of reach unless some of that is a property of the kernel rather than of the GPU: its
// shared-memory configuration (the memset before it runs with another), its parameter bytes, its
// block shape, the store it ends with, the cold line itself. Each row changes one of these on a
// one-block kernel; the last rows time the same kernels after other work than the memset. Run by
// `tools/device-run COMMIT launchfloor`.
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>

namespace {

using u64 = unsigned long long;

__global__ void empty_kernel() {}

template <unsigned Bytes>
struct Params {
  unsigned char b[Bytes];
};
template <unsigned Bytes>
__global__ void empty_params_kernel(Params<Bytes>) {}

__global__ void store_kernel(float* out) {
  if (threadIdx.x == 0) *out = 1.f;
}

// Shared memory of SmemBytes written and read back, so that the kernel is launched with that much.
template <unsigned SmemBytes>
__global__ void smem_store_kernel(float* out) {
  __shared__ float s[SmemBytes / 4];
  for (unsigned i = threadIdx.x; i < SmemBytes / 4; i += blockDim.x) s[i] = float(i);
  __syncthreads();
  if (threadIdx.x == 0) *out = s[SmemBytes / 4 - 1];
}

__device__ __forceinline__ float tree(float4 x) { return (x.x + x.y) + (x.z + x.w); }

// Launched with `bytes` of dynamic shared memory, of which it touches one float: what the launch
// costs for the size alone, without the work of filling it.
__global__ void dyn_smem_store_kernel(float* out, unsigned bytes) {
  extern __shared__ float d[];
  if (threadIdx.x == 0) {
    d[bytes / 4 - 1] = 2.f;
    *out = d[bytes / 4 - 1];
  }
}

// One cold line, reduced by warp 0's shuffles alone: no shared memory.
__global__ void line_shfl_kernel(const float4* in, float* out) {
  if (threadIdx.x >= 32) return;
  float acc = threadIdx.x < 8 ? tree(in[threadIdx.x]) : 0.f;
  for (int d = 16; d; d /= 2) acc += __shfl_xor_sync(~0u, acc, d);
  if (threadIdx.x == 0) *out = acc;
}

// One cold line through the library's block reduction (shared memory); Tag only makes separate
// kernels, so that each can carry its own carveout preference.
template <int Tag>
__global__ void __launch_bounds__(256) line_block_kernel(const float4* in, float* out) {
  const float acc = threadIdx.x < 8 ? tree(in[threadIdx.x]) : 0.f;
  __shared__ float warps[32];
  const float r = gpureduce::detail::block_reduce<256>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (threadIdx.x == 0) *out = r;
}

// Vectors float4 summed by Threads threads, every load in flight before any is used: one warp
// ends in shuffles, more threads in the library's block reduction (a shared-memory stage).
template <unsigned Threads, unsigned Vectors>
__global__ void __launch_bounds__(Threads) sum_kernel(const float4* in, float* out) {
  constexpr unsigned per_thread = Vectors / Threads;
  float4 x[per_thread];
#pragma unroll
  for (unsigned k = 0; k < per_thread; ++k) x[k] = in[k * Threads + threadIdx.x];
  float acc = 0;
#pragma unroll
  for (unsigned k = 0; k < per_thread; ++k) acc += tree(x[k]);
  if constexpr (Threads == 32) {
    for (int d = 16; d; d /= 2) acc += __shfl_xor_sync(~0u, acc, d);
  } else {
    __shared__ float warps[32];
    acc = gpureduce::detail::block_reduce<Threads>(acc, gpureduce::Sum{}, 0.0f, warps);
  }
  if (threadIdx.x == 0) *out = acc;
}

__global__ void fill(float* x, u64 n) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
    x[i] = float((i * 0x9E3779B97F4A7C15ull) >> 40) / float(1 << 24) - 0.5f;
}

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  gpureduce::DeviceBuffer<float> in(u64(1) << 20), out(1024);
  gpureduce::DeviceBuffer<unsigned char> flush(2 * setup.l2_bytes);
  fill<<<256, 256, 0, s>>>(in.get(), in.size());
  GPUREDUCE_CUDA(cudaFuncSetAttribute(line_block_kernel<1>, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
  GPUREDUCE_CUDA(cudaFuncSetAttribute(line_block_kernel<2>, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  const auto* v = reinterpret_cast<const float4*>(in.get());
  float* o = out.get();
  constexpr int reps = 201;
  const auto us = [&](const std::function<void(cudaStream_t)>& f,
                      const std::function<void(cudaStream_t)>& before = {}) {
    const gpureduce::TimingStats t = timer.measure(f, reps, 3, before);
    return t.median_ms * 1e3;
  };
  std::printf(
      "one-block kernels, median us of %d samples, each after a memset of 2x L2 unless the row says otherwise\n\n",
      reps);
  std::printf("| kernel | us |\n|---|---:|\n");
  const auto row = [&](const char* name, const std::function<void(cudaStream_t)>& f,
                       const std::function<void(cudaStream_t)>& before = {}) {
    std::printf("| %s | %.2f |\n", name, us(f, before));
  };
  row("empty, 1 x 32 threads", [](cudaStream_t st) { empty_kernel<<<1, 32, 0, st>>>(); });
  row("empty, 1 x 256", [](cudaStream_t st) { empty_kernel<<<1, 256, 0, st>>>(); });
  row("empty, 1 x 1024", [](cudaStream_t st) { empty_kernel<<<1, 1024, 0, st>>>(); });
  row("empty, 129 x 256", [](cudaStream_t st) { empty_kernel<<<129, 256, 0, st>>>(); });
  row("empty, 1 x 256, 256 parameter bytes", [](cudaStream_t st) { empty_params_kernel<256><<<1, 256, 0, st>>>({}); });
  row("empty, 1 x 256, 2048 parameter bytes",
      [](cudaStream_t st) { empty_params_kernel<2048><<<1, 256, 0, st>>>({}); });
  row("store one float, 1 x 256", [=](cudaStream_t st) { store_kernel<<<1, 256, 0, st>>>(o); });
  row("store one float, 129 x 256", [=](cudaStream_t st) { store_kernel<<<129, 256, 0, st>>>(o); });
  row("store, 128 B shared", [=](cudaStream_t st) { smem_store_kernel<128><<<1, 256, 0, st>>>(o); });
  row("store, 16 KB shared", [=](cudaStream_t st) { smem_store_kernel<16 * 1024><<<1, 256, 0, st>>>(o); });
  row("store, 40 KB shared", [=](cudaStream_t st) { smem_store_kernel<40 * 1024><<<1, 256, 0, st>>>(o); });
  row("one cold line, warp shuffles (no shared)", [=](cudaStream_t st) { line_shfl_kernel<<<1, 256, 0, st>>>(v, o); });
  row("one cold line, block_reduce (128 B shared)",
      [=](cudaStream_t st) { line_block_kernel<0><<<1, 256, 0, st>>>(v, o); });
  row("the same, carveout 0 (most L1)", [=](cudaStream_t st) { line_block_kernel<1><<<1, 256, 0, st>>>(v, o); });
  row("the same, carveout 100 (most shared)", [=](cudaStream_t st) { line_block_kernel<2><<<1, 256, 0, st>>>(v, o); });
  std::printf(
      "\n| launched with, against the store kernel with none (samples alternating) | none us | this us | ratio "
      "|\n|---|---:|---:|---:|\n");
  const auto pair = [&](const char* name, const std::function<void(cudaStream_t)>& f) {
    const auto [a, b] = timer.measure_pair([=](cudaStream_t st) { store_kernel<<<1, 256, 0, st>>>(o); }, f, reps);
    std::printf("| %s | %.2f | %.2f | %.3f |\n", name, a.median_ms * 1e3, b.median_ms * 1e3, b.median_ms / a.median_ms);
  };
  GPUREDUCE_CUDA(cudaFuncSetAttribute(dyn_smem_store_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, 200 * 1024));
  for (const unsigned kb : {1u, 2u, 4u, 8u, 16u, 32u, 48u, 100u, 200u}) {
    char name[64];
    std::snprintf(name, sizeof name, "%u KB dynamic shared memory", kb);
    pair(name, [=](cudaStream_t st) { dyn_smem_store_kernel<<<1, 256, kb * 1024, st>>>(o, kb * 1024); });
  }
  pair("64 parameter bytes", [](cudaStream_t st) { empty_params_kernel<64><<<1, 256, 0, st>>>({}); });
  pair("128 parameter bytes", [](cudaStream_t st) { empty_params_kernel<128><<<1, 256, 0, st>>>({}); });
  pair("256 parameter bytes", [](cudaStream_t st) { empty_params_kernel<256><<<1, 256, 0, st>>>({}); });
  pair("512 parameter bytes", [](cudaStream_t st) { empty_params_kernel<512><<<1, 256, 0, st>>>({}); });
  pair("1024 parameter bytes", [](cudaStream_t st) { empty_params_kernel<1024><<<1, 256, 0, st>>>({}); });
  std::printf("\n| float32 sum, one block | 256 threads us | this us | ratio |\n|---|---:|---:|---:|\n");
  const auto shape = [&]<unsigned Threads, unsigned Vectors>() {
    const auto [a, b] = timer.measure_pair(
        [=](cudaStream_t st) { sum_kernel<256, Vectors><<<1, 256, 0, st>>>(v, o); },
        [=](cudaStream_t st) { sum_kernel<Threads, Vectors><<<1, Threads, 0, st>>>(v, o + 1); }, reps);
    float r[2];
    GPUREDUCE_CUDA(cudaMemcpy(r, o, sizeof r, cudaMemcpyDeviceToHost));
    std::printf("| %u KB by %u threads (sums %g, %g) | %.2f | %.2f | %.3f |\n", Vectors / 64, Threads, r[0], r[1],
                a.median_ms * 1e3, b.median_ms * 1e3, b.median_ms / a.median_ms);
  };
  shape.template operator()<32, 256>();
  shape.template operator()<128, 256>();
  shape.template operator()<32, 512>();
  shape.template operator()<128, 512>();
  shape.template operator()<32, 1024>();
  shape.template operator()<64, 1024>();
  shape.template operator()<128, 1024>();
  shape.template operator()<32, 2048>();
  shape.template operator()<128, 2048>();
  std::printf("\n| kernel | us |\n|---|---:|\n");
  // The same kernels after other work than the memset alone.
  const auto memset_then = [&](const std::function<void(cudaStream_t)>& g) {
    return [&, g](cudaStream_t st) {
      GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush.size(), st));
      if (g) g(st);
    };
  };
  const auto none = [](cudaStream_t) {};
  row(
      "empty, 1 x 256, no flush (event, kernel, event only)",
      [](cudaStream_t st) { empty_kernel<<<1, 256, 0, st>>>(); }, none);
  row(
      "empty, 1 x 256, after the memset and an empty kernel",
      [](cudaStream_t st) { empty_kernel<<<1, 256, 0, st>>>(); },
      memset_then([](cudaStream_t st) { empty_kernel<<<1, 256, 0, st>>>(); }));
  row("one cold line, block_reduce, after the memset and 132 blocks using shared memory",
      [=](cudaStream_t st) { line_block_kernel<0><<<1, 256, 0, st>>>(v, o); },
      memset_then([=](cudaStream_t st) { smem_store_kernel<128><<<132, 256, 0, st>>>(o + 64); }));
  row(
      "one line in L2, block_reduce (the memset, then the line read)",
      [=](cudaStream_t st) { line_block_kernel<0><<<1, 256, 0, st>>>(v, o); },
      memset_then([=](cudaStream_t st) { line_shfl_kernel<<<1, 256, 0, st>>>(v, o + 64); }));
  for (const u64 n : {u64(4096), u64(1) << 19}) {
    std::size_t bytes = 0;
    GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, in.get(), o, std::int64_t(n), s));
    gpureduce::DeviceBuffer<unsigned char> temp(bytes);
    std::printf("| gpureduce::sum, float32 %llu | %.2f |\n", n,
                us([&](cudaStream_t st) { gpureduce::sum(in.get(), n, o, st); }));
    std::printf("| CUB DeviceReduce::Sum, float32 %llu | %.2f |\n", n, us([&](cudaStream_t st) {
                  std::size_t b = bytes;
                  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp.get(), b, in.get(), o, std::int64_t(n), st));
                }));
  }
  return 0;
}
