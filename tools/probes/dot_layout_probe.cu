// Why float32 dot of 2^26 elements took 217 us in the bench sweep at 26d181c (186 at 3391210 and
// faf4eb5, 218 at 3a37041) while no other row moved. Not part of the library: the same call, timed
// as the bench times it (src/bench/timer.hpp: a flush of 2x L2 before each sample), with the second
// array placed 2^26, 2^28 and 2^30 floats after the first in one allocation. In the bench the two
// arrays are separate allocations of 2^30 floats each. Run by `tools/device-run COMMIT dotlayout`.
#include <gpureduce/gpureduce.cuh>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cstdint>
#include <cstdio>

namespace {

__global__ void fill(float* p, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += gridDim.x * std::uint64_t(blockDim.x))
    p[i] = float((i * 2654435761u) % 1000) * 1e-3f - 0.5f;
}

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  gpureduce::GpuTimer timer(setup.stream, setup.l2_bytes);
  const std::uint64_t span = (std::uint64_t(1) << 30) + (std::uint64_t(1) << 28);
  gpureduce::DeviceBuffer<float> buf(span), second(std::uint64_t(1) << 28);
  gpureduce::DeviceBuffer<float> out(1);
  fill<<<1024, 256>>>(buf.get(), span);
  fill<<<1024, 256>>>(second.get(), std::uint64_t(1) << 28);
  GPUREDUCE_CUDA(cudaDeviceSynchronize());
  std::printf("| n | b - a (floats) | median us |\n|---:|---|---:|\n");
  for (int lg : {24, 26, 28}) {
    const std::uint64_t n = std::uint64_t(1) << lg;
    const auto time = [&](const float* a, const float* b) {
      return 1e3 * timer.measure([&](cudaStream_t s) { gpureduce::dot(a, b, n, out.get(), s); }, 30).median_ms;
    };
    for (int d : {26, 28, 30})
      if (n <= (std::uint64_t(1) << d))
        std::printf("| 2^%d | 2^%d | %.1f |\n", lg, d, time(buf.get(), buf.get() + (std::uint64_t(1) << d)));
    std::printf("| 2^%d | separate allocation | %.1f |\n", lg, time(buf.get(), second.get()));
  }
  return 0;
}
