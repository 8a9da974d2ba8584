// Where one block stops beating the grid for transformed values and records: each kernel forced
// (Options::force_kernel), samples alternating in one run (events, a memset of 2x L2 before each
// sample, median of 20), 8 to 64 KB of input, then the library's own choice timed after them. The
// one-block limit (dispatch/tuning_sm90.hpp) was measured on sums of numbers, whose per-element
// work is one add; a transform or a record's fields add work that one block does alone. Run by
// `tools/device-run COMMIT crossover`.
#include <gpureduce/gpureduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"
#include "small_records.cuh"

#include <cuda_fp16.h>

#include <cstdint>
#include <cstdio>

namespace {

using u64 = unsigned long long;

struct Rgb {  // 3 bytes: vectors of 48
  std::uint8_t r, g, b;
};
struct Fields {  // to a number
  __host__ __device__ double operator()(const Doubles& d) const { return d.a + d.b; }
  __host__ __device__ double operator()(const Pair& p) const { return double(p.a) + p.b; }
  __host__ __device__ std::int64_t operator()(const Rgba& p) const { return p.r + 2 * p.g + p.b + p.a; }
  __host__ __device__ std::int64_t operator()(const Rgb& p) const { return p.r + 2 * p.g + p.b; }
};
struct Square {
  __host__ __device__ float operator()(float x) const { return x * x; }
  __host__ __device__ float operator()(__half x) const { return __half2float(x) * __half2float(x); }
  __host__ __device__ int operator()(std::int8_t x) const { return x * x; }
};

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  constexpr int reps = 20;
  gpureduce::DeviceBuffer<unsigned char> x((64 << 10) + 64), out_a(64), out_b(64);
  std::printf("each kernel forced, median us of %d samples (alternating), L2 flushed before each\n\n", reps);
  std::printf("| input | bytes | one block us | grid us | grid / one block | library us | same result |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|\n");
  // call(in, n, out, opt) reduces n elements of R from byte `offset` of x.
  const auto rows = [&]<class R, class Out, class F>(const char* name, unsigned offset, R, Out, F, auto call) {
    fill_small<F><<<64, 256, 0, s>>>(reinterpret_cast<F*>(x.get()), ((64 << 10) + 64) / sizeof(F));
    const R* in = reinterpret_cast<const R*>(x.get() + offset);
    for (const unsigned kb : {8u, 16u, 24u, 32u, 40u, 48u, 56u, 64u}) {
      const u64 n = (u64(kb) << 10) / sizeof(R);
      gpureduce::Options one, grid;
      one.force_kernel = gpureduce::Kernel::one_block;
      grid.force_kernel = gpureduce::Kernel::grid;
      Out* oa = reinterpret_cast<Out*>(out_a.get());
      Out* ob = reinterpret_cast<Out*>(out_b.get());
      const auto [t1, tg] = timer.measure_pair([&](cudaStream_t) { call(in, n, oa, one); },
                                               [&](cudaStream_t) { call(in, n, ob, grid); }, reps);
      const gpureduce::TimingStats picked = timer.measure([&](cudaStream_t) { call(in, n, oa, {}); }, reps);
      Out ra, rb;
      GPUREDUCE_CUDA(cudaMemcpy(&ra, oa, sizeof(Out), cudaMemcpyDeviceToHost));
      GPUREDUCE_CUDA(cudaMemcpy(&rb, ob, sizeof(Out), cudaMemcpyDeviceToHost));
      std::printf("| %s from byte %u | %u KB | %.2f | %.2f | %.3f | %.2f | %s |\n", name, offset, kb,
                  t1.median_ms * 1e3, tg.median_ms * 1e3, tg.median_ms / t1.median_ms, picked.median_ms * 1e3,
                  ra == rb ? "yes" : "NO");
    }
  };
  const auto with_fields = [&](auto in, u64 n, auto* out, const gpureduce::Options& o) {
    gpureduce::transform_reduce(in, n, out, Fields{}, gpureduce::Sum{}, s, o);
  };
  const auto squared = [&](auto in, u64 n, auto* out, const gpureduce::Options& o) {
    gpureduce::transform_reduce(in, n, out, Square{}, gpureduce::Sum{}, s, o);
  };
  rows("int32 sum", 0u, int{}, std::int64_t{}, int{},
       [&](const int* in, u64 n, std::int64_t* out, const gpureduce::Options& o) {
         gpureduce::reduce(in, n, out, gpureduce::Sum{}, s, o);
       });
  rows("float32 squares", 0u, float{}, float{}, float{}, squared);
  rows("float16 squares", 0u, __half{}, float{}, __half{}, squared);
  rows("int8 squares", 0u, std::int8_t{}, int{}, std::int8_t{}, squared);
  rows("4-byte pixel", 0u, Rgba{}, std::int64_t{}, std::uint8_t{}, with_fields);
  rows("4-byte pixel", 1u, Rgba{}, std::int64_t{}, std::uint8_t{}, with_fields);
  rows("3-byte pixel", 0u, Rgb{}, std::int64_t{}, std::uint8_t{}, with_fields);
  rows("pair of floats (8 B)", 4u, Pair{}, double{}, float{}, with_fields);
  rows("pair of doubles (16 B)", 0u, Doubles{}, double{}, double{}, with_fields);
  rows("pair of doubles (16 B)", 8u, Doubles{}, double{}, double{}, with_fields);
  return 0;
}
