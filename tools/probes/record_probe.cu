// Arrays of records under a caller's functor or transform, gpureduce against CUB's Reduce and
// TransformReduce with the same functor and identity, and argmax of a key per record (float3's
// squared length, a pixel's luma, a point's or fields' sum) against CUB's ArgMax over a transform
// iterator, samples alternating in one run (events, a memset of 2x L2 before each sample, median
// of 20). complex<float> is read in 16-byte vectors as numbers are; float3, 3-byte pixels and
// 24-byte points in vectors of 48 bytes (grid/vector_split.hpp); a pair of doubles of 8-byte
// alignment in 16-byte vectors from a 16-byte boundary, and from 8 bytes past one a record per
// load (agent/sources.cuh, RecordSource), as a pair of floats 4 bytes past an 8-byte boundary and
// 20-byte records from any address; records of fields (5-17, 23, 31, 33, 37, 41, 43 and 47 int8
// and int16, odd counts; 5, 7 and 9 floats) in vectors of 80 bytes (5 int8 and int16) or one per
// load.
// Each result is compared with CUB's. Run by `tools/device-run COMMIT records`, or for several
// builds by `tools/records-ab`.
//   record_probe [SIZES [FILTER]]
// SIZES: record counts, comma-separated, each a number or 2^k (empty or left out: 2^10 to 2^28 in
// steps of 4x); FILTER: only the rows whose name contains one of its |-separated parts
// (RECORD_SIZES and RECORD_ONLY in device-run).
#include <gpureduce/gpureduce.cuh>

#include <cub/device/device_reduce.cuh>
#include <cuda/std/complex>
#include <cuda/std/functional>
#include <thrust/iterator/transform_iterator.h>

#include "../../src/bench/timer.hpp"
#include "probe_setup.cuh"
#include "small_records.cuh"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using u64 = unsigned long long;
using complex64 = cuda::std::complex<float>;

struct Add3 {
  __host__ __device__ float3 operator()(float3 a, float3 b) const { return {a.x + b.x, a.y + b.y, a.z + b.z}; }
};
struct Length2 {  // the README's farthest point
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};
struct Luma {
  __host__ __device__ std::int64_t operator()(Pixel p) const { return p.r + 2 * p.g + p.b; }
};
struct Coordinates {
  __host__ __device__ double operator()(const Point& p) const { return p.x + p.y + p.z; }
};
struct Both {
  __host__ __device__ double operator()(const Doubles& d) const { return d.a + d.b; }
};
struct Fields {  // in double: exact sums of ones at every size
  __host__ __device__ double operator()(const Pair& f) const { return double(f.a) + f.b; }
  template <class R>
  __host__ __device__ double operator()(const R& r) const {
    double t = 0;
    for (const auto x : r.v) t += double(x);
    return t;
  }
};

// "2^k" or a number, each up to 2^28 (the buffer's size); exits with a message otherwise.
std::vector<u64> parse_sizes(const char* list) {
  std::vector<u64> sizes;
  for (const char* p = list; *p;) {
    char* end = nullptr;
    const bool power = p[0] == '2' && p[1] == '^';
    const u64 v = std::strtoull(power ? p + 2 : p, &end, 10);
    const u64 n = power ? (v < 64 ? u64(1) << v : 0) : v;
    if (end == p || n == 0 || n > (u64(1) << 28) || (*end != ',' && *end != '\0')) {
      std::fprintf(stderr, "record_probe: bad size list '%s' (counts up to 2^28, e.g. 2^20,3000000)\n", list);
      std::exit(2);
    }
    sizes.push_back(n);
    p = *end == ',' ? end + 1 : end;
  }
  return sizes;
}

std::string size_name(u64 n) {
  return (n & (n - 1)) == 0 ? "2^" + std::to_string(__builtin_ctzll(n)) : std::to_string(n);
}

// Whether `name` contains one of the |-separated parts of `filter` (an empty filter: every name).
bool wanted(const std::string& name, const std::string& filter) {
  if (filter.empty()) return true;
  for (std::size_t from = 0;;) {
    const std::size_t bar = filter.find('|', from);
    if (name.find(filter.substr(from, bar - from)) != std::string::npos) return true;
    if (bar == std::string::npos) return false;
    from = bar + 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<u64> sizes;
  if (argc > 1 && argv[1][0] != '\0') {
    sizes = parse_sizes(argv[1]);
  } else {
    for (u64 n = u64(1) << 10; n <= u64(1) << 28; n <<= 2) sizes.push_back(n);
  }
  const char* only = argc > 2 ? argv[2] : "";
  const ProbeSetup setup = probe_setup();
  const cudaStream_t s = setup.stream;
  gpureduce::GpuTimer timer(s, setup.l2_bytes);
  constexpr int reps = 20;
  const u64 max_n = u64(1) << 28;
  gpureduce::DeviceBuffer<unsigned char> in(max_n * sizeof(Nine));  // the largest input's bytes
  gpureduce::DeviceBuffer<unsigned char> out_a(64), out_b(64), temp(64 << 20);
  GPUREDUCE_CUDA(cudaStreamSynchronize(s));
  std::printf("records, median us of %d samples each (gpureduce and CUB alternating), L2 flushed before each\n\n",
              reps);
  std::printf("| record | n | gpureduce us | CUB us | CUB / gpureduce | gpureduce GB/s | same result |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---|\n");
  // One row: ours(out) and cub(temp, bytes, out) on the same input of n records of `record` bytes,
  // the results' first `result` bytes compared, and where `index_at` is not 0 the 8 bytes there (an
  // argmax's index, where IndexedValue has it and the CUB lambda writes it).
  const auto row = [&](const std::string& name, u64 n, std::size_t record, std::size_t result, auto fill_input,
                       auto ours, auto cub, std::size_t index_at = 0) {
    if (!wanted(name, only) || n * record > in.size()) return;  // past the buffer: records of 40 bytes and more
    fill_input(n * record);
    std::size_t bytes = 0;
    GPUREDUCE_CUDA(cub(nullptr, bytes, out_b.get(), s));
    if (bytes > temp.size()) {
      std::printf("| %s | %llu | CUB wants %zu temporary bytes |\n", name.c_str(), n, bytes);
      return;
    }
    const auto [a, b] = timer.measure_pair([&](cudaStream_t) { ours(out_a.get()); },
                                           [&](cudaStream_t) {
                                             std::size_t t = bytes;
                                             GPUREDUCE_CUDA(cub(temp.get(), t, out_b.get(), s));
                                           },
                                           reps);
    unsigned char ra[64], rb[64];
    GPUREDUCE_CUDA(cudaMemcpy(ra, out_a.get(), sizeof ra, cudaMemcpyDeviceToHost));
    GPUREDUCE_CUDA(cudaMemcpy(rb, out_b.get(), sizeof rb, cudaMemcpyDeviceToHost));
    const bool same =
        std::memcmp(ra, rb, result) == 0 && (!index_at || std::memcmp(ra + index_at, rb + index_at, 8) == 0);
    std::printf("| %s | %s | %.2f | %.2f | %.3f | %.0f | %s |\n", name.c_str(), size_name(n).c_str(),
                a.median_ms * 1e3, b.median_ms * 1e3, b.median_ms / a.median_ms,
                double(n * record) / (a.median_ms * 1e6), same ? "yes" : "NO");
  };
  const auto* c = reinterpret_cast<const complex64*>(in.get());
  const auto* f3 = reinterpret_cast<const float3*>(in.get());
  const auto* px = reinterpret_cast<const Pixel*>(in.get());
  const auto* pt = reinterpret_cast<const Point*>(in.get());
  const auto* dd = reinterpret_cast<const Doubles*>(in.get() + 8);  // 8 bytes into a 16-byte word
  const auto* da = reinterpret_cast<const Doubles*>(in.get());      // 16-byte aligned
  const auto* fp = reinterpret_cast<const Pair*>(in.get() + 4);   // 4 bytes into an 8-byte word
  const auto* f5 = reinterpret_cast<const Five*>(in.get());
  const auto* f7 = reinterpret_cast<const Seven*>(in.get());
  const auto* f9 = reinterpret_cast<const Nine*>(in.get());
  const auto floats = [&](u64 b) {
    fill_sparse_ones<float><<<1024, 256, 0, s>>>(reinterpret_cast<float*>(in.get()), b / 4);
  };
  const auto bytes = [&](u64 b) { fill_sparse_ones<unsigned char><<<1024, 256, 0, s>>>(in.get(), b); };
  const auto doubles = [&](u64 b) {
    fill_sparse_ones<double><<<1024, 256, 0, s>>>(reinterpret_cast<double*>(in.get()), b / 8);
  };
  for (const u64 n : sizes) {
    // The first record of the largest key(record), its key of type K: IndexedValue<K> against CUB's
    // ArgMax over a transform iterator, the value written at offset 0 and the index at 8.
    const auto argmax = [&](const std::string& name, const auto* p, std::size_t size, auto fill, auto key) {
      using K = decltype(key(*p));
      row(name, n, size, sizeof(K), fill,
          [&](void* o) {
            gpureduce::transform_reduce(p, n, static_cast<gpureduce::IndexedValue<K>*>(o), key, gpureduce::ArgMax{}, s);
          },
          [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
            return cub::DeviceReduce::ArgMax(t, b, thrust::make_transform_iterator(p, key), static_cast<K*>(o),
                                             reinterpret_cast<std::int64_t*>(static_cast<char*>(o) + 8),
                                             std::int64_t(n), st);
          },
          8);
    };
    row("complex<float> sum (8 B, vectors)", n, 8, 8, floats,
        [&](void* o) { gpureduce::reduce(c, n, static_cast<complex64*>(o), cuda::std::plus<>{}, complex64{}, s); },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::Reduce(t, b, c, static_cast<complex64*>(o), std::int64_t(n), cuda::std::plus<>{},
                                           complex64{}, st);
        });
    row("float3 sum (12 B, records)", n, 12, 12, floats,
        [&](void* o) { gpureduce::reduce(f3, n, static_cast<float3*>(o), Add3{}, float3{0, 0, 0}, s); },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::Reduce(t, b, f3, static_cast<float3*>(o), std::int64_t(n), Add3{}, float3{0, 0, 0},
                                           st);
        });
    argmax("float3 farthest argmax (12 B, records)", f3, 12, floats, Length2{});
    row("pixel luma sum (3 B, records)", n, 3, 8, bytes,
        [&](void* o) {
          gpureduce::transform_reduce(px, n, static_cast<std::int64_t*>(o), Luma{}, gpureduce::Sum{}, s);
        },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::TransformReduce(t, b, px, static_cast<std::int64_t*>(o), std::int64_t(n),
                                                    cuda::std::plus<>{}, Luma{}, std::int64_t(0), st);
        });
    argmax("pixel luma argmax (3 B, records)", px, 3, bytes, Luma{});
    row("point x+y+z sum (24 B, records)", n, 24, 8, doubles,
        [&](void* o) {
          gpureduce::transform_reduce(pt, n, static_cast<double*>(o), Coordinates{}, gpureduce::Sum{}, s);
        },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::TransformReduce(t, b, pt, static_cast<double*>(o), std::int64_t(n),
                                                    cuda::std::plus<>{}, Coordinates{}, 0.0, st);
        });
    argmax("point x+y+z argmax (24 B, records)", pt, 24, doubles, Coordinates{});
    row("pair of doubles a+b sum (16 B, from a 16-byte boundary, vectors)", n, 16, 8, doubles,
        [&](void* o) { gpureduce::transform_reduce(da, n, static_cast<double*>(o), Both{}, gpureduce::Sum{}, s); },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::TransformReduce(t, b, da, static_cast<double*>(o), std::int64_t(n),
                                                    cuda::std::plus<>{}, Both{}, 0.0, st);
        });
    row("pair of doubles a+b sum (16 B, from 8 bytes past one, records)", n, 16, 8, doubles,
        [&](void* o) { gpureduce::transform_reduce(dd, n, static_cast<double*>(o), Both{}, gpureduce::Sum{}, s); },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::TransformReduce(t, b, dd, static_cast<double*>(o), std::int64_t(n),
                                                    cuda::std::plus<>{}, Both{}, 0.0, st);
        });
    row("pair of floats a+b sum (8 B, from 4 bytes past 8, records)", n, 8, 8, floats,
        [&](void* o) { gpureduce::transform_reduce(fp, n, static_cast<double*>(o), Fields{}, gpureduce::Sum{}, s); },
        [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
          return cub::DeviceReduce::TransformReduce(t, b, fp, static_cast<double*>(o), std::int64_t(n),
                                                    cuda::std::plus<>{}, Fields{}, 0.0, st);
        });
    // Records of fields, each `size` bytes at `p`: their sum in double, and the record of the
    // largest.
    const auto fields = [&](const std::string& name, const auto* p, std::size_t size, auto fill) {
      row(name + " sum (" + std::to_string(size) + " B, records)", n, size, 8, fill,
          [&](void* o) { gpureduce::transform_reduce(p, n, static_cast<double*>(o), Fields{}, gpureduce::Sum{}, s); },
          [&](void* t, std::size_t& b, void* o, cudaStream_t st) {
            return cub::DeviceReduce::TransformReduce(t, b, p, static_cast<double*>(o), std::int64_t(n),
                                                      cuda::std::plus<>{}, Fields{}, 0.0, st);
          });
      argmax(name + " argmax (" + std::to_string(size) + " B, records)", p, size, fill, Fields{});
    };
    fields("5 floats", f5, 20, floats);
    fields("7 floats", f7, 28, floats);
    fields("9 floats", f9, 36, floats);
    // Records of N int8 fields ("N bytes") or N int16 ("N shorts"), from the buffer's start.
    const auto narrow = [&]<class F, unsigned... N>(const char* kind) {
      (fields(std::to_string(N) + kind, reinterpret_cast<const FieldsOf<F, N>*>(in.get()), N * sizeof(F), bytes), ...);
    };
    narrow.template operator()<std::uint8_t, 5, 7, 9, 11, 13, 15, 17, 23, 31, 33, 37, 41, 43, 47>(" bytes");
    narrow.template operator()<std::uint16_t, 5, 7, 9, 11, 13, 15, 17, 23, 31, 33, 37, 41, 43, 47>(" shorts");
  }
  return 0;
}
