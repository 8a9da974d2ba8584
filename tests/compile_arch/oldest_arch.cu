// Compiled for sm_75, the oldest architecture CUDA 13 builds for (tests/CMakeLists.txt): the
// production path's sm_80+ instructions (redux.sync warp steps, max.NaN.f32) must have their
// fallbacks. One instantiation per kind of partial that takes a different warp step.
#include <gpureduce/gpureduce.cuh>

#include <cstdint>

void oldest_arch_instantiations(cudaStream_t s, const std::int8_t* i8, const int* i32, const std::int64_t* i64,
                                const float* f32, const double* f64, const __half* f16, void* out) {
  gpureduce::sum(i8, 100, static_cast<std::int64_t*>(out), s);
  gpureduce::sum(i64, 100, static_cast<std::int64_t*>(out), s);
  gpureduce::max(i32, 100, static_cast<int*>(out), s);
  gpureduce::min(f32, 100, static_cast<float*>(out), s);
  gpureduce::max(f64, 100, static_cast<double*>(out), s);
  gpureduce::argmax(f32, 100, static_cast<gpureduce::IndexedValue<float>*>(out), s);
  gpureduce::argmin(f16, 100, static_cast<gpureduce::IndexedValue<__half>*>(out), s);
  gpureduce::argmax(i64, 100, static_cast<gpureduce::IndexedValue<std::int64_t>*>(out), s);
  gpureduce::minmax(i32, 100, static_cast<gpureduce::MinMax<int>*>(out), s);
  gpureduce::bit_xor(i64, 100, static_cast<std::int64_t*>(out), s);
  gpureduce::all(i8, 100, static_cast<bool*>(out), s);
  gpureduce::sum(f32, 100, static_cast<double*>(out), s, {.exact = true});
}
