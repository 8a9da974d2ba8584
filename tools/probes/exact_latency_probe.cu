// Where do small and mid-size exact sums spend their time (docs/exact.md, "Small and mid-size
// inputs")? Not part of the library: run by `tools/device-run COMMIT exactlatency`. Per type and
// size, the exact sum and the plain sum under the four states of l2_states.cuh before a sample
// (alt: the other of the two sums, then the flush), and the exact sum forced onto one block (up
// to 2^16). With the argument `threads`: one block of 128, 256 and 512 threads (Options::
// force_threads) against the tuned launch, at 1-64 KB, samples alternating.
#include <gpureduce/gpureduce.cuh>

#include <cuda_bf16.h>

#include "l2_states.cuh"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <string_view>

namespace {

using u64 = unsigned long long;

template <class T>
__global__ void fill(T* x, u64 n, u64 seed) {
  for (u64 i = u64(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += u64(gridDim.x) * blockDim.x) {
    const u64 h = (i + seed) * 0x9E3779B97F4A7C15ull;
    x[i] = T(float(double(h >> 40) / double(1 << 24) * 200 - 100));
  }
}

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

// The exact sum of n elements on one block of 128, 256 and 512 threads and as tuned, after the
// flush, each sample alternating with the tuned launch's.
template <class T>
void threads_row(Bench& b, cudaStream_t s, const char* name, u64 n) {
  const gpureduce::DeviceBuffer<T> in(2 * n + 16);
  const gpureduce::DeviceBuffer<T> out(2);
  fill<<<64, 256, 0, s>>>(in.get(), 2 * n + 16, 5);
  const auto exact = [&](unsigned threads, gpureduce::Kernel k) {
    gpureduce::Options opt;
    opt.exact = true;
    opt.force_threads = threads;
    opt.force_kernel = k;
    return [&, opt](cudaStream_t st, int i) { gpureduce::sum(in.get() + i * (n + 16), n, out.get() + i, st, opt); };
  };
  const auto tuned = exact(0, gpureduce::Kernel::automatic);
  std::printf("%-9s %7llu %5llu", name, n, n * sizeof(T) / 1024);
  std::printf(" %7.2f", b.median_us(alt, tuned, exact(512, gpureduce::Kernel::one_block)));
  for (unsigned t : {128u, 256u, 512u})
    std::printf(" %7.2f", b.median_us(alt, exact(t, gpureduce::Kernel::one_block), tuned));
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  const ProbeSetup p = probe_setup();
  Bench b(p.stream, p.l2_bytes);
  if (argc > 1 && std::string_view(argv[1]) == "threads") {
    std::printf("# exact_latency_probe threads, %s: us, medians of 30, samples alternating with the tuned launch\n",
                device_line().c_str());
    std::printf("%-9s %7s %5s %7s %7s %7s %7s\n", "type", "n", "KB", "tuned", "1x128", "1x256", "1x512");
    for (u64 kb : {1, 2, 4, 8, 16, 32, 64}) {
      threads_row<float>(b, p.stream, "float32", kb * 256);
      threads_row<double>(b, p.stream, "float64", kb * 128);
      threads_row<__nv_bfloat16>(b, p.stream, "bfloat16", kb * 512);
    }
    return 0;
  }
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
