// CUDA graphs: a reduction captured and replayed on new data, a _sync call refused during a
// capture, graphs that hold workspace slots of their own (replayed at once, updated, destroyed).
#include "reduce_checks.cuh"

#include <chrono>
#include <thread>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

// Workspace slots held (by streams and graphs) in the current device's pool.
std::size_t held_slots() {
  const auto c = current_pool().counts();
  return c.slots - c.free;
}

// CUDA runs a destroyed graph's destructors on its own thread, shortly after: waits up to 2 s for
// the held slots to reach `want`, and returns them.
std::size_t wait_for_held_slots(std::size_t want) {
  for (int wait = 0; wait < 2000 && held_slots() != want; ++wait)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return held_slots();
}

TEST(test_graphs, graph_capture_replays_on_new_data) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = (1u << 22) + 5;  // the grid kernel, so the workspace protocol is exercised
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  auto h = random_input<std::int32_t>(n, seed);
  DeviceInput<std::int32_t> d(h, 0);
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, sizeof(std::int64_t)));
  cudaGraph_t graph;
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  sum(d.get(), n, out, s);
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    h = random_input<std::int32_t>(n, seed + replay + 1);
    // On the graph's stream: a copy or memset on the legacy stream would not be ordered before the
    // replay (a copy from pageable memory may even return before its DMA lands).
    GPUREDUCE_CHECK_CUDA(
        cudaMemcpyAsync(const_cast<std::int32_t*>(d.get()), h.data(), n * 4, cudaMemcpyHostToDevice, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, sizeof(std::int64_t), s));
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out, sizeof(got), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got), reference::int_sum(h.data(), n)) << "replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(out);
  cudaStreamDestroy(s);
}

// A _sync call on a stream being captured is refused before anything joins the capture, which
// stays valid (and empty).
TEST(test_graphs, sync_call_during_capture_is_refused_and_the_capture_survives) {
  GPUREDUCE_REQUIRE_GPU();
  DeviceInput<std::int32_t> d(random_input<std::int32_t>(1000, test_seed()), 0);
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  try {
    sum_sync(d.get(), 1000, s);
    ADD_FAILURE() << "no exception";
  } catch (const error& e) {
    EXPECT_EQ(e.code(), Errc::invalid_argument);
    EXPECT_NE(std::string(e.what()).find("captured"), std::string::npos) << e.what();
  }
  cudaGraph_t graph = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  std::size_t nodes = 1;
  GPUREDUCE_CHECK_CUDA(cudaGraphGetNodes(graph, nullptr, &nodes));
  EXPECT_EQ(nodes, 0u);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

// Graphs captured one after another on one stream hold slots of their own, so they may be replayed
// concurrently (on two streams here); destroying them gives the slots back to the pool.
TEST(test_graphs, graphs_of_two_captures_replay_concurrently_and_give_slots_back) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = (1u << 20) + 7;  // the grid kernel
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t capture, run[2];
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  for (auto& r : run) GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&r, cudaStreamNonBlocking));
  const std::size_t before = held_slots();
  std::vector<std::int32_t> h[2] = {random_input<std::int32_t>(n, seed), random_input<std::int32_t>(n, seed + 1)};
  DeviceInput<std::int32_t> d0(h[0], 0), d1(h[1], 4);
  const std::int32_t* d[2] = {d0.get(), d1.get()};
  constexpr int rounds = 20;
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, 2 * rounds * sizeof(std::int64_t)));
  GPUREDUCE_CHECK_CUDA(cudaMemset(out, 0xA5, 2 * rounds * sizeof(std::int64_t)));
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());  // the streams below do not wait for the null stream
  cudaGraph_t graph[2][rounds];
  cudaGraphExec_t exec[2][rounds];
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r) {
      GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));
      sum(d[g], n, out + g * rounds + r, capture);
      GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(capture, &graph[g][r]));
      GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec[g][r], graph[g][r], 0));
    }
  EXPECT_EQ(held_slots(), before + 2 * rounds);
  for (int r = 0; r < rounds; ++r)
    for (int g = 0; g < 2; ++g) GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec[g][r], run[g]));
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::int64_t> got(2 * rounds);
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(got.data(), out, got.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r)
      EXPECT_EQ(std::uint64_t(got[g * rounds + r]), reference::int_sum(h[g].data(), n))
          << "graph " << g << " round " << r;
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r) {
      cudaGraphExecDestroy(exec[g][r]);
      cudaGraphDestroy(graph[g][r]);
    }
  EXPECT_EQ(wait_for_held_slots(before), before);
  cudaFree(out);
  cudaStreamDestroy(capture);
  for (auto& r : run) cudaStreamDestroy(r);
}

// cudaGraphExecUpdate gives the executable graph the new source graph's user objects (and drops
// the old one's once its launches finish), so the executable keeps the second capture's slot after
// both graphs are destroyed, and only the first capture's slot comes back to the pool.
TEST(test_graphs, graph_exec_update_keeps_the_new_captures_slot) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = (1u << 20) + 7;  // the grid kernel
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t before = held_slots();
  std::vector<std::int32_t> h[2] = {random_input<std::int32_t>(n, seed), random_input<std::int32_t>(n, seed + 1)};
  DeviceInput<std::int32_t> d0(h[0], 0), d1(h[1], 1);
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, sizeof(std::int64_t)));
  cudaGraph_t graph[2];
  for (int g = 0; g < 2; ++g) {
    GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    sum(g == 0 ? d0.get() : d1.get(), n, out, s);
    GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph[g]));
  }
  cudaGraphExec_t exec;
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph[0], 0));
  cudaGraphExecUpdateResultInfo info{};
  GPUREDUCE_CHECK_CUDA(cudaGraphExecUpdate(exec, graph[1], &info));
  ASSERT_EQ(info.result, cudaGraphExecUpdateSuccess);
  for (cudaGraph_t g : graph) cudaGraphDestroy(g);
  EXPECT_EQ(wait_for_held_slots(before + 1), before + 1) << "the executable graph holds the second capture's slot";
  // Other streams take the free slots (the first capture's among them) while the graph replays.
  std::vector<cudaStream_t> streams(8);
  for (auto& o : streams) GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&o, cudaStreamNonBlocking));
  GridSums others(seed + 2, streams.size());
  for (int replay = 0; replay < 3; ++replay) {
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, sizeof(std::int64_t), s));
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    for (std::size_t i = 0; i < streams.size(); ++i) others.run(streams[i], i);
    GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got), reference::int_sum(h[1].data(), n)) << "replay " << replay;
    for (std::size_t i = 0; i < streams.size(); ++i) others.check(i);
  }
  for (auto& o : streams) {
    release_workspace(o);
    cudaStreamDestroy(o);
  }
  cudaGraphExecDestroy(exec);
  EXPECT_EQ(wait_for_held_slots(before), before);
  cudaFree(out);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace gpureduce::test
