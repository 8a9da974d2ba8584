// A __device__ lambda transform whose return type host code cannot see (nvcc --extended-lambda).
// expect: gpureduce: a __device__ lambda transform needs a trailing return type
#include <gpureduce/gpureduce.cuh>

void misuse(const float* in, unsigned long long n, double* out) {
  gpureduce::transform_reduce(in, n, out, [] __device__(float x) { return double(x) * x; }, gpureduce::Sum{});
}
