// Why do some one-block reductions of n <= 2^12 take 3-8% longer than CUB's single-tile kernel in
// the bench (issue 3), while ncu, with its own cache flush, times them as fast? Not part of the
// library: same protocol as `gpureduce bench` (CUDA events, 3 warm-ups, median of 30), run by
// `tools/device-run COMMIT oneblock`. Per case, the library call, single_block_kernel forced into
// other shapes and loads, and CUB, each under the states dirty, code and clean before a sample
// (l2_states.cuh; then a float32 sum written out by hand in two load layouts, hand_sum_4096, then
// general float32 sums written lean, lean_sum and lean_clamped_sum; then small_inputs: dot products
// of up to 1000 elements, the steps from a warp's floor to the library's kernel, and one vector per
// thread; `one_block_probe small` runs those alone).
// (A fourth state, nothing before a sample, times the host's launch too: the GPU idles until the
// kernel arrives. At 59f1ac9 the first three agreed within 0.1 us for every case:
// bench/results/*_oneblock_59f1ac9.txt.)
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>

#include "l2_states.cuh"

#include <cstdint>
#include <cstdio>
#include <cstring>
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

// Dot products of up to 256 elements took 0.93-0.98x of CUB's time on an H200 where sums of the
// same counts matched it (bench/results/*_H200_ab_held_words_plain_and_dots_vs_6e768ab.txt). The
// floor: one warp, each lane one vector of a and one of b (n a multiple of the vector's elements,
// at most 32 vectors), or of a alone (Arrays 1), a warp's shuffles, lane 0 writes.
template <class T, class A, unsigned Arrays>
__global__ void __launch_bounds__(32) hand_dot_warp(const T* a, const T* b, unsigned vectors, A* out) {
  constexpr unsigned per = 16 / sizeof(T);
  A acc = 0;
  if (threadIdx.x < vectors) {
    const uint4 wa = reinterpret_cast<const uint4*>(a)[threadIdx.x];
    uint4 wb{};
    if constexpr (Arrays == 2) wb = reinterpret_cast<const uint4*>(b)[threadIdx.x];
    T x[per], y[per];
    std::memcpy(x, &wa, 16);
    std::memcpy(y, &wb, 16);
#pragma unroll
    for (unsigned k = 0; k < per; ++k) acc += Arrays == 2 ? A(x[k]) * A(y[k]) : A(x[k]);
  }
#pragma unroll
  for (unsigned d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  if (threadIdx.x == 0) *out = acc;
}

// From the floor to the library's kernel of one warp (single_block_kernel<32>), one step each:
// 1 the floor with griddepcontrol.wait first; 2 its parameters as the library's (source, split,
// out, operator); 3 block_reduce<32, true, true> in place of the shuffles; 4 the library's
// thread_partial, the shuffles, the store; 5 the floor launched as 512 threads, warps 1-15 exiting.
template <unsigned Step, class T, class A>
__global__ void __launch_bounds__(Step == 5 ? 512 : 32)
    warp_step(gpureduce::ProductSource<T, A> src, gpureduce::VectorSplit split, A* out, gpureduce::Sum op) {
  if constexpr (Step == 1) gpureduce::wait_for_previous_grid();
  if constexpr (Step == 5)
    if (threadIdx.x >= 32) return;
  A acc = 0;
  if constexpr (Step == 4) {
    using gpureduce::Batches;
    acc = gpureduce::thread_partial<32, 4, Batches::one_block>(src, split, 0, 1, gpureduce::PlainLoad{}, op, A(0));
  } else if (threadIdx.x < split.vectors) {
    constexpr unsigned per = 16 / sizeof(T);
    const uint4 wa = reinterpret_cast<const uint4*>(src.a)[threadIdx.x];
    const uint4 wb = reinterpret_cast<const uint4*>(src.b)[threadIdx.x];
    T x[per], y[per];
    std::memcpy(x, &wa, 16);
    std::memcpy(y, &wb, 16);
#pragma unroll
    for (unsigned k = 0; k < per; ++k) acc += A(x[k]) * A(y[k]);
  }
  if constexpr (Step == 3) {
    __shared__ alignas(16) A partials[32];
    acc = gpureduce::block_reduce<32, true, true>(acc, op, A(0), partials);
  } else {
#pragma unroll
    for (unsigned d = 16; d > 0; d /= 2) acc += __shfl_xor_sync(0xffffffffu, acc, d);
  }
  if (threadIdx.x == 0) *out = acc;
}

template <class T>
void warp_steps(Bench& bench, cudaStream_t s, const char* type, u64 n) {
  using A = gpureduce::accumulator_t<T, gpureduce::Sum>;
  using Source = gpureduce::ProductSource<T, A>;
  const u64 stride = (n + 255) / 256 * 256;
  const gpureduce::DeviceBuffer<T> in(4 * stride);
  const gpureduce::DeviceBuffer<A> out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 4 * stride, 5);
  const auto src = [&](int i) { return Source{in.get() + i * stride, in.get() + (2 + i) * stride}; };
  const auto step = [&](auto kernel, unsigned threads) {
    return [=, &src, &out](cudaStream_t st, int i) {
      kernel<<<1, threads, 0, st>>>(src(i), src(i).split(n), out.get() + i, gpureduce::Sum{});
    };
  };
  const auto floor = [&](cudaStream_t st, int i) {
    hand_dot_warp<T, A, 2><<<1, 32, 0, st>>>(src(i).a, src(i).b, unsigned(n * sizeof(T) / 16), out.get() + i);
  };
  for (State st : {dirty, code, clean})
    std::printf("| %s dot %llu | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", type, n, state_names[st],
                bench.median_us(st, floor), bench.median_us(st, step(warp_step<1, T, A>, 32)),
                bench.median_us(st, step(warp_step<2, T, A>, 32)), bench.median_us(st, step(warp_step<3, T, A>, 32)),
                bench.median_us(st, step(warp_step<4, T, A>, 32)), bench.median_us(st, step(warp_step<5, T, A>, 512)),
                bench.median_us(st, step(gpureduce::single_block_kernel<32, 0, 4, A, A, Source, gpureduce::Sum>, 32)));
}

// The input of batch_shapes and one_vector_shapes: two of n elements (two pairs for a dot product),
// 512-byte aligned, and a single_block_kernel launched on input i.
template <class T, class Op, bool Dot>
struct SmallCase {
  using A = std::conditional_t<Dot, gpureduce::accumulator_t<T, gpureduce::Sum>, gpureduce::accumulator_t<T, Op>>;
  using Out = std::conditional_t<Dot, A, gpureduce::result_t<T, Op>>;
  using Source = std::conditional_t<Dot, gpureduce::ProductSource<T, A>, gpureduce::ArraySource<T>>;
  u64 n, stride;
  gpureduce::DeviceBuffer<T> in;
  gpureduce::DeviceBuffer<Out> out{2};

  SmallCase(cudaStream_t s, u64 count) : n(count), stride((count + 255) / 256 * 256), in(4 * stride) {
    fill<<<64, 256, 0, s>>>(in.get(), 4 * stride, 5);
  }
  Source src(int i) const {
    if constexpr (Dot)
      return Source{in.get() + i * stride, in.get() + (2 + i) * stride};
    else
      return Source{in.get() + i * stride, {}};
  }
  // single_block_kernel of Threads x Unroll.
  template <unsigned Threads, int Unroll, gpureduce::Batches B = gpureduce::Batches::one_block>
  std::function<void(cudaStream_t, int)> shape() const {
    return [this](cudaStream_t st, int i) {
      gpureduce::single_block_kernel<Threads, 0, Unroll, A, Out, Source, Op, gpureduce::PlainLoad, B>
          <<<1, Threads, 0, st>>>(src(i), src(i).split(n), out.get() + i, Op{});
    };
  }
};

// single_block_kernel in other shapes, and with Batches::at_most_one (no batch loop in the code).
template <class T, class Op, bool Dot>
void batch_shapes(Bench& bench, cudaStream_t s, const char* type, const char* op_name, u64 n) {
  const SmallCase<T, Op, Dot> c(s, n);
  constexpr auto one = gpureduce::Batches::at_most_one;
  for (State st : {dirty, code, clean})
    std::printf(
        "| %s %s %llu | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |\n", type, op_name, n, state_names[st],
        bench.median_us(st, c.template shape<512, 4>()), bench.median_us(st, c.template shape<32, 4>()),
        bench.median_us(st, c.template shape<32, 4, one>()), bench.median_us(st, c.template shape<64, 2, one>()),
        bench.median_us(st, c.template shape<128, 1, one>()), bench.median_us(st, c.template shape<512, 4, one>()));
}

// The library's call against single_block_kernel of one vector per thread at most (Unroll 1,
// Batches::at_most_one: no batch loop), 128 to 1024 threads; '-' where the threads hold fewer
// vectors than n has.
template <class T, class Op, bool Dot>
void one_vector_shapes(Bench& bench, cudaStream_t s, const char* type, const char* op_name, u64 n) {
  const SmallCase<T, Op, Dot> c(s, n);
  const u64 vectors = c.src(0).split(n).vectors;
  const auto library = [&](cudaStream_t st, int i) {
    if constexpr (Dot)
      gpureduce::dot(c.src(i).a, c.src(i).b, n, c.out.get() + i, st);
    else
      gpureduce::reduce(c.src(i).data, n, c.out.get() + i, Op{}, st);
  };
  constexpr auto one = gpureduce::Batches::at_most_one;
  const auto cell = [&](State st, unsigned threads, unsigned unroll,
                        const std::function<void(cudaStream_t, int)>& run) {
    if (vectors > u64(threads) * unroll)
      std::printf(" - |");
    else
      std::printf(" %.2f |", bench.median_us(st, run));
  };
  for (State st : {dirty, code, clean}) {
    std::printf("| %s %s %llu | %s | %.2f |", type, op_name, n, state_names[st], bench.median_us(st, library));
    cell(st, 128, 1, c.template shape<128, 1, one>());
    cell(st, 256, 1, c.template shape<256, 1, one>());
    cell(st, 512, 1, c.template shape<512, 1, one>());
    cell(st, 1024, 1, c.template shape<1024, 1, one>());
    cell(st, 512, 2, c.template shape<512, 2, one>());
    std::printf("\n");
  }
}

template <class A>
struct ToAcc {
  template <class T>
  __device__ A operator()(T x) const {
    return A(x);
  }
};

template <class T, class A>
struct ProductAt {
  const T* a;
  const T* b;
  __device__ A operator()(std::int64_t i) const { return A(a[i]) * A(b[i]); }
};

// Per state: the library's dot, single_block_kernel forced into other block shapes, the library's
// sum of a, the floor above for two arrays and one, CUB's dot (as the bench: a TransformReduce over
// the indices) and CUB's sum (a TransformReduce to float for half, as the bench).
template <class T>
void dot_case(Bench& bench, cudaStream_t s, const char* type, u64 n) {
  using A = gpureduce::accumulator_t<T, gpureduce::Sum>;
  using Source = gpureduce::ProductSource<T, A>;
  using gpureduce::Sum;
  const u64 stride = (n + 255) / 256 * 256;  // 512-byte aligned inputs
  const gpureduce::DeviceBuffer<T> in(4 * stride);
  const gpureduce::DeviceBuffer<A> out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 4 * stride, 5);
  const auto a = [&](int i) { return in.get() + i * stride; };
  const auto b = [&](int i) { return in.get() + (2 + i) * stride; };
  const auto cub_dot = [&](void* t, std::size_t& bytes, int i) {
    return cub::DeviceReduce::TransformReduce(t, bytes, thrust::counting_iterator<std::int64_t>(0), out.get() + i,
                                              std::int64_t(n), cuda::std::plus<A>{}, ProductAt<T, A>{a(i), b(i)}, A(0),
                                              s);
  };
  const auto cub_sum = [&](void* t, std::size_t& bytes, int i) {
    return cub::DeviceReduce::TransformReduce(t, bytes, a(i), out.get() + i, std::int64_t(n), cuda::std::plus<A>{},
                                              ToAcc<A>{}, A(0), s);
  };
  std::size_t dot_bytes = 0, sum_bytes = 0;
  GPUREDUCE_CUDA(cub_dot(nullptr, dot_bytes, 0));
  GPUREDUCE_CUDA(cub_sum(nullptr, sum_bytes, 0));
  const std::size_t slot = std::max(dot_bytes, sum_bytes) + 256;
  const gpureduce::DeviceBuffer<unsigned char> temp(2 * slot);
  const auto forced = [&](auto kernel, unsigned threads) {
    return [=, &a, &b, &out](cudaStream_t st, int i) {
      const Source src{a(i), b(i)};
      kernel<<<1, threads, 0, st>>>(src, src.split(n), out.get() + i, Sum{});
    };
  };
  const auto hand = [&](auto kernel) {
    return [=, &a, &b, &out](cudaStream_t st, int i) {
      kernel<<<1, 32, 0, st>>>(a(i), b(i), unsigned(n * sizeof(T) / 16), out.get() + i);
    };
  };
  const bool hand_fits = n * sizeof(T) % 16 == 0 && n * sizeof(T) <= 512;
  struct Variant {
    const char* name;
    std::function<void(cudaStream_t, int)> run;
  };
  const Variant variants[] = {
      {"dot", [&](cudaStream_t st, int i) { gpureduce::dot(a(i), b(i), n, out.get() + i, st); }},
      {"512x4", forced(gpureduce::single_block_kernel<512, 0, 4, A, A, Source, Sum>, 512)},
      {"256x4", forced(gpureduce::single_block_kernel<256, 0, 4, A, A, Source, Sum>, 256)},
      {"64x4", forced(gpureduce::single_block_kernel<64, 0, 4, A, A, Source, Sum>, 64)},
      {"32x4", forced(gpureduce::single_block_kernel<32, 0, 4, A, A, Source, Sum>, 32)},
      {"sum", [&](cudaStream_t st, int i) { gpureduce::sum(a(i), n, out.get() + i, st); }},
      {"warp dot", hand(hand_dot_warp<T, A, 2>)},
      {"warp sum", hand(hand_dot_warp<T, A, 1>)},
      {"CUB dot",
       [&](cudaStream_t, int i) {
         std::size_t bytes = dot_bytes;
         GPUREDUCE_CUDA(cub_dot(temp.get() + i * slot, bytes, i));
       }},
      {"CUB sum",
       [&](cudaStream_t, int i) {
         std::size_t bytes = sum_bytes;
         GPUREDUCE_CUDA(cub_sum(temp.get() + i * slot, bytes, i));
       }},
  };
  for (State st : {dirty, code, clean}) {
    std::printf("| %s dot %llu | %s |", type, n, state_names[st]);
    for (const Variant& v : variants)
      if (hand_fits || std::strncmp(v.name, "warp", 4) != 0)
        std::printf(" %.2f |", bench.median_us(st, v.run));
      else
        std::printf(" - |");
    std::printf("\n");
  }
}

void one_vector(Bench& bench, cudaStream_t s) {
  std::printf(
      "\n| case | L2 | library | 128x1 | 256x1 | 512x1 | 1024x1 | 512x2 |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|\n");
  using gpureduce::Sum, gpureduce::Max, gpureduce::ArgMax;
  for (int round = 0; round < 2; ++round) {
    for (u64 n : {32ull, 1000ull, 2048ull, 4096ull})
      one_vector_shapes<float, Sum, false>(bench, s, "float32", "sum", n);
    for (u64 n : {1024ull, 4096ull}) one_vector_shapes<float, Max, false>(bench, s, "float32", "max", n);
    for (u64 n : {500ull, 1024ull, 4096ull}) one_vector_shapes<float, ArgMax, false>(bench, s, "float32", "argmax", n);
    for (u64 n : {1024ull, 4096ull}) one_vector_shapes<std::int8_t, Sum, false>(bench, s, "int8", "sum", n);
    for (u64 n : {1024ull, 4096ull}) one_vector_shapes<__half, Sum, false>(bench, s, "float16", "sum", n);
    for (u64 n : {1024ull, 4096ull}) one_vector_shapes<__nv_bfloat16, Sum, false>(bench, s, "bfloat16", "sum", n);
    for (u64 n : {1024ull}) one_vector_shapes<double, Sum, false>(bench, s, "float64", "sum", n);
    for (u64 n : {1024ull}) one_vector_shapes<std::int64_t, ArgMax, false>(bench, s, "int64", "argmax", n);
    for (u64 n : {1024ull}) one_vector_shapes<std::int32_t, Sum, false>(bench, s, "int32", "sum", n);
    for (u64 n : {256ull, 2048ull}) one_vector_shapes<__half, Sum, true>(bench, s, "float16", "dot", n);
    for (u64 n : {1000ull}) one_vector_shapes<float, Sum, true>(bench, s, "float32", "dot", n);
  }
}

void small_inputs(Bench& bench, cudaStream_t s) {
  std::printf(
      "\n| case | L2 | dot | 512x4 | 256x4 | 64x4 | 32x4 | sum | warp dot | warp sum | CUB dot | CUB sum |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  for (const u64 n : {32ull, 128ull, 256ull, 1000ull}) {
    dot_case<__half>(bench, s, "float16", n);
    dot_case<float>(bench, s, "float32", n);
  }
  dot_case<std::int32_t>(bench, s, "int32", 128);
  std::printf(
      "\n| case | L2 | floor | 1 wait | 2 parameters | 3 block_reduce | 4 thread_partial | 5 512 threads | "
      "32x4 |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n");
  for (int round = 0; round < 2; ++round) {
    warp_steps<__half>(bench, s, "float16", 256);
    warp_steps<float>(bench, s, "float32", 128);
  }
  std::printf(
      "\n| case | L2 | 512x4 | 32x4 | 32x4 one batch | 64x2 one batch | 128x1 one batch | 512x4 one batch |\n"
      "|---|---|---:|---:|---:|---:|---:|---:|\n");
  using gpureduce::Sum, gpureduce::Max, gpureduce::ArgMax;
  for (int round = 0; round < 2; ++round) {
    batch_shapes<__half, Sum, true>(bench, s, "float16", "dot", 256);
    batch_shapes<float, Sum, true>(bench, s, "float32", "dot", 128);
    batch_shapes<float, Sum, true>(bench, s, "float32", "dot", 500);
    batch_shapes<float, Sum, false>(bench, s, "float32", "sum", 500);
    batch_shapes<__half, Sum, false>(bench, s, "float16", "sum", 1000);
    batch_shapes<std::int8_t, Sum, false>(bench, s, "int8", "sum", 2000);
    batch_shapes<std::int32_t, Sum, false>(bench, s, "int32", "sum", 33);
    batch_shapes<float, Max, false>(bench, s, "float32", "max", 500);
    batch_shapes<float, ArgMax, false>(bench, s, "float32", "argmax", 500);
    batch_shapes<double, Sum, false>(bench, s, "float64", "sum", 250);
  }
  one_vector(bench, s);
}

}  // namespace

int main(int argc, char** argv) {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  Bench bench(s, setup.l2_bytes);
  if (argc > 1 && std::strcmp(argv[1], "small") == 0) {  // small_inputs alone
    std::printf("median us of 30 samples; before each: dirty, code, clean as below\n");
    small_inputs(bench, s);
    return 0;
  }
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
  small_inputs(bench, s);
  return 0;
}
