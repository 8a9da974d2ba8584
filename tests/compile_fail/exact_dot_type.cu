// exact_dot of doubles: their products are not formed exactly.
// expect: gpureduce: exact dot products take float
#include <gpureduce/gpureduce.cuh>

void f(const double* a, const double* b, double* out) { gpureduce::exact_dot(a, b, 4, out); }
