#include "ladder_bench.hpp"

#include "variants.hpp"

#include "../common/host_reference.hpp"
#include "../common/random_data.hpp"

#include <algorithm>

namespace gpureduce {
namespace {

// Non-negative inputs, so that cuBLAS asum (sum |x|) computes the same sum as every other row.
template <class T>
std::vector<T> bench_data(std::uint64_t n, std::uint64_t seed) {
  if constexpr (std::is_integral_v<T>) {
    auto v = random_small_integers<T>(n, seed, 1000);
    for (auto& x : v) x = x < 0 ? T(-x) : x;
    return v;
  } else {
    auto v = random_values<T>(n, seed);
    for (auto& x : v) x = std::fabs(x);
    return v;
  }
}

template <class T>
bool verify(T got, const HostSum<T>& ref, const DeviceInfo& device) {
  if constexpr (std::is_integral_v<T>) {
    return got == wrapped<T>(ref.exact);
  } else {
    // Every variant's first pass runs at least 64 threads per SM.
    const std::uint64_t depth = summation_depth_bound(ref.n, std::uint64_t(device.sm_count) * 64);
    return check_float_sum(got, ref.sum, ref.abs_sum, ref.n, depth).ok;
  }
}

template <class T>
std::vector<BenchRow> run_typed(const DeviceInfo& device, double peak_gbps, GpuTimer& timer, const LadderRun& run,
                                const std::function<void(std::size_t, std::size_t, std::uint64_t)>& progress) {
  const std::uint64_t max_n = *std::max_element(run.sizes.begin(), run.sizes.end());
  const std::vector<T> host = bench_data<T>(max_n, run.seed);
  DeviceBuffer<T> in(max_n);
  DeviceBuffer<T> out(1);
  if (max_n) GPUREDUCE_CUDA(cudaMemcpy(in.get(), host.data(), max_n * sizeof(T), cudaMemcpyHostToDevice));
  // A copy from pageable memory may return before its DMA lands, and the timer's stream (non-
  // blocking) does not wait for the null stream.
  GPUREDUCE_CUDA(cudaDeviceSynchronize());
  VariantResources res(device);
  std::vector<BenchRow> rows;
  for (std::size_t si = 0; si < run.sizes.size(); ++si) {
    const std::uint64_t n = run.sizes[si];
    progress(si, run.sizes.size(), n);
    const HostSum<T> ref = host_sum(host.data(), n);
    for (const Variant<T>& v : make_variants<T>(res, run.block, n)) {
      T host_out{};
      // Poison the output, run once, verify; then time.
      GPUREDUCE_CUDA(cudaMemsetAsync(out.get(), 0xA5, sizeof(T), timer.stream()));
      GPUREDUCE_CUDA(v.run(in.get(), n, out.get(), &host_out, timer.stream()));
      GPUREDUCE_CUDA(cudaStreamSynchronize(timer.stream()));
      T got = host_out;
      if (!v.result_on_host) GPUREDUCE_CUDA(cudaMemcpy(&got, out.get(), sizeof(T), cudaMemcpyDeviceToHost));
      const TimingStats t = timer.measure(
          [&](cudaStream_t s) { GPUREDUCE_CUDA(v.run(in.get(), n, out.get(), &host_out, s)); }, run.reps, 3, {},
          v.result_on_host ? HostWaits::yes : HostWaits::no);
      const double gbps = t.median_ms > 0 ? double(n) * sizeof(T) / (t.median_ms * 1e6) : 0;
      rows.push_back({v.name, v.adds, dtype_of<T>(), n, t, gbps, 100.0 * gbps / peak_gbps, verify(got, ref, device)});
    }
  }
  progress(run.sizes.size(), run.sizes.size(), 0);
  return rows;
}

}  // namespace

std::vector<BenchRow> run_ladder(const DeviceInfo& device, double peak_gbps, GpuTimer& timer, const LadderRun& run,
                                 const std::function<void(std::size_t, std::size_t, std::uint64_t)>& progress) {
  return dispatch_dtype(run.type, [&](auto tag) {
    return run_typed<typename decltype(tag)::type>(device, peak_gbps, timer, run, progress);
  });
}

}  // namespace gpureduce
