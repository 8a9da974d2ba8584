// Why do some one-block reductions of n <= 2^12 take 3-8% longer than CUB's single-tile kernel in
// the bench (issue 3), while ncu, with its own cache flush, times them as fast? Not part of the
// library: same protocol as `gpureduce bench` (CUDA events, 3 warm-ups, median of 30), run by
// `tools/device-run COMMIT oneblock`. Per case, the library call, single_block_kernel forced into
// other shapes and loads, and CUB, each under the states dirty, code and clean before a sample
// (l2_states.cuh; then a float32 sum written out by hand in two load layouts, hand_sum_4096, then
// general float32 sums written lean, lean_sum and lean_clamped_sum).
// (A fourth state, nothing before a sample, times the host's launch too: the GPU idles until the
// kernel arrives. At 59f1ac9 the first three agreed within 0.1 us for every case:
// bench/results/*_oneblock_59f1ac9.txt.)
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "l2_states.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>

namespace {

using u64 = unsigned long long;

// ld.global.nc (CUB's LOAD_LDG: the read-only path).
struct NcLoad {
  template <class V>
  __device__ __forceinline__ V operator()(const V* p) const {
    uint4 w;
    asm("ld.global.nc.v4.u32 {%0, %1, %2, %3}, [%4];" : "=r"(w.x), "=r"(w.y), "=r"(w.z), "=r"(w.w) : "l"(p));
    V r;
    __builtin_memcpy(&r, &w, sizeof r);
    return r;
  }
};

struct HalfToFloat {
  template <class H>
  __device__ float operator()(H x) const {
    return float(x);
  }
};

// The one-block float sum of 4096 elements written out by hand, 256 threads x 4 vectors, in two
// layouts: striped (vector k of thread t at k * 256 + t, as thread_partial reads) or blocked
// (thread t reads vectors 4t .. 4t + 3, as CUB's single tile).
template <bool Blocked>
__global__ void __launch_bounds__(256) hand_sum_4096(const float4* in, float* out) {
  float4 x[4];
#pragma unroll
  for (unsigned k = 0; k < 4; ++k) x[k] = in[Blocked ? threadIdx.x * 4 + k : k * 256 + threadIdx.x];
  float acc = 0;
#pragma unroll
  for (unsigned k = 0; k < 4; ++k) acc += (x[k].x + x[k].y) + (x[k].z + x[k].w);
  __shared__ float warps[32];
  acc = gpureduce::block_reduce<256>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (threadIdx.x == 0) *out = acc;
}

template <class T>
__global__ void fill(T* x, u64 n, u64 seed) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x) {
    const u64 h = (i + seed) * 0x9E3779B97F4A7C15ull;
    x[i] = T(double(h >> 40) / double(1 << 24) * 200 - 100);
  }
}

// A general one-block float sum written lean, to see which of the library's generalities cost
// time: the split as parameters in index type I, scalar edges loaded first and used last, batches
// of 4 vectors then up to 3 more predicated, each vector added as a tree. NanBranch: a runtime NaN
// policy chosen before the loads (ignore: NaN counts as 0), as thread_partial does.
template <unsigned Threads, class I, bool NanBranch>
__global__ void __launch_bounds__(Threads)
    lean_sum(const float* p, I head, I vectors, I tail, bool ignore_nan, float* out) {
  const unsigned t = threadIdx.x;
  const float h = t < head ? p[t] : 0.f;
  const float e = t < tail ? p[head + vectors * 4 + t] : 0.f;
  const float4* body = reinterpret_cast<const float4*>(p + head);
  const auto run = [&](auto ignore) {
    const auto tree = [&](float4 x) {
      if constexpr (decltype(ignore)::value) {
        x.x = x.x != x.x ? 0.f : x.x, x.y = x.y != x.y ? 0.f : x.y;
        x.z = x.z != x.z ? 0.f : x.z, x.w = x.w != x.w ? 0.f : x.w;
      }
      return (x.x + x.y) + (x.z + x.w);
    };
    float acc = 0;
    I v = t;
#pragma unroll 1
    for (; v + 3 * Threads < vectors; v += 4 * Threads) {
      float4 x[4];
#pragma unroll
      for (unsigned k = 0; k < 4; ++k) x[k] = body[v + k * Threads];
#pragma unroll
      for (unsigned k = 0; k < 4; ++k) acc += tree(x[k]);
    }
#pragma unroll
    for (unsigned k = 0; k < 3; ++k)
      if (v + k * Threads < vectors) acc += tree(body[v + k * Threads]);
    return acc;
  };
  float acc = NanBranch && ignore_nan ? run(std::true_type{}) : run(std::false_type{});
  acc += h + e;
  __shared__ float warps[32];
  acc = gpureduce::block_reduce<Threads>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (threadIdx.x == 0) *out = acc;
}

// The same with no test before the first batch's loads: each thread loads vectors t + k * Threads
// clamped to the last one (vectors >= 1), all in flight, and adds those in range; any later vectors
// one at a time (none at the sizes timed). Edges: whether the scalar head and tail are read at all
// (without, the sum misses them where n has any: for timing only).
template <unsigned Threads, bool Edges>
__global__ void __launch_bounds__(Threads)
    lean_clamped_sum(const float* p, unsigned head, unsigned vectors, unsigned tail, bool, float* out) {
  const unsigned t = threadIdx.x;
  float h = 0.f, e = 0.f;
  if constexpr (Edges) {
    h = t < head ? p[t] : 0.f;
    e = t < tail ? p[head + vectors * 4 + t] : 0.f;
  }
  const float4* body = reinterpret_cast<const float4*>(p + head);
  const auto tree = [](float4 x) { return (x.x + x.y) + (x.z + x.w); };
  float4 x[4];
#pragma unroll
  for (unsigned k = 0; k < 4; ++k) x[k] = body[min(t + k * Threads, vectors - 1)];
  float acc = 0;
#pragma unroll
  for (unsigned k = 0; k < 4; ++k) acc += t + k * Threads < vectors ? tree(x[k]) : 0.f;
#pragma unroll 1
  for (unsigned v = t + 4 * Threads; v < vectors; v += Threads) acc += tree(body[v]);
  acc += h + e;
  __shared__ float warps[32];
  acc = gpureduce::block_reduce<Threads>(acc, gpureduce::Sum{}, 0.0f, warps);
  if (threadIdx.x == 0) *out = acc;
}

void lean(Bench& bench, cudaStream_t s, u64 n, u64 offset) {
  const gpureduce::DeviceBuffer<float> in(2 * n + 64), out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 2 * n + 64, 11);
  const auto input = [&](int i) { return in.get() + offset + i * (n + 32); };
  const auto lean_run = [&](auto kernel, unsigned threads) {
    return [&, kernel, threads](cudaStream_t st, int i) {
      const auto split = gpureduce::VectorSplit::make(reinterpret_cast<u64>(input(i)), n, sizeof(float));
      kernel<<<1, threads, 0, st>>>(input(i), split.head, split.vectors, split.tail, false, out.get() + i);
    };
  };
  for (State st : {dirty, code, clean})
    std::printf("| float32 sum %llu (+%llu) | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, offset,
                state_names[st], bench.median_us(st, lean_run(lean_sum<256, unsigned, false>, 256)),
                bench.median_us(st, lean_run(lean_sum<512, unsigned, false>, 512)),
                bench.median_us(st, lean_run(lean_sum<256, u64, false>, 256)),
                bench.median_us(st, lean_run(lean_sum<256, unsigned, true>, 256)),
                bench.median_us(st, lean_run(lean_clamped_sum<256, true>, 256)),
                bench.median_us(st, lean_run(lean_clamped_sum<256, false>, 256)),
                bench.median_us(st, [&](cudaStream_t st2, int i) { gpureduce::sum(input(i), n, out.get() + i, st2); }));
}

void layouts(Bench& bench, cudaStream_t s) {
  constexpr u64 n = 4096;
  const gpureduce::DeviceBuffer<float> in(2 * n), out(2);
  GPUREDUCE_CUDA(cudaMemsetAsync(in.get(), 0, 2 * n * sizeof(float), s));
  const auto run = [&](auto kernel) {
    return [&, kernel](cudaStream_t st, int i) {
      kernel<<<1, 256, 0, st>>>(reinterpret_cast<const float4*>(in.get() + i * n), out.get() + i);
    };
  };
  for (State st : {dirty, code, clean})
    std::printf(
        "| float32 sum 4096 by hand | %s | %.2f | %.2f | %.2f |\n", state_names[st],
        bench.median_us(st, run(hand_sum_4096<false>)), bench.median_us(st, run(hand_sum_4096<true>)),
        bench.median_us(st, [&](cudaStream_t st2, int i) { gpureduce::sum(in.get() + i * n, n, out.get() + i, st2); }));
}

template <class T, class Op>
void run_case(Bench& bench, cudaStream_t s, const char* type, const char* op_name, u64 n) {
  using A = gpureduce::accumulator_t<T, Op>;
  using Out = gpureduce::result_t<T, Op>;
  using Source = gpureduce::ArraySource<T>;
  const gpureduce::DeviceBuffer<T> in(2 * n);  // two inputs, n apart (16-byte aligned)
  const gpureduce::DeviceBuffer<Out> out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 2 * n, 7);
  const auto input = [&](int i) { return in.get() + i * n; };
  std::size_t temp_bytes = 0;
  auto cub_call = [&](void* t, std::size_t& b, int i) {
    if constexpr (std::is_same_v<Op, gpureduce::Sum> && gpureduce::is_half_v<T>)  // as the bench: float on load
      return cub::DeviceReduce::TransformReduce(t, b, input(i), out.get() + i, std::int64_t(n), cuda::std::plus<A>{},
                                                HalfToFloat{}, A(0), s);
    else if constexpr (std::is_same_v<Op, gpureduce::Sum>)
      return cub::DeviceReduce::Sum(t, b, input(i), out.get() + i, std::int64_t(n), s);
    else if constexpr (std::is_same_v<Op, gpureduce::Max>)
      return cub::DeviceReduce::Max(t, b, input(i), out.get() + i, std::int64_t(n), s);
    else {
      auto* v = reinterpret_cast<T*>(out.get() + i);
      auto* k = reinterpret_cast<std::int64_t*>(reinterpret_cast<unsigned char*>(out.get() + i) + 8);
      return cub::DeviceReduce::ArgMax(t, b, input(i), v, k, std::int64_t(n), s);
    }
  };
  GPUREDUCE_CUDA(cub_call(nullptr, temp_bytes, 0));
  const gpureduce::DeviceBuffer<unsigned char> temp(2 * (temp_bytes + 256));
  const auto forced = [&](auto kernel, unsigned threads) {
    return [=, &input, &out](cudaStream_t st, int i) {
      const Source src{input(i), {}};
      kernel<<<1, threads, 0, st>>>(src, src.split(n), out.get() + i, Op{});
    };
  };
  constexpr unsigned mb = gpureduce::is_arg_extreme_v<Op> ? 2 : 0;
  struct Variant {
    const char* name;
    std::function<void(cudaStream_t, int)> run;
  };
  const Variant variants[] = {
      {"gpureduce", [&](cudaStream_t st, int i) { gpureduce::reduce(input(i), n, out.get() + i, Op{}, st); }},
      {"512x4", forced(gpureduce::single_block_kernel<512, mb, 4, A, Out, Source, Op>, 512)},
      {"512x4 nc", forced(gpureduce::single_block_kernel<512, mb, 4, A, Out, Source, Op, NcLoad>, 512)},
      {"256x4", forced(gpureduce::single_block_kernel<256, mb, 4, A, Out, Source, Op>, 256)},
      {"256x8", forced(gpureduce::single_block_kernel<256, mb, 8, A, Out, Source, Op>, 256)},
      {"128x8", forced(gpureduce::single_block_kernel<128, mb, 8, A, Out, Source, Op>, 128)},
      {"64x4", forced(gpureduce::single_block_kernel<64, mb, 4, A, Out, Source, Op>, 64)},
      {"CUB", [&](cudaStream_t, int i) {
         std::size_t b = temp_bytes;
         GPUREDUCE_CUDA(cub_call(temp.get() + i * (temp_bytes + 256), b, i));
       }},
  };
  for (State st : {dirty, code, clean}) {
    std::printf("| %s %s %llu | %s |", type, op_name, n, state_names[st]);
    for (const Variant& v : variants) std::printf(" %.2f |", bench.median_us(st, v.run));
    std::printf("\n");
  }
}

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  Bench bench(s, setup.l2_bytes);
  std::printf("median us of 30 samples; before each: dirty (memset of 2x L2), code (dirty, then the same call on "
              "another input), clean (a read of 2x L2). Forced shapes: single_block_kernel, threads x vectors in "
              "flight, nc: ld.global.nc\n");
  std::printf("| case | L2 | gpureduce | 512x4 | 512x4 nc | 256x4 | 256x8 | 128x8 | 64x4 | CUB |\n");
  std::printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  using gpureduce::ArgMax, gpureduce::Max, gpureduce::Sum;
  run_case<float, Sum>(bench, s, "float32", "sum", 4096);
  run_case<float, Max>(bench, s, "float32", "max", 4096);
  run_case<std::int32_t, Max>(bench, s, "int32", "max", 4096);
  run_case<double, Max>(bench, s, "float64", "max", 4096);
  run_case<float, Sum>(bench, s, "float32", "sum", 1024);
  run_case<float, Sum>(bench, s, "float32", "sum", 2048);
  run_case<__half, Sum>(bench, s, "float16", "sum", 4096);
  run_case<__nv_bfloat16, Sum>(bench, s, "bfloat16", "sum", 4096);
  // argmin/argmax across the one-block sizes (up to 64 KB)
  for (const u64 n : {1024ull, 4096ull, 8192ull}) {
    run_case<double, ArgMax>(bench, s, "float64", "argmax", n);
    run_case<std::int64_t, ArgMax>(bench, s, "int64", "argmax", n);
    run_case<float, ArgMax>(bench, s, "float32", "argmax", n);
    run_case<__half, ArgMax>(bench, s, "float16", "argmax", n);
    run_case<std::int8_t, ArgMax>(bench, s, "int8", "argmax", 2 * n);
  }
  std::printf("\n| case | L2 | striped | blocked | gpureduce::sum |\n|---|---|---:|---:|---:|\n");
  layouts(bench, s);
  std::printf(
      "\n| case | L2 | lean 256 | lean 512 | lean 256 u64 | lean 256 NaN branch | clamped 256 | clamped 256 no edges | "
      "gpureduce::sum |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const u64 n : {4096ull, 3001ull, 2048ull}) lean(bench, s, n, 0);
  lean(bench, s, 3001, 1);
  return 0;
}
