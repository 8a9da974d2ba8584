// What Options::dependent_launch saves where a reduction follows other kernels on its stream (the
// bench times one call alone after an L2 flush, where there is no kernel before it to overlap).
// Not part of the library: a stand-alone measurement, run by `tools/device-run COMMIT pdl`.
// Per iteration, on one stream, int32 in, int64 sum out (out[i], every one checked):
//   fill + ...    a producer kernel writes the n inputs (a value of the index and the iteration),
//                 then the sum: gpureduce as usual, gpureduce with dependent_launch, or CUB
//                 (DeviceReduce::Sum, temporary storage allocated once)
//   chain ...     the sum alone, back to back on the same input
//   graph ...     fill + sum, 100 iterations captured into one graph, replayed
// A sample is 100 iterations between two events, enqueued while a spin kernel holds the GPU (so
// the host's launch rate does not set the time), over one sample of each way in turn; the median
// of 9 such rounds, the ways rotating, in us per iteration. The L2 is not flushed: the producer
// has just written the input, as in a pipeline.
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "probe_setup.cuh"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace {

constexpr int iters = 100, rounds = 9;

__host__ __device__ inline int value_at(std::uint64_t i, int iter) {
  return int((i * 2654435761ull + unsigned(iter) * 7919u) % 101u) - 50;
}

__global__ void fill(int* x, std::uint64_t n, int iter) {
  for (std::uint64_t i = blockIdx.x * 1ull * blockDim.x + threadIdx.x; i < n; i += gridDim.x * 1ull * blockDim.x)
    x[i] = value_at(i, iter);
}

__global__ void spin(long long cycles) {
  const long long start = clock64();
  while (clock64() - start < cycles) {
  }
}

enum Way { fill_only, fill_gr, fill_gr_dep, fill_cub, chain_gr, chain_gr_dep, chain_cub, graph_gr, graph_gr_dep,
           graph_cub, ways };
const char* const names[ways] = {"fill only",  "fill+gpureduce", "fill+gr dependent", "fill+CUB",
                                 "chain gr",   "chain gr dep",   "chain CUB",         "graph gr",
                                 "graph gr dep", "graph CUB"};
bool fills(Way w) { return w <= fill_cub || w >= graph_gr; }
bool chain(Way w) { return w >= chain_gr && w <= chain_cub; }

struct Run {
  int* x = nullptr;
  std::int64_t* out = nullptr;
  std::uint64_t n = 0;
  void* temp = nullptr;
  std::size_t temp_bytes = 0;
  cudaStream_t s{};
  unsigned fill_blocks = 0;

  void iteration(Way w, int i) const {
    if (fills(w)) fill<<<fill_blocks, 256, 0, s>>>(x, n, i);
    if (w == fill_only) return;
    if (w == fill_cub || w == chain_cub || w == graph_cub) {
      std::size_t bytes = temp_bytes;
      GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp, bytes, x, out + i, static_cast<std::int64_t>(n), s));
      return;
    }
    gpureduce::Options opt;
    opt.dependent_launch = w == fill_gr_dep || w == chain_gr_dep || w == graph_gr_dep;
    gpureduce::sum(x, n, out + i, s, opt);
  }
};

}  // namespace

int main() {
  cudaStream_t s;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::printf("%s; int32 sum into int64; us per iteration, median of %d rounds of %d iterations\n",
              device_line().c_str(), rounds, iters);
  cudaEvent_t e0, e1;
  GPUREDUCE_CUDA(cudaEventCreate(&e0));
  GPUREDUCE_CUDA(cudaEventCreate(&e1));
  std::printf("%6s", "n");
  for (const char* name : names) std::printf(" %15s", name);
  std::printf("\n");
  int wrong = 0;
  for (const int k : {10, 12, 14, 16, 18, 20, 22, 24}) {
    Run r;
    r.n = 1ull << k;
    r.s = s;
    r.fill_blocks = unsigned(std::min<std::uint64_t>((r.n + 255) / 256, 1056));
    GPUREDUCE_CUDA(cudaMalloc(&r.x, r.n * sizeof(int)));
    GPUREDUCE_CUDA(cudaMalloc(&r.out, iters * sizeof(std::int64_t)));
    GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, r.temp_bytes, r.x, r.out, static_cast<std::int64_t>(r.n), s));
    GPUREDUCE_CUDA(cudaMalloc(&r.temp, r.temp_bytes));
    std::vector<std::int64_t> want(iters, 0);
    for (int i = 0; i < iters; ++i)
      for (std::uint64_t j = 0; j < r.n; ++j) want[i] += value_at(j, i);
    constexpr int chain_input = 3;
    cudaGraphExec_t graphs[ways] = {};
    for (const Way w : {graph_gr, graph_gr_dep, graph_cub}) {
      cudaGraph_t g;
      GPUREDUCE_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
      for (int i = 0; i < iters; ++i) r.iteration(w, i);
      GPUREDUCE_CUDA(cudaStreamEndCapture(s, &g));
      GPUREDUCE_CUDA(cudaGraphInstantiate(&graphs[w], g, 0));
      GPUREDUCE_CUDA(cudaGraphDestroy(g));
    }
    std::vector<std::vector<double>> us(ways);
    for (int round = 0; round <= rounds; ++round) {  // round 0 warms up
      for (int j = 0; j < ways; ++j) {
        const Way w = Way((j + round) % ways);
        GPUREDUCE_CUDA(cudaMemsetAsync(r.out, 0xA5, iters * sizeof(std::int64_t), s));
        if (chain(w)) fill<<<r.fill_blocks, 256, 0, s>>>(r.x, r.n, chain_input);
        spin<<<1, 32, 0, s>>>(4'000'000);  // about 2 ms, while the host enqueues
        GPUREDUCE_CUDA(cudaEventRecord(e0, s));
        if (graphs[w]) GPUREDUCE_CUDA(cudaGraphLaunch(graphs[w], s));
        else
          for (int i = 0; i < iters; ++i) r.iteration(w, i);
        GPUREDUCE_CUDA(cudaEventRecord(e1, s));
        GPUREDUCE_CUDA(cudaStreamSynchronize(s));
        float ms = 0;
        GPUREDUCE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
        if (round > 0) us[w].push_back(ms * 1000.0 / iters);
        if (w == fill_only) continue;
        std::vector<std::int64_t> got(iters);
        GPUREDUCE_CUDA(cudaMemcpy(got.data(), r.out, iters * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
        for (int i = 0; i < iters; ++i) {
          const std::int64_t expect = want[chain(w) ? chain_input : i];
          if (got[i] != expect && wrong++ < 10)
            std::printf("WRONG: 2^%d %s iteration %d: %lld, want %lld\n", k, names[w], i, (long long)got[i],
                        (long long)expect);
        }
      }
    }
    std::printf("%6s", ("2^" + std::to_string(k)).c_str());
    print_medians(us, 15);
    for (auto g : graphs)
      if (g) GPUREDUCE_CUDA(cudaGraphExecDestroy(g));
    GPUREDUCE_CUDA(cudaFree(r.x));
    GPUREDUCE_CUDA(cudaFree(r.out));
    GPUREDUCE_CUDA(cudaFree(r.temp));
  }
  std::printf("%s: %d wrong results\n", wrong ? "FAIL" : "ok", wrong);
  return wrong ? 1 : 0;
}
