// More than one GPU: each device reduces with its own workspace from its own host threads, a
// reduction runs on its stream's device, and memory that device cannot reach is an error, not a
// fault. Skipped with fewer than two.
#include "reduce_checks.cuh"

#include <thread>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

int device_count() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) cudaGetLastError();
  return count;
}

#define GPUREDUCE_REQUIRE_TWO_GPUS()                                                         \
  do {                                                                                       \
    GPUREDUCE_REQUIRE_GPU();                                                                 \
    if (device_count() < 2) GTEST_SKIP() << "needs two CUDA devices, found " << device_count(); \
  } while (0)

// On every device, 2 host threads with a stream each, 20 rounds of a one-block and a grid sum.
// A workspace shared between devices would fault or mix partials.
TEST(test_multi_device, each_device_reduces_from_its_own_threads) {
  GPUREDUCE_REQUIRE_TWO_GPUS();
  const std::uint64_t seed = test_seed();
  const int devices = device_count(), threads = 2 * devices;
  constexpr int rounds = 20;
  constexpr std::uint64_t sizes[2] = {1000, (1u << 20) + 7};
  std::vector<std::vector<std::int32_t>> inputs;
  for (int t = 0; t < threads; ++t) inputs.push_back(random_input<std::int32_t>(sizes[1], seed + t));
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      const std::vector<std::int32_t>& h = inputs[t];
      if (cudaSetDevice(t % devices) != cudaSuccess) return void(++failures[t]);
      cudaStream_t s{};
      std::int32_t* d = nullptr;
      std::int64_t* out = nullptr;
      cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
      cudaMalloc(&d, h.size() * sizeof(std::int32_t));
      cudaMalloc(&out, 2 * rounds * sizeof(std::int64_t));
      // Input and poison on the stream, ordered before the sums.
      cudaMemcpyAsync(d, h.data(), h.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice, s);
      cudaMemsetAsync(out, 0xA5, 2 * rounds * sizeof(std::int64_t), s);
      for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < 2; ++k)
          if (!try_reduce(d, sizes[k], out + 2 * r + k, Sum{}, s)) ++failures[t];
      std::vector<std::int64_t> got(2 * rounds);
      if (cudaStreamSynchronize(s) != cudaSuccess ||
          cudaMemcpy(got.data(), out, got.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost) != cudaSuccess)
        ++failures[t];
      for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < 2; ++k)
          if (std::uint64_t(got[2 * r + k]) != reference::int_sum(h.data(), sizes[k])) ++failures[t];
      release_workspace(s);
      cudaStreamDestroy(s);
      cudaFree(d);
      cudaFree(out);
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "host thread " << t << " on device " << t % devices;
  for (int dev = 0; dev < devices; ++dev) {
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(dev));
    EXPECT_GT(current_pool().counts().slots, 0u) << dev;
  }
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
}

// Device 0 current, memory on device 1 without peer access: each argument is refused by name and
// device 0 still works; with peer access the same reduction reads device 1's memory and writes
// its result there. A reduction runs on its stream's device, as a kernel does: on a stream of
// device 1, device 1's memory is reduced there and device 0's refused; the caller's device stays
// current.
TEST(test_multi_device, the_streams_device_reduces_and_refuses_memory_out_of_reach) {
  GPUREDUCE_REQUIRE_TWO_GPUS();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n : {std::uint64_t(1000), std::uint64_t(1u << 20) + 7}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h = random_input<std::int32_t>(n, seed + n);
    const std::uint64_t want = reference::int_sum(h.data(), n);
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(1));
    DeviceInput<std::int32_t> in1(h, 1);
    std::int64_t* out1 = nullptr;
    void* ws1 = nullptr;
    cudaStream_t stream1{};
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&out1, sizeof(std::int64_t)));
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&ws1, workspace_bytes));
    GPUREDUCE_CHECK_CUDA(cudaMemset(ws1, 0, workspace_bytes));
    GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());  // stream1 does not wait for the null stream
    GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream1, cudaStreamNonBlocking));
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
    DeviceInput<std::int32_t> in0(h, 3);
    const auto expect_refused = [](const Status& s, const char* argument) {
      EXPECT_EQ(s.code, Errc::not_device_memory) << argument << ": " << s.message;
      EXPECT_EQ(std::string(s.message).rfind(std::string(argument) + " is on another device", 0), 0u) << s.message;
    };
    const auto sum0 = [&](const std::int32_t* in) {
      return run_to_host<std::int64_t>([&](std::int64_t* o) { sum(in, n, o); });
    };
    std::int64_t* out0 = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&out0, sizeof(std::int64_t)));
    expect_refused(try_reduce(in1.get(), n, out0, Sum{}), "input");
    expect_refused(try_dot(in0.get(), in1.get(), n, out0), "input");
    expect_refused(try_reduce(in0.get(), n, out1, Sum{}), "result pointer");
    Options on_device1;
    on_device1.workspace = ws1;
    on_device1.workspace_size = workspace_bytes;
    expect_refused(try_reduce(in0.get(), n, out0, Sum{}, nullptr, on_device1), "workspace");
    EXPECT_EQ(std::uint64_t(sum0(in0.get())), want);

    const auto expect_device0_current = [] {
      int current = -1;
      EXPECT_EQ(cudaGetDevice(&current), cudaSuccess);
      EXPECT_EQ(current, 0);
    };
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out1, 0xA5, sizeof(std::int64_t), stream1));  // poison
    EXPECT_TRUE(try_reduce(in1.get(), n, out1, Sum{}, stream1));
    expect_device0_current();
    std::int64_t got1 = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(&got1, out1, sizeof got1, cudaMemcpyDeviceToHost, stream1));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(stream1));
    EXPECT_EQ(std::uint64_t(got1), want) << "on device 1's stream";
    EXPECT_EQ(std::uint64_t(sum_sync(in1.get(), n, stream1)), want) << "sum_sync on device 1's stream";
    expect_refused(try_reduce(in0.get(), n, out1, Sum{}, stream1), "input");
    expect_device0_current();
    EXPECT_EQ(std::uint64_t(sum0(in0.get())), want);

    int can = 0;
    GPUREDUCE_CHECK_CUDA(cudaDeviceCanAccessPeer(&can, 0, 1));
    if (can) {
      GPUREDUCE_CHECK_CUDA(cudaDeviceEnablePeerAccess(1, 0));
      EXPECT_EQ(std::uint64_t(sum0(in1.get())), want) << "with peer access";
      // Into device 1's memory from device 0: a grid's atomic end goes over the link.
      const std::int64_t poison = 0x5A5A5A5A5A5A5A5A;
      GPUREDUCE_CHECK_CUDA(cudaMemcpy(out1, &poison, sizeof poison, cudaMemcpyDefault));
      sum(in0.get(), n, out1);
      std::int64_t into1 = 0;
      GPUREDUCE_CHECK_CUDA(cudaMemcpy(&into1, out1, sizeof into1, cudaMemcpyDefault));  // after the sum
      EXPECT_EQ(std::uint64_t(into1), want) << "into device 1's memory with peer access";
      GPUREDUCE_CHECK_CUDA(cudaDeviceDisablePeerAccess(1));
    }
    cudaFree(out0);
    release_workspace(stream1);
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(1));
    cudaStreamDestroy(stream1);
    cudaFree(ws1);
    cudaFree(out1);
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  }
}

// A capture on device 1's stream with device 1 current (the library cannot ask a capturing stream
// for its device), replayed with device 0 current: device 1 reduces, with device 1's workspace.
TEST(test_multi_device, a_graph_captured_on_the_second_device_replays) {
  GPUREDUCE_REQUIRE_TWO_GPUS();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = (1u << 22) + 5;  // the grid kernel: a workspace slot
  const auto h = random_input<std::int32_t>(n, seed);
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(1));
  cudaStream_t s{};
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DeviceInput<std::int32_t> d(h, 2);
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, sizeof(std::int64_t)));
  cudaGraph_t graph{};
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  const Status captured = try_reduce(d.get(), n, out, Sum{}, s);
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  ASSERT_TRUE(captured) << captured.message;
  cudaGraphExec_t exec{};
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  for (int replay = 0; replay < 3; ++replay) {
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, sizeof(std::int64_t), s));  // poison
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, s));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    EXPECT_EQ(std::uint64_t(got), reference::int_sum(h.data(), n)) << "replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(1));
  cudaFree(out);
  cudaStreamDestroy(s);
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
}

}  // namespace
}  // namespace gpureduce::test
