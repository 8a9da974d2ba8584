// What a count past the end of the input does: two int32 allocations of 1000 elements (4000
// bytes, which cudaMalloc puts 4096 apart), the first all 1, the second all 1000; then the sum of
// the first with its count in bytes (4000 elements: the first array, the gap, most of the second).
// Built against the headers of a commit before the allocation check and at one after, to show the
// old answer and the refusal. Not part of the library.
#include <gpureduce/gpureduce.cuh>

#include <cstdio>
#include <vector>

int main() {
  constexpr int n = 1000;
  int *a = nullptr, *b = nullptr;
  long long* out = nullptr;
  if (cudaMalloc(&a, n * sizeof(int)) != cudaSuccess || cudaMalloc(&b, n * sizeof(int)) != cudaSuccess ||
      cudaMalloc(&out, sizeof(long long)) != cudaSuccess)
    return 1;
  const std::vector<int> ones(n, 1), thousands(n, 1000);
  cudaMemcpy(a, ones.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  cudaMemcpy(b, thousands.data(), n * sizeof(int), cudaMemcpyHostToDevice);
  std::printf("second allocation starts %lld bytes after the first\n", (long long)((char*)b - (char*)a));
  for (const unsigned long long count : {(unsigned long long)n, (unsigned long long)n * sizeof(int)}) {
    cudaMemset(out, 0, sizeof(long long));
    const gpureduce::Status s = gpureduce::try_reduce(a, count, out, gpureduce::Sum{});
    const cudaError_t sync = cudaDeviceSynchronize();
    long long got = -1;
    cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
    std::printf("count %llu: status \"%s\", kernel %s, result %lld (the first array alone sums to %d)\n", count,
                s.message, cudaGetErrorString(sync), s ? got : 0, n);
  }
  return 0;
}
