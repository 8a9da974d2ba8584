// What a reduction does after cudaDeviceReset: three rounds of allocate, reduce 2^22 int32 three
// times and once with sum_sync, then reset; the current context's handle and ID before each.
// Before the workspace pool was kept per context (dispatch/context_id.hpp), the first grid-sized
// reduction after a reset faulted.
//   device_reset_probe
#include <gpureduce/gpureduce.cuh>

#include <cstdio>
#include <vector>

static void show_context() {
  const auto& e = gpureduce::detail::context_entry_points();
  CUcontext c = nullptr;
  unsigned long long id = 0;
  const CUresult rc = e.get_current(&c);
  const CUresult ri = e.get_id ? e.get_id(c, &id) : CUDA_ERROR_NOT_FOUND;
  std::printf("context %p (r%d) id %llu (r%d)\n", static_cast<void*>(c), int(rc), id, int(ri));
}

int main() {
  constexpr std::uint64_t n = 1 << 22;
  std::vector<int> h(n);
  long long want = 0;
  for (std::uint64_t i = 0; i < n; ++i) want += h[i] = int(i % 1000) - 400;
  for (int round = 0; round < 3; ++round) {
    cudaFree(nullptr);
    show_context();
    int* d = nullptr;
    long long* out = nullptr;
    cudaMalloc(&d, n * sizeof(int));
    cudaMalloc(&out, sizeof(long long));
    std::printf("round %d: input %p result %p\n", round, static_cast<void*>(d), static_cast<void*>(out));
    // Ones in the memory the reset freed, so that a stale workspace would read full flags.
    void* junk = nullptr;
    cudaMalloc(&junk, 64 << 20);
    cudaMemset(junk, 0xFF, 64 << 20);
    cudaFree(junk);
    cudaMemcpy(d, h.data(), n * sizeof(int), cudaMemcpyHostToDevice);
    for (int k = 0; k < 3; ++k) {
      const gpureduce::Status s = gpureduce::try_reduce(d, n, out, gpureduce::Sum{});
      const cudaError_t e = cudaDeviceSynchronize();
      long long got = -1;
      cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
      std::printf("  call %d: %s, sync: %s, got %lld want %lld\n", k, s ? "ok" : s.message, cudaGetErrorString(e),
                  got, want);
    }
    try {
      std::printf("  sum_sync: %lld\n", static_cast<long long>(gpureduce::sum_sync(d, n)));
    } catch (const std::exception& e) {
      std::printf("  sum_sync threw: %s\n", e.what());
    }
    std::printf("reset: %s\n", cudaGetErrorString(cudaDeviceReset()));
  }
  return 0;
}
