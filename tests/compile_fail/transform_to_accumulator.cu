// transform_reduce with a functor and its identity, the transform's values not converting to the
// identity's type (the accumulator).
// expect: gpureduce: the transform's result does not convert to the accumulator
#include <gpureduce/gpureduce.cuh>

struct Pair {
  double first, second;
};
struct ToPair {
  __host__ __device__ Pair operator()(float x) const { return {x, x}; }
};
struct Larger {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};

void misuse(const float* in, unsigned long long n, int* out) {
  gpureduce::transform_reduce(in, n, out, ToPair{}, Larger{}, 0);
}
