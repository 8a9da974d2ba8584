// _sync calls from several host threads on one stream: 8 threads, each with inputs of its own
// (sums that differ from every other thread's), call sum_sync 200 times on the null stream, then
// on one stream they share, at a one-block size (1000 int32) and a grid size (2^20 + 3). Prints the
// wrong results. Before the threads took turns at the stream's result buffer, a thread could read
// another's sum: both filled the one buffer before either copied it back.
//   shared_stream_sync_probe
#include <gpureduce/gpureduce.cuh>

#include "../../src/bench/cuda_check.hpp"

#include <atomic>
#include <cstdio>
#include <thread>
#include <vector>

int main() {
  constexpr int threads = 8, calls = 200;
  cudaStream_t shared = nullptr;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
  int status = 0;
  for (const std::uint64_t n : {std::uint64_t(1000), std::uint64_t(1 << 20) + 3}) {
    std::vector<int*> d(threads);
    std::vector<long long> want(threads);
    for (int t = 0; t < threads; ++t) {
      std::vector<int> h(n);
      want[t] = 0;
      for (std::uint64_t i = 0; i < n; ++i) want[t] += h[i] = int((i * 7919 + t * 104729) % 2001) - 1000 + t;
      GPUREDUCE_CUDA(cudaMalloc(&d[t], n * sizeof(int)));
      GPUREDUCE_CUDA(cudaMemcpy(d[t], h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    }
    for (const cudaStream_t stream : {cudaStream_t(nullptr), shared}) {
      std::atomic<int> wrong{0};
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          for (int k = 0; k < calls; ++k) wrong += gpureduce::sum_sync(d[t], n, stream) != want[t];
        });
      for (auto& th : pool) th.join();
      std::printf("n %llu, %s: %d of %d sums wrong\n", static_cast<unsigned long long>(n),
                  stream ? "one shared stream" : "the null stream", wrong.load(), threads * calls);
      status |= wrong != 0;
    }
    for (int* p : d) GPUREDUCE_CUDA(cudaFree(p));
  }
  return status;
}
