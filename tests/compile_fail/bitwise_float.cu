// A bitwise operator over floating-point elements.
// expect: gpureduce: bitwise and/or/xor need integer elements
#include <gpureduce/gpureduce.cuh>

void misuse(const float* in, unsigned long long n, float* out) { gpureduce::reduce(in, n, out, gpureduce::BitAnd{}); }
