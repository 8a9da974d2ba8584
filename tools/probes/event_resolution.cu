// How finely do CUDA events time a kernel of a few microseconds? The one-block rows of the bench
// (n <= 2^14) have medians that fall on a few values about 0.16 us apart, and a row's ratio to CUB
// moves by one such step between runs of the same code. Not part of the library: each case is a
// kernel that spins on %globaltimer for a set time, timed by events as the bench times a call
// (src/bench/timer.hpp: a flush of 2x L2 before each sample), 200 samples; printed per case: the
// median and every distinct value seen with its count. Run by `tools/device-run COMMIT events`.
#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"

#include <cmath>
#include <cstdio>
#include <map>
#include <vector>

namespace {

__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

}  // namespace

int main() {
  const ProbeSetup setup = probe_setup();
  gpureduce::DeviceBuffer<int4> flush(2 * setup.l2_bytes / sizeof(int4));
  cudaEvent_t start, stop;
  GPUREDUCE_CUDA(cudaEventCreate(&start));
  GPUREDUCE_CUDA(cudaEventCreate(&stop));
  std::printf("| spin ns | median us | distinct values us (count of 200) |\n|---:|---:|---|\n");
  for (unsigned long long ns = 0; ns <= 640; ns += 40) {
    std::map<long long, int> seen;  // in ns
    std::vector<double> us;
    for (int i = 0; i < 203; ++i) {
      GPUREDUCE_CUDA(cudaMemsetAsync(flush.get(), 0, flush.size() * sizeof(int4), setup.stream));
      GPUREDUCE_CUDA(cudaEventRecord(start, setup.stream));
      spin_kernel<<<1, 32, 0, setup.stream>>>(ns);
      GPUREDUCE_CUDA(cudaEventRecord(stop, setup.stream));
      GPUREDUCE_CUDA(cudaEventSynchronize(stop));
      float ms = 0;
      GPUREDUCE_CUDA(cudaEventElapsedTime(&ms, start, stop));
      if (i < 3) continue;  // warm-up
      us.push_back(ms * 1e3);
      ++seen[std::llround(ms * 1e6)];
    }
    std::printf("| %llu | %.3f |", ns, gpureduce::median(us));
    for (const auto& [v, count] : seen) std::printf(" %.3f x%d", v / 1e3, count);
    std::printf(" |\n");
  }
  return 0;
}
