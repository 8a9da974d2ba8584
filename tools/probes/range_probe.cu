// What the driver says of the allocation a pointer lies in, for memory of every kind: whether a
// call could check that n elements from the pointer stay inside it (a count in bytes instead of
// elements reads past the end), and what asking costs the host. Not part of the library.
//   per kind: the allocation's start and size as CU_POINTER_ATTRIBUTE_RANGE_START_ADDR and
//   RANGE_SIZE give them (relative to the pointer and the size asked for), at its start and 100
//   bytes in, and cuMemGetAddressRange's answer
//   then the host time of each query, median of 101 runs of 1000 calls
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK(x)                                                                     \
  do {                                                                               \
    if (const cudaError_t e_ = (x); e_ != cudaSuccess) {                             \
      std::printf("%s: %s (line %d)\n", #x, cudaGetErrorString(e_), __LINE__);       \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

template <class F>
F driver(const char* name) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess) {
    std::printf("no %s\n", name);
    std::exit(1);
  }
  return reinterpret_cast<F>(fn);
}

using GetAttrs = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);
using AddressRange = CUresult (*)(CUdeviceptr*, size_t*, CUdeviceptr);

GetAttrs get_attrs;
AddressRange address_range;

struct Range {
  CUresult r;
  long long start_off;  // range start - p
  long long size;
};

Range range_of(const void* p) {
  CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
  CUdeviceptr start = 0;
  size_t size = 0;
  void* data[] = {&start, &size};
  const CUresult r = get_attrs(2, which, data, CUdeviceptr(p));
  return {r, (long long)start - (long long)(CUdeviceptr)p, (long long)size};
}

void show(const char* what, const void* p, long long asked) {
  for (const long long off : {0ll, 100ll}) {
    const auto* q = static_cast<const char*>(p) + off;
    const Range a = range_of(q);
    CUdeviceptr base = 0;
    size_t size = 0;
    const CUresult rb = address_range(&base, &size, CUdeviceptr(q));
    std::printf(
        "%-40s +%-3lld asked %10lld | attrs r%d start %+lld size %lld | cuMemGetAddressRange r%d start %+lld size "
        "%lld\n",
        what, off, asked, int(a.r), a.start_off, a.size, int(rb), (long long)base - (long long)(CUdeviceptr)q,
        (long long)size);
  }
}

template <class F>
double ns_per_call(F&& call) {
  constexpr int calls = 1000, runs = 101;
  for (int i = 0; i < 2000; ++i) call();
  std::vector<double> ns;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < calls; ++i) call();
    ns.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / calls);
  }
  std::sort(ns.begin(), ns.end());
  return ns[runs / 2];
}

}  // namespace

int main() {
  CHECK(cudaSetDevice(0));
  CHECK(cudaFree(nullptr));
  get_attrs = driver<GetAttrs>("cuPointerGetAttributes");
  address_range = driver<AddressRange>("cuMemGetAddressRange");
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  constexpr long long small = 4000, large = 64ll << 20;

  void* p = nullptr;
  CHECK(cudaMalloc(&p, small));
  show("cudaMalloc 4000", p, small);
  void* q = nullptr;
  CHECK(cudaMalloc(&q, small));
  show("cudaMalloc 4000, the next one", q, small);
  std::printf("    the next one starts %+lld bytes from the first\n", (long long)((char*)q - (char*)p));
  CHECK(cudaMalloc(&p, large));
  show("cudaMalloc 64 MB", p, large);
  CHECK(cudaMallocAsync(&p, small, s));
  CHECK(cudaMallocAsync(&q, small, s));
  CHECK(cudaStreamSynchronize(s));
  show("cudaMallocAsync 4000 (default pool)", p, small);
  show("cudaMallocAsync 4000, the next one", q, small);
  std::printf("    the next one starts %+lld bytes from the first\n", (long long)((char*)q - (char*)p));
  CHECK(cudaMallocAsync(&p, large, s));
  CHECK(cudaStreamSynchronize(s));
  show("cudaMallocAsync 64 MB", p, large);
  CHECK(cudaMallocManaged(&p, small));
  show("cudaMallocManaged 4000", p, small);
  CHECK(cudaMallocHost(&p, small));
  show("cudaMallocHost 4000", p, small);
  std::vector<char> host(1 << 20);
  CHECK(cudaHostRegister(host.data() + 4096, 65536, cudaHostRegisterDefault));
  show("cudaHostRegister 65536 of a vector", host.data() + 4096, 65536);
  show("malloc'd, unregistered", host.data() + 200000, 0);

  // Virtual memory: one reservation of 4 granules, two handles of one granule mapped side by side
  // (PyTorch's expandable segments grow a reservation this way).
  CUmemAllocationProp prop{};
  prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  prop.location = {CU_MEM_LOCATION_TYPE_DEVICE, 0};
  size_t granule = 0;
  driver<CUresult (*)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags)>(
      "cuMemGetAllocationGranularity")(&granule, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM);
  CUdeviceptr va = 0;
  driver<CUresult (*)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long)>("cuMemAddressReserve")(
      &va, 4 * granule, 0, 0, 0);
  const auto create = driver<CUresult (*)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*,
                                          unsigned long long)>("cuMemCreate");
  const auto map =
      driver<CUresult (*)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long)>("cuMemMap");
  const auto set_access = driver<CUresult (*)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t)>("cuMemSetAccess");
  CUmemGenericAllocationHandle h1{}, h2{};
  create(&h1, granule, &prop, 0);
  create(&h2, granule, &prop, 0);
  map(va, granule, 0, h1, 0);
  map(va + granule, granule, 0, h2, 0);
  const CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, 0}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  const CUresult ra = set_access(va, 2 * granule, &access, 1);
  std::printf("granule %zu, set_access over both r%d\n", granule, int(ra));
  show("cuMemMap, first of two handles", (void*)va, (long long)granule);
  show("cuMemMap, second of two handles", (void*)(va + granule), (long long)granule);
  show("cuMemMap, reserved, unmapped", (void*)(va + 3 * granule), 0);

  CHECK(cudaMalloc(&p, small));
  std::printf("== host ns per query, median of 101 runs of 1000\n");
  std::printf("cudaPointerGetAttributes          %.1f\n", ns_per_call([&] {
                cudaPointerAttributes a{};
                cudaPointerGetAttributes(&a, p);
              }));
  std::printf("cuPointerGetAttributes, range (2) %.1f\n", ns_per_call([&] { range_of(p); }));
  std::printf("cuPointerGetAttributes, 4 attrs   %.1f\n", ns_per_call([&] {
                CUpointer_attribute which[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                               CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_RANGE_SIZE};
                unsigned type = 0;
                CUdeviceptr dp = 0, start = 0;
                size_t size = 0;
                void* data[] = {&type, &dp, &start, &size};
                get_attrs(4, which, data, CUdeviceptr(p));
              }));
  std::printf("cuMemGetAddressRange              %.1f\n", ns_per_call([&] {
                CUdeviceptr base = 0;
                size_t size = 0;
                address_range(&base, &size, CUdeviceptr(p));
              }));
  return 0;
}
