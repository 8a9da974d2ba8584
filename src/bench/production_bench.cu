#include "production_bench.hpp"

#include "bench_data.cuh"

#include "cuda_check.hpp"

#include "../common/host_reference.hpp"

#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <thrust/iterator/counting_iterator.h>
#if defined(GPUREDUCE_CUB_GPU_TO_GPU)
#include <cuda/stream_ref>
#endif

#include <algorithm>
#include <vector>
#include <cmath>
#include <random>
#include <cstring>

namespace gpureduce {
using namespace gpureduce::detail;

namespace {

template <class V>
V copy_to_host(const V* d) {
  V v;
  GPUREDUCE_CUDA(cudaMemcpy(&v, d, sizeof(V), cudaMemcpyDeviceToHost));
  return v;
}

template <class V>
double as_double(V v) {
  if constexpr (is_half_v<V>) return static_cast<float>(v);
  else return static_cast<double>(v);
}

template <class A>
struct ToAccumulator {
  template <class T>
  __device__ A operator()(T x) const {
    return convert<A>(x);
  }
};

// a[i] * b[i] in the accumulator type: CUB's dot product, a TransformReduce over the indices.
template <class T, class A>
struct ProductAt {
  const T* a;
  const T* b;
  __device__ A operator()(std::int64_t i) const { return convert<A>(a[i]) * convert<A>(b[i]); }
};

// Exact mode: the exact sum (into T) against the plain sum, verified bit for bit against the host
// implementation of the exact sum.
template <class T>
ProductionRow measure_exact(const T* in, std::uint64_t n, GpuTimer& timer, const ProductionRun& run, Options opt) {
  using A = accumulator_t<T, Sum>;
  DeviceBuffer<T> exact_out(1);
  DeviceBuffer<A> plain_out(1);
  GPUREDUCE_CUDA(cudaMemsetAsync(exact_out.get(), 0xA5, sizeof(T), timer.stream()));  // poison, before the run
  const auto exact_run = [&, o = exact_out.get()](cudaStream_t s) { exact_sum(in, n, o, s, opt); };
  const auto plain_run = [&, o = plain_out.get()](cudaStream_t s) { sum(in, n, o, s, opt); };
  exact_run(timer.stream());
  GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
  std::vector<T> host(n);
  GPUREDUCE_CUDA(cudaMemcpy(host.data(), in, n * sizeof(T), cudaMemcpyDeviceToHost));
  const T want = exact_sum_host(host.data(), n), got = copy_to_host(exact_out.get());
  const bool verified = std::memcmp(&want, &got, sizeof(T)) == 0;
  const auto [t_exact, t_plain] = timer.measure_pair(exact_run, plain_run, run.reps);
  TimingStats t_g2g{};
  bool g2g_verified = false;
#if defined(GPUREDUCE_CUB_GPU_TO_GPU)
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    DeviceBuffer<T> g2g_out(1);
    t_g2g = timer.measure(
        [&, o = g2g_out.get()](cudaStream_t s) {
          const auto env = cuda::std::execution::env{
              cuda::stream_ref{s}, cuda::execution::require(cuda::execution::determinism::gpu_to_gpu)};
          GPUREDUCE_CUDA(cub::DeviceReduce::Sum(in, o, static_cast<std::int64_t>(n), env));
        },
        run.reps);
    g2g_verified =
        check_float_sum(copy_to_host(g2g_out.get()), static_cast<long double>(exact_sum_host<double>(host.data(), n)),
                        2.0L * n, n, 2 * summation_depth_bound(n, 256))
            .ok;
  }
#endif
  const double bytes = double(n) * sizeof(T);
  auto gbps = [&](const TimingStats& t) { return t.median_ms > 0 ? bytes / (t.median_ms * 1e6) : 0.0; };
  return {BenchOp::sum, ElemType{}, n, t_exact, t_plain, gbps(t_exact), gbps(t_plain), t_g2g, gbps(t_g2g),
          g2g_verified, verified};
}

// One operator on one input size: gpureduce and CUB, verified against each other, then timed.
// `in2` is the second array of a dot product.
template <class T>
ProductionRow measure(BenchOp op, const T* in, const T* in2, std::uint64_t n, GpuTimer& timer,
                      const ProductionRun& run) {
  // The kernel and grid the run forces (--kernel, --grid-blocks), for every gpureduce call below.
  const detail::testing::ForceLaunch forced({.kernel = run.kernel, .blocks = run.grid_blocks});
  Options opt;
  opt.l2 = run.l2;
  std::function<void(cudaStream_t)> ours, cub_run;
  std::function<bool()> agree;
  DeviceBuffer<unsigned char> temp, out_ours(32), out_cub(32);
  std::size_t temp_bytes = 0;
  const auto n64 = static_cast<std::int64_t>(n);
  if constexpr (is_floating_v<T>) {
    if (run.exact) return measure_exact(in, n, timer, run, opt);
  }
  // Both sums within gamma_h * sum|x| <= gamma_h * n of the exact sum (|x| < 1, |a[i] b[i]| < 1).
  const auto same_sum = [n](auto a, auto b) {
    if constexpr (std::is_integral_v<decltype(a)>) return a == b;
    else return check_float_sum(a, static_cast<long double>(b), 2.0L * n, n, 2 * summation_depth_bound(n, 256)).ok;
  };
  if (op == BenchOp::dot) {
    using A = accumulator_t<T, Sum>;
    auto* o = reinterpret_cast<A*>(out_ours.get());
    auto* c = reinterpret_cast<A*>(out_cub.get());
    const auto cub_dot = [=](void* t, std::size_t& b, cudaStream_t s) {
      return cub::DeviceReduce::TransformReduce(t, b, thrust::counting_iterator<std::int64_t>(0), c, n64,
                                                cuda::std::plus<A>{}, ProductAt<T, A>{in, in2}, A(0), s);
    };
    GPUREDUCE_CUDA(cub_dot(nullptr, temp_bytes, nullptr));
    temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    ours = [=](cudaStream_t s) { dot(in, in2, n, o, s, opt); };
    cub_run = [=, t = temp.get()](cudaStream_t s) {
      std::size_t b = temp_bytes;
      GPUREDUCE_CUDA(cub_dot(t, b, s));
    };
    agree = [=] { return same_sum(copy_to_host(o), copy_to_host(c)); };
  } else if (op == BenchOp::sum) {
    using A = accumulator_t<T, Sum>;
    auto* o = reinterpret_cast<A*>(out_ours.get());
    auto* c = reinterpret_cast<A*>(out_cub.get());
    // CUB's Sum cannot add a half to a float accumulator; its TransformReduce converts on load.
    auto cub_sum = [=](void* t, std::size_t& b, cudaStream_t s) {
      if constexpr (is_half_v<T>)
        return cub::DeviceReduce::TransformReduce(t, b, in, c, n64, cuda::std::plus<A>{}, ToAccumulator<A>{}, A(0), s);
      else
        return cub::DeviceReduce::Sum(t, b, in, c, n64, s);
    };
    GPUREDUCE_CUDA(cub_sum(nullptr, temp_bytes, nullptr));
    temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    ours = [=](cudaStream_t s) { sum(in, n, o, s, opt); };
    cub_run = [=, t = temp.get()](cudaStream_t s) {
      std::size_t b = temp_bytes;
      GPUREDUCE_CUDA(cub_sum(t, b, s));
    };
    agree = [=] { return same_sum(copy_to_host(o), copy_to_host(c)); };
  } else if (op == BenchOp::max) {
    auto* o = reinterpret_cast<T*>(out_ours.get());
    auto* c = reinterpret_cast<T*>(out_cub.get());
    GPUREDUCE_CUDA(cub::DeviceReduce::Max(nullptr, temp_bytes, in, c, n64));
    temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    ours = [=](cudaStream_t s) { max(in, n, o, s, opt); };
    cub_run = [=, t = temp.get()](cudaStream_t s) {
      std::size_t b = temp_bytes;
      GPUREDUCE_CUDA(cub::DeviceReduce::Max(t, b, in, c, n64, s));
    };
    agree = [=] { return as_double(copy_to_host(o)) == as_double(copy_to_host(c)); };
  } else {
    auto* o = reinterpret_cast<IndexedValue<T>*>(out_ours.get());
    auto* cv = reinterpret_cast<T*>(out_cub.get());
    auto* ci = reinterpret_cast<std::int64_t*>(out_cub.get() + 16);
    GPUREDUCE_CUDA(cub::DeviceReduce::ArgMax(nullptr, temp_bytes, in, cv, ci, n64));
    temp = DeviceBuffer<unsigned char>(std::max<std::size_t>(temp_bytes, 1));
    ours = [=](cudaStream_t s) { argmax(in, n, o, s, opt); };
    cub_run = [=, t = temp.get()](cudaStream_t s) {
      std::size_t b = temp_bytes;
      GPUREDUCE_CUDA(cub::DeviceReduce::ArgMax(t, b, in, cv, ci, n64, s));
    };
    agree = [=] {
      const IndexedValue<T> a = copy_to_host(o);
      return as_double(a.value) == as_double(copy_to_host(cv)) && a.index == copy_to_host(ci);
    };
  }
  // Poisoned on the timer's stream: a non-blocking stream does not wait for the null stream.
  GPUREDUCE_CUDA(cudaMemsetAsync(out_ours.get(), 0xA5, 32, timer.stream()));
  GPUREDUCE_CUDA(cudaMemsetAsync(out_cub.get(), 0x5A, 32, timer.stream()));
  ours(timer.stream());
  cub_run(timer.stream());
  GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
  const bool verified = agree();
  const auto [t_ours, t_cub] = timer.measure_pair(ours, cub_run, run.reps);
  const double bytes = double(n) * sizeof(T) * (op == BenchOp::dot ? 2 : 1);
  auto gbps = [&](const TimingStats& t) { return t.median_ms > 0 ? bytes / (t.median_ms * 1e6) : 0.0; };
  return {op, ElemType{}, n, t_ours, t_cub, gbps(t_ours), gbps(t_cub), {}, 0, false, verified};
}

}  // namespace

ExactAccuracy exact_accuracy(std::uint64_t seed) {
  const std::uint64_t n = std::uint64_t(1) << 20;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> unit(0, 1);
  std::vector<float> x;
  x.reserve(n);
  while (x.size() < n / 2) {  // pairs a, -a with |a| in [1e4, 1e8]
    const float a = float((rng() & 1 ? 1 : -1) * std::pow(10.0, 4 + 4 * unit(rng)));
    x.push_back(a);
    x.push_back(-a);
  }
  while (x.size() < n) x.push_back(float(unit(rng)));
  std::shuffle(x.begin(), x.end(), rng);
  DeviceBuffer<float> d(n), outs(2);
  GPUREDUCE_CUDA(cudaMemcpy(d.get(), x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  sum<float>(d.get(), n, outs.get());  // float accumulator: the plain float sum
  exact_sum(d.get(), n, outs.get() + 1);
  float r[2];
  GPUREDUCE_CUDA(cudaMemcpy(r, outs.get(), sizeof r, cudaMemcpyDeviceToHost));
  double host = 0;
  for (const float v : x) host += v;
  return {n, exact_sum_host<double>(x.data(), n), r[0], r[1], host};
}

std::vector<ProductionRow> run_production(
    const DeviceInfo& device, GpuTimer& timer, const ProductionRun& run,
    const std::function<void(std::size_t, std::size_t)>& progress,
    const std::function<void(ElemType, std::uint64_t, std::uint64_t)>& skipped) {
  std::vector<ProductionRow> rows;
  const std::size_t total = run.types.size() * run.ops.size() * run.sizes.size();
  std::size_t done = 0;
  for (const ElemType type : run.types) {
    with_type(type, [&](auto tag) {
      using T = typename decltype(tag)::type;
      // Inputs up to 40% of device memory, both arrays of a dot product together (the GPU test
      // machine's 80 GB holds 2^30 of every type, twice).
      const bool dots = std::find(run.ops.begin(), run.ops.end(), BenchOp::dot) != run.ops.end();
      const std::uint64_t cap = device.global_mem_bytes * 2 / 5 / sizeof(T) / (dots ? 2 : 1);
      std::uint64_t max_n = 0;
      for (std::uint64_t n : run.sizes) {
        if (n <= cap) max_n = std::max(max_n, n);
        else skipped(type, n, cap);
      }
      DeviceBuffer<T> in(std::max<std::uint64_t>(max_n, 1)), in2(dots ? std::max<std::uint64_t>(max_n, 1) : 1);
      fill_kernel<<<1024, 256>>>(in.get(), max_n, run.seed);
      if (dots) fill_kernel<<<1024, 256>>>(in2.get(), max_n, run.seed + max_n);
      GPUREDUCE_CUDA(cudaDeviceSynchronize());
      for (const BenchOp op : run.ops)
        for (const std::uint64_t n : run.sizes) {
          progress(done++, total);
          if (n > max_n) continue;
          ProductionRow r = measure<T>(op, in.get(), in2.get(), n, timer, run);
          r.type = type;
          rows.push_back(r);
        }
    });
  }
  progress(total, total);
  return rows;
}

}  // namespace gpureduce
