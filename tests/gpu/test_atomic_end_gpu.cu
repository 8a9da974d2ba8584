// Grids that end in atomics (grid/atomic_end.hpp): many launches back to back on one stream and
// workspace, alternating with grids that hand their partials over or with exact sums on the
// largest grid, and replayed in a graph (each launch must wait for its own generation), and the
// zeros and NaN of float and double min/max.
#include "../../src/bench/cuda_check.hpp"
#include "../common/exact_cases.hpp"
#include "reduce_checks.cuh"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

using exact_cases::bits_of;

// Sizes in the combiner's range (up to max_combiner_blocks blocks of 16 KB): 65539 int32 is 17
// blocks, 2^19 int32 and 2^18 int64 or double the largest grid, 129 blocks.
constexpr std::uint64_t small_grid = 65539, largest_grid_4b = 1u << 19, largest_grid_8b = 1u << 18;

template <class T>
std::vector<T> to_host(const DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  EXPECT_EQ(cudaMemcpy(h.data(), d.get(), d.size() * sizeof(T), cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// A non-blocking stream with a zero-filled workspace of the caller's on it, and Options passing it.
struct StreamWithWorkspace {
  cudaStream_t s{};
  void* ws = nullptr;
  Options opt;
  StreamWithWorkspace() {
    EXPECT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&ws, workspace_bytes), cudaSuccess);
    EXPECT_EQ(cudaMemsetAsync(ws, 0, workspace_bytes, s), cudaSuccess);
    opt.workspace = ws, opt.workspace_size = workspace_bytes;
  }
  ~StreamWithWorkspace() {
    cudaFree(ws);
    cudaStreamDestroy(s);
  }
  StreamWithWorkspace(const StreamWithWorkspace&) = delete;
  StreamWithWorkspace& operator=(const StreamWithWorkspace&) = delete;
};

// 50 rounds of five reductions on one stream with no synchronisation between them, each round on a
// new input written on the stream: int64 sum, double sum (the hand-off), float max, int32 xor and
// int64 min, into results poisoned first; then every result is checked. Once with the library's
// workspace and once with a caller's.
TEST(test_atomic_end, back_to_back_launches_alternating_with_hand_offs) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  constexpr int rounds = 50;
  const StreamWithWorkspace sw;
  const cudaStream_t s = sw.s;
  for (const bool own_workspace : {false, true}) {
    SCOPED_TRACE(own_workspace ? "caller's workspace" : "library's workspace");
    const Options opt = own_workspace ? sw.opt : Options{};
    std::vector<std::vector<std::int32_t>> i32(rounds);
    std::vector<std::vector<std::int64_t>> i64(rounds);
    std::vector<std::vector<float>> f32(rounds);
    std::vector<std::vector<double>> f64(rounds);
    DeviceBuffer<std::int32_t> d32(largest_grid_4b * rounds);
    DeviceBuffer<std::int64_t> d64(largest_grid_8b * rounds);
    DeviceBuffer<float> df(small_grid * rounds);
    DeviceBuffer<double> dd(largest_grid_8b * rounds);
    DeviceBuffer<std::int64_t> sums(rounds), mins(rounds);
    DeviceBuffer<double> dsums(rounds);
    DeviceBuffer<float> maxes(rounds);
    DeviceBuffer<std::int32_t> xors(rounds);
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(sums.get(), 0xA5, rounds * 8, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(mins.get(), 0xA5, rounds * 8, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(dsums.get(), 0xA5, rounds * 8, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(maxes.get(), 0xA5, rounds * 4, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(xors.get(), 0xA5, rounds * 4, s));
    for (int r = 0; r < rounds; ++r) {
      i32[r] = random_input<std::int32_t>(largest_grid_4b, seed + 5 * r);
      i64[r] = random_input<std::int64_t>(largest_grid_8b, seed + 5 * r + 1);
      f32[r] = random_input<float>(small_grid, seed + 5 * r + 2);
      f64[r] = random_input<double>(largest_grid_8b, seed + 5 * r + 3);
      GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(d32.get() + r * largest_grid_4b, i32[r].data(), largest_grid_4b * 4,
                                           cudaMemcpyHostToDevice, s));
      GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(d64.get() + r * largest_grid_8b, i64[r].data(), largest_grid_8b * 8,
                                           cudaMemcpyHostToDevice, s));
      GPUREDUCE_CHECK_CUDA(
          cudaMemcpyAsync(df.get() + r * small_grid, f32[r].data(), small_grid * 4, cudaMemcpyHostToDevice, s));
      GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(dd.get() + r * largest_grid_8b, f64[r].data(), largest_grid_8b * 8,
                                           cudaMemcpyHostToDevice, s));
      GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));  // the host vectors are pageable
    }
    for (int r = 0; r < rounds; ++r) {
      sum(d64.get() + r * largest_grid_8b, largest_grid_8b, sums.get() + r, s, opt);
      sum(dd.get() + r * largest_grid_8b, largest_grid_8b, dsums.get() + r, s, opt);
      max(df.get() + r * small_grid, small_grid, maxes.get() + r, s, opt);
      bit_xor(d32.get() + r * largest_grid_4b, largest_grid_4b, xors.get() + r, s, opt);
      min(d64.get() + r * largest_grid_8b, largest_grid_8b, mins.get() + r, s, opt);
    }
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    const auto got_sums = to_host(sums), got_mins = to_host(mins);
    const auto got_dsums = to_host(dsums);
    const auto got_maxes = to_host(maxes);
    const auto got_xors = to_host(xors);
    for (int r = 0; r < rounds; ++r) {
      SCOPED_TRACE("round " + std::to_string(r));
      EXPECT_EQ(std::uint64_t(got_sums[r]), reference::int_sum(i64[r].data(), largest_grid_8b));
      expect_float_sum(got_dsums[r], reference::float_sum(f64[r].data(), largest_grid_8b, false), largest_grid_8b,
                       "double sum");
      EXPECT_EQ(got_maxes[r], *std::max_element(f32[r].begin(), f32[r].end()));
      std::int32_t x = 0;
      for (std::int32_t v : i32[r]) x ^= v;
      EXPECT_EQ(got_xors[r], x);
      EXPECT_EQ(got_mins[r], *std::min_element(i64[r].begin(), i64[r].end()));
    }
  }
}

// A captured int32 sum and float min replayed 10 times on new data, with a call on the same
// workspace outside the graph between replays.
TEST(test_atomic_end, graph_replays_between_other_launches) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = small_grid;
  const StreamWithWorkspace sw;
  const cudaStream_t s = sw.s;
  const Options opt = sw.opt;
  DeviceBuffer<std::int32_t> d(n);
  DeviceBuffer<float> f(n);
  DeviceBuffer<std::int64_t> out(2);
  DeviceBuffer<float> fout(1);
  cudaGraph_t graph;
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  sum(d.get(), n, out.get(), s, opt);
  min(f.get(), n, fout.get(), s, opt);
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 10; ++replay) {
    SCOPED_TRACE("replay " + std::to_string(replay));
    const auto h = random_input<std::int32_t>(n, seed + 2 * replay);
    const auto hf = random_input<float>(n, seed + 2 * replay + 1);
    GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(d.get(), h.data(), n * 4, cudaMemcpyHostToDevice, s));
    GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(f.get(), hf.data(), n * 4, cudaMemcpyHostToDevice, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out.get(), 0xA5, 16, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(fout.get(), 0xA5, 4, s));
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    sum(d.get(), n / 2, out.get() + 1, s, opt);
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    const auto got = to_host(out);
    EXPECT_EQ(std::uint64_t(got[0]), reference::int_sum(h.data(), n));
    EXPECT_EQ(std::uint64_t(got[1]), reference::int_sum(h.data(), n / 2));
    EXPECT_EQ(to_host(fout)[0], *std::min_element(hf.begin(), hf.end()));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

// Exact sums between atomic ends and plain hand-offs on the same workspace: the exact grids'
// packets go through the flagged slots, which must be empty again after each exact sum (a plain
// combiner that found one of them full would take it for a partial), and stay out of the
// generation words. Exact float sums on the largest grid the workspace holds (forced) and double
// sums on the library's grid; an infinity every 1000 floats sets every block's flags (packet 0).
// The plain float sums (129 blocks: the combiner block; 257: the last block polls) must give the
// bits of the same sums on a workspace of their own.
TEST(test_atomic_end, exact_sums_on_the_same_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = 1u << 21, nd = 1u << 18;
  const std::uint64_t plain_n[2] = {largest_grid_4b, 2 * largest_grid_4b};
  const StreamWithWorkspace sw, other;
  const cudaStream_t s = sw.s;
  const Options opt = sw.opt;

  const auto h = random_input<std::int32_t>(small_grid, seed);
  auto hf = random_input<float>(n, seed + 1);
  for (std::uint64_t i = 0; i < n; i += 1000) hf[i] = std::numeric_limits<float>::infinity();
  const auto hp = random_input<float>(plain_n[1], seed + 2);
  const auto hd = random_input<double>(nd, seed + 3);
  const DeviceInput<std::int32_t> d(h, 0);
  const DeviceInput<float> f(hf, 0), fp(hp, 0);
  const DeviceInput<double> dd(hd, 0);
  DeviceBuffer<std::int64_t> sums(4);
  DeviceBuffer<float> exact(3), plain(12), alone(2);
  DeviceBuffer<double> exact_d(3);
  GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(sums.get(), 0xA5, 4 * 8, s));
  GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(plain.get(), 0xA5, 12 * 4, s));
  for (int k = 0; k < 3; ++k) {
    sum(d.get(), small_grid, sums.get() + k, s, opt);
    for (int j = 0; j < 2; ++j) sum(fp.get(), plain_n[j], plain.get() + 4 * k + j, s, opt);
    {
      const detail::testing::ForceLaunch forced({.blocks = max_grid_blocks});  // capped at what the workspace holds
      exact_sum(f.get(), n, exact.get() + k, s, opt);
    }
    exact_sum(dd.get(), nd, exact_d.get() + k, s, opt);
    for (int j = 0; j < 2; ++j) sum(fp.get(), plain_n[j], plain.get() + 4 * k + 2 + j, s, opt);
  }
  sum(d.get(), small_grid, sums.get() + 3, s, opt);
  for (int j = 0; j < 2; ++j) sum(fp.get(), plain_n[j], alone.get() + j, other.s, other.opt);
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(other.s));
  const auto got = to_host(sums);
  for (int k = 0; k < 4; ++k) EXPECT_EQ(std::uint64_t(got[k]), reference::int_sum(h.data(), small_grid)) << k;
  const auto e = to_host(exact);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(e[k], std::numeric_limits<float>::infinity()) << k;
  const auto ed = to_host(exact_d);
  const double want_d = exact_sum_host(hd.data(), nd);
  for (int k = 0; k < 3; ++k) EXPECT_EQ(bits_of(ed[k]), bits_of(want_d)) << k;
  const auto p = to_host(plain), a = to_host(alone);
  for (int k = 0; k < 12; ++k) EXPECT_EQ(bits_of(p[k]), bits_of(a[k % 2])) << "plain sum " << k;
}

// min (less) or max of x without its NaN; of two zeros min -0 and max +0 where present.
template <class F>
F extreme_without_nan(const std::vector<F>& x, bool less) {
  F r = less ? std::numeric_limits<F>::infinity() : -std::numeric_limits<F>::infinity();
  for (F v : x)
    if (!std::isnan(v) && (less ? v < r || (v == r && std::signbit(v)) : v > r || (v == r && !std::signbit(v)))) r = v;
  return r;
}

// Of two zeros max gives +0 and min -0 where present; a NaN wins under propagate with the sign of
// the winning end (max: +, min: -), whatever the sign of the input's NaN, with the same bits on
// every run; under ignore NaN are skipped. Zeros among numbers of one sign, then one NaN of either
// sign at the first, a middle or the last element.
template <class F>
void check_zeros_and_nan(std::uint64_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  using U = std::conditional_t<sizeof(F) == 4, std::uint32_t, std::uint64_t>;
  for (const bool less : {false, true}) {
    SCOPED_TRACE(less ? "min" : "max");
    std::vector<F> h(n);
    for (F& x : h) x = (less ? F(1) : -F(1)) * (F(1) + F(rng() % 1000));  // a zero is the extreme
    for (int k = 0; k < 5; ++k) h[rng() % n] = less ? F(0) : -F(0);
    h[rng() % n] = less ? -F(0) : F(0);
    const auto run = [&](const F* d, NanPolicy nan) {
      return run_to_host<F>([&](F* o) {
        if (less) min(d, n, o, nullptr, {.nan = nan});
        else max(d, n, o, nullptr, {.nan = nan});
      });
    };
    const DeviceInput<F> d(h, 0);
    const F zero = run(d.get(), NanPolicy::propagate);
    EXPECT_TRUE(zero == 0 && std::signbit(zero) == less) << "zeros";
    for (const std::uint64_t at : {std::uint64_t(0), n / 2 + 1, n - 1}) {
      for (const bool negative : {false, true}) {
        SCOPED_TRACE("NaN at " + std::to_string(at) + (negative ? ", negative" : ", positive"));
        std::vector<F> g = h;
        const U nan_bits = U(std::numeric_limits<U>::max() >> 1) | (negative ? U(1) << (8 * sizeof(F) - 1) : U(0));
        std::memcpy(&g[at], &nan_bits, sizeof(F));
        const DeviceInput<F> dg(g, 0);
        const F first = run(dg.get(), NanPolicy::propagate);
        EXPECT_TRUE(std::isnan(first) && std::signbit(first) == less);
        for (int repeat = 0; repeat < 10; ++repeat) {
          const F again = run(dg.get(), NanPolicy::propagate);
          EXPECT_EQ(std::memcmp(&again, &first, sizeof(F)), 0) << "repeat " << repeat;
        }
        const F ignored = run(dg.get(), NanPolicy::ignore);
        const F want = extreme_without_nan(g, less);
        EXPECT_TRUE(ignored == want && std::signbit(ignored) == std::signbit(want)) << "ignore";
      }
    }
  }
}

TEST(test_atomic_end, zeros_and_nan_of_float_min_max) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  check_zeros_and_nan<float>(small_grid, seed);
  check_zeros_and_nan<float>(largest_grid_4b, seed + 1);
  check_zeros_and_nan<double>(small_grid, seed + 2);
  check_zeros_and_nan<double>(largest_grid_8b, seed + 3);
}

// Results outside the device's own memory: pinned host memory, host memory registered in place and
// managed memory. The atomic end's identity store and atomics go over the link there (only the
// device touches the result during the call, which the CUDA memory model asks of atomics on host
// memory without native host atomics). Sizes: the combiner's range, 257 blocks and a full wave.
TEST(test_atomic_end, results_in_host_and_managed_memory) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  struct Results {
    std::int64_t sum, bits;
    double least;
    std::int32_t most;
    float fmost;
  };
  for (const std::uint64_t n : {small_grid, (std::uint64_t(1) << 22) + 5, (std::uint64_t(1) << 24) + 1}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h32 = random_input<std::int32_t>(n, seed + n);
    const auto h64 = random_input<std::int64_t>(n, seed + n + 1);
    const auto hf = random_input<float>(n, seed + n + 2);
    const auto hd = random_input<double>(n, seed + n + 3);
    const DeviceInput<std::int32_t> d32(h32, 0);
    const DeviceInput<std::int64_t> d64(h64, 0);
    const DeviceInput<float> df(hf, 0);
    const DeviceInput<double> dd(hd, 0);
    std::int64_t bits = 0;
    for (const std::int64_t v : h64) bits ^= v;
    for (const char* kind : {"pinned", "registered", "managed"}) {
      SCOPED_TRACE(kind);
      Results* r = nullptr;  // the device's address of the results
      void* registered = nullptr;
      if (kind[0] == 'p') {
        GPUREDUCE_CHECK_CUDA(cudaMallocHost(&r, sizeof(Results)));
      } else if (kind[0] == 'm') {
        GPUREDUCE_CHECK_CUDA(cudaMallocManaged(&r, sizeof(Results)));
      } else {
        registered = std::aligned_alloc(4096, 4096);
        ASSERT_NE(registered, nullptr);
        GPUREDUCE_CHECK_CUDA(cudaHostRegister(registered, 4096, cudaHostRegisterDefault));
        void* device_address = nullptr;
        GPUREDUCE_CHECK_CUDA(cudaHostGetDevicePointer(&device_address, registered, 0));
        r = static_cast<Results*>(device_address);  // the host's own address on this device
      }
      Results* host_view = registered ? static_cast<Results*>(registered) : r;
      for (int round = 0; round < 3; ++round) {
        std::memset(host_view, 0xA5, sizeof(Results));  // poison
        sum(d32.get(), n, &r->sum);
        bit_xor(d64.get(), n, &r->bits);
        min(dd.get(), n, &r->least);
        max(d32.get(), n, &r->most);
        max(df.get(), n, &r->fmost);
        GPUREDUCE_CHECK_CUDA(cudaDeviceSynchronize());
        const Results& got = *host_view;
        EXPECT_EQ(std::uint64_t(got.sum), reference::int_sum(h32.data(), n)) << "round " << round;
        EXPECT_EQ(got.bits, bits) << "round " << round;
        EXPECT_EQ(got.least, *std::min_element(hd.begin(), hd.end())) << "round " << round;
        EXPECT_EQ(got.most, *std::max_element(h32.begin(), h32.end())) << "round " << round;
        EXPECT_EQ(got.fmost, *std::max_element(hf.begin(), hf.end())) << "round " << round;
      }
      if (kind[0] == 'p') cudaFreeHost(r);
      if (kind[0] == 'm') cudaFree(r);
      if (registered) {
        cudaHostUnregister(registered);
        std::free(registered);
      }
    }
  }
}

// A result inside the input (an in-place reduction into its first, middle or last element), on a
// fresh copy of the input for each call: every element is read as it was before the result is
// written. The atomic end's identity store and atomics would land in the input while blocks still
// read it (at 6661cfc sums and xor came out wrong: bench/results/*_in_place_6661cfc_fix.log); the
// double sum hands its partials over, and 1000 elements take one block.
TEST(test_atomic_end, result_inside_the_input) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  for (const std::uint64_t n :
       {std::uint64_t(1000), small_grid, (std::uint64_t(1) << 22) + 5, (std::uint64_t(1) << 24) + 1}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto h64 = random_input<std::int64_t>(n, seed + n);
    const auto h32 = random_input<std::int32_t>(n, seed + n + 1);
    const auto hf = random_input<float>(n, seed + n + 2);
    const auto hd = random_input<double>(n, seed + n + 3);
    std::int64_t bits = 0;
    for (const std::int64_t v : h64) bits ^= v;
    DeviceBuffer<std::int64_t> d64(n);
    DeviceBuffer<std::int32_t> d32(n);
    DeviceBuffer<float> df(n);
    DeviceBuffer<double> dd(n);
    // Input in place, the call into element `at`, and that element afterwards.
    const auto in_place = []<class T>(DeviceBuffer<T>& d, const std::vector<T>& h, std::uint64_t at, auto&& call) {
      EXPECT_EQ(cudaMemcpy(d.get(), h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice), cudaSuccess);
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      call(d.get(), d.get() + at);
      T got{};
      EXPECT_EQ(cudaMemcpy(&got, d.get() + at, sizeof got, cudaMemcpyDeviceToHost), cudaSuccess);
      return got;
    };
    for (const std::uint64_t at : {std::uint64_t(0), n / 2, n - 1}) {
      SCOPED_TRACE("result at element " + std::to_string(at));
      EXPECT_EQ(std::uint64_t(in_place(d64, h64, at, [&](auto* d, auto* o) { sum(d, n, o); })),
                reference::int_sum(h64.data(), n));
      EXPECT_EQ(in_place(d64, h64, at, [&](auto* d, auto* o) { bit_xor(d, n, o); }), bits);
      EXPECT_EQ(in_place(d32, h32, at, [&](auto* d, auto* o) { max(d, n, o); }),
                *std::max_element(h32.begin(), h32.end()));
      EXPECT_EQ(in_place(df, hf, at, [&](auto* d, auto* o) { min(d, n, o); }), *std::min_element(hf.begin(), hf.end()));
      expect_float_sum(in_place(dd, hd, at, [&](auto* d, auto* o) { sum(d, n, o); }),
                       reference::float_sum(hd.data(), n, false), n, "double sum");
    }
  }
}

}  // namespace
}  // namespace gpureduce::test
