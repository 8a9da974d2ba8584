// A result pointer whose type the accumulator does not convert to.
// expect: gpureduce: the accumulator type does not convert to the result pointer's type
#include <gpureduce/gpureduce.cuh>

void misuse(const float* in, unsigned long long n, gpureduce::IndexedValue<float>* out) {
  gpureduce::reduce(in, n, out, gpureduce::Sum{});
}
