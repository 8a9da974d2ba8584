// Compiles the public API (the kernels of an int32 sum included) in a project of its own; runs
// without a GPU: a null result pointer is refused before any CUDA call.
#include <gpureduce/gpureduce.cuh>

#include <cstdio>

int main() {
  const int* in = nullptr;
  const gpureduce::Status s = gpureduce::try_reduce(in, 10, static_cast<long long*>(nullptr), gpureduce::Sum{});
  std::printf("%s\n", s.message);
  return s.code == gpureduce::Errc::null_pointer ? 0 : 1;
}
