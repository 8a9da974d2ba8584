// Reductions on the per-thread default stream (cudaStreamPerThread): each host thread's stream has
// its own ID, so threads reducing at once hold different workspace slots; and a thread that exits
// ends its stream. Prints the IDs of four threads' streams, the wrong results of 50 grid-sized sums
// from each (run at once), then the pool's slots (allocated, free) after every 16 of 64 short-lived
// threads that each reduce once. Before slots were given back at thread exit, every exited thread
// kept one (128 KB). Built with --default-stream per-thread (per_thread_stream_probe_null), it
// reduces on the null stream, which is then the same stream. With `exit`, the main thread makes one
// grid-sized reduction on the stream and returns at once: its slot's hand-back is enqueued while
// the process exits (it must neither hang nor crash).
//   per_thread_stream_probe [exit]
#include <gpureduce/gpureduce.cuh>

#include "../../src/bench/cuda_check.hpp"

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
static const cudaStream_t stream = nullptr;
#else
static const cudaStream_t stream = cudaStreamPerThread;
#endif

int main(int argc, char** argv) {
  std::printf("reducing on %s\n", stream ? "cudaStreamPerThread" : "the null stream (--default-stream per-thread)");
  if (argc > 1 && std::string(argv[1]) == "exit") {
    constexpr std::uint64_t n = 1 << 22;
    int* d = nullptr;
    long long* out = nullptr;
    GPUREDUCE_CUDA(cudaMalloc(&d, n * sizeof(int)));
    GPUREDUCE_CUDA(cudaMalloc(&out, sizeof(long long)));
    GPUREDUCE_CUDA(cudaMemsetAsync(d, 1, n * sizeof(int), stream));
    gpureduce::sum(d, n, out, stream);
    std::printf("returning from main with the reduction enqueued\n");
    return 0;
  }
  constexpr std::uint64_t n = (1 << 22) + 3;
  std::vector<int> h(n);
  long long want = 0;
  for (std::uint64_t i = 0; i < n; ++i) want += h[i] = int(i * 2654435761u % 2001) - 1000;
  int* d = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&d, n * sizeof(int)));
  GPUREDUCE_CUDA(cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));

  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      unsigned long long id = 0;
      GPUREDUCE_CUDA(cudaStreamGetId(stream, &id));
      long long* out = nullptr;
      GPUREDUCE_CUDA(cudaMallocAsync(&out, 50 * sizeof(long long), stream));
      for (int k = 0; k < 50; ++k) gpureduce::sum(d, n, out + k, stream);
      std::vector<long long> got(50);
      GPUREDUCE_CUDA(cudaMemcpyAsync(got.data(), out, 50 * sizeof(long long), cudaMemcpyDeviceToHost, stream));
      GPUREDUCE_CUDA(cudaStreamSynchronize(stream));
      int bad = 0;
      for (long long g : got) bad += g != want;
      wrong += bad;
      std::printf("thread %d: per-thread stream id %llu, %d of 50 sums wrong\n", t, id, bad);
      GPUREDUCE_CUDA(cudaFreeAsync(out, stream));
    });
  for (auto& t : threads) t.join();

  gpureduce::detail::WorkspacePool* pool = nullptr;
  gpureduce::throw_if_error(gpureduce::detail::WorkspacePool::current(&pool));
  for (int t = 0; t < 64; ++t) {
    std::thread([&] {
      long long* out = nullptr;
      GPUREDUCE_CUDA(cudaMallocAsync(&out, sizeof(long long), stream));
      gpureduce::sum(d, n, out, stream);
      long long got = 0;
      GPUREDUCE_CUDA(cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, stream));
      GPUREDUCE_CUDA(cudaStreamSynchronize(stream));
      wrong += got != want;
      GPUREDUCE_CUDA(cudaFreeAsync(out, stream));
    }).join();
    if ((t + 1) % 16 == 0) {
      GPUREDUCE_CUDA(cudaDeviceSynchronize());  // the exited threads' streams have finished
      const auto c = pool->counts();
      std::printf("after %2d short-lived threads: %zu slots, %zu free\n", t + 1, c.slots, c.free);
    }
  }
  std::printf("%d wrong results in all\n", wrong.load());
  return wrong != 0;
}
