// Arrays off 16-byte boundaries, gpureduce against CUB in one run (samples alternating; events, a
// memset of 2x L2 before each sample, median of 20), results compared. Dot products whose second
// array starts one element past the first's offset mod 16, against the same dot product of arrays
// at the same offset, and against CUB's TransformReduce of a[i] * b[i] over a counting iterator (as
// the bench's dot); records whose address does not reach a 16-byte boundary, and records whose
// vectors span 32 and 64 bytes, against CUB's TransformReduce. Run by `tools/device-run COMMIT
// shifted`.
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/functional>
#include <thrust/iterator/counting_iterator.h>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"
#include "small_records.cuh"

#include <cstdint>
#include <cstdio>
#include <cstring>

namespace {

using u64 = unsigned long long;

template <class T, class A>
struct ProductAt {
  const T* a;
  const T* b;
  __device__ A operator()(std::int64_t i) const { return A(a[i]) * A(b[i]); }
};

struct alignas(8) Longs4 {  // 32 bytes: vectors of two 16-byte words
  std::int64_t v[4];
};
struct alignas(16) Ints16 {  // 64 bytes: vectors of four words
  int v[16];
};
struct Fields {  // to a number
  __host__ __device__ double operator()(const Doubles& d) const { return d.a + d.b; }
  __host__ __device__ double operator()(const Pair& p) const { return double(p.a) + p.b; }
  __host__ __device__ std::int64_t operator()(const Rgba& p) const { return p.r + 2 * p.g + p.b + p.a; }
  __host__ __device__ std::int64_t operator()(const Longs4& r) const { return r.v[0] + r.v[1] + r.v[2] + r.v[3]; }
  __host__ __device__ std::int64_t operator()(const Ints16& r) const {
    std::int64_t t = 0;
    for (int x : r.v) t += x;
    return t;
  }
};

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  constexpr int reps = 20;
  const u64 max_bytes = u64(1) << 31;
  gpureduce::DeviceBuffer<unsigned char> x(max_bytes + 64), y(max_bytes + 64);
  gpureduce::DeviceBuffer<unsigned char> out_a(64), out_b(64), out_c(64), temp(64 << 20);
  fill_small<signed char><<<1024, 256, 0, s>>>(reinterpret_cast<signed char*>(x.get()), max_bytes + 64);
  fill_small<signed char><<<1024, 256, 0, s>>>(reinterpret_cast<signed char*>(y.get()), max_bytes + 64);
  GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  const auto us = [](const gpureduce::TimingStats& t) { return t.median_ms * 1e3; };

  std::printf("dot products, median us of %d samples (gpureduce and CUB alternating), L2 flushed before each\n\n",
              reps);
  std::printf(
      "| type | n | b at a's offset us | b one element on us | CUB, b one element on, us | CUB / gpureduce | shifted / "
      "aligned | same result |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  const auto dot_rows = [&]<class T>(const char* name, T) {
    using A = gpureduce::accumulator_t<T, gpureduce::Sum>;
    for (const int lg : {12, 16, 20, 24, 27}) {
      const u64 n = u64(1) << lg;
      if ((n + 1) * sizeof(T) > max_bytes) continue;
      fill_small<T><<<1024, 256, 0, s>>>(reinterpret_cast<T*>(x.get()), n + 1);
      fill_small<T><<<1024, 256, 0, s>>>(reinterpret_cast<T*>(y.get()), n + 1);
      const T* a = reinterpret_cast<const T*>(x.get());
      const T* b_aligned = reinterpret_cast<const T*>(y.get());
      const T* b_shifted = b_aligned + 1;
      A* oa = reinterpret_cast<A*>(out_a.get());
      A* ob = reinterpret_cast<A*>(out_b.get());
      A* oc = reinterpret_cast<A*>(out_c.get());
      const auto cub = [&](void* t, std::size_t& bytes, A* o) {
        return cub::DeviceReduce::TransformReduce(t, bytes, thrust::counting_iterator<std::int64_t>(0), o,
                                                  std::int64_t(n), cuda::std::plus<A>{},
                                                  ProductAt<T, A>{a, b_shifted}, A(0), s);
      };
      std::size_t bytes = 0;
      GPUREDUCE_CUDA(cub(nullptr, bytes, oc));
      const auto [shifted, by_cub] = timer.measure_pair([&](cudaStream_t) { gpureduce::dot(a, b_shifted, n, ob, s); },
                                                        [&](cudaStream_t) {
                                                          std::size_t t = bytes;
                                                          GPUREDUCE_CUDA(cub(temp.get(), t, oc));
                                                        },
                                                        reps);
      const auto aligned = timer.measure([&](cudaStream_t) { gpureduce::dot(a, b_aligned, n, oa, s); }, reps);
      A rb, rc;
      GPUREDUCE_CUDA(cudaMemcpy(&rb, ob, sizeof(A), cudaMemcpyDeviceToHost));
      GPUREDUCE_CUDA(cudaMemcpy(&rc, oc, sizeof(A), cudaMemcpyDeviceToHost));
      std::printf("| %s | 2^%d | %.2f | %.2f | %.2f | %.3f | %.3f | %s |\n", name, lg, us(aligned), us(shifted),
                  us(by_cub), by_cub.median_ms / shifted.median_ms, shifted.median_ms / aligned.median_ms,
                  std::memcmp(&rb, &rc, sizeof(A)) == 0 ? "yes" : "NO");
    }
  };
  dot_rows("float32", float{});
  dot_rows("float64", double{});
  dot_rows("int8", std::int8_t{});
  dot_rows("int32", std::int32_t{});
  dot_rows("float16", __half{});

  std::printf("\nrecords, median us of %d samples (gpureduce and CUB alternating), L2 flushed before each\n\n", reps);
  std::printf("| record | from byte | n | gpureduce us | CUB us | CUB / gpureduce | gpureduce GB/s | same result |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
  // Fields of small integers, written as F (the fields' type), so sums are exact in any order.
  const auto record_rows = [&]<class R, class Out, class F>(const char* name, unsigned offset, R, Out, F) {
    for (const int lg_bytes : {16, 20, 24, 28, 31}) {
      const u64 n = (u64(1) << lg_bytes) / sizeof(R);
      fill_small<F><<<1024, 256, 0, s>>>(reinterpret_cast<F*>(x.get()), (n * sizeof(R) + offset) / sizeof(F) + 1);
      const R* in = reinterpret_cast<const R*>(x.get() + offset);
      Out* oa = reinterpret_cast<Out*>(out_a.get());
      Out* ob = reinterpret_cast<Out*>(out_b.get());
      const auto cub = [&](void* t, std::size_t& bytes) {
        return cub::DeviceReduce::TransformReduce(t, bytes, in, ob, std::int64_t(n), cuda::std::plus<Out>{}, Fields{},
                                                  Out(0), s);
      };
      std::size_t bytes = 0;
      GPUREDUCE_CUDA(cub(nullptr, bytes));
      const auto [ours, by_cub] = timer.measure_pair(
          [&](cudaStream_t) { gpureduce::transform_reduce(in, n, oa, Fields{}, gpureduce::Sum{}, s); },
          [&](cudaStream_t) {
            std::size_t t = bytes;
            GPUREDUCE_CUDA(cub(temp.get(), t));
          },
          reps);
      Out ra, rb;
      GPUREDUCE_CUDA(cudaMemcpy(&ra, oa, sizeof(Out), cudaMemcpyDeviceToHost));
      GPUREDUCE_CUDA(cudaMemcpy(&rb, ob, sizeof(Out), cudaMemcpyDeviceToHost));
      std::printf("| %s | %u | 2^%d B | %.2f | %.2f | %.3f | %.0f | %s |\n", name, offset, lg_bytes, us(ours),
                  us(by_cub), by_cub.median_ms / ours.median_ms, double(n * sizeof(R)) / (ours.median_ms * 1e6),
                  std::memcmp(&ra, &rb, sizeof(Out)) == 0 ? "yes" : "NO");
    }
  };
  record_rows("pair of doubles (16 B)", 8u, Doubles{}, double{}, double{});
  record_rows("pair of doubles (16 B)", 0u, Doubles{}, double{}, double{});
  record_rows("pair of floats (8 B)", 4u, Pair{}, double{}, float{});
  record_rows("4-byte pixel", 1u, Rgba{}, std::int64_t{}, std::uint8_t{});
  record_rows("4-byte pixel", 0u, Rgba{}, std::int64_t{}, std::uint8_t{});
  record_rows("four int64 (32 B)", 8u, Longs4{}, std::int64_t{}, std::int64_t{});
  record_rows("four int64 (32 B)", 0u, Longs4{}, std::int64_t{}, std::int64_t{});
  record_rows("sixteen int32 (64 B)", 0u, Ints16{}, std::int64_t{}, std::int32_t{});
  return 0;
}
