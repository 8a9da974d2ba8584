// Does a mid-size reduction's time depend on the data's bits (issue 3)? In the bench, float32 rows
// at 2^16-2^18 take 0.2-0.5 us longer than int32 rows of the same bytes, and float64 0.2-0.8 us
// longer than int64, on the same grid (max and argmax most); but the bench's integers are in
// [-100, 100] (few bits that change) and its floats in [-1, 1) (random mantissas). This probe runs
// one kernel over two fills of one type, samples alternating as in the bench (src/bench/timer.hpp),
// so a difference is the data's, and one buffer's bits through two kernels (as int32 and float32,
// or int64 and float64), so a difference is the kernel's. Not part of the library; run by
// `tools/device-run COMMIT data`.
//   small  integers in [-100, 100] (as the bench's integers), as floats for float types
//   wide   the whole hash: random bits for integers, [-1, 1) for floats (the bench's floats)
#include <gpureduce/gpureduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cstdint>
#include <cstdio>
#include <type_traits>

namespace {

enum class Fill { small, wide };

template <class T>
__global__ void fill_kernel(T* x, std::uint64_t n, Fill fill) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    std::uint64_t h = (i + 20261121) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 31, h *= 0xBF58476D1CE4E5B9ull, h ^= h >> 29;
    if (fill == Fill::small) x[i] = T(int(h % 201) - 100);
    else if constexpr (std::is_integral_v<T>) x[i] = T(h);
    else x[i] = T(double(h >> 11) * 0x1.0p-52 - 1.0);
  }
}

const char* name(Fill f) { return f == Fill::small ? "small" : "wide"; }

template <class T, class Op>
void compare_fills(gpureduce::GpuTimer& timer, const char* type, const char* op_name, Op op, std::uint64_t n) {
  gpureduce::DeviceBuffer<T> a(n), b(n);
  gpureduce::DeviceBuffer<gpureduce::result_t<T, Op>> out(1);
  fill_kernel<<<1024, 256>>>(a.get(), n, Fill::small);
  fill_kernel<<<1024, 256>>>(b.get(), n, Fill::wide);
  GPUREDUCE_CUDA(cudaDeviceSynchronize());
  const auto run = [&](const T* in) {
    return [&, in](cudaStream_t s) { gpureduce::reduce(in, n, out.get(), op, s); };
  };
  const auto [small, wide] = timer.measure_pair(run(a.get()), run(b.get()), 60);
  std::printf("%-8s %-6s 2^%-2d  small %6.2f us  wide %6.2f us  wide/small %.3f\n", type, op_name,
              63 - __builtin_clzll(n), small.median_ms * 1e3, wide.median_ms * 1e3, wide.median_ms / small.median_ms);
}

// One buffer of bits, reduced as integers and as floats of the same width (the same loads, the
// kernel differs).
template <class I, class F, class Op>
void compare_kernels(gpureduce::GpuTimer& timer, const char* types, const char* op_name, Op op, std::uint64_t n,
                     Fill fill) {
  gpureduce::DeviceBuffer<F> buf(n);
  gpureduce::DeviceBuffer<gpureduce::result_t<I, Op>> iout(1);
  gpureduce::DeviceBuffer<gpureduce::result_t<F, Op>> fout(1);
  fill_kernel<<<1024, 256>>>(buf.get(), n, fill);
  GPUREDUCE_CUDA(cudaDeviceSynchronize());
  const auto [i, f] = timer.measure_pair(
      [&](cudaStream_t s) { gpureduce::reduce(reinterpret_cast<const I*>(buf.get()), n, iout.get(), op, s); },
      [&](cudaStream_t s) { gpureduce::reduce(buf.get(), n, fout.get(), op, s); }, 60);
  std::printf("%-16s %-6s 2^%-2d  %s floats: as int %6.2f us  as float %6.2f us  float/int %.3f\n", types, op_name,
              63 - __builtin_clzll(n), name(fill), i.median_ms * 1e3, f.median_ms * 1e3, f.median_ms / i.median_ms);
}

}  // namespace

int main() {
  const ProbeSetup p = probe_setup();
  gpureduce::GpuTimer timer(p.stream, p.l2_bytes);
  std::printf("Same kernel, two fills (60 alternating samples each, L2 flushed before each):\n");
  for (std::uint64_t n : {1ull << 16, 1ull << 18, 1ull << 20}) {
    compare_fills<std::int32_t>(timer, "int32", "sum", gpureduce::Sum{}, n);
    compare_fills<float>(timer, "float32", "sum", gpureduce::Sum{}, n);
    compare_fills<std::int32_t>(timer, "int32", "max", gpureduce::Max{}, n);
    compare_fills<float>(timer, "float32", "max", gpureduce::Max{}, n);
    compare_fills<std::int64_t>(timer, "int64", "sum", gpureduce::Sum{}, n);
    compare_fills<double>(timer, "float64", "sum", gpureduce::Sum{}, n);
    compare_fills<double>(timer, "float64", "max", gpureduce::Max{}, n);
    compare_fills<std::int32_t>(timer, "int32", "argmax", gpureduce::ArgMax{}, n);
    compare_fills<float>(timer, "float32", "argmax", gpureduce::ArgMax{}, n);
  }
  std::printf("\nSame bits, two kernels:\n");
  for (std::uint64_t n : {1ull << 14, 1ull << 16, 1ull << 18}) {
    for (Fill f : {Fill::small, Fill::wide}) {
      compare_kernels<std::int32_t, float>(timer, "int32/float32", "sum", gpureduce::Sum{}, n, f);
      compare_kernels<std::int32_t, float>(timer, "int32/float32", "max", gpureduce::Max{}, n, f);
      compare_kernels<std::int64_t, double>(timer, "int64/float64", "max", gpureduce::Max{}, n, f);
      compare_kernels<std::int32_t, float>(timer, "int32/float32", "argmax", gpureduce::ArgMax{}, n, f);
    }
  }
  return 0;
}
