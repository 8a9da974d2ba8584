// The production API beyond per-type correctness: graphs, concurrency, determinism, counts beyond
// 2^31, error reporting, the _sync calls, user functors, transforms and caller workspaces.
#include "reduce_checks.cuh"

#include <cuda.h>  // driver types only (VmmCalls)
#include <cuda/functional>

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <tuple>

namespace gpureduce::test {
namespace {

struct AbsMax {
  __host__ __device__ int operator()(int a, int b) const { return a > b ? a : b; }
};
struct Square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};

TEST(test_reduce_api, graph_capture_replays_on_new_data) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(const_cast<std::int32_t*>(d.get()), h.data(), n * 4, cudaMemcpyHostToDevice));
    // On the graph's stream: a legacy-stream memset would not be ordered before the replay.
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
TEST(test_reduce_api, sync_call_during_capture_is_refused_and_the_capture_survives) {
  GPUREDUCE_REQUIRE_GPU();
  DeviceInput<std::int32_t> d(random_input<std::int32_t>(1000, 2), 0);
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
TEST(test_reduce_api, graphs_of_two_captures_replay_concurrently_and_give_slots_back) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  const std::uint64_t n = (1u << 20) + 7;  // the grid kernel
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  cudaStream_t capture, run[2];
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking));
  for (auto& r : run) GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&r, cudaStreamNonBlocking));
  const auto before = pool.counts();
  std::vector<std::int32_t> h[2] = {random_input<std::int32_t>(n, seed), random_input<std::int32_t>(n, seed + 1)};
  DeviceInput<std::int32_t> d0(h[0], 0), d1(h[1], 4);
  const std::int32_t* d[2] = {d0.get(), d1.get()};
  constexpr int rounds = 20;
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, 2 * rounds * sizeof(std::int64_t)));
  GPUREDUCE_CHECK_CUDA(cudaMemset(out, 0xA5, 2 * rounds * sizeof(std::int64_t)));
  cudaGraph_t graph[2][rounds];
  cudaGraphExec_t exec[2][rounds];
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r) {
      GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal));
      sum(d[g], n, out + g * rounds + r, capture);
      GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(capture, &graph[g][r]));
      GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec[g][r], graph[g][r], 0));
    }
  const auto captured = pool.counts();
  EXPECT_EQ(captured.slots - captured.free, before.slots - before.free + 2 * rounds);
  for (int r = 0; r < rounds; ++r)
    for (int g = 0; g < 2; ++g) GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec[g][r], run[g]));
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<std::int64_t> got(2 * rounds);
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(got.data(), out, got.size() * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r)
      EXPECT_EQ(std::uint64_t(got[g * rounds + r]), reference::int_sum(h[g].data(), n)) << "graph " << g << " round " << r;
  for (int g = 0; g < 2; ++g)
    for (int r = 0; r < rounds; ++r) {
      cudaGraphExecDestroy(exec[g][r]);
      cudaGraphDestroy(graph[g][r]);
    }
  // CUDA runs the graphs' destructors on its own thread, shortly after.
  auto after = pool.counts();
  for (int wait = 0; wait < 2000 && after.slots - after.free != before.slots - before.free; ++wait) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
    after = pool.counts();
  }
  EXPECT_EQ(after.slots - after.free, before.slots - before.free);
  cudaFree(out);
  cudaStreamDestroy(capture);
  for (auto& r : run) cudaStreamDestroy(r);
}

// Sums of an int32 input large enough for the grid kernel, so each takes a workspace slot of its
// stream, into `outs` poisoned results, checked against the host.
class GridSums {
 public:
  static constexpr std::uint64_t n = (1u << 18) + 3;
  GridSums(std::uint64_t seed, std::size_t outs)
      : h_(random_input<std::int32_t>(n, seed)), d_(h_, 0), want_(reference::int_sum(h_.data(), n)) {
    EXPECT_EQ(cudaMalloc(&out_, outs * sizeof(std::int64_t)), cudaSuccess);
  }
  ~GridSums() { cudaFree(out_); }
  GridSums(const GridSums&) = delete;
  GridSums& operator=(const GridSums&) = delete;
  void run(cudaStream_t s, std::size_t i) {
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out_ + i, 0xA5, sizeof(std::int64_t), s));
    sum(d_.get(), n, out_ + i, s);
  }
  void check(std::size_t i) const {
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(&got, out_ + i, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got), want_) << "result " << i;
  }

 private:
  std::vector<std::int32_t> h_;
  DeviceInput<std::int32_t> d_;
  std::uint64_t want_;
  std::int64_t* out_ = nullptr;
};

// cudaGraphExecUpdate gives the executable graph the new source graph's user objects (and drops
// the old one's once its launches finish), so the executable keeps the second capture's slot after
// both graphs are destroyed, and only the first capture's slot comes back to the pool.
TEST(test_reduce_api, graph_exec_update_keeps_the_new_captures_slot) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  const std::uint64_t n = (1u << 20) + 7;  // the grid kernel
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  const auto held = [&] {
    const auto c = pool.counts();
    return c.slots - c.free;
  };
  // CUDA runs the graphs' destructors on its own thread, shortly after.
  const auto wait_for_held = [&](std::size_t want) {
    for (int wait = 0; wait < 2000 && held() != want; ++wait) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return held();
  };
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const std::size_t before = held();
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
  EXPECT_EQ(wait_for_held(before + 1), before + 1) << "the executable graph holds the second capture's slot";
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
  EXPECT_EQ(wait_for_held(before), before);
  cudaFree(out);
  cudaStreamDestroy(s);
}

// A program that creates and destroys streams keeps the pool at its peak of live streams when it
// releases each stream's slot.
TEST(test_reduce_api, released_stream_slots_are_reused) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  GridSums sums(seed, 1);
  const auto before = pool.counts();
  for (int i = 0; i < 100; ++i) {
    cudaStream_t s;
    GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    sums.run(s, 0);
    release_workspace(s);  // waits for the stream
    sums.check(0);
    GPUREDUCE_CHECK_CUDA(cudaStreamDestroy(s));
  }
  const auto after = pool.counts();
  EXPECT_LE(after.slots, before.slots + detail::slots_per_chunk);
  EXPECT_EQ(after.slots - after.free, before.slots - before.free);
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  EXPECT_TRUE(try_release_workspace(s));  // a stream that never reduced holds nothing
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  EXPECT_EQ(try_release_workspace(s).code, Errc::invalid_argument);
  cudaGraph_t g;
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &g));
  cudaGraphDestroy(g);
  cudaStreamDestroy(s);
}

// Each host thread's per-thread default stream has an ID of its own, hence a slot of its own:
// threads reducing on cudaStreamPerThread at once never share one. A thread's exit ends its stream,
// and its slot comes back once the stream's work has finished, without the thread waiting for it:
// short-lived threads do not pile slots up.
TEST(test_reduce_api, per_thread_default_streams_hold_their_own_slots_until_the_thread_exits) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  constexpr int threads = 4, rounds = 20, short_lived = 40;
  GridSums sums(seed, threads * rounds + short_lived);
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
  const auto before = pool.counts();
  std::vector<unsigned long long> ids(threads);
  std::vector<std::thread> at_once;
  for (int t = 0; t < threads; ++t)
    at_once.emplace_back([&, t] {
      GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
      GPUREDUCE_CHECK_CUDA(cudaStreamGetId(cudaStreamPerThread, &ids[t]));
      for (int r = 0; r < rounds; ++r) sums.run(cudaStreamPerThread, t * rounds + r);
    });
  for (auto& th : at_once) th.join();
  for (int i = 0; i < short_lived; ++i)
    std::thread([&, i] {
      GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
      sums.run(cudaStreamPerThread, threads * rounds + i);
    }).join();
  GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());  // the ended streams' work and host functions
  for (int i = 0; i < threads * rounds + short_lived; ++i) sums.check(i);
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end()) << "two threads' streams share an ID";
  const auto after = pool.counts();
  EXPECT_LE(after.slots, before.slots + detail::slots_per_chunk);
  EXPECT_EQ(after.slots - after.free, before.slots - before.free);
}

// trim_workspace frees the chunks whose slots are all released, keeps the ones a stream holds, and
// the pool allocates again when a stream next needs a slot.
TEST(test_reduce_api, trim_workspace_frees_unheld_chunks) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  std::vector<cudaStream_t> streams(2 * detail::slots_per_chunk);  // at least one chunk of their own
  GridSums sums(seed, streams.size());
  const auto before = pool.counts();
  for (std::size_t i = 0; i < streams.size(); ++i) {
    GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
    sums.run(streams[i], i);
  }
  const auto peak = pool.counts();
  EXPECT_TRUE(try_trim_workspace());  // every new slot is held: nothing to free
  EXPECT_EQ(pool.counts().slots, peak.slots);
  for (cudaStream_t s : streams) release_workspace(s);
  trim_workspace();
  const auto trimmed = pool.counts();
  EXPECT_LE(trimmed.slots + detail::slots_per_chunk, peak.slots);
  EXPECT_EQ(trimmed.slots - trimmed.free, before.slots - before.free);  // held slots are kept
  for (std::size_t i = 0; i < streams.size(); ++i) sums.check(i);
  for (std::size_t i = 0; i < streams.size(); ++i) sums.run(streams[i], i);  // and allocated again
  for (cudaStream_t s : streams) release_workspace(s);
  for (std::size_t i = 0; i < streams.size(); ++i) sums.check(i);
  for (cudaStream_t s : streams) cudaStreamDestroy(s);
}

// 4 host threads, 2 streams each, reducing different inputs at once with the library workspace.
TEST(test_reduce_api, eight_streams_from_four_threads) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  constexpr int threads = 4, streams_per_thread = 2, rounds = 20;
  const std::uint64_t n = (1u << 21) + 3;
  std::vector<std::vector<float>> inputs;
  for (int i = 0; i < threads * streams_per_thread; ++i) inputs.push_back(random_input<float>(n, seed + i));
  std::vector<int> failures(threads, 0);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaStream_t s[streams_per_thread];
      float* d[streams_per_thread];
      float* out = nullptr;
      cudaMalloc(&out, rounds * streams_per_thread * sizeof(float));
      for (int k = 0; k < streams_per_thread; ++k) {
        cudaStreamCreateWithFlags(&s[k], cudaStreamNonBlocking);
        cudaMalloc(&d[k], n * sizeof(float));
        cudaMemcpy(d[k], inputs[t * streams_per_thread + k].data(), n * sizeof(float), cudaMemcpyHostToDevice);
      }
      for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < streams_per_thread; ++k) sum(d[k], n, out + r * streams_per_thread + k, s[k]);
      cudaDeviceSynchronize();
      std::vector<float> got(rounds * streams_per_thread);
      cudaMemcpy(got.data(), out, got.size() * sizeof(float), cudaMemcpyDeviceToHost);
      for (int k = 0; k < streams_per_thread; ++k) {
        const auto& h = inputs[t * streams_per_thread + k];
        const auto ref = reference::float_sum(h.data(), n, false);
        for (int r = 0; r < rounds; ++r) {
          const float g = got[r * streams_per_thread + k];
          if (!check_float_sum(g, ref.sum, ref.abs_sum, n, summation_depth_bound(n, 256)).ok) ++failures[t];
          if (std::memcmp(&g, &got[k], sizeof(float)) != 0) ++failures[t];  // same bits every round
        }
        cudaStreamDestroy(s[k]);
        cudaFree(d[k]);
      }
      cudaFree(out);
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], 0) << "host thread " << t;
}

// Threads that share a stream share its slot, whose result area a _sync call fills and then copies
// back: 8 threads with inputs of their own (no two sums equal) call sum_sync at once on the null
// stream and on one stream they share, at a one-block and a grid size, each getting its own sum.
TEST(test_reduce_api, sync_calls_from_threads_sharing_a_stream) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  constexpr int threads = 8, calls = 50;
  cudaStream_t shared;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&shared, cudaStreamNonBlocking));
  for (const std::uint64_t n : {1000ull, (1ull << 20) + 3}) {
    std::vector<std::unique_ptr<DeviceInput<std::int32_t>>> d;
    std::vector<std::int64_t> want;
    for (int t = 0; t < threads; ++t) {
      auto h = random_input<std::int32_t>(n, seed + n + t);
      h[0] = std::int32_t(t);  // the sums differ
      want.push_back(std::int64_t(reference::int_sum(h.data(), n)));
      d.push_back(std::make_unique<DeviceInput<std::int32_t>>(h, 0));
    }
    for (const cudaStream_t stream : {cudaStream_t(nullptr), shared}) {
      SCOPED_TRACE(std::string("n=") + std::to_string(n) + (stream ? ", a shared stream" : ", the null stream"));
      std::vector<int> wrong(threads, 0);
      std::vector<std::thread> pool;
      for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
          for (int k = 0; k < calls; ++k) wrong[t] += sum_sync(d[t]->get(), n, stream) != want[t];
        });
      for (auto& th : pool) th.join();
      for (int t = 0; t < threads; ++t) EXPECT_EQ(wrong[t], 0) << "host thread " << t;
    }
  }
  cudaStreamDestroy(shared);
}

TEST(test_reduce_api, bit_identical_over_ten_runs) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : {1000ull, 1ull << 16, (1ull << 24) + 1}) {
    const auto h = random_input<float>(n, seed + n);
    DeviceInput<float> d(h, 3);
    const float first = run_to_host<float>([&](float* o) { sum(d.get(), n, o); });
    for (int run = 1; run < 10; ++run) {
      const float again = run_to_host<float>([&](float* o) { sum(d.get(), n, o); });
      EXPECT_EQ(std::memcmp(&first, &again, sizeof(float)), 0) << "n=" << n << " run " << run;
    }
  }
}

// The L2 policy changes how lines are cached, never the result: the same bits from both grid loads,
// across the automatic limit (2^26 + 5 float32: 256 MB, above 4x an H100's L2) and below it.
TEST(test_reduce_api, l2_policies_give_the_same_bits) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : {(1ull << 22) + 3, (1ull << 26) + 5}) {
    const auto h = random_input<float>(n, seed + n);
    DeviceInput<float> d(h, 4);
    const auto with = [&](L2Policy l2) {
      Options opt;
      opt.l2 = l2;
      return run_to_host<float>([&](float* o) { sum(d.get(), n, o, nullptr, opt); });
    };
    const float automatic = with(L2Policy::automatic), normal = with(L2Policy::normal),
                evict_first = with(L2Policy::evict_first);
    EXPECT_EQ(std::memcmp(&automatic, &normal, sizeof(float)), 0) << "n=" << n;
    EXPECT_EQ(std::memcmp(&automatic, &evict_first, sizeof(float)), 0) << "n=" << n;
    const auto ints = random_input<std::int32_t>(n, seed + n + 1);
    DeviceInput<std::int32_t> di(ints, 0);
    for (const L2Policy l2 : {L2Policy::normal, L2Policy::evict_first}) {
      Options opt;
      opt.l2 = l2;
      const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(di.get(), n, o, nullptr, opt); });
      EXPECT_EQ(std::uint64_t(s), reference::int_sum(ints.data(), n)) << "n=" << n << " l2=" << int(l2);
    }
  }
}

// More than 2^31 int8 elements: the sum (int64) and the argmax index beyond 2^31.
TEST(test_reduce_api, more_than_two_pow_31_int8) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = (1ull << 31) + 4099;
  std::size_t free_bytes = 0, total = 0;
  GPUREDUCE_CHECK_CUDA(cudaMemGetInfo(&free_bytes, &total));
  if (free_bytes < n + (1u << 28)) GTEST_SKIP() << "needs " << n << " bytes of free device memory";
  std::vector<std::int8_t> h(n);
  std::uint64_t x = test_seed() | 1;
  for (auto& v : h) {  // xorshift: fast enough for 2^31 draws, values in [-100, 100]
    x ^= x << 13, x ^= x >> 7, x ^= x << 17;
    v = std::int8_t(int(x % 201) - 100);
  }
  const std::uint64_t at = n - 77;
  h[at] = 127;
  DeviceInput<std::int8_t> d(h, 0);
  const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(d.get(), n, o); });
  EXPECT_EQ(std::uint64_t(s), reference::int_sum(h.data(), n));
  const auto m = run_to_host<IndexedValue<std::int8_t>>([&](IndexedValue<std::int8_t>* o) { argmax(d.get(), n, o); });
  EXPECT_EQ(m.value, 127);
  EXPECT_EQ(m.index, std::int64_t(at));
}

TEST(test_reduce_api, errors_name_the_argument) {
  GPUREDUCE_REQUIRE_GPU();
  DeviceInput<float> d(random_input<float>(100, 1), 0);
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
  const auto h = random_input<float>(100, 1);
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
TEST(test_reduce_api, counts_past_the_end_of_the_allocation_are_refused) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
    Options exact;
    exact.exact = true;
    EXPECT_TRUE(past_the_end(try_reduce(f, n + 1, fo, Sum{}, s, exact)));
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
TEST(test_reduce_api, memory_of_every_kind_the_device_reads) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
TEST(test_reduce_api, host_memory_pinned_pageable_and_as_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
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
  Options host_workspace;
  host_workspace.workspace = pinned;
  host_workspace.workspace_size = workspace_bytes;
  const Status w = try_reduce(pinned, big, dev_out, Sum{}, nullptr, host_workspace);
  EXPECT_EQ(w.code, Errc::not_device_memory);
  EXPECT_NE(std::string(w.message).find("workspace is host memory"), std::string::npos) << w.message;
  GPUREDUCE_CHECK_CUDA(cudaGetLastError());
  cudaFree(dev_out);
  cudaFreeHost(pinned_out);
  cudaFreeHost(pinned);
}

// An earlier failure of the caller's, still pending as the last error, is neither reported as the
// reduction's nor cleared: the reduction reports its own launch (one block, the grid, exact).
TEST(test_reduce_api, a_callers_pending_error_stays_the_callers) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  const auto h = random_input<float>(300001, seed);
  DeviceInput<float> d(h, 0);
  for (const std::uint64_t n : {std::uint64_t(1000), std::uint64_t(h.size())}) {
    for (const bool exact : {false, true}) {
      SCOPED_TRACE("n = " + std::to_string(n) + (exact ? ", exact" : ""));
      ASSERT_EQ(cudaSetDevice(1 << 20), cudaErrorInvalidDevice);  // sets the last error, not sticky
      Options opt;
      opt.exact = exact;
      const double got = run_to_host<double>([&](double* o) {
        const Status s = try_reduce<double>(d.get(), n, o, Sum{}, nullptr, opt);
        EXPECT_TRUE(s) << s.message;
        EXPECT_EQ(cudaGetLastError(), cudaErrorInvalidDevice);
      });
      expect_float_sum(got, reference::float_sum(h.data(), n, false), n, "sum");
    }
  }
}

TEST(test_reduce_api, sync_calls_functors_transforms_and_caller_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  const std::uint64_t n = 300001;
  const auto hi = random_input<std::int32_t>(n, seed);
  DeviceInput<std::int32_t> di(hi, 1);
  EXPECT_EQ(std::uint64_t(sum_sync(di.get(), n)), reference::int_sum(hi.data(), n));
  const auto am = reduce_sync(di.get(), n, ArgMin{});
  EXPECT_EQ(am.index, reference::arg_extreme<true>(hi.data(), n, false).index);

  // A user functor (identity given), and the int32 accumulator chosen over the default int64.
  const int mx = run_to_host<int>([&](int* o) { reduce(di.get(), n, o, AbsMax{}, std::numeric_limits<int>::min()); });
  EXPECT_EQ(mx, *std::max_element(hi.begin(), hi.end()));
  // The same at a one-block size, where a functor's partials are staged in shared memory.
  const std::uint64_t small = 3001;
  const int mx_small =
      run_to_host<int>([&](int* o) { reduce(di.get(), small, o, AbsMax{}, std::numeric_limits<int>::min()); });
  EXPECT_EQ(mx_small, *std::max_element(hi.begin(), hi.begin() + small));
  const auto s32 = run_to_host<std::int32_t>([&](std::int32_t* o) { sum<std::int32_t>(di.get(), n, o); });
  EXPECT_EQ(s32, wrapped<std::int32_t>(std::int64_t(reference::int_sum(hi.data(), n))));

  // transform_reduce: sum of squares in double.
  const auto hf = random_input<float>(n, seed + 1);
  DeviceInput<float> df(hf, 2);
  reference::FloatSum sq;
  for (float x : hf) sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
  expect_float_sum(run_to_host<double>([&](double* o) { transform_reduce(df.get(), n, o, Square{}, Sum{}); }), sq, n,
                   "sum of squares");

  // half input, float accumulator, result rounded once to half.
  const auto hh = random_input<__half>(n, seed + 2);
  DeviceInput<__half> dh(hh, 5);
  const float fs = sum_sync(dh.get(), n);
  const __half hs = run_to_host<__half>([&](__half* o) { sum(dh.get(), n, o); });
  EXPECT_EQ(__half2float(hs), __half2float(__float2half_rn(fs)));

  // A caller-provided workspace, zero-filled once and reused.
  void* ws = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&ws, workspace_bytes));
  GPUREDUCE_CHECK_CUDA(cudaMemset(ws, 0, workspace_bytes));
  Options opt;
  opt.workspace = ws;
  opt.workspace_size = workspace_bytes;
  for (int k = 0; k < 3; ++k) {
    const auto s = run_to_host<std::int64_t>([&](std::int64_t* o) { sum(di.get(), n, o, nullptr, opt); });
    EXPECT_EQ(std::uint64_t(s), reference::int_sum(hi.data(), n));
  }
  cudaFree(ws);
}

// A functor with state and no default constructor: the sum modulo m (of values below 2^32, so the
// 64-bit sum of two never wraps).
struct SumModulo {
  std::uint64_t m;
  __host__ __device__ explicit SumModulo(std::uint64_t modulus) : m(modulus) {}
  __host__ __device__ std::uint64_t operator()(std::uint64_t a, std::uint64_t b) const { return (a + b) % m; }
};

}  // namespace

// Lambdas as operators and transforms, as Thrust and CUB take them (nvcc --extended-lambda). nvcc
// wants an extended lambda's enclosing function named, public and of external linkage: not a TEST
// body, which is a private member.
struct LambdaResults {
  int max_device = 0, max_host_device = 0;
  std::int64_t scaled_sum = 0;
  double squares = 0, squares_proclaimed = 0;
};

LambdaResults reduce_with_lambdas(const int* di, const float* df, std::uint64_t n, int k) {
  const auto max_device = [] __device__(int a, int b) { return a > b ? a : b; };
  const auto max_host_device = [] __host__ __device__(int a, int b) { return a > b ? a : b; };
  const auto scaled = [k] __device__(int x) -> std::int64_t { return std::int64_t(x) * k; };
  const auto square = [] __device__(float x) -> double { return double(x) * x; };
  const auto square_proclaimed = cuda::proclaim_return_type<double>([] __device__(float x) { return double(x) * x; });
  constexpr int lowest = std::numeric_limits<int>::min();
  LambdaResults r;
  r.max_device = run_to_host<int>([&](int* o) { reduce(di, n, o, max_device, lowest); });
  r.max_host_device = run_to_host<int>([&](int* o) { reduce(di, n, o, max_host_device, lowest); });
  r.scaled_sum = run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(di, n, o, scaled, Sum{}); });
  r.squares = run_to_host<double>([&](double* o) { transform_reduce(df, n, o, square, Sum{}); });
  r.squares_proclaimed = run_to_host<double>([&](double* o) { transform_reduce(df, n, o, square_proclaimed, Sum{}); });
  return r;
}

namespace {

// One block (3001) and a grid (300001): each kernel gets the lambda or functor.
TEST(test_reduce_api, device_lambdas_functors_with_state_and_the_null_stream) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : {3001ull, 300001ull}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto hi = random_input<std::int32_t>(n, seed + n);
    const auto hf = random_input<float>(n, seed + n + 1);
    const auto hu = random_input<std::uint32_t>(n, seed + n + 2);
    DeviceInput<std::int32_t> di(hi, 0);
    DeviceInput<float> df(hf, 0);
    DeviceInput<std::uint32_t> du(hu, 0);
    const int k = -7;
    const LambdaResults r = reduce_with_lambdas(di.get(), df.get(), n, k);
    const int want_max = *std::max_element(hi.begin(), hi.end());
    EXPECT_EQ(r.max_device, want_max);
    EXPECT_EQ(r.max_host_device, want_max);
    EXPECT_EQ(r.scaled_sum, std::int64_t(reference::int_sum(hi.data(), n)) * k);
    reference::FloatSum sq;
    for (float x : hf) sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
    expect_float_sum(r.squares, sq, n, "sum of squares, __device__ lambda");
    expect_float_sum(r.squares_proclaimed, sq, n, "sum of squares, cuda::proclaim_return_type");

    constexpr std::uint64_t m = 1000003;
    std::uint64_t want_mod = 0;
    for (std::uint32_t x : hu) want_mod += x;
    const auto got_mod = run_to_host<std::uint64_t>(
        [&](std::uint64_t* o) { reduce(du.get(), n, o, SumModulo(m), std::uint64_t(0)); });
    EXPECT_EQ(got_mod, want_mod % m);
    EXPECT_EQ(reduce_sync(du.get(), n, SumModulo(m), std::uint64_t(0)), want_mod % m);

    // A 0 after a built-in operator is the null stream, not an identity: the max of negative
    // numbers is negative.
    std::vector<std::int32_t> negative(hi.size());
    std::transform(hi.begin(), hi.end(), negative.begin(), [](std::int32_t x) { return -1 - std::abs(x % 1000); });
    DeviceInput<std::int32_t> dn(negative, 0);
    const int want_negative = *std::max_element(negative.begin(), negative.end());
    EXPECT_EQ(run_to_host<int>([&](int* o) { reduce(dn.get(), n, o, Max{}, 0); }), want_negative);
    EXPECT_EQ(reduce_sync(dn.get(), n, Max{}, 0), want_negative);
  }
}

// Small inputs through every kernel (both loads of the grid kernel; the combiner block with 3
// blocks, the last block's poll of chunks of slots with 300), for compute-sanitizer
// (tools/sanitize.sh runs *sanitizer_sizes*).
// For floating types also signed zeros with one NaN, under both NaN policies: argmin/argmax then
// win at a zero or a NaN and read the value again from the input (thread/tree_key.hpp).
template <class T>
void sanitizer_sizes_for() {
  // 28 KB + 1 element: the one-block kernel's batch ends within its last quarter (VectorGrid).
  for (const std::uint64_t n : {1ull, 33ull, 1025ull, 28ull * 1024 / sizeof(T) + 1, 65537ull}) {
    std::vector<std::vector<T>> inputs{random_input<T>(n, test_seed() + n)};
    if constexpr (is_floating_v<T>) {
      std::vector<T> zeros(n);
      for (std::uint64_t i = 0; i < n; ++i) zeros[i] = convert<T>(i % 3 ? 0.0f : -0.0f);
      zeros[n / 2] = convert<T>(quiet_nan<float>());
      inputs.push_back(zeros);
    }
    for (const auto& h : inputs) {
      const DeviceInput<T> d(h, 1);
      struct Path {
        Kernel kernel;
        L2Policy l2;
        std::uint64_t blocks;
      };
      const Path paths[] = {{Kernel::one_block, L2Policy::automatic, 0},
                            {Kernel::grid, L2Policy::normal, 3},
                            {Kernel::grid, L2Policy::evict_first, 3},
                            {Kernel::grid, L2Policy::evict_first, 300}};
      for (const auto [k, l2, blocks] : paths) {
        for (const NanPolicy nan : {NanPolicy::propagate, NanPolicy::ignore}) {
          if (!is_floating_v<T> && nan == NanPolicy::ignore) continue;  // the same kernels
          SCOPED_TRACE("n=" + std::to_string(n) + " kernel=" + std::to_string(int(k)) + " l2=" + std::to_string(int(l2)) +
                       " blocks=" + std::to_string(blocks) + " nan=" + std::to_string(int(nan)) +
                       (&h == &inputs[0] ? " random" : " zeros and a NaN"));
          Options opt;
          opt.force_kernel = k;
          opt.force_blocks = blocks;
          opt.l2 = l2;
          opt.nan = nan;
          check_all_ops(h, d.get(), opt);
        }
      }
    }
  }
}

struct AbsFloat {
  __host__ __device__ float operator()(float x) const { return fabsf(x); }
};
struct Magnitude {  // int16 to int: |-32768| fits
  __host__ __device__ int operator()(std::int16_t x) const { return x < 0 ? -int(x) : int(x); }
};
struct Positive {
  __host__ __device__ bool operator()(std::int8_t x) const { return x > 0; }
};
struct Thousandths {
  __host__ __device__ int operator()(float x) const { return int(floorf(x * 1000.f)); }
};

// transform_reduce under the other operators, the transform changing the type: max and argmax of
// |x| (BLAS's amax and iamax, a NaN placed in one of two runs), argmin/argmax of |int16| as int,
// a count, any and all of int8 > 0 (bool, counted in int64), minmax of floats floored to int. One
// block to a grid of several hundred blocks, from an odd element offset.
TEST(test_reduce_api, transforms_under_every_kind_of_operator) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  for (const std::uint64_t n : {1ull, 33ull, 3001ull, 300001ull, (1ull << 22) + 5}) {
    for (const bool with_nan : {false, true}) {
      SCOPED_TRACE("n=" + std::to_string(n) + (with_nan ? " with a NaN" : ""));
      auto hf = random_input<float>(n, seed + n);
      if (with_nan) hf[(seed + n) % n] = -std::numeric_limits<float>::quiet_NaN();
      std::vector<float> abs_f(n);
      std::transform(hf.begin(), hf.end(), abs_f.begin(), AbsFloat{});
      DeviceInput<float> df(hf, 3);
      const auto want_amax = reference::arg_extreme<false>(abs_f.data(), n, false);
      const float amax = run_to_host<float>([&](float* o) { transform_reduce(df.get(), n, o, AbsFloat{}, Max{}); });
      const auto iamax = run_to_host<IndexedValue<float>>(
          [&](IndexedValue<float>* o) { transform_reduce(df.get(), n, o, AbsFloat{}, ArgMax{}); });
      EXPECT_EQ(iamax.index, want_amax.index);
      if (with_nan) {
        EXPECT_TRUE(std::isnan(amax));
        EXPECT_TRUE(std::isnan(iamax.value));
      } else {
        EXPECT_EQ(amax, float(want_amax.value));
        EXPECT_EQ(iamax.value, float(want_amax.value));
      }
      if (with_nan) continue;

      const auto h16 = random_input<std::int16_t>(n, seed + n + 1);
      std::vector<int> mag(n);
      std::transform(h16.begin(), h16.end(), mag.begin(), Magnitude{});
      DeviceInput<std::int16_t> d16(h16, 3);
      const auto lo = run_to_host<IndexedValue<int>>(
          [&](IndexedValue<int>* o) { transform_reduce(d16.get(), n, o, Magnitude{}, ArgMin{}); });
      const auto hi = run_to_host<IndexedValue<int>>(
          [&](IndexedValue<int>* o) { transform_reduce(d16.get(), n, o, Magnitude{}, ArgMax{}); });
      const auto want_lo = reference::arg_extreme<true>(mag.data(), n, false);
      const auto want_hi = reference::arg_extreme<false>(mag.data(), n, false);
      EXPECT_EQ(lo.index, want_lo.index);
      EXPECT_EQ(lo.value, int(want_lo.value));
      EXPECT_EQ(hi.index, want_hi.index);
      EXPECT_EQ(hi.value, int(want_hi.value));

      const auto h8 = random_input<std::int8_t>(n, seed + n + 2);
      DeviceInput<std::int8_t> d8(h8, 3);
      const auto positives = std::count_if(h8.begin(), h8.end(), [](std::int8_t x) { return x > 0; });
      EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) { transform_reduce(d8.get(), n, o, Positive{}, Sum{}); }),
                positives);
      const auto as_byte = [&](auto op) {
        return run_to_host<unsigned char>(
            [&](unsigned char* o) { transform_reduce(d8.get(), n, reinterpret_cast<bool*>(o), Positive{}, op); });
      };
      EXPECT_EQ(as_byte(Any{}), positives > 0 ? 1 : 0);
      EXPECT_EQ(as_byte(All{}), positives == std::int64_t(n) ? 1 : 0);

      std::vector<int> floored(n);
      std::transform(hf.begin(), hf.end(), floored.begin(), Thousandths{});
      const auto mm =
          run_to_host<MinMax<int>>([&](MinMax<int>* o) { transform_reduce(df.get(), n, o, Thousandths{}, MinMaxOp{}); });
      EXPECT_EQ(mm.min, *std::min_element(floored.begin(), floored.end()));
      EXPECT_EQ(mm.max, *std::max_element(floored.begin(), floored.end()));
    }
  }
}

// A sum and a sum of squares in one pass (mean and variance, Thrust's summary statistics), and the
// range of int16 as an 8-byte pair: struct accumulators of 16 bytes (handed between blocks with a
// ticket) and of 8 (with a flag in the slot's second word), from transform_reduce with a functor
// and its identity.
struct Moments {
  double sum, squares;
};
struct ToMoments {
  __host__ __device__ Moments operator()(float x) const { return {x, double(x) * x}; }
};
struct AddMoments {
  __host__ __device__ Moments operator()(Moments a, Moments b) const { return {a.sum + b.sum, a.squares + b.squares}; }
};
struct Span {
  int lo, hi;
};
struct ToSpan {
  __host__ __device__ Span operator()(std::int16_t x) const { return {x, x}; }
};
struct Widen {
  __host__ __device__ Span operator()(Span a, Span b) const {
    return {a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
  }
};

TEST(test_reduce_api, transform_reduce_with_a_functor_into_a_struct) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  constexpr Moments no_moments{0, 0};
  constexpr Span no_span{std::numeric_limits<int>::max(), std::numeric_limits<int>::min()};
  for (const std::uint64_t n : {0ull, 1ull, 33ull, 3001ull, 300001ull, (1ull << 22) + 5}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto hf = random_input<float>(n, seed + n);
    const auto h16 = random_input<std::int16_t>(n, seed + n + 1);
    DeviceInput<float> df(hf, 3);
    DeviceInput<std::int16_t> d16(h16, 5);
    reference::FloatSum s, sq;
    for (float x : hf) {
      s.sum += x, s.abs_sum += std::fabs((long double)x);
      sq.sum += (long double)x * x, sq.abs_sum += (long double)x * x;
    }
    Span want_span = no_span;
    for (std::int16_t x : h16) want_span = Widen{}(want_span, ToSpan{}(x));
    const auto check = [&](const Moments& m, const Span& r, const std::string& how) {
      SCOPED_TRACE(how);
      expect_float_sum(m.sum, s, n, "sum");
      expect_float_sum(m.squares, sq, n, "sum of squares");
      EXPECT_EQ(r.lo, want_span.lo);
      EXPECT_EQ(r.hi, want_span.hi);
    };
    check(run_to_host<Moments>([&](Moments* o) { transform_reduce(df.get(), n, o, ToMoments{}, AddMoments{}, no_moments); }),
          run_to_host<Span>([&](Span* o) { transform_reduce(d16.get(), n, o, ToSpan{}, Widen{}, no_span); }), "automatic");
    check(transform_reduce_sync(df.get(), n, ToMoments{}, AddMoments{}, no_moments),
          transform_reduce_sync(d16.get(), n, ToSpan{}, Widen{}, no_span), "_sync");
    // Every kernel: one block, grids of 3 (the combiner block under evict-first) and 300 blocks.
    for (const auto [kernel, l2, blocks] : {std::tuple{Kernel::one_block, L2Policy::automatic, 0ull},
                                            std::tuple{Kernel::grid, L2Policy::normal, 3ull},
                                            std::tuple{Kernel::grid, L2Policy::evict_first, 3ull},
                                            std::tuple{Kernel::grid, L2Policy::evict_first, 300ull}}) {
      Options opt;
      opt.force_kernel = kernel;
      opt.l2 = l2;
      opt.force_blocks = blocks;
      check(run_to_host<Moments>(
                [&](Moments* o) { transform_reduce(df.get(), n, o, ToMoments{}, AddMoments{}, no_moments, nullptr, opt); }),
            run_to_host<Span>(
                [&](Span* o) { transform_reduce(d16.get(), n, o, ToSpan{}, Widen{}, no_span, nullptr, opt); }),
            "kernel " + std::to_string(int(kernel)) + " l2 " + std::to_string(int(l2)) + " blocks " +
                std::to_string(blocks));
    }

    // The other _sync calls: a transform under a built-in operator, and a dot product.
    if (n == 0) continue;
    EXPECT_EQ(transform_reduce_sync(df.get(), n, AbsFloat{}, Max{}),
              std::fabs(*std::max_element(hf.begin(), hf.end(), [](float a, float b) { return std::fabs(a) < std::fabs(b); })));
    std::int64_t want_dot = 0;
    for (std::int16_t x : h16) want_dot += std::int64_t(x) * x;
    EXPECT_EQ(dot_sync(d16.get(), d16.get(), n), want_dot);
  }
}

TEST(test_reduce_api, sanitizer_sizes) {
  GPUREDUCE_REQUIRE_GPU();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(test_seed()));
  sanitizer_sizes_for<std::int8_t>();
  sanitizer_sizes_for<float>();
  sanitizer_sizes_for<double>();
  sanitizer_sizes_for<__half>();
}

}  // namespace
}  // namespace gpureduce::test
