// A user functor that does not combine two accumulators.
// expect: gpureduce: the functor must take two accumulators and return one
#include <gpureduce/gpureduce.cuh>

struct Negate {
  __host__ __device__ int operator()(int a) const { return -a; }
};

void misuse(const int* in, unsigned long long n, int* out) { gpureduce::reduce(in, n, out, Negate{}, 0); }
