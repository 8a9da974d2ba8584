// A user accumulator wider than the 16 bytes a block partial holds.
// expect: gpureduce: the accumulator must be trivially copyable and at most 16 bytes
#include <gpureduce/gpureduce.cuh>

struct Wide {
  double a, b, c;
};

struct AddWide {
  __host__ __device__ Wide operator()(Wide x, Wide y) const { return {x.a + y.a, x.b + y.b, x.c + y.c}; }
};

void misuse(const double* in, unsigned long long n, Wide* out) { gpureduce::reduce(in, n, out, AddWide{}, Wide{}); }
