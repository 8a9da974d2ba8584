// gpureduce::nccl on one GPU (tests/nccl/ranks.cu runs several): the exact sum's exchange
// vectors made by the GPU kernel for shards and added match the whole array's exact sum bit for
// bit; every call with a communicator of one rank equals the local call; errors are named.
#include <gpureduce/nccl.cuh>

#include "../common/exact_cases.hpp"
#include "reduce_checks.cuh"

#include <algorithm>
#include <vector>

namespace gpureduce::test {
namespace {

using namespace exact_cases;
namespace ex = gpureduce::detail::exact;

template <class T>
std::vector<T> adversarial(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> x(n);
  for (std::size_t i = 0; i < n; ++i) x[i] = i % 3 == 2 ? negate(x[i - 1]) : random_finite<T>(rng);
  std::shuffle(x.begin(), x.end(), rng);
  return x;
}

template <class T>
class NcclExchangeGpu : public ::testing::Test {};
using ExactTypes = ::testing::Types<float, double, __half, __nv_bfloat16>;
TYPED_TEST_SUITE(NcclExchangeGpu, ExactTypes);

// Shards cut at random (some empty, some spanning many blocks): the kernel's vectors added on
// the host and rounded there, and rounded by the device's kernel, give exact_sum_host's bits.
TYPED_TEST(NcclExchangeGpu, ShardVectorsAddToTheWholeSum) {
  GPUREDUCE_REQUIRE_GPU();
  using T = TypeParam;
  using Terms = ex::SumOf<T>;
  constexpr int words = Terms::range.words(), size = ex::exchange_words(words);
  std::mt19937_64 rng(test_seed());
  std::int64_t* d_x = nullptr;
  T* d_out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&d_x, size * sizeof(std::int64_t)));
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&d_out, sizeof(T)));
  for (std::size_t n : {std::size_t(0), std::size_t(1000), std::size_t(1) << 20}) {
    const std::vector<T> x = adversarial<T>(n, test_seed() + n);
    const T want = exact_sum_host(x.data(), x.size());
    DeviceInput<T> d(x, 0);
    for (int k : {1, 2, 5, 64}) {
      std::vector<std::size_t> cuts{0, n};
      for (int i = 1; i < k; ++i) cuts.push_back(n ? rng() % (n + 1) : 0);
      std::sort(cuts.begin(), cuts.end());
      std::int64_t total[size] = {};
      for (int s = 0; s < k; ++s) {
        GPUREDUCE_CHECK_CUDA(cudaMemset(d_x, 0x5a, size * sizeof(std::int64_t)));  // poison
        const Status st = detail::dispatch_exact<Terms>(detail::ArraySource<T>{d.get() + cuts[s], {}},
                                                        cuts[s + 1] - cuts[s],
                                                        reinterpret_cast<ex::ExchangeWord*>(d_x), nullptr, {});
        ASSERT_TRUE(bool(st)) << st.message;
        std::int64_t part[size];
        GPUREDUCE_CHECK_CUDA(cudaMemcpy(part, d_x, sizeof part, cudaMemcpyDeviceToHost));
        std::int64_t host_part[size];
        ex::exchange_host(x.data() + cuts[s], cuts[s + 1] - cuts[s], host_part);
        EXPECT_EQ(part[size - 1], std::int64_t(cuts[s + 1] - cuts[s])) << "count";
        for (int i = 0; i < size; ++i) total[i] += part[i];
      }
      const T got = ex::round_exchange<T, words>(total, Terms::range.lsb_exp);
      EXPECT_TRUE(same(got, want)) << "n=" << n << " shards=" << k << std::hex << " got 0x" << bits_of(got)
                                   << " want 0x" << bits_of(want);
      GPUREDUCE_CHECK_CUDA(cudaMemcpy(d_x, total, sizeof total, cudaMemcpyHostToDevice));
      GPUREDUCE_CHECK_CUDA(cudaMemset(d_out, 0x5a, sizeof(T)));
      detail::round_exchange_kernel<Terms, T><<<1, 32>>>(d_x, d_out);
      T on_device{};
      GPUREDUCE_CHECK_CUDA(cudaMemcpy(&on_device, d_out, sizeof(T), cudaMemcpyDeviceToHost));
      EXPECT_TRUE(same(on_device, want)) << "device rounding: n=" << n << " shards=" << k;
    }
  }
  cudaFree(d_x);
  cudaFree(d_out);
}

// A communicator of one rank on the current device.
struct OneRank {
  ncclComm_t comm = nullptr;
  cudaStream_t stream = nullptr;
  OneRank() {
    int device = 0;
    cudaGetDevice(&device);
    EXPECT_EQ(ncclCommInitAll(&comm, 1, &device), ncclSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  }
  ~OneRank() {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    EXPECT_TRUE(bool(nccl::try_release(comm)));
    ncclCommDestroy(comm);
  }
};

template <class R, class Call>
R run_into(Call&& call, cudaStream_t stream) {
  R* d = nullptr;
  EXPECT_EQ(cudaMalloc(&d, sizeof(R) * 4), cudaSuccess);
  EXPECT_EQ(cudaMemset(d, 0x5a, sizeof(R) * 4), cudaSuccess);  // poison
  const Status s = call(d);
  EXPECT_TRUE(bool(s)) << s.message;
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  R r{};
  EXPECT_EQ(cudaMemcpy(&r, d, sizeof(R), cudaMemcpyDeviceToHost), cudaSuccess);
  cudaFree(d);
  return r;
}

// Every path with one rank gives the local call's bits: exact (float, bfloat16), gathered (float
// sum, argmax with ties, minmax, bitwise), direct (int32 sum, max), axis, segments, and to a root.
TEST(NcclOneRankGpu, EveryPathEqualsTheLocalCall) {
  GPUREDUCE_REQUIRE_GPU();
  OneRank r;
  const std::size_t n = (std::size_t(1) << 20) + 7;
  std::vector<float> xf = random_input<float>(n, test_seed());
  xf[n / 2] = 2.0f;
  xf[n / 3] = 2.0f;  // the maximum twice: the first index wins
  std::vector<std::int32_t> xi = random_input<std::int32_t>(n, test_seed() + 1);
  DeviceInput<float> df(xf, 0);
  DeviceInput<std::int32_t> di(xi, 0);
  const auto bits = [](float v) { return bits_of(v); };
  const float exact_local = exact_sum_host(xf.data(), n);
  EXPECT_EQ(bits(run_into<float>([&](float* o) { return nccl::try_exact_sum(df.get(), n, o, r.comm, r.stream); },
                                 r.stream)),
            bits(exact_local));
  EXPECT_EQ(bits(run_into<float>([&](float* o) { return nccl::try_exact_sum(df.get(), n, o, r.comm, r.stream,
                                                                             nccl::Root{0}); },
                                 r.stream)),
            bits(exact_local));
  const float sum_local = run_into<float>([&](float* o) { return try_sum(df.get(), n, o, r.stream); }, r.stream);
  EXPECT_EQ(bits(run_into<float>([&](float* o) { return nccl::try_sum(df.get(), n, o, r.comm, r.stream); },
                                 r.stream)),
            bits(sum_local));
  const auto best = run_into<IndexedValue<float>>(
      [&](IndexedValue<float>* o) { return nccl::try_argmax(df.get(), n, o, r.comm, r.stream); }, r.stream);
  EXPECT_EQ(best.value, 2.0f);
  EXPECT_EQ(best.index, std::int64_t(n / 3));
  const auto mm = run_into<MinMax<float>>(
      [&](MinMax<float>* o) { return nccl::try_minmax(df.get(), n, o, r.comm, r.stream); }, r.stream);
  EXPECT_EQ(mm.min, *std::min_element(xf.begin(), xf.end()));
  EXPECT_EQ(mm.max, 2.0f);
  std::int64_t want_sum = 0;
  std::int32_t want_max = xi[0], want_or = 0;
  for (std::int32_t v : xi) {
    want_sum += v;
    want_max = std::max(want_max, v);
    want_or |= v;
  }
  EXPECT_EQ(run_into<std::int64_t>([&](std::int64_t* o) { return nccl::try_sum(di.get(), n, o, r.comm, r.stream); },
                                   r.stream),
            want_sum);
  EXPECT_EQ(run_into<std::int32_t>([&](std::int32_t* o) { return nccl::try_max(di.get(), n, o, r.comm, r.stream); },
                                   r.stream),
            want_max);
  EXPECT_EQ(run_into<std::int32_t>(
                [&](std::int32_t* o) { return nccl::try_bit_or(di.get(), n, o, r.comm, r.stream, nccl::Root{0}); },
                r.stream),
            want_or);
  // Columns of a 1024 x 1024 piece: the local column sums.
  const std::size_t rows = 1024, cols = 1024;
  std::vector<std::int64_t> got(cols, 0x5a5a), want(cols, 0);
  for (std::size_t i = 0; i < rows * cols; ++i) want[i % cols] += xi[i];
  std::int64_t* d_cols = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&d_cols, cols * sizeof(std::int64_t)));
  const Status s = nccl::try_reduce_axes(di.get(), Shape{std::int64_t(rows), std::int64_t(cols)}, Axes{0}, d_cols,
                                         Sum{}, r.comm, r.stream);
  ASSERT_TRUE(bool(s)) << s.message;
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(r.stream));
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(got.data(), d_cols, cols * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(got, want);
  // Ragged segments (CSR, some empty): the local segment sums.
  std::vector<std::int64_t> offsets{0};
  std::mt19937_64 rng(test_seed());
  while (offsets.back() < std::int64_t(n)) offsets.push_back(std::min<std::int64_t>(offsets.back() + rng() % 3000, n));
  const std::size_t segments = offsets.size() - 1;
  std::vector<std::int64_t> seg_want(segments, 0), seg_got(segments, 0x5a5a);
  for (std::size_t r = 0; r < segments; ++r)
    for (std::int64_t i = offsets[r]; i < offsets[r + 1]; ++i) seg_want[r] += xi[std::size_t(i)];
  DeviceInput<std::int64_t> d_off(offsets, 0);
  std::int64_t* d_seg = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&d_seg, segments * sizeof(std::int64_t)));
  const Status t = nccl::try_segmented_reduce(di.get(), segments, d_off.get(), d_off.get() + 1, d_seg, Sum{}, r.comm,
                                              r.stream);
  ASSERT_TRUE(bool(t)) << t.message;
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(r.stream));
  GPUREDUCE_CHECK_CUDA(cudaMemcpy(seg_got.data(), d_seg, segments * sizeof(std::int64_t), cudaMemcpyDeviceToHost));
  EXPECT_EQ(seg_got, seg_want);
  cudaFree(d_seg);
  cudaFree(d_cols);
}

// An empty shard: the identity of each operator; argmax's index -1.
TEST(NcclOneRankGpu, EmptyShards) {
  GPUREDUCE_REQUIRE_GPU();
  OneRank r;
  DeviceInput<float> d(std::vector<float>{1.0f}, 0);
  const auto best = run_into<IndexedValue<float>>(
      [&](IndexedValue<float>* o) { return nccl::try_argmax(d.get(), 0, o, r.comm, r.stream); }, r.stream);
  EXPECT_EQ(best.index, -1);
  EXPECT_EQ(best.value, -std::numeric_limits<float>::infinity());
  EXPECT_EQ(run_into<float>([&](float* o) { return nccl::try_sum(d.get(), 0, o, r.comm, r.stream); }, r.stream), 0.0f);
  const float e = run_into<float>([&](float* o) { return nccl::try_exact_sum(d.get(), 0, o, r.comm, r.stream); },
                                  r.stream);
  EXPECT_EQ(bits_of(e), bits_of(0.0f));  // +0
}

// Graph capture: an exact sum and a gathered sum captured and replayed twice give the direct
// calls' bits.
TEST(NcclOneRankGpu, CapturedInAGraph) {
  GPUREDUCE_REQUIRE_GPU();
  OneRank r;
  const std::size_t n = 1 << 22;
  const std::vector<float> x = random_input<float>(n, test_seed());
  DeviceInput<float> d(x, 0);
  float* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, 2 * sizeof(float)));
  GPUREDUCE_CHECK_CUDA(cudaMemset(out, 0x5a, 2 * sizeof(float)));
  cudaGraph_t graph = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(r.stream, cudaStreamCaptureModeGlobal));
  nccl::exact_sum(d.get(), n, out, r.comm, r.stream);
  nccl::sum(d.get(), n, out + 1, r.comm, r.stream);
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(r.stream, &graph));
  cudaGraphExec_t exec = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const float want_sum = run_into<float>([&](float* o) { return try_sum(d.get(), n, o, r.stream); }, r.stream);
  for (int i = 0; i < 2; ++i) {
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, r.stream));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(r.stream));
    float got[2];
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    EXPECT_EQ(bits_of(got[0]), bits_of(exact_sum_host(x.data(), n)));
    EXPECT_EQ(bits_of(got[1]), bits_of(want_sum));
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(out);
}

TEST(NcclOneRankGpu, ErrorsAreNamed) {
  GPUREDUCE_REQUIRE_GPU();
  OneRank r;
  DeviceInput<float> d(std::vector<float>(100, 1.0f), 0);
  float* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, sizeof(float)));
  Status s = nccl::try_sum(d.get(), 100, out, ncclComm_t{}, r.stream);
  EXPECT_EQ(s.code, Errc::null_pointer);
  EXPECT_STREQ(s.message, "communicator is null");
  s = nccl::try_sum(d.get(), 100, out, r.comm, r.stream, nccl::Root{1});
  EXPECT_EQ(s.code, Errc::invalid_argument);
  EXPECT_STREQ(s.message, "root is not a rank of the communicator");
  s = nccl::try_sum(d.get(), 100, static_cast<float*>(nullptr), r.comm, r.stream);
  EXPECT_EQ(s.code, Errc::null_pointer);
  float host_out = 0;
  s = nccl::try_sum(d.get(), 100, &host_out, r.comm, r.stream);
  EXPECT_EQ(s.code, Errc::not_device_memory);
  s = nccl::try_exact_sum(d.get(), 100, out, r.comm, r.stream, {}, {.nan = NanPolicy::ignore});
  EXPECT_EQ(s.code, Errc::invalid_argument);
  s = nccl::try_sum(static_cast<const float*>(nullptr), 100, out, r.comm, r.stream);
  EXPECT_EQ(s.code, Errc::null_pointer);
  EXPECT_THROW(nccl::max(d.get(), 100, out, r.comm, r.stream, nccl::Root{-2}), gpureduce::error);
  int devices = 0;
  cudaGetDeviceCount(&devices);
  if (devices > 1) {  // a stream of another device than the communicator's
    int here = 0;
    cudaGetDevice(&here);
    cudaStream_t other = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(1 - here));
    GPUREDUCE_CHECK_CUDA(cudaStreamCreate(&other));
    GPUREDUCE_CHECK_CUDA(cudaSetDevice(here));
    s = nccl::try_sum(d.get(), 100, out, r.comm, other);
    EXPECT_EQ(s.code, Errc::invalid_argument);
    EXPECT_STREQ(s.message, "the stream is not on the communicator's device");
    cudaStreamDestroy(other);
  }
  GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(r.stream));
  cudaFree(out);
}

}  // namespace
}  // namespace gpureduce::test
