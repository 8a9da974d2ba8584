// Does the L2 eviction policy of the input loads change a large reduction's time (issue 3:
// 2^20-2^24 int32 sum)? The bench's L2 flush (a memset of 2x L2 before each sample) leaves L2 full
// of dirty lines; a kernel whose loads allocate with the normal policy evicts them, and the
// write-back shares DRAM with its reads. Loads marked evict-first should replace each other
// instead. Not part of the library: same protocol as `gpureduce bench` (CUDA events, 3 warm-ups,
// median of 30), run by `tools/device-run COMMIT l2policy`.
//   read kernel: int32 sum of int4 vectors, 256 threads x 4 vectors per batch, grid stride, each
//   block stores its partial (no combine), one wave of 1056 blocks, per load (`variants`: plain,
//   .cs, .nc, and .nc with an L2 cache policy of each priority, with or without L1::no_allocate)
//   then gpureduce::sum and CUB's Sum, each under these L2 states before a sample:
//   dirty     memset of 2x L2 (the bench's flush)
//   clean     a read of 2x L2 (L2 full of lines that need no write-back)
//   hot       nothing: the input from the previous sample, where it fits
//   produced  a memset of the input itself (a producer kernel's output, its tail dirty in L2)
//   dirty+next  as dirty, and the timed span also holds a memset of 2x L2 after the kernel: the
//             write-back that evict-first loads leave in L2 is paid by the next kernel
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "read_sum.cuh"

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace {

using u64 = unsigned long long;
constexpr unsigned threads = 256;
constexpr unsigned unroll = 4;
constexpr unsigned blocks = 1056;

// A load: the instruction's form and, for the cache_hint forms, the L2 policy it carries.
enum Form { global, global_cs, global_nc, hint_no_l1, hint };
enum L2 { none, evict_normal, evict_unchanged, evict_first_half, evict_first };
struct Variant {
  Form form;
  L2 l2;
  const char* name;
};
constexpr Variant variants[] = {
    {global, none, "ld.global"},
    {global_cs, none, "ld.global.cs"},
    {global_nc, none, "ld.global.nc"},
    {hint_no_l1, evict_normal, "nc, no L1, evict_normal"},
    {hint, evict_normal, "nc, evict_normal"},
    {hint_no_l1, evict_unchanged, "nc, no L1, evict_unchanged"},
    {hint_no_l1, evict_first_half, "nc, no L1, evict_first 0.5"},
    {hint_no_l1, evict_first, "nc, no L1, evict_first"},
    {hint, evict_first, "nc, evict_first"},
};
constexpr int variant_count = sizeof variants / sizeof variants[0];

template <L2 P>
__device__ __forceinline__ std::uint64_t make_policy() {
  // sm_90 takes the L2 priority of a 16-byte load as a cache policy, not as a qualifier.
  std::uint64_t r = 0;
  if constexpr (P == evict_normal) asm("createpolicy.fractional.L2::evict_normal.b64 %0, 1.0;" : "=l"(r));
  if constexpr (P == evict_unchanged) asm("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;" : "=l"(r));
  if constexpr (P == evict_first_half)
    asm("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;" : "=l"(r));
  if constexpr (P == evict_first) asm("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(r));
  return r;
}

template <Form F>
__device__ __forceinline__ int4 load(const int4* p, std::uint64_t policy) {
  int4 r;
  if constexpr (F == global)
    asm volatile("ld.global.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  if constexpr (F == global_cs)
    asm volatile("ld.global.cs.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  if constexpr (F == global_nc)
    asm volatile("ld.global.nc.v4.s32 {%0,%1,%2,%3}, [%4];" : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p));
  if constexpr (F == hint_no_l1)
    asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
  if constexpr (F == hint)
    asm volatile("ld.global.nc.L2::cache_hint.v4.s32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w) : "l"(p), "l"(policy));
  return r;
}

template <Form F, L2 P>
__global__ void __launch_bounds__(threads) read_kernel(const int4* in, u64 vectors, u64* out) {
  const std::uint64_t policy = make_policy<P>();
  u64 acc = read_sum<threads, unroll>(in, vectors, [&](const int4* p) { return load<F>(p, policy); });
  __shared__ u64 warps[threads / 32];
  for (int o = 16; o > 0; o /= 2) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (unsigned w = 1; w < threads / 32; ++w) acc += warps[w];
    out[blockIdx.x] = acc;
  }
}

enum State { dirty, clean, hot, produced, dirty_next };
const char* const state_names[] = {"dirty", "clean", "hot", "produced", "dirty+next"};

// Median us of f, each sample after `st`'s L2 state (dirty+next: and the memset after f, timed).
struct Bench {
  gpureduce::GpuTimer timer;
  gpureduce::DeviceBuffer<int4> flush;
  gpureduce::DeviceBuffer<int> sink{1};
  void* input = nullptr;
  std::size_t input_bytes = 0;

  Bench(cudaStream_t s, std::size_t l2_bytes) : timer(s, 0), flush(2 * l2_bytes / sizeof(int4)) {
    GPUREDUCE_CUDA(cudaMemset(flush.get(), 1, flush.size() * sizeof(int4)));
  }
  std::size_t flush_bytes() const { return flush.size() * sizeof(int4); }
  template <class F>
  double median_us(State st, F&& f) {
    const auto memset_flush = [&](cudaStream_t s) {
      GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush_bytes(), s));
    };
    const auto before = [&](cudaStream_t s) {
      if (st == dirty || st == dirty_next) memset_flush(s);
      if (st == produced) GPUREDUCE_CUDA(cudaMemsetAsync(input, 1, input_bytes, s));
      if (st == clean) touch_kernel<<<1056, 256, 0, s>>>(flush.get(), flush.size(), sink.get());
    };
    const auto run = [&](cudaStream_t s) {
      f();
      if (st == dirty_next) memset_flush(s);
    };
    const double ms = timer.measure(run, 30, 3, before).median_ms;
    GPUREDUCE_CUDA(cudaGetLastError());
    return ms * 1e3;
  }
};

}  // namespace

// Sizes in int32 elements, as arguments (a count or 2^k); without, 1M to 256M.
int main(int argc, char** argv) {
  std::vector<u64> sizes{u64(1) << 20, u64(1) << 22, u64(1) << 23, u64(1) << 24, u64(3) << 23, u64(1) << 25,
                         u64(3) << 24, u64(1) << 26, u64(1) << 27, u64(1) << 28};
  if (argc > 1) sizes.clear();
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const u64 n = arg.rfind("2^", 0) == 0 ? u64(1) << std::stoi(arg.substr(2)) : std::stoull(arg);
    if (n == 0 || n % 4 != 0 || n > (u64(1) << 28)) {
      std::fprintf(stderr, "l2_policy_probe: sizes are multiples of 4 up to 2^28 int32 elements, not %s\n", argv[a]);
      return 2;
    }
    sizes.push_back(n);
  }
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  Bench bench(s, setup.l2_bytes);
  const u64 max_n = u64(1) << 28;
  const gpureduce::DeviceBuffer<int4> input(max_n / 4);
  const gpureduce::DeviceBuffer<u64> partials(blocks);
  const gpureduce::DeviceBuffer<long long> result(1);
  int4* in = input.get();
  GPUREDUCE_CUDA(cudaMemset(in, 1, max_n * sizeof(int)));
  const auto* ints = reinterpret_cast<const int*>(in);
  std::size_t temp_bytes = 0;
  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, ints, result.get(), std::int64_t(max_n), s));
  const gpureduce::DeviceBuffer<unsigned char> temp(temp_bytes);

  std::printf("int32 sum, median us of 30 samples; L2 before each sample: dirty (memset of %zu MB), clean "
              "(read of as much), hot (nothing), produced (memset of the input), dirty+next (the memset also "
              "after the kernel, timed)\n",
              bench.flush_bytes() >> 20);
  std::printf("| L2 | n |");
  for (const Variant& v : variants) std::printf(" read, %s |", v.name);
  std::printf(" gpureduce::sum | CUB Sum |\n|---|---:|");
  for (int p = 0; p < variant_count + 2; ++p) std::printf("---:|");
  std::printf("\n");
  bench.input = in;
  for (State st : {dirty, clean, hot, produced, dirty_next}) {
    for (u64 n : sizes) {
      const u64 vectors = n / 4;
      bench.input_bytes = n * sizeof(int);
      std::printf("| %s | %llu K |", state_names[st], n >> 10);
      const auto read = [&](auto kernel) {
        std::printf(" %.2f |",
                    bench.median_us(st, [&] { kernel<<<blocks, threads, 0, s>>>(in, vectors, partials.get()); }));
      };
      [&]<int... I>(std::integer_sequence<int, I...>) {
        (read(read_kernel<variants[I].form, variants[I].l2>), ...);
      }(std::make_integer_sequence<int, variant_count>{});
      std::printf(" %.2f |", bench.median_us(st, [&] { gpureduce::sum(ints, n, result.get(), s); }));
      std::printf(" %.2f |\n", bench.median_us(st, [&] {
        std::size_t b = temp_bytes;
        GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp.get(), b, ints, result.get(), std::int64_t(n), s));
      }));
    }
  }
  return 0;
}
