// The max of complex numbers, which have no order.
// expect: gpureduce: complex numbers take sum and product
#include <gpureduce/gpureduce.cuh>

#include <cuda/std/complex>

void misuse(const cuda::std::complex<float>* in, unsigned long long n, cuda::std::complex<float>* out) {
  gpureduce::max(in, n, out);
}
