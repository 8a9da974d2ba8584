// What the runtime and the driver say about memory of every kind, seen from device 0, and what a
// reduction on device 0 of device 1's memory does. Needs two GPUs, except `pageable`.
//   device_access_probe           the attribute table
//   device_access_probe reduce    one int32 sum of device 1's memory on device 0 (no peer access)
//   device_access_probe pageable  whether device 0 reads malloc'd memory: its attributes, what
//                                 gpureduce says, then a kernel reading it by hand (which may
//                                 fault)
#include <gpureduce/gpureduce.cuh>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

using GetAttr = CUresult (*)(void*, CUpointer_attribute, CUdeviceptr);

static GetAttr driver_get_attribute() {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult q{};
  if (cudaGetDriverEntryPointByVersion("cuPointerGetAttribute", &fn, 12000, cudaEnableDefault, &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess) {
    std::printf("no cuPointerGetAttribute\n");
    std::exit(1);
  }
  return reinterpret_cast<GetAttr>(fn);
}

static void show(const char* what, const void* p) {
  static const GetAttr get = driver_get_attribute();
  cudaPointerAttributes a{};
  const cudaError_t e = cudaPointerGetAttributes(&a, p);
  if (e != cudaSuccess) cudaGetLastError();
  unsigned long long flags = 99, devptr = 0;
  int ordinal = -1;
  const CUresult rf = get(&flags, CU_POINTER_ATTRIBUTE_ACCESS_FLAGS, CUdeviceptr(p));
  const CUresult rd = get(&devptr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, CUdeviceptr(p));
  const CUresult ro = get(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, CUdeviceptr(p));
  std::printf("%-44s runtime: err %d type %d device %d devicePointer %s | driver: access_flags %llu (r%d) "
              "device_pointer %s (r%d) ordinal %d (r%d)\n",
              what, int(e), int(a.type), a.device, a.devicePointer == p ? "same" : a.devicePointer ? "other" : "null",
              flags, int(rf), devptr == (unsigned long long)(p) ? "same" : devptr ? "other" : "null", int(rd), ordinal,
              int(ro));
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

__global__ void sum_by_hand(const int* p, long long n, long long* out) {
  long long s = 0;
  for (long long i = threadIdx.x; i < n; i += blockDim.x) s += p[i];
  atomicAdd(reinterpret_cast<unsigned long long*>(out), static_cast<unsigned long long>(s));
}

static int pageable_memory(long long n) {
  for (const auto [attr, name] :
       {std::pair{cudaDevAttrPageableMemoryAccess, "PageableMemoryAccess"},
        {cudaDevAttrPageableMemoryAccessUsesHostPageTables, "UsesHostPageTables"},
        {cudaDevAttrConcurrentManagedAccess, "ConcurrentManagedAccess"},
        {cudaDevAttrCanUseHostPointerForRegisteredMem, "CanUseHostPointerForRegisteredMem"}}) {
    int v = -1;
    check(cudaDeviceGetAttribute(&v, attr, 0), name);
    std::printf("device 0 %s %d\n", name, v);
  }
  std::vector<int> h(n);
  long long want = 0;
  for (long long i = 0; i < n; ++i) want += h[i] = int(i % 1000) - 400;
  show("pageable (std::vector)", h.data());
  long long* out = nullptr;
  check(cudaMalloc(&out, sizeof(long long)), "malloc out");
  check(cudaMemset(out, 0, sizeof(long long)), "memset out");
  const gpureduce::Status s = gpureduce::try_reduce(h.data(), std::uint64_t(n), out, gpureduce::Sum{});
  std::printf("try_reduce: %s\n", s ? "ok" : s.message);
  if (!s) check(cudaMemset(out, 0, sizeof(long long)), "memset out");
  else check(cudaDeviceSynchronize(), "reduce");
  long long got = 0;
  if (s) check(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), "copy out");
  if (s) std::printf("gpureduce: got %lld want %lld\n", got, want);
  check(cudaMemset(out, 0, sizeof(long long)), "memset out");
  sum_by_hand<<<1, 256>>>(h.data(), n, out);
  const cudaError_t e = cudaDeviceSynchronize();
  got = 0;
  if (e == cudaSuccess) check(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), "copy out");
  std::printf("kernel by hand: %s, got %lld want %lld\n", cudaGetErrorString(e), got, want);
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 1 && std::strcmp(argv[1], "pageable") == 0) return pageable_memory(1 << 20);
  int count = 0;
  check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
  if (count < 2) {
    std::printf("needs two devices, found %d\n", count);
    return 0;
  }
  int can01 = 0, can10 = 0;
  check(cudaDeviceCanAccessPeer(&can01, 0, 1), "can access");
  check(cudaDeviceCanAccessPeer(&can10, 1, 0), "can access");
  std::printf("devices %d, peer 0->1 %d, 1->0 %d\n", count, can01, can10);
  constexpr std::size_t n = 1 << 20;
  std::vector<int> h(n);
  long long want = 0;
  for (std::size_t i = 0; i < n; ++i) want += h[i] = int(i % 1000) - 400;

  check(cudaSetDevice(1), "set 1");
  int* on1 = nullptr;
  check(cudaMalloc(&on1, n * sizeof(int)), "malloc on 1");
  check(cudaMemcpy(on1, h.data(), n * sizeof(int), cudaMemcpyHostToDevice), "copy");
  cudaMemPool_t pool1{};
  check(cudaDeviceGetDefaultMemPool(&pool1, 1), "pool 1");
  int* async1 = nullptr;
  check(cudaMallocAsync(&async1, n * sizeof(int), nullptr), "malloc async on 1");
  check(cudaDeviceSynchronize(), "sync 1");

  check(cudaSetDevice(0), "set 0");
  long long* out = nullptr;
  check(cudaMalloc(&out, sizeof(long long)), "malloc out");
  if (argc > 1 && std::strcmp(argv[1], "reduce") == 0) {
    const gpureduce::Status s = gpureduce::try_reduce(on1, n, out, gpureduce::Sum{});
    std::printf("try_reduce: %s\n", s ? "ok" : s.message);
    const cudaError_t e = cudaDeviceSynchronize();
    long long got = 0;
    const cudaError_t c = cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost);
    std::printf("sync: %s, copy: %s, got %lld want %lld\n", cudaGetErrorString(e), cudaGetErrorString(c), got, want);
    return 0;
  }

  int *on0 = nullptr, *managed = nullptr, *mapped = nullptr, *pinned = nullptr;
  check(cudaMalloc(&on0, 4096), "malloc on 0");
  check(cudaMallocManaged(&managed, 4096), "managed");
  check(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped), "mapped");
  check(cudaMallocHost(&pinned, 4096), "pinned");
  int* pageable = static_cast<int*>(std::malloc(4096));
  show("device 0 cudaMalloc", on0);
  show("device 1 cudaMalloc, no peer access", on1);
  show("device 1 cudaMallocAsync, no pool access", async1);
  show("managed", managed);
  show("cudaHostAlloc mapped", mapped);
  show("cudaMallocHost", pinned);
  show("pageable malloc", pageable);
  if (can01) {
    check(cudaDeviceEnablePeerAccess(1, 0), "enable peer 0->1");
    show("device 1 cudaMalloc, peer access on", on1);
    show("device 1 cudaMallocAsync, peer on, no pool", async1);
    cudaMemAccessDesc d{};
    d.location = {cudaMemLocationTypeDevice, 0};
    d.flags = cudaMemAccessFlagsProtReadWrite;
    check(cudaMemPoolSetAccess(pool1, &d, 1), "pool access");
    show("device 1 cudaMallocAsync, pool access on", async1);
    const gpureduce::Status s = gpureduce::try_reduce(on1, n, out, gpureduce::Sum{});
    long long got = 0;
    check(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost), "copy out");
    std::printf("peer reduce: %s, got %lld want %lld\n", s ? "ok" : s.message, got, want);
    check(cudaDeviceDisablePeerAccess(1), "disable peer");
    show("device 1 cudaMalloc, peer access off again", on1);
  }
  return 0;
}
