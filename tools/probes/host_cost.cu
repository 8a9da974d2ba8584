// What one call costs the calling thread (issue 3: one call, no temp-storage query). Not part of
// the library: a stand-alone measurement, run by `tools/device-run COMMIT hostcost`. Each way of
// reducing 2^10 int32 (and 2^16, below) into a device result is enqueued 256 times on one stream
// with no synchronisation in between, few enough that the launch queue never fills (the GPU takes
// about 3.4 us per launch even for an empty kernel, so longer runs time the GPU, not the host);
// the host time per call is the median over 101 such runs, after warm-up, each run starting on an
// idle stream.
//   empty kernel             a launch of an empty one-block kernel: the driver's floor
//   gpureduce::try_reduce    argument checks (two cudaPointerGetAttributes, the input's
//                            allocation range), plan, launch; with
//                            two devices or more also the stream's device (the row below)
//   gpureduce, workspace     the same with a caller's workspace
//   the two again at 2^16    the grid kernel, which needs a workspace: the difference is the pool
//                            lookup (context ID, capture query, stream ID, slot table under a
//                            mutex)
//   CUB, query + run         cub::DeviceReduce::Sum twice, as its users call it (temp storage
//                            allocated once, outside the loop)
//   CUB, run only            the second call alone
//   sum_sync                 a whole sum_sync of 2^10 (reduce, copy back, wait), timed call by
//                            call, median of 2001; its slot lookup alone, and with the result
//                            lock (the slot's mutex found under the pool's, locked, unlocked)
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>

#include "../../src/bench/cuda_check.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

__global__ void empty_kernel() {}

template <class F>
double host_us_per_call(cudaStream_t s, F&& call) {
  constexpr int calls = 256, runs = 101;
  for (int i = 0; i < 1000; ++i) call();
  GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  std::vector<double> us;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    GPUREDUCE_CUDA(cudaStreamSynchronize(s));
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / calls);
  }
  std::sort(us.begin(), us.end());
  return us[runs / 2];
}

}  // namespace

int main() {
  constexpr int n = 1024, grid_n = 1 << 16;
  int *in = nullptr, *out = nullptr;
  void* ws = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&in, grid_n * sizeof(int)));
  GPUREDUCE_CUDA(cudaMemset(in, 1, grid_n * sizeof(int)));
  GPUREDUCE_CUDA(cudaMalloc(&out, sizeof(int)));
  GPUREDUCE_CUDA(cudaMalloc(&ws, gpureduce::workspace_bytes));
  GPUREDUCE_CUDA(cudaMemset(ws, 0, gpureduce::workspace_bytes));
  cudaStream_t s;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::size_t temp_bytes = 0;
  GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, temp_bytes, in, out, n, s));
  void* temp = nullptr;
  GPUREDUCE_CUDA(cudaMalloc(&temp, temp_bytes));

  gpureduce::Options with_ws;
  with_ws.workspace = ws;
  with_ws.workspace_size = gpureduce::workspace_bytes;
  const auto ok = [](gpureduce::Status st) {
    if (!st) {
      std::fprintf(stderr, "gpureduce: %s\n", st.message);
      std::exit(1);
    }
  };

  std::printf("== host time per call, int32 sum of 2^10 (2^16 where marked), median of 101 runs of 256 calls, us\n");
  std::printf("| call | us |\n|---|---:|\n");
  std::printf("| empty kernel | %.2f |\n", host_us_per_call(s, [&] { empty_kernel<<<1, 32, 0, s>>>(); }));
  std::printf("| gpureduce::try_reduce | %.2f |\n",
              host_us_per_call(s, [&] { ok(gpureduce::try_reduce(in, n, out, gpureduce::Sum{}, s)); }));
  std::printf("| gpureduce, caller's workspace | %.2f |\n",
              host_us_per_call(s, [&] { ok(gpureduce::try_reduce(in, n, out, gpureduce::Sum{}, s, with_ws)); }));
  std::printf("| gpureduce::try_reduce, 2^16 (grid) | %.2f |\n",
              host_us_per_call(s, [&] { ok(gpureduce::try_reduce(in, grid_n, out, gpureduce::Sum{}, s)); }));
  std::printf("| gpureduce, 2^16 (grid), caller's workspace | %.2f |\n",
              host_us_per_call(s, [&] { ok(gpureduce::try_reduce(in, grid_n, out, gpureduce::Sum{}, s, with_ws)); }));
  std::printf("| the stream's device alone (paid with two devices or more) | %.3f |\n", host_us_per_call(s, [&] {
                cudaStreamCaptureStatus capture{};
                int device = 0;
                GPUREDUCE_CUDA(cudaStreamIsCapturing(s, &capture));
                GPUREDUCE_CUDA(cudaStreamGetDevice(s, &device));
              }));
  std::printf("| the context's ID alone (grid calls: the workspace pool) | %.3f |\n", host_us_per_call(s, [&] {
                unsigned long long id = 0;
                ok(gpureduce::detail::current_context_id(&id));
              }));
  std::printf("| cudaPointerGetAttributes alone (two per call) | %.3f |\n", host_us_per_call(s, [&] {
                cudaPointerAttributes a{};
                GPUREDUCE_CUDA(cudaPointerGetAttributes(&a, in));
              }));
  std::printf("| the allocation range alone (one per pointer: inputs, result, workspace) | %.3f |\n",
              host_us_per_call(s, [&] {
                if (gpureduce::detail::allocation_range(in).size == 0) std::exit(1);
              }));
  std::printf("| CUB, query + run | %.2f |\n", host_us_per_call(s, [&] {
                std::size_t bytes = 0;
                GPUREDUCE_CUDA(cub::DeviceReduce::Sum(nullptr, bytes, in, out, n, s));
                GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp, bytes, in, out, n, s));
              }));
  std::printf("| CUB, run only | %.2f |\n", host_us_per_call(s, [&] {
                std::size_t bytes = temp_bytes;
                GPUREDUCE_CUDA(cub::DeviceReduce::Sum(temp, bytes, in, out, n, s));
              }));
  std::vector<double> sync_us;
  for (int i = 0; i < 2001 + 200; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    if (gpureduce::sum_sync(in, n, s) != std::int64_t(n) * 0x01010101) std::exit(1);
    if (i >= 200)
      sync_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(sync_us.begin(), sync_us.end());
  std::printf("| gpureduce::sum_sync, whole call (median of 2001) | %.2f |\n", sync_us[sync_us.size() / 2]);
  std::printf("| sum_sync's slot lookup alone | %.3f |\n", host_us_per_call(s, [&] {
                unsigned char* slot = nullptr;
                ok(gpureduce::detail::workspace_slot(s, &slot));
              }));
  std::printf("| sum_sync's slot lookup and result lock | %.3f |\n", host_us_per_call(s, [&] {
                unsigned char* slot = nullptr;
                std::mutex* lock = nullptr;
                ok(gpureduce::detail::workspace_result(s, &slot, &lock));
                const std::lock_guard turn(*lock);
              }));
  int result = 0;
  GPUREDUCE_CUDA(cudaMemcpy(&result, out, sizeof(int), cudaMemcpyDeviceToHost));
  const int expected = int(unsigned(n) * 0x01010101u);  // every byte 1, the sum wrapped to 32 bits
  std::printf("\nresult %d (expected %d)\n", result, expected);
  return result == expected ? 0 : 1;
}
