// Where do small and mid-size exact sums spend their time (docs/exact.md: 8-24 us at 2^10-2^20
// against 4-9 us for the plain sum)? Not part of the library: same protocol as `gpureduce bench`
// (CUDA events, 3 warm-ups, median of 30), run by `tools/device-run COMMIT exactlatency`. Per type
// and size, the exact sum and the plain sum under three states before a sample:
//   dirty   memset of 2x L2 (the bench's flush: L2 full of dirty lines, the kernel's code evicted)
//   code    as dirty, then the same call on another input: code and parameters warm, input cold
//   clean   a read of 2x L2 (L2 full of lines that need no write-back)
//   alt     the plain sum of another input, then the flush (the bench's samples alternate so)
// and the exact sum forced onto one block (up to 2^16) or onto 1/4 of its grid.
#include <gpureduce/gpureduce.cuh>

#include <cuda_bf16.h>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>

namespace {

using u64 = unsigned long long;

template <class T>
__global__ void fill(T* x, u64 n, u64 seed) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x) {
    const u64 h = (i + seed) * 0x9E3779B97F4A7C15ull;
    x[i] = T(float(double(h >> 40) / double(1 << 24) * 200 - 100));
  }
}

enum State { dirty, code, clean, alt };

struct Bench {
  gpureduce::GpuTimer timer;
  gpureduce::DeviceBuffer<int4> flush;
  gpureduce::DeviceBuffer<int> sink{1};

  Bench(cudaStream_t s, std::size_t l2_bytes) : timer(s, 0), flush(2 * l2_bytes / sizeof(int4)) {}
  // Median us of run(input 0), each sample after `st` (alt: other(input 1), then the flush).
  double median_us(State st, const std::function<void(cudaStream_t, int)>& run,
                   const std::function<void(cudaStream_t, int)>& other = {}) {
    const auto before = [&](cudaStream_t s) {
      if (st == alt) other(s, 1);
      if (st == dirty || st == code || st == alt)
        GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush.size() * sizeof(int4), s));
      if (st == code) run(s, 1);
      if (st == clean) touch_kernel<<<1056, 256, 0, s>>>(flush.get(), flush.size(), sink.get());
    };
    const double ms = timer.measure([&](cudaStream_t s) { run(s, 0); }, 30, 3, before).median_ms;
    GPUREDUCE_CUDA(cudaGetLastError());
    return ms * 1e3;
  }
};

template <class T>
void row(Bench& b, cudaStream_t s, const char* name, u64 n) {
  const gpureduce::DeviceBuffer<T> in(2 * n + 16);
  const gpureduce::DeviceBuffer<T> out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 2 * n + 16, 5);
  const auto exact = [&](gpureduce::Options opt) {
    opt.exact = true;
    return [&, opt](cudaStream_t st, int i) { gpureduce::sum(in.get() + i * (n + 16), n, out.get() + i, st, opt); };
  };
  const auto plain = [&](cudaStream_t st, int i) { gpureduce::sum(in.get() + i * (n + 16), n, out.get() + i, st); };
  std::printf("%-9s 2^%-3d", name, 63 - __builtin_clzll(n));
  for (State st : {dirty, code, clean}) std::printf(" %7.2f", b.median_us(st, exact({})));
  std::printf(" %7.2f", b.median_us(alt, exact({}), plain));
  for (State st : {dirty, code, clean}) std::printf(" %7.2f", b.median_us(st, plain));
  std::printf(" %7.2f", b.median_us(alt, plain, exact({})));
  gpureduce::Options one;
  one.force_kernel = gpureduce::Kernel::one_block;
  if (n <= (u64(1) << 16)) std::printf(" %7.2f", b.median_us(dirty, exact(one)));
  else std::printf(" %7s", "-");
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main() {
  const ProbeSetup p = probe_setup();
  Bench b(p.stream, p.l2_bytes);
  std::printf("# exact_latency_probe, %s: us, medians of 30\n", device_line().c_str());
  std::printf("%-15s %7s %7s %7s %7s %7s %7s %7s %7s %7s\n", "type n", "x.dirty", "x.code", "x.clean", "x.alt",
              "p.dirty", "p.code", "p.clean", "p.alt", "x.1blk");
  for (int k = 10; k <= 20; k += 2) {
    const u64 n = u64(1) << k;
    row<float>(b, p.stream, "float32", n);
    row<double>(b, p.stream, "float64", n);
    row<__nv_bfloat16>(b, p.stream, "bfloat16", n);
  }
  return 0;
}
