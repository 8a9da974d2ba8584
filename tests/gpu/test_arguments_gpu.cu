// What the call checks before it enqueues anything: errors that name the argument, counts past the
// end of an allocation, memory of every kind a device reads (and host memory it cannot), and a
// caller's pending error left alone.
#include "reduce_checks.cuh"

#include <cuda.h>  // driver types only (VmmCalls)

#include <memory>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

TEST(test_arguments, errors_name_the_argument) {
  GPUREDUCE_REQUIRE_GPU();
  DeviceInput<float> d(random_input<float>(100, test_seed()), 0);
  float* dev_out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&dev_out, sizeof(float)));
  EXPECT_EQ(try_reduce(static_cast<const float*>(nullptr), 100, dev_out, Sum{}).code, Errc::null_pointer);
  Options small;
  small.workspace = dev_out;
  small.workspace_size = 4;
  EXPECT_EQ(try_reduce(d.get(), 100, dev_out, Sum{}, nullptr, small).code, Errc::invalid_argument);
  // Device memory at an address misaligned for the element: refused, and the context lives on.
  const auto* odd = reinterpret_cast<const float*>(reinterpret_cast<const char*>(d.get()) + 2);
  EXPECT_EQ(try_reduce(odd, 50, dev_out, Sum{}).code, Errc::invalid_argument);
  const auto h = random_input<float>(100, test_seed());
  const float want = run_to_host<float>([&](float* o) { sum(d.get(), 100, o); });
  expect_float_sum(want, reference::float_sum(h.data(), 100, false), 100, "after the refusal");
  int device = 0, pageable = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  if (pageable) {  // a device that reads pageable memory writes a result on the stack all the same
    cudaFree(dev_out);
    GTEST_SKIP() << "the device reads pageable host memory: host_memory_pinned_pageable_and_as_workspace covers it";
  }
  float host_out = 0;
  EXPECT_EQ(try_reduce(d.get(), 100, &host_out, Sum{}).code, Errc::not_device_memory);
  std::vector<float> host_in(100, 1.f);
  EXPECT_EQ(try_reduce(host_in.data(), 100, dev_out, Sum{}).code, Errc::not_device_memory);
  try {
    sum(d.get(), 100, &host_out);
    FAIL() << "no exception";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), Errc::not_device_memory);
    EXPECT_NE(std::string(e.what()).find("result pointer"), std::string::npos) << e.what();
  }
  cudaFree(dev_out);
}

// A count that runs past the end of the input's allocation (bytes passed for elements, one too
// many, from an interior pointer, the shorter array of a dot product), a result or a workspace
// smaller than what is written there, are refused before anything is enqueued, for memory of
// cudaMalloc, cudaMallocAsync and cudaMallocManaged; counts that fit exactly pass.
TEST(test_arguments, counts_past_the_end_of_the_allocation_are_refused) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  constexpr std::uint64_t n = 40000;  // a grid; 4000 below, one block
  const auto h = random_input<std::int32_t>(n, seed);
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const auto past_the_end = [](const Status& st) {
    return st.code == Errc::invalid_argument && std::string(st.message).find("past the end") != std::string::npos;
  };
  for (const int kind : {0, 1, 2}) {
    SCOPED_TRACE(kind == 0 ? "cudaMalloc" : kind == 1 ? "cudaMallocAsync" : "cudaMallocManaged");
    std::int32_t* a = nullptr;
    std::int32_t* b = nullptr;  // one element shorter
    const auto allocate = [&](std::int32_t** p, std::uint64_t count) {
      const std::size_t bytes = count * sizeof(std::int32_t);
      GPUREDUCE_CHECK_CUDA(kind == 0   ? cudaMalloc(p, bytes)
                           : kind == 1 ? cudaMallocAsync(p, bytes, s)
                                       : cudaMallocManaged(p, bytes));
    };
    allocate(&a, n);
    allocate(&b, n - 1);
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(a, h.data(), n * sizeof(std::int32_t), cudaMemcpyDefault));
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(b, h.data(), (n - 1) * sizeof(std::int32_t), cudaMemcpyDefault));
    for (const std::uint64_t m : {n, std::uint64_t(4000)}) {
      SCOPED_TRACE("count " + std::to_string(m));
      const std::int32_t* end = a + n;
      EXPECT_EQ(std::uint64_t(run_to_host<std::int64_t>([&](std::int64_t* o) { sum(end - m, m, o); })),
                reference::int_sum(h.data() + n - m, m));
      const auto refused = [&](const std::int32_t* p, std::uint64_t count) {
        Status st;
        run_to_host<std::int64_t>([&](std::int64_t* o) { st = try_reduce(p, count, o, Sum{}, s); });
        return past_the_end(st);
      };
      EXPECT_TRUE(refused(end - m, m + 1));
      EXPECT_TRUE(refused(end - m, m * sizeof(std::int32_t)));
      EXPECT_TRUE(refused(end - m + 1, m));
    }
    Status st;
    run_to_host<std::int64_t>([&](std::int64_t* o) { st = try_dot(a, b, n, o, s); });
    EXPECT_TRUE(past_the_end(st)) << st.message;
    run_to_host<std::int64_t>([&](std::int64_t* o) { st = try_dot(b, a, n, o, s); });
    EXPECT_TRUE(past_the_end(st)) << st.message;
    std::int64_t want_dot = 0;
    for (std::uint64_t i = 0; i + 1 < n; ++i) want_dot += std::int64_t(h[i]) * h[i];
    EXPECT_EQ(dot_sync(a, b, n - 1, s), want_dot);
    try {
      static_cast<void>(sum_sync(a, n * sizeof(std::int32_t), s));
      ADD_FAILURE() << "no exception";
    } catch (const error& e) {
      EXPECT_EQ(e.code(), Errc::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("past the end"), std::string::npos) << e.what();
    }
    // Exact sums take the same checks.
    const auto* f = reinterpret_cast<const float*>(a);
    float* fo = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&fo, sizeof(float)));
    EXPECT_TRUE(past_the_end(try_exact_sum(f, n + 1, fo, s)));
    cudaFree(fo);
    // A result or a workspace of fewer bytes than are written there.
    void* four_bytes = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&four_bytes, 4));
    EXPECT_TRUE(past_the_end(try_reduce(a, n, static_cast<std::int64_t*>(four_bytes), Sum{}, s)));
    void* ws = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&ws, workspace_bytes - 16));
    GPUREDUCE_CHECK_CUDA(cudaMemset(ws, 0, workspace_bytes - 16));
    Options short_ws;
    short_ws.workspace = ws;
    short_ws.workspace_size = workspace_bytes;  // more than was allocated
    run_to_host<std::int64_t>([&](std::int64_t* o) { st = try_reduce(a, n, o, Sum{}, s, short_ws); });
    EXPECT_TRUE(past_the_end(st)) << st.message;
    cudaFree(four_bytes);
    cudaFree(ws);
    EXPECT_EQ(std::uint64_t(sum_sync(a, n, s)), reference::int_sum(h.data(), n));  // the context lives on
    if (kind == 1) {
      GPUREDUCE_CHECK_CUDA(cudaFreeAsync(a, s));
      GPUREDUCE_CHECK_CUDA(cudaFreeAsync(b, s));
    } else {
      cudaFree(a);
      cudaFree(b);
    }
  }
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
  release_workspace(s);
  cudaStreamDestroy(s);
}

// A caller's workspace over the input or over the result, in one allocation: refused before
// anything is enqueued (input and result as they were), and the same call with the workspace just
// past the input exact. 2^20 + 3 int64 take a grid, which writes its partials there.
TEST(test_arguments, a_workspace_over_the_input_or_the_result_is_refused) {
  GPUREDUCE_REQUIRE_GPU();
  constexpr std::uint64_t n = (1u << 20) + 3;
  const auto h = random_input<std::int64_t>(n, test_seed());
  const std::size_t in_bytes = (n * sizeof(std::int64_t) + 255) / 256 * 256;
  unsigned char* buf = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&buf, in_bytes + workspace_bytes + 256));
  auto* in = reinterpret_cast<std::int64_t*>(buf);
  auto* out = reinterpret_cast<std::int64_t*>(buf + in_bytes + workspace_bytes);
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(in, h.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
  GPUREDUCE_CHECK_CUDA(cudaMemset(buf + in_bytes, 0, workspace_bytes));
  constexpr std::int64_t poison = 0x5A5A5A5A5A5A5A5A;
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(out, &poison, sizeof(poison), cudaMemcpyHostToDevice));
  Options opt;
  opt.workspace_size = workspace_bytes;
  const std::size_t last = (n * sizeof(std::int64_t) - 1) / 16 * 16;  // over the last element
  for (const std::size_t at : {std::size_t(0), in_bytes / 2 / 16 * 16, last, in_bytes + 16}) {
    opt.workspace = buf + at;  // the last over the result
    const Status st = try_reduce(in, n, out, Sum{}, nullptr, opt);
    EXPECT_EQ(st.code, Errc::invalid_argument) << "workspace at byte " << at;
    EXPECT_NE(std::string(st.message).find(at > in_bytes ? "overlaps the result" : "overlaps the input"),
              std::string::npos)
        << st.message;
  }
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::int64_t> back(n);
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(back.data(), in, n * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(back, h);
  std::int64_t got = 0;
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, poison);
  opt.workspace = buf + in_bytes;
  ASSERT_TRUE(try_reduce(in, n, out, Sum{}, nullptr, opt));
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::uint64_t(got), reference::int_sum(h.data(), n));
  cudaFree(buf);
}

// The driver's virtual memory calls (the memory of PyTorch's expandable segments), reached through
// the runtime as the library reaches the driver: the test binary does not link libcuda.
struct VmmCalls {
  CUresult (*granularity)(size_t*, const CUmemAllocationProp*, CUmemAllocationGranularity_flags) = nullptr;
  CUresult (*create)(CUmemGenericAllocationHandle*, size_t, const CUmemAllocationProp*, unsigned long long) = nullptr;
  CUresult (*reserve)(CUdeviceptr*, size_t, size_t, CUdeviceptr, unsigned long long) = nullptr;
  CUresult (*map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle, unsigned long long) = nullptr;
  CUresult (*set_access)(CUdeviceptr, size_t, const CUmemAccessDesc*, size_t) = nullptr;
  CUresult (*unmap)(CUdeviceptr, size_t) = nullptr;
  CUresult (*release)(CUmemGenericAllocationHandle) = nullptr;
  CUresult (*free_address)(CUdeviceptr, size_t) = nullptr;

  VmmCalls() {
    const auto find = [](const char* name, auto* fn) {
      void* p = nullptr;
      cudaDriverEntryPointQueryResult found{};
      if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess) p = nullptr;
      *fn = reinterpret_cast<std::remove_pointer_t<decltype(fn)>>(p);
    };
    find("cuMemGetAllocationGranularity", &granularity);
    find("cuMemCreate", &create);
    find("cuMemAddressReserve", &reserve);
    find("cuMemMap", &map);
    find("cuMemSetAccess", &set_access);
    find("cuMemUnmap", &unmap);
    find("cuMemRelease", &release);
    find("cuMemAddressFree", &free_address);
  }
};

// Device memory however it was allocated: cudaMalloc, the stream-ordered allocator's default pool
// and a pool of the caller's, virtual memory mapped by hand (cuMemCreate + cuMemMap), managed
// memory, and host memory registered with cudaHostRegister. Each as a one-block and a grid input,
// and the device kinds as the result and the workspace too.
TEST(test_arguments, memory_of_every_kind_the_device_reads) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  int device = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  constexpr std::uint64_t big = (1u << 20) + 3;
  const auto h = random_input<std::int32_t>(big, seed);
  const std::size_t bytes = big * sizeof(std::int32_t) + workspace_bytes + 256;
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

  struct Kind {
    const char* name;
    unsigned char* base;
    bool device_side;  // may hold the result and the workspace
  };
  std::vector<Kind> kinds;
  unsigned char* p = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&p, bytes));
  kinds.push_back({"cudaMalloc", p, true});
  GPUREDUCE_CHECK_CUDA(cudaMallocAsync(&p, bytes, s));
  kinds.push_back({"cudaMallocAsync, default pool", p, true});
  cudaMemPool_t pool;
  cudaMemPoolProps props{};
  props.allocType = cudaMemAllocationTypePinned;
  props.location = {cudaMemLocationTypeDevice, device};
  GPUREDUCE_CHECK_CUDA(cudaMemPoolCreate(&pool, &props));
  GPUREDUCE_CHECK_CUDA(cudaMallocFromPoolAsync(&p, bytes, pool, s));
  kinds.push_back({"cudaMallocFromPoolAsync, own pool", p, true});
  GPUREDUCE_CHECK_CUDA(cudaMallocManaged(&p, bytes));
  kinds.push_back({"cudaMallocManaged", p, true});

  const VmmCalls vmm;
  ASSERT_TRUE(vmm.granularity && vmm.create && vmm.reserve && vmm.map && vmm.set_access && vmm.unmap &&
              vmm.release && vmm.free_address);
  CUmemAllocationProp vprops{};
  vprops.type = CU_MEM_ALLOCATION_TYPE_PINNED;
  vprops.location = {CU_MEM_LOCATION_TYPE_DEVICE, device};
  std::size_t granule = 0;
  ASSERT_EQ(vmm.granularity(&granule, &vprops, CU_MEM_ALLOC_GRANULARITY_MINIMUM), CUDA_SUCCESS);
  const std::size_t vbytes = (bytes + granule - 1) / granule * granule;
  // Two handles side by side in one reservation, as PyTorch's expandable segments grow: the input
  // runs across both (and the allocation the library checks counts against is the reservation).
  ASSERT_GT(vbytes, granule);
  CUmemGenericAllocationHandle handles[2]{};
  CUdeviceptr va{};
  ASSERT_EQ(vmm.create(&handles[0], granule, &vprops, 0), CUDA_SUCCESS);
  ASSERT_EQ(vmm.create(&handles[1], vbytes - granule, &vprops, 0), CUDA_SUCCESS);
  ASSERT_EQ(vmm.reserve(&va, vbytes, 0, 0, 0), CUDA_SUCCESS);
  ASSERT_EQ(vmm.map(va, granule, 0, handles[0], 0), CUDA_SUCCESS);
  ASSERT_EQ(vmm.map(va + granule, vbytes - granule, 0, handles[1], 0), CUDA_SUCCESS);
  const CUmemAccessDesc access{{CU_MEM_LOCATION_TYPE_DEVICE, device}, CU_MEM_ACCESS_FLAGS_PROT_READWRITE};
  ASSERT_EQ(vmm.set_access(va, vbytes, &access, 1), CUDA_SUCCESS);
  kinds.push_back({"cuMemCreate + cuMemMap, two handles", reinterpret_cast<unsigned char*>(va), true});

  std::vector<unsigned char> registered(bytes);
  GPUREDUCE_CHECK_CUDA(cudaHostRegister(registered.data(), bytes, cudaHostRegisterDefault));
  int same_address = 0;
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&same_address, cudaDevAttrCanUseHostPointerForRegisteredMem, device));
  if (same_address) {
    kinds.push_back({"cudaHostRegister", registered.data(), false});
  } else {  // the device's address works, the host's is refused
    void* mapped = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaHostGetDevicePointer(&mapped, registered.data(), 0));
    kinds.push_back({"cudaHostRegister, the device's address", static_cast<unsigned char*>(mapped), false});
    Status st;
    run_to_host<std::int64_t>([&](std::int64_t* o) {
      st = try_reduce(reinterpret_cast<const std::int32_t*>(registered.data()), 1000, o, Sum{});
    });
    EXPECT_EQ(st.code, Errc::not_device_memory);
  }

  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
  for (const Kind& k : kinds) {
    SCOPED_TRACE(k.name);
    // The input from the start, then the workspace (zeroed), then 8 bytes of result.
    auto* in = reinterpret_cast<std::int32_t*>(k.base);
    unsigned char* ws = k.base + (big * sizeof(std::int32_t) + 255) / 256 * 256;
    auto* out = reinterpret_cast<std::int64_t*>(ws + workspace_bytes);
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(in, h.data(), big * sizeof(std::int32_t), cudaMemcpyDefault));
    GPUREDUCE_CHECK_CUDA(cudaMemset(ws, 0, workspace_bytes));
    GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());  // s does not wait for the null stream
    Options own;
    own.workspace = ws;
    own.workspace_size = workspace_bytes;
    for (const std::uint64_t n : {std::uint64_t(1000), big}) {
      const std::uint64_t want = reference::int_sum(h.data(), n);
      EXPECT_EQ(std::uint64_t(run_to_host<std::int64_t>([&](std::int64_t* o) { sum(in, n, o); })), want)
          << "input, n = " << n;
      // From within the allocation (the runtime gives the device's address of an interior pointer)
      EXPECT_EQ(std::uint64_t(run_to_host<std::int64_t>([&](std::int64_t* o) { sum(in + 7, n - 7, o); })),
                reference::int_sum(h.data() + 7, n - 7))
          << "input from element 7, n = " << n;
      if (!k.device_side) continue;
      for (const bool own_workspace : {false, true}) {
        GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, sizeof(std::int64_t), s));
        const Status st = try_reduce(in, n, out, Sum{}, s, own_workspace ? own : Options{});
        ASSERT_TRUE(st) << st.message;
        std::int64_t got = 0;
        GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDefault, s));
        GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
        EXPECT_EQ(std::uint64_t(got), want) << "input and result" << (own_workspace ? " and workspace" : "")
                                            << ", n = " << n;
      }
    }
  }
  GPUREDUCE_CHECK_CUDA(cudaHostUnregister(registered.data()));
  vmm.unmap(va, granule);
  vmm.unmap(va + granule, vbytes - granule);
  vmm.release(handles[0]);
  vmm.release(handles[1]);
  vmm.free_address(va, vbytes);
  cudaFree(kinds[0].base);
  cudaFreeAsync(kinds[1].base, s);
  cudaFreeAsync(kinds[2].base, s);
  cudaFree(kinds[3].base);
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
  cudaMemPoolDestroy(pool);
  release_workspace(s);
  cudaStreamDestroy(s);
}

// Host memory: pinned and mapped, it is read and written by the kernel (a one-block and a grid
// input, the result straight into pinned memory); pageable, only by a device with pageable memory
// access (HMM, ATS), and refused with a message saying so elsewhere; never as a workspace.
TEST(test_arguments, host_memory_pinned_pageable_and_as_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  int device = 0, pageable = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&pageable, cudaDevAttrPageableMemoryAccess, device));
  constexpr std::uint64_t big = (1u << 20) + 3;
  const auto h = random_input<std::int32_t>(big, seed);
  std::int32_t* pinned = nullptr;
  std::int64_t* pinned_out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMallocHost(&pinned, big * sizeof(std::int32_t)));
  GPUREDUCE_CHECK_CUDA(cudaMallocHost(&pinned_out, sizeof(std::int64_t)));
  std::copy(h.begin(), h.end(), pinned);
  for (const std::uint64_t n : {std::uint64_t(1000), big}) {
    *pinned_out = std::int64_t(0x5A5A5A5A5A5A5A5A);
    sum(pinned, n, pinned_out);
    GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(std::uint64_t(*pinned_out), reference::int_sum(h.data(), n)) << "pinned, n = " << n;
  }
  std::vector<std::int32_t> pageable_in(h.begin(), h.begin() + 5000);
  std::int64_t* dev_out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&dev_out, sizeof(std::int64_t)));
  const Status s = try_reduce(pageable_in.data(), pageable_in.size(), dev_out, Sum{});
  if (pageable) {
    ASSERT_TRUE(s) << s.message;
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, dev_out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got), reference::int_sum(pageable_in.data(), pageable_in.size()));
  } else {
    EXPECT_EQ(s.code, Errc::not_device_memory);
    EXPECT_NE(std::string(s.message).find("input is host memory"), std::string::npos) << s.message;
  }
  // The workspace at the start of the pinned array and the input after it (never over it).
  Options host_workspace;
  host_workspace.workspace = pinned;
  host_workspace.workspace_size = workspace_bytes;
  constexpr std::uint64_t skip = workspace_bytes / sizeof(std::int32_t);
  const Status w = try_reduce(pinned + skip, big - skip, dev_out, Sum{}, nullptr, host_workspace);
  EXPECT_EQ(w.code, Errc::not_device_memory);
  EXPECT_NE(std::string(w.message).find("workspace is host memory"), std::string::npos) << w.message;
  GPUREDUCE_CHECK_CUDA(cudaGetLastError());
  cudaFree(dev_out);
  cudaFreeHost(pinned_out);
  cudaFreeHost(pinned);
}

// An earlier failure of the caller's, still pending as the last error, is neither reported as the
// reduction's nor cleared: the reduction reports its own launch (one block, the grid, exact).
TEST(test_arguments, a_callers_pending_error_stays_the_callers) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const auto h = random_input<float>(300001, seed);
  DeviceInput<float> d(h, 0);
  for (const std::uint64_t n : {std::uint64_t(1000), std::uint64_t(h.size())}) {
    for (const bool exact : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (exact ? ", exact" : ""));
      ASSERT_EQ(cudaSetDevice(1 << 20), cudaErrorInvalidDevice);  // sets the last error, not sticky
      const double got = run_to_host<double>([&](double* o) {
        const Status s = exact ? try_exact_sum(d.get(), n, o) : try_reduce<double>(d.get(), n, o, Sum{});
        EXPECT_TRUE(s) << s.message;
        EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
      });
      expect_float_sum(got, reference::float_sum(h.data(), n, false), n, "sum");
    }
  }
}

}  // namespace
}  // namespace gpureduce::test
