// Whether argmin/argmax of 8-byte values could end without a hand-off (issue 3: int64 and float64
// argmax of 2 MB miss 0.7x of CUB's time by 0.05-0.24 us). Their partial, value and 64-bit index,
// is 16 bytes: too wide for the atomic end's integer atomics (kernel/atomic_end.cuh), but sm_90
// has a 16-byte compare-and-swap (atom.cas.b128). Each reading block swaps its partial into the
// result while it beats what the result holds; the best value with the smallest index wins
// whatever the order, so the bits are the same on every run. The identity must be in the result
// before the first swap: the atomic end's ticket and published generation, block 0 storing it.
// Not part of the library: a stand-alone measurement, same protocol as `gpureduce bench` (a memset
// of twice the L2 before each sample, CUDA events), every way's samples alternating, run by
// `tools/device-run COMMIT argmaxend`. 256 threads x 4 vectors of 16 bytes (16 KB) per block, as
// the library's grid, evict-first loads; argmax of int64 and of double (no NaN in the data).
//   read only   each block stores its 16-byte partial; no combine: the floor of any grid
//   cas preset  swaps into a result that holds the identity before the sample (the bound)
//   cas         the ticket protocol, the generation awaited after the block's reduction, then swaps
//   hint preset as cas preset, but the block first loads the result (16 bytes, relaxed) and swaps
//               only if its value is not beaten there: the result only improves, so a value that
//               beats the block's in any state of it, even a torn load, beats it in the end
//   cas hint    the ticket protocol, then the hint's load and swaps
//   gpureduce   gpureduce::argmax of the same (the last block's poll, or the combiner block)
//   CUB         DeviceReduce::ArgMax of the same
#include <gpureduce/gpureduce.cuh>
#include <gpureduce/kernel/atomic_end.cuh>

#include <cub/device/device_reduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

namespace {

using u64 = unsigned long long;
constexpr unsigned threads = 256, unroll = 4, warps = threads / 32;
constexpr int samples = 101;

template <class T>
struct alignas(16) Best {
  T value;
  long long index;
};

template <class T>
__host__ __device__ bool better(Best<T> b, Best<T> a) {
  return a.value < b.value || (b.value == a.value && b.index < a.index);
}
template <class T>
__host__ __device__ Best<T> identity() {
  return {gpureduce::lowest<T>(), gpureduce::highest<long long>()};
}
template <class To, class From>
__host__ __device__ To bits_as(From f) {
  To t;
  memcpy(&t, &f, sizeof t);
  return t;
}
template <class T>
__device__ bool same_bits(Best<T> a, Best<T> b) {
  return bits_as<u64>(a.value) == bits_as<u64>(b.value) && a.index == b.index;
}

template <class T>
__device__ Best<T> shfl_down(Best<T> b, int d) {
  return {__shfl_down_sync(~0u, b.value, d), __shfl_down_sync(~0u, b.index, d)};
}

template <class T>
__device__ Best<T> block_best(Best<T> b) {
  __shared__ Best<T> part[warps];
  for (int d = 16; d > 0; d /= 2) {
    const Best<T> o = shfl_down(b, d);
    if (better(o, b)) b = o;
  }
  if (threadIdx.x % 32 == 0) part[threadIdx.x / 32] = b;
  __syncthreads();
  if (threadIdx.x < 32) {
    b = threadIdx.x < warps ? part[threadIdx.x] : identity<T>();
    for (int d = 16; d > 0; d /= 2) {
      const Best<T> o = shfl_down(b, d);
      if (better(o, b)) b = o;
    }
  }
  return b;  // thread 0's
}

// Batch `batch` of unroll x threads vectors, each 16 bytes = two values; the thread's best.
template <class T>
__device__ Best<T> thread_best(const int4* in, u64 vectors, unsigned batch) {
  int4 x[unroll];
  u64 at[unroll];
#pragma unroll
  for (unsigned k = 0; k < unroll; ++k) {
    at[k] = u64(batch) * threads * unroll + k * threads + threadIdx.x;
    x[k] = at[k] < vectors ? __ldcs(in + at[k]) : make_int4(0, 0, 0, 0);
  }
  Best<T> b = identity<T>();
#pragma unroll
  for (unsigned k = 0; k < unroll; ++k) {
    if (at[k] >= vectors) continue;
    const T v[2] = {bits_as<T>((u64(unsigned(x[k].y)) << 32) | unsigned(x[k].x)),
                    bits_as<T>((u64(unsigned(x[k].w)) << 32) | unsigned(x[k].z))};
    for (int j = 0; j < 2; ++j) {
      const Best<T> c{v[j], (long long)(2 * at[k] + j)};
      if (better(c, b)) b = c;
    }
  }
  return b;
}

// Swaps b into the result while it beats what the result holds; `seen` is the guess of its value.
template <class T>
__device__ void swap_in(Best<T>* result, Best<T> b, Best<T> seen) {
  while (better(b, seen)) {
    const Best<T> old = atomicCAS(result, seen, b);
    if (same_bits(old, seen)) return;
    seen = old;
  }
}

// The result as it is now, as the first guess of the swap (a torn load only costs a failed swap).
template <class T>
__device__ Best<T> load_hint(const Best<T>* result) {
  u64 v, i;
  asm volatile("ld.relaxed.gpu.global.v2.u64 {%0, %1}, [%2];" : "=l"(v), "=l"(i) : "l"(result) : "memory");
  return {bits_as<T>(v), (long long)i};
}
// Swaps b in unless the result's value already beats b's.
template <class T>
__device__ void swap_in_hinted(Best<T>* result, Best<T> b) {
  const Best<T> hint = load_hint(result);
  if (b.value < hint.value) return;
  swap_in(result, b, hint);
}

template <class T>
__global__ void __launch_bounds__(threads) read_only_kernel(const int4* in, u64 vectors, Best<T>* partials) {
  const Best<T> b = block_best(thread_best<T>(in, vectors, blockIdx.x));
  if (threadIdx.x == 0) partials[blockIdx.x] = b;
}

template <class T>
__global__ void __launch_bounds__(threads) cas_preset_kernel(const int4* in, u64 vectors, Best<T>* result) {
  const Best<T> b = block_best(thread_best<T>(in, vectors, blockIdx.x));
  if (threadIdx.x == 0) swap_in(result, b, identity<T>());
}

template <class T>
__global__ void __launch_bounds__(threads) hint_preset_kernel(const int4* in, u64 vectors, Best<T>* result) {
  const Best<T> b = block_best(thread_best<T>(in, vectors, blockIdx.x));
  if (threadIdx.x == 0) swap_in_hinted(result, b);
}

// Block 0 stores the identity and publishes the generation; blocks 1.. read batch blockIdx.x - 1.
template <bool Hint, class T>
__global__ void __launch_bounds__(threads) cas_kernel(const int4* in, u64 vectors, Best<T>* result, u64* ws) {
  __shared__ gpureduce::GenerationTicket ticket;
  if (threadIdx.x == 0) ticket = gpureduce::draw_generation_ticket(ws);
  if (blockIdx.x == 0) {
    if (threadIdx.x == 0) {
      gpureduce::close_generation(ws, ticket);
      *result = identity<T>();
      gpureduce::publish_generation(ws + 16, ticket);
    }
    return;
  }
  const Best<T> b = block_best(thread_best<T>(in, vectors, blockIdx.x - 1));
  if (threadIdx.x == 0) {
    gpureduce::close_generation(ws, ticket);
    gpureduce::wait_for_generation(ws + 16, ticket);
    if (Hint) swap_in_hinted(result, b);
    else swap_in(result, b, identity<T>());
  }
}

enum Way { read_only, cas_preset, cas, hint_preset, cas_hint, lib, cub_way, ways };
const char* const names[ways] = {"read only", "cas preset", "cas", "hint preset", "cas hint", "gpureduce", "CUB"};

template <class T>
int run_type(const char* type, cudaStream_t s, gpureduce::GpuTimer& timer, void* flush, std::size_t flush_bytes,
             u64* ws) {
  std::printf("%s argmax\n%8s %6s", type, "bytes", "blocks");
  for (const char* name : names) std::printf(" %11s", name);
  std::printf("\n");
  int wrong = 0;
  std::mt19937_64 rng(12345);
  Best<T>* out = nullptr;  // one result per way
  Best<T>* partials = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&out, ways * sizeof(Best<T>)));
  GPUREDUCE_CUDA(cudaMalloc(&partials, 4096 * sizeof(Best<T>)));
  for (const std::size_t kb : {256, 512, 1024, 2048, 4096}) {
    const std::size_t bytes = kb * 1024, n = bytes / 8;
    const u64 vectors = bytes / 16;
    const unsigned blocks = unsigned((vectors + threads * unroll - 1) / (threads * unroll));
    std::vector<T> host(n);
    for (T& v : host) v = T(std::int64_t(rng() % 2000001) - 1000000);  // ties likely: the first index must win
    Best<T> want = identity<T>();
    for (std::size_t i = 0; i < n; ++i)
      if (better(Best<T>{host[i], (long long)i}, want)) want = {host[i], (long long)i};
    T* in = nullptr;
    GPUREDUCE_CUDA(cudaMalloc(&in, bytes));
    GPUREDUCE_CUDA(cudaMemcpy(in, host.data(), bytes, cudaMemcpyHostToDevice));
    const auto* in4 = reinterpret_cast<const int4*>(in);
    auto* lib_out = reinterpret_cast<gpureduce::IndexedValue<T>*>(out + lib);
    auto* cub_value = reinterpret_cast<T*>(out + cub_way);
    auto* cub_index = reinterpret_cast<std::int64_t*>(cub_value + 1);
    std::size_t temp_bytes = 0;
    GPUREDUCE_CUDA(cub::DeviceReduce::ArgMax(nullptr, temp_bytes, in, cub_value, cub_index, std::int64_t(n), s));
    void* temp = nullptr;
    GPUREDUCE_CUDA(cudaMalloc(&temp, temp_bytes));
    auto run = [&](Way w) {
      switch (w) {
        case read_only: read_only_kernel<T><<<blocks, threads, 0, s>>>(in4, vectors, partials); break;
        case cas_preset: cas_preset_kernel<T><<<blocks, threads, 0, s>>>(in4, vectors, out + w); break;
        case cas: cas_kernel<false, T><<<blocks + 1, threads, 0, s>>>(in4, vectors, out + w, ws); break;
        case hint_preset: hint_preset_kernel<T><<<blocks, threads, 0, s>>>(in4, vectors, out + w); break;
        case cas_hint: cas_kernel<true, T><<<blocks + 1, threads, 0, s>>>(in4, vectors, out + w, ws); break;
        case lib: gpureduce::argmax(in, n, lib_out, s); break;
        case cub_way: {
          std::size_t b = temp_bytes;
          GPUREDUCE_CUDA(cub::DeviceReduce::ArgMax(temp, b, in, cub_value, cub_index, std::int64_t(n), s));
          break;
        }
        default: break;
      }
      GPUREDUCE_CUDA(cudaGetLastError());
    };
    std::vector<std::vector<double>> us(ways);
    const Best<T> preset = identity<T>();
    for (int i = -3; i < samples; ++i) {  // three warm-up rounds
      for (int j = 0; j < ways; ++j) {
        const Way w = Way((j + i + 3) % ways);
        const auto before = [&](cudaStream_t st) {
          GPUREDUCE_CUDA(cudaMemsetAsync(out + w, 0xA5, sizeof(Best<T>), st));
          GPUREDUCE_CUDA(cudaMemsetAsync(flush, i & 0xff, flush_bytes, st));
          if (w == cas_preset || w == hint_preset)
            GPUREDUCE_CUDA(cudaMemcpyAsync(out + w, &preset, sizeof preset, cudaMemcpyHostToDevice, st));
        };
        const gpureduce::TimingStats t = timer.measure([&](cudaStream_t) { run(w); }, 1, 0, before);
        if (i >= 0) us[w].push_back(t.median_ms * 1000.0);
        if (w == read_only) continue;
        Best<T> got{};
        GPUREDUCE_CUDA(cudaMemcpy(&got, out + w, sizeof got, cudaMemcpyDeviceToHost));
        if ((got.value != want.value || got.index != want.index) && wrong++ < 10)
          std::printf("WRONG: %zu KB %s sample %d: (%g, %lld), want (%g, %lld)\n", kb, names[w], i, double(got.value),
                      got.index, double(want.value), want.index);
      }
    }
    std::printf("%7zuK %6u", kb, blocks);
    print_medians(us, 11);
    GPUREDUCE_CUDA(cudaFree(in));
    GPUREDUCE_CUDA(cudaFree(temp));
  }
  GPUREDUCE_CUDA(cudaFree(out));
  GPUREDUCE_CUDA(cudaFree(partials));
  return wrong;
}

}  // namespace

int main() {
  ProbeSetup p = probe_setup();
  std::printf("%s; us, median of %d samples per way, L2 flushed (memset of 2x L2) before each\n",
              device_line().c_str(), samples);
  const std::size_t flush_bytes = 2 * p.l2_bytes;
  void* flush = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&flush, flush_bytes));
  gpureduce::GpuTimer timer(p.stream, 0);  // flushes in `before`, with the way's own set-up after it
  u64* ws = nullptr;  // ticket word 0, published generation word 16: separate 128-byte lines
  GPUREDUCE_CUDA(cudaMalloc(&ws, 256));
  GPUREDUCE_CUDA(cudaMemset(ws, 0, 256));
  int wrong = run_type<long long>("int64", p.stream, timer, flush, flush_bytes, ws);
  wrong += run_type<double>("float64", p.stream, timer, flush, flush_bytes, ws);
  std::printf(wrong ? "%d WRONG results\n" : "every result checked: right\n", wrong);
  return wrong ? 1 : 0;
}
