// Compiled for sm_75, the oldest architecture CUDA 13 builds for (tests/CMakeLists.txt): the
// production path's sm_80+ instructions (redux.sync warp steps, max.NaN.f32, the cache policy of
// records' loads) must have their fallbacks. One instantiation per kind of partial that takes a
// different warp step, and records read one per load and in vectors of several words.
#include <gpureduce/gpureduce.cuh>

#include <cstdint>

struct Floats5 {  // one per load
  float v[5];
};
struct Pixel {  // vectors of 48 bytes
  std::uint8_t r, g, b;
};
struct Fields5 {
  __host__ __device__ float operator()(const Floats5& f) const { return f.v[0] + f.v[1] + f.v[2] + f.v[3] + f.v[4]; }
};
struct Luma {
  __host__ __device__ std::int64_t operator()(Pixel p) const { return p.r + 2 * p.g + p.b; }
};

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
  gpureduce::exact_sum(f32, 100, static_cast<double*>(out), s);
  gpureduce::transform_reduce(reinterpret_cast<const Floats5*>(f32), 100, static_cast<float*>(out), Fields5{},
                              gpureduce::Sum{}, s);
  gpureduce::transform_reduce(reinterpret_cast<const Pixel*>(i8), 100, static_cast<std::int64_t*>(out), Luma{},
                              gpureduce::Sum{}, s);
}
