// A functor without identity() passed where a built-in operator goes.
// expect: gpureduce: this operator has no identity
#include <gpureduce/gpureduce.cuh>

struct Multiply {
  __host__ __device__ int operator()(int a, int b) const { return a * b; }
};

void misuse(const int* in, unsigned long long n, int* out) { gpureduce::reduce(in, n, out, Multiply{}); }
