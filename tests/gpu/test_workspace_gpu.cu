// The library's workspace under many streams and threads: slots released and reused, per-thread
// default streams, trim_workspace, eight streams from four threads, _sync calls sharing a stream.
#include "reduce_checks.cuh"

#include <algorithm>
#include <chrono>
#include <memory>
#include <thread>
#include <vector>

namespace gpureduce::test {
namespace {

// A program that creates and destroys streams keeps the pool at its peak of live streams when it
// releases each stream's slot.
TEST(test_workspace, released_stream_slots_are_reused) {
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
TEST(test_workspace, per_thread_default_streams_hold_their_own_slots_until_the_thread_exits) {
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
TEST(test_workspace, trim_workspace_frees_unheld_chunks) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  SCOPED_TRACE("GPUREDUCE_SEED=" + std::to_string(seed));
  GPUREDUCE_CHECK_CUDA(cudaSetDevice(0));
  auto& pool = current_pool();
  const auto before = pool.counts();
  // The free slots (of chunks other streams hold slots in), then two chunks of their own: the test
  // holds wherever earlier tests left the pool (--gtest_repeat).
  std::vector<cudaStream_t> streams(before.free + 2 * detail::slots_per_chunk);
  GridSums sums(seed, streams.size());
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
TEST(test_workspace, eight_streams_from_four_threads) {
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
        // On the stream that reads it: a legacy-stream copy is not ordered before it.
        cudaMemcpyAsync(d[k], inputs[t * streams_per_thread + k].data(), n * sizeof(float), cudaMemcpyHostToDevice,
                        s[k]);
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
TEST(test_workspace, sync_calls_from_threads_sharing_a_stream) {
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

}  // namespace
}  // namespace gpureduce::test
