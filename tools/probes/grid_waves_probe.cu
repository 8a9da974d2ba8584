// Grids of several waves above 4x L2: the library's grid (one wave of resident blocks) against the
// grid kernel forced to 1320, 2640, 3960 and 4096 blocks, and CUB, from 256 MB to 4 GB, for records
// read one per load (agent/sources.cuh, RecordSource), records read in vectors, and numbers. Each
// forced grid and CUB is timed against the library's own grid, samples alternating (events, L2
// flushed before each sample, median of 21); the column is its time over the library's. Every
// forced grid's result is compared with the library's. Run by `tools/device-run COMMIT waves`.
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"
#include "small_records.cuh"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

using u64 = unsigned long long;

struct Fields {  // in double: exact sums of ones at every size
  __host__ __device__ double operator()(const Point& p) const { return p.x + p.y + p.z; }
  __host__ __device__ double operator()(const Doubles& d) const { return d.a + d.b; }
  __host__ __device__ double operator()(const Pair& f) const { return double(f.a) + f.b; }
  __host__ __device__ double operator()(const Five& f) const {
    return double(f.v[0]) + f.v[1] + f.v[2] + f.v[3] + f.v[4];
  }
  __host__ __device__ double operator()(float3 f) const { return double(f.x) + f.y + f.z; }
  __host__ __device__ std::int64_t operator()(Pixel p) const { return p.r + 2 * p.g + p.b; }
};

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  constexpr int reps = 21;
  constexpr u64 max_bytes = u64(4) << 30;
  constexpr u64 forced[] = {1320, 2640, 3960, 4096};
  gpureduce::DeviceBuffer<unsigned char> in(max_bytes + 16);
  gpureduce::DeviceBuffer<unsigned char> out_a(64), out_b(64), temp(64 << 20);
  std::printf("time over the library's grid, median of %d samples each, alternating, L2 flushed before each\n\n", reps);
  std::printf("| input | bytes | library us | CUB |");
  for (u64 b : forced) std::printf(" %llu blocks |", b);
  std::printf("\n|---|---:|---:|---:|");
  for (u64 b : forced) std::printf("---:|"), (void)b;
  std::printf("\n");
  // ours(n, out, options), cub(temp, bytes, n, out); `result` bytes of each result compared, but
  // for bytes [4, 8) where `padded` (an IndexedValue<float>'s padding).
  const auto rows = [&](const char* name, std::size_t record, std::size_t result, auto fill_input, auto ours,
                        auto cub, bool padded = false) {
    const auto copy = [&](unsigned char* h, const void* d) {
      GPUREDUCE_CUDA(cudaMemcpy(h, d, result, cudaMemcpyDeviceToHost));
      if (padded) std::memset(h + 4, 0, 4);
    };
    for (u64 total = u64(256) << 20; total <= max_bytes; total <<= 1) {
      const u64 n = total / record;
      fill_input(n * record + 16);
      const auto library = [&](cudaStream_t) { ours(n, out_a.get(), gpureduce::Options{}); };
      std::size_t bytes = 0;
      GPUREDUCE_CUDA(cub(nullptr, bytes, n, out_b.get()));
      const auto [a, c] = timer.measure_pair(library,
                                             [&](cudaStream_t) {
                                               std::size_t t = bytes;
                                               GPUREDUCE_CUDA(cub(temp.get(), t, n, out_b.get()));
                                             },
                                             reps);
      std::printf("| %s | %llu MB | %.1f | %.3f |", name, total >> 20, a.median_ms * 1e3, c.median_ms / a.median_ms);
      unsigned char want[64];
      copy(want, out_a.get());
      for (u64 blocks : forced) {
        const gpureduce::Options opt{.force_kernel = gpureduce::Kernel::grid, .force_blocks = blocks};
        const auto [x, y] = timer.measure_pair(library, [&](cudaStream_t) { ours(n, out_b.get(), opt); }, reps);
        unsigned char got[64];
        copy(got, out_b.get());
        std::printf(" %.3f%s |", y.median_ms / x.median_ms, std::memcmp(want, got, result) == 0 ? "" : " DIFFERS");
      }
      std::printf("\n");
      std::fflush(stdout);
    }
  };
  const auto floats = [&](u64 b) {
    fill_sparse_ones<float><<<1024, 256, 0, s>>>(reinterpret_cast<float*>(in.get()), b / 4);
  };
  const auto doubles = [&](u64 b) {
    fill_sparse_ones<double><<<1024, 256, 0, s>>>(reinterpret_cast<double*>(in.get()), b / 8);
  };
  const auto bytes = [&](u64 b) { fill_sparse_ones<unsigned char><<<1024, 256, 0, s>>>(in.get(), b); };
  const auto ints = [&](u64 b) { fill_sparse_ones<int><<<1024, 256, 0, s>>>(reinterpret_cast<int*>(in.get()), b / 4); };
  // A record type read from `offset` bytes into the buffer, summed as Fields says.
  const auto records = [&]<class R, class Acc>(const char* name, std::size_t offset, auto fill_input) {
    const auto* p = reinterpret_cast<const R*>(in.get() + offset);
    rows(name, sizeof(R), sizeof(Acc), fill_input,
         [&](u64 n, void* o, const gpureduce::Options& opt) {
           gpureduce::transform_reduce(p, n, static_cast<Acc*>(o), Fields{}, gpureduce::Sum{}, s, opt);
         },
         [&](void* t, std::size_t& b, u64 n, void* o) {
           return cub::DeviceReduce::TransformReduce(t, b, p, static_cast<Acc*>(o), std::int64_t(n),
                                                     cuda::std::plus<>{}, Fields{}, Acc{}, s);
         });
  };
  records.operator()<Doubles, double>("pair of doubles from byte 8 (per load)", 8, doubles);
  records.operator()<Pair, double>("pair of floats from byte 4 (per load)", 4, floats);
  records.operator()<Five, double>("5 floats (20 B, per load)", 0, floats);
  records.operator()<Doubles, double>("pair of doubles from byte 0 (vectors)", 0, doubles);
  records.operator()<float3, double>("float3 (vectors)", 0, floats);
  records.operator()<Point, double>("point, 3 doubles (vectors)", 0, doubles);
  records.operator()<Pixel, std::int64_t>("3-byte pixel (vectors)", 0, bytes);
  // A sum of numbers of type T into Acc, against CUB's Sum of them converted to Acc.
  const auto number_sum = [&]<class T, class Acc>(const char* name, auto fill_input) {
    const auto* p = reinterpret_cast<const T*>(in.get());
    rows(name, sizeof(T), sizeof(Acc), fill_input,
         [&](u64 n, void* o, const gpureduce::Options& opt) {
           gpureduce::reduce(p, n, static_cast<Acc*>(o), gpureduce::Sum{}, s, opt);
         },
         [&](void* t, std::size_t& b, u64 n, void* o) {
           return cub::DeviceReduce::TransformReduce(t, b, p, static_cast<Acc*>(o), std::int64_t(n),
                                                     cuda::std::plus<>{}, cuda::std::identity{}, Acc{}, s);
         });
  };
  number_sum.operator()<int, std::int64_t>("int32 sum", ints);
  number_sum.operator()<std::int8_t, std::int64_t>("int8 sum", bytes);
  number_sum.operator()<double, double>("float64 sum", doubles);
  const auto* f32 = reinterpret_cast<const float*>(in.get());
  rows("float32 argmax", 4, 16, floats,
       [&](u64 n, void* o, const gpureduce::Options& opt) {
         gpureduce::argmax(f32, n, static_cast<gpureduce::IndexedValue<float>*>(o), s, opt);
       },
       [&](void* t, std::size_t& b, u64 n, void* o) {
         auto* v = static_cast<float*>(o);
         return cub::DeviceReduce::ArgMax(t, b, f32, v, reinterpret_cast<std::int64_t*>(v + 2), std::int64_t(n), s);
       },
       true);
  return 0;
}
