// Does the Hopper TMA's bulk copy (cp.async.bulk into shared memory) or an L2 prefetch-size hint on
// the vector loads read a cold input faster than the plain 16-byte loads the library issues? The
// two targets of issue 3 still missed come down to reading a few KB cold (n <= 2^12, one block) and
// 16 KB per SM (2 MB). Not part of the library: float32 sums written out by hand, 256 threads per
// block, block b reading its own `Vectors` float4 and storing its own partial (no hand-off), timed
// as `gpureduce bench` times a call (src/bench/timer.hpp: events, a memset of 2x L2 before each
// sample, median), each read paired with the plain loads in one run (samples alternating). Run by
// `tools/device-run COMMIT bulkload`.
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>

namespace {

using u64 = unsigned long long;
constexpr unsigned threads = 256;

enum class Read {
  ldg,        // ld.global.v4.f32, every vector of the thread in flight before any is used
  ldg_l2_256, // the same with .L2::256B (L2 fetches 256 bytes around each miss)
  bulk,       // thread 0: one cp.async.bulk of the block's bytes into shared memory, an mbarrier
  bulk_warps, // lane 0 of each warp: a cp.async.bulk of 1/8 of the block's bytes, one mbarrier
};
const char* const read_names[] = {"ldg", "ldg .L2::256B", "bulk copy (1 thread)", "bulk copy (8 warps)"};

__device__ __forceinline__ float4 load_l2_256(const float4* p) {
  float4 r;
  asm volatile("ld.global.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(r.x), "=f"(r.y), "=f"(r.z), "=f"(r.w)
               : "l"(p));
  return r;
}

__device__ __forceinline__ unsigned smem_addr(const void* p) { return unsigned(__cvta_generic_to_shared(p)); }

__device__ __forceinline__ void bulk_copy(void* dst, const void* src, unsigned bytes, unsigned long long* bar) {
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(smem_addr(dst)),
      "l"(src), "r"(bytes), "r"(smem_addr(bar))
      : "memory");
}

__device__ __forceinline__ void bar_wait(unsigned long long* bar, unsigned parity) {
  unsigned done;
  do
    asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                 : "=r"(done)
                 : "r"(smem_addr(bar)), "r"(parity)
                 : "memory");
  while (!done);
}

__device__ __forceinline__ float tree(float4 x) { return (x.x + x.y) + (x.z + x.w); }

template <Read R, unsigned Vectors>
__global__ void __launch_bounds__(threads) read_kernel(const float4* in, float* out) {
  static_assert(Vectors % threads == 0);
  constexpr unsigned per_thread = Vectors / threads;
  const unsigned t = threadIdx.x;
  const float4* p = in + u64(blockIdx.x) * Vectors;
  float acc = 0;
  if constexpr (R == Read::ldg || R == Read::ldg_l2_256) {
    float4 x[per_thread];
#pragma unroll
    for (unsigned k = 0; k < per_thread; ++k)
      x[k] = R == Read::ldg ? p[k * threads + t] : load_l2_256(p + k * threads + t);
#pragma unroll
    for (unsigned k = 0; k < per_thread; ++k) acc += tree(x[k]);
  } else {
    __shared__ alignas(128) float4 buf[Vectors];
    __shared__ unsigned long long bar;
    constexpr unsigned bytes = Vectors * sizeof(float4);
    if (t == 0) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem_addr(&bar)) : "memory");
      asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
      asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem_addr(&bar)), "r"(bytes)
                   : "memory");
      if constexpr (R == Read::bulk) bulk_copy(buf, p, bytes, &bar);
    }
    __syncthreads();
    if constexpr (R == Read::bulk_warps) {
      constexpr unsigned chunk = Vectors / (threads / 32);
      if (t % 32 == 0) bulk_copy(buf + t / 32 * chunk, p + t / 32 * chunk, chunk * sizeof(float4), &bar);
    }
    bar_wait(&bar, 0);
#pragma unroll
    for (unsigned k = 0; k < per_thread; ++k) acc += tree(buf[k * threads + t]);
  }
  __shared__ float warps[32];
  acc = gpureduce::block_reduce<threads>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (t == 0) out[blockIdx.x] = acc;
}

// The floor of any reduction timed this way: one block, 8 threads reading one cold 128-byte line.
__global__ void __launch_bounds__(threads) one_line_kernel(const float4* in, float* out) {
  const float acc = threadIdx.x < 8 ? tree(in[threadIdx.x]) : 0.f;
  __shared__ float warps[32];
  const float r = gpureduce::block_reduce<threads>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (threadIdx.x == 0) *out = r;
}

__global__ void empty_kernel() {}

__global__ void fill(float* x, u64 n) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x)
    x[i] = float((i * 0x9E3779B97F4A7C15ull) >> 40) / float(1 << 24) - 0.5f;
}

struct Probe {
  cudaStream_t s;
  gpureduce::GpuTimer timer;
  gpureduce::DeviceBuffer<float> in, out;
  static constexpr int reps = 101;
  Probe(cudaStream_t stream, std::size_t l2_bytes) : s(stream), timer(stream, l2_bytes), in(u64(1) << 20), out(1024) {
    fill<<<256, 256, 0, s>>>(in.get(), in.size());
    GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  }
  // `blocks` blocks of Vectors each read by R, timed against the plain loads; their sums must
  // agree.
  template <Read R, unsigned Vectors>
  void row(unsigned blocks) {
    const auto* v = reinterpret_cast<const float4*>(in.get());
    const auto base = [=, this](cudaStream_t st) {
      read_kernel<Read::ldg, Vectors><<<blocks, threads, 0, st>>>(v, out.get());
    };
    const auto test = [=, this](cudaStream_t st) {
      read_kernel<R, Vectors><<<blocks, threads, 0, st>>>(v, out.get() + 512);
    };
    const auto [a, b] = timer.measure_pair(base, test, reps);
    GPUREDUCE_CUDA(cudaStreamSynchronize(s));
    float x[2][512];
    GPUREDUCE_CUDA(cudaMemcpy(x[0], out.get(), blocks * sizeof(float), cudaMemcpyDeviceToHost));
    GPUREDUCE_CUDA(cudaMemcpy(x[1], out.get() + 512, blocks * sizeof(float), cudaMemcpyDeviceToHost));
    bool same = true;
    for (unsigned i = 0; i < blocks; ++i) same &= std::abs(x[0][i] - x[1][i]) <= 1e-3f * (1 + std::abs(x[0][i]));
    std::printf("| %u x %u KB | %s | %.2f | %.2f | %.3f | %s |\n", blocks, unsigned(Vectors * 16 / 1024),
                read_names[int(R)], a.median_ms * 1e3, b.median_ms * 1e3, b.median_ms / a.median_ms,
                same ? "yes" : "NO");
  }
  template <unsigned Vectors>
  void rows(unsigned blocks) {
    row<Read::ldg, Vectors>(blocks);  // A/A: how far two columns of one run drift
    row<Read::ldg_l2_256, Vectors>(blocks);
    row<Read::bulk, Vectors>(blocks);
    row<Read::bulk_warps, Vectors>(blocks);
  }
  double us(const std::function<void(cudaStream_t)>& f) { return timer.measure(f, reps).median_ms * 1e3; }
};

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  Probe p(setup.stream, setup.l2_bytes);
  const auto* v = reinterpret_cast<const float4*>(p.in.get());
  std::printf("float32 sums, 256 threads per block, each block storing its own sum; median us of %d samples, "
              "each after a memset of 2x L2; each read paired with the plain loads (samples alternating)\n\n",
              Probe::reps);
  std::printf("| floors | us |\n|---|---:|\n");
  std::printf("| empty kernel | %.2f |\n", p.us([](cudaStream_t st) { empty_kernel<<<1, threads, 0, st>>>(); }));
  std::printf("| one block reading one 128-byte line | %.2f |\n",
              p.us([&](cudaStream_t st) { one_line_kernel<<<1, threads, 0, st>>>(v, p.out.get()); }));
  for (const u64 n : {4096ull, u64(1) << 19}) {
    std::size_t bytes = 0;
    GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, p.in.get(), p.out.get(), std::int64_t(n), setup.stream));
    gpureduce::DeviceBuffer<unsigned char> temp(bytes);
    std::printf("| gpureduce::sum, float32 %llu | %.2f |\n", n,
                p.us([&](cudaStream_t st) { gpureduce::sum(p.in.get(), n, p.out.get(), st); }));
    std::printf("| CUB DeviceReduce::Sum, float32 %llu | %.2f |\n", n, p.us([&](cudaStream_t st) {
                  std::size_t b = bytes;
                  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp.get(), b, p.in.get(), p.out.get(), std::int64_t(n), st));
                }));
  }
  std::printf(
      "\n| blocks x bytes each | read | ldg us | this read us | ratio | same sums |\n|---|---|---:|---:|---:|---|\n");
  p.rows<256>(1);   // 4 KB: float32 2^10
  p.rows<512>(1);   // 8 KB: 2^12 of 2-byte types
  p.rows<1024>(1);  // 16 KB: float32 2^12
  p.rows<1024>(128);  // 2 MB as the library's grid reads it: 128 readers x 16 KB
  p.rows<2048>(64);   // 2 MB in 32 KB blocks
  p.rows<1024>(256);  // 4 MB
  return 0;
}
