// The library's workspace under many streams and threads: slots released and reused, per-thread
// default streams, trim_workspace, eight streams from four threads, _sync calls sharing a stream.
#include "reduce_checks.cuh"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

// A program that creates and destroys streams keeps the pool at its peak of live streams when it
// releases each stream's slot.
TEST(test_workspace, released_stream_slots_are_reused) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
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

// 4 host threads, 2 streams each, every stream running a seeded random sequence of calls back to
// back with no synchronisation between them: float sums and dot products (hand-offs), int32 sums
// and double max (atomic ends), argmax of float and int64 (flagged 16-byte partials), double
// minmax (the ticket) and exact float sums, at counts around the library's boundaries and in
// between (fuzz_count, up to 8 MB), from random element offsets, some launched as dependents of the
// call before. Each call's result lands in a poisoned slot of its own, checked after the stream's
// last call: the stream's workspace slot passes from kernel to kernel in any order.
TEST(test_workspace, random_mixed_calls_on_eight_streams) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  constexpr int threads = 4, streams_per_thread = 2, calls = 24, kinds = 8;
  constexpr std::uint64_t max_bytes = std::uint64_t(8) << 20;
  struct Call {
    int kind;
    std::uint64_t offset, n;
    bool dependent;
  };
  std::vector<std::string> failures(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      std::mt19937_64 rng(seed + 1000 * t);
      const std::uint64_t m = max_bytes / 4 + 16;  // elements of the 4-byte arrays, half of the 8-byte ones
      const auto f = random_input<float>(m, rng()), g = random_input<float>(m, rng());
      const auto i32 = random_input<std::int32_t>(m, rng());
      const auto f64 = random_input<double>(m / 2, rng());
      const auto i64 = random_input<std::int64_t>(m / 2, rng());
      const DeviceInput<float> df(f, 0), dg(g, 0);
      const DeviceInput<std::int32_t> di32(i32, 0);
      const DeviceInput<double> df64(f64, 0);
      const DeviceInput<std::int64_t> di64(i64, 0);
      for (int k = 0; k < streams_per_thread; ++k) {
        cudaStream_t s;
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
        constexpr std::size_t slot = 16;  // the widest result: IndexedValue<std::int64_t>, MinMax<double>
        unsigned char* out = nullptr;
        cudaMalloc(&out, calls * slot);
        cudaMemsetAsync(out, 0xA5, calls * slot, s);
        std::vector<Call> plan(calls);
        for (int c = 0; c < calls; ++c) {
          Call& call = plan[c];
          call.kind = int(rng() % kinds);
          const bool wide = call.kind == 2 || call.kind == 4 || call.kind == 5;
          call.n = std::min<std::uint64_t>(fuzz_count<float>(rng, max_bytes / (wide ? 2 : 1)), (wide ? m / 2 : m) - 16);
          call.offset = rng() % 16;
          call.dependent = rng() % 4 == 0;
          Options opt;
          opt.dependent_launch = call.dependent;
          void* o = out + c * slot;
          const std::uint64_t at = call.offset, n = call.n;
          Status st;
          switch (call.kind) {
            case 0: st = try_reduce(df.get() + at, n, static_cast<float*>(o), Sum{}, s, opt); break;
            case 1: st = try_reduce(di32.get() + at, n, static_cast<std::int64_t*>(o), Sum{}, s, opt); break;
            case 2: st = try_reduce(df64.get() + at, n, static_cast<double*>(o), Max{}, s, opt); break;
            case 3: st = try_reduce(df.get() + at, n, static_cast<IndexedValue<float>*>(o), ArgMax{}, s, opt); break;
            case 4:
              st = try_reduce(di64.get() + at, n, static_cast<IndexedValue<std::int64_t>*>(o), ArgMax{}, s, opt);
              break;
            case 5: st = try_reduce(df64.get() + at, n, static_cast<MinMax<double>*>(o), MinMaxOp{}, s, opt); break;
            case 6: st = try_exact_sum(df.get() + at, n, static_cast<float*>(o), s, opt); break;
            default: st = try_dot(df.get() + at, dg.get() + at, n, static_cast<float*>(o), s, opt); break;
          }
          const bool empty_argmax = n == 0 && (call.kind == 3 || call.kind == 4);
          if (bool(st) == empty_argmax) failures[t] += "call " + std::to_string(c) + ": " + st.message + "\n";
        }
        std::vector<unsigned char> got(calls * slot);
        cudaStreamSynchronize(s);
        cudaMemcpy(got.data(), out, got.size(), cudaMemcpyDeviceToHost);
        for (int c = 0; c < calls; ++c) {
          const Call& call = plan[c];
          const std::uint64_t at = call.offset, n = call.n;
          const unsigned char* r = got.data() + c * slot;
          const auto as = [&]<class R>(R*) {
            R v;
            std::memcpy(&v, r, sizeof v);
            return v;
          };
          bool ok = true;
          switch (call.kind) {
            case 0: {
              const auto ref = reference::float_sum(f.data() + at, n, false);
              ok = check_float_sum(as((float*)nullptr), ref.sum, ref.abs_sum, n, summation_depth_bound(n, 256)).ok;
              break;
            }
            case 1: ok = std::uint64_t(as((std::int64_t*)nullptr)) == reference::int_sum(i32.data() + at, n); break;
            case 2: {
              double want = lowest<double>();
              for (std::uint64_t e = 0; e < n; ++e) want = std::max(want, f64[at + e]);
              ok = as((double*)nullptr) == want;
              break;
            }
            case 3:
            case 4: {
              if (n == 0) break;
              const auto want = call.kind == 3 ? reference::arg_extreme<false>(f.data() + at, n, false)
                                               : reference::arg_extreme<false>(i64.data() + at, n, false);
              const auto v3 = as((IndexedValue<float>*)nullptr);
              const auto v4 = as((IndexedValue<std::int64_t>*)nullptr);
              ok = call.kind == 3 ? v3.index == want.index && ld(v3.value) == want.value
                                  : v4.index == want.index && ld(v4.value) == want.value;
              break;
            }
            case 5: {
              const auto mm = as((MinMax<double>*)nullptr);
              double lo = highest<double>(), hi = lowest<double>();
              for (std::uint64_t e = 0; e < n; ++e) lo = std::min(lo, f64[at + e]), hi = std::max(hi, f64[at + e]);
              ok = mm.min == lo && mm.max == hi;
              break;
            }
            case 6: {
              const float want = exact_sum_host(f.data() + at, n), v = as((float*)nullptr);
              ok = std::memcmp(&want, &v, sizeof v) == 0;
              break;
            }
            default: {
              reference::FloatSum ref;
              ref.sum = product_sum(f.data() + at, g.data() + at, n, &ref.abs_sum);
              ok = check_float_sum(as((float*)nullptr), ref.sum, ref.abs_sum, n, summation_depth_bound(n, 256)).ok;
            }
          }
          if (!ok)
            failures[t] += "stream " + std::to_string(k) + " call " + std::to_string(c) + ": kind " +
                           std::to_string(call.kind) + " n=" + std::to_string(n) + " offset=" + std::to_string(at) +
                           (call.dependent ? " dependent" : "") + "\n";
        }
        cudaFree(out);
        cudaStreamDestroy(s);
      }
    });
  }
  for (auto& th : pool) th.join();
  for (int t = 0; t < threads; ++t) EXPECT_EQ(failures[t], "") << "host thread " << t;
}

// Threads that share a stream share its slot, whose result area a _sync call fills and then copies
// back: 8 threads with inputs of their own (no two sums equal) call sum_sync at once on the null
// stream and on one stream they share, at a one-block and a grid size, each getting its own sum.
TEST(test_workspace, sync_calls_from_threads_sharing_a_stream) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
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
