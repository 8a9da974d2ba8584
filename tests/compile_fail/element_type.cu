// Elements of a type that is not a number.
// expect: gpureduce: elements must be an integer, floating-point, __half or __nv_bfloat16 type
#include <gpureduce/gpureduce.cuh>

struct Point {
  int x, y;
};

void misuse(const Point* in, unsigned long long n, int* out) { gpureduce::reduce(in, n, out, gpureduce::Sum{}); }
