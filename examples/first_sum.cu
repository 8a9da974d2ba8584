// A complete first program: the sum of a float array on the GPU. Built and run by the tests
// (tests/CMakeLists.txt, example_first_sum); README.md shows it.
//   nvcc -std=c++20 -arch=sm_90 -I include examples/first_sum.cu -o first_sum && ./first_sum
// [example: first]
#include <gpureduce/gpureduce.cuh>

#include <cstdio>
#include <vector>

int main() {
  const std::size_t n = 1 << 20;
  const std::vector<float> host(n, 0.25f);

  float* d_in = nullptr;
  float* d_sum = nullptr;
  if (cudaMalloc(&d_in, n * sizeof(float)) != cudaSuccess || cudaMalloc(&d_sum, sizeof(float)) != cudaSuccess) {
    std::fprintf(stderr, "first_sum: no CUDA device\n");
    return 1;
  }
  cudaMemcpy(d_in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice);

  try {
    gpureduce::sum(d_in, n, d_sum);  // one kernel on the default stream; returns at once
  } catch (const gpureduce::error& e) {  // bad arguments or a CUDA error, named
    std::fprintf(stderr, "first_sum: %s\n", e.what());
    return 1;
  }

  float sum = 0;
  cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);  // waits for the kernel
  std::printf("sum of %zu x 0.25 = %.1f\n", n, sum);

  cudaFree(d_in);
  cudaFree(d_sum);
  return sum == 0.25f * float(n) ? 0 : 1;
}
// [/example]
