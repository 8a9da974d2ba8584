// The README's API examples, compiled and run as tests; tools/render_results.py copies the marked
// snippets into README.md (and the docs check keeps them identical).
#include "reduce_checks.cuh"

#include <cuda/std/complex>
#include <cuda/std/functional>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

// [example: functor]
struct Abs {  // a transform, applied to each element as it is loaded
  __host__ __device__ float operator()(float x) const { return fabsf(x); }
};
// [/example]

TEST(test_readme_examples, basic_calls) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = 1000003;
  const auto h32 = random_input<std::int32_t>(n, test_seed());
  const auto hf = random_input<float>(n, test_seed() + 1);
  DeviceInput<std::int32_t> in32(h32, 0);
  DeviceInput<float> inf(hf, 0);
  const std::int32_t* d_in = in32.get();
  const float* d_x = inf.get();
  std::int64_t* d_sum;
  gpureduce::IndexedValue<float>* d_best;
  float* d_max;
  float* d_absmax;
  cudaMalloc(&d_sum, sizeof *d_sum);
  cudaMalloc(&d_best, sizeof *d_best);
  cudaMalloc(&d_max, sizeof *d_max);
  cudaMalloc(&d_absmax, sizeof *d_absmax);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // [example: basic]
  // int32 in, int64 accumulator and result (docs/api.md has the rules); asynchronous, one launch
  gpureduce::sum(d_in, n, d_sum, stream);
  // value and first index of the largest element; NaN wins unless ignored
  gpureduce::argmax(d_x, n, d_best, stream);
  gpureduce::max(d_x, n, d_max, stream, {.nan = gpureduce::NanPolicy::ignore});
  // the largest magnitude: a transform on load, then a built-in operator
  gpureduce::transform_reduce(d_x, n, d_absmax, Abs{}, gpureduce::Max{}, stream);
  // the value on the host: the _sync suffix says this call waits for the stream
  const double total = gpureduce::sum_sync(d_x, n, stream);
  // no exceptions: a Status
  if (gpureduce::Status s = gpureduce::try_reduce(d_x, n, d_max, gpureduce::Min{}, stream); !s)
    std::fprintf(stderr, "%s\n", s.message);
  // [/example]

  cudaStreamSynchronize(stream);
  std::int64_t sum = 0;
  cudaMemcpy(&sum, d_sum, sizeof sum, cudaMemcpyDeviceToHost);
  EXPECT_EQ(std::uint64_t(sum), reference::int_sum(h32.data(), n));
  const auto best = reference::arg_extreme<false>(hf.data(), n, false);
  IndexedValue<float> got{};
  cudaMemcpy(&got, d_best, sizeof got, cudaMemcpyDeviceToHost);
  EXPECT_EQ(got.index, best.index);
  float mn = 0, absmax = 0;
  cudaMemcpy(&mn, d_max, sizeof mn, cudaMemcpyDeviceToHost);
  EXPECT_EQ(mn, *std::min_element(hf.begin(), hf.end()));
  cudaMemcpy(&absmax, d_absmax, sizeof absmax, cudaMemcpyDeviceToHost);
  float want_absmax = 0;
  for (const float x : hf) want_absmax = std::max(want_absmax, std::fabs(x));
  EXPECT_EQ(absmax, want_absmax);
  expect_float_sum(float(total), reference::float_sum(hf.data(), n, false), n, "sum_sync");
  cudaFree(d_sum);
  cudaFree(d_best);
  cudaFree(d_max);
  cudaFree(d_absmax);
  cudaStreamDestroy(stream);
}

// [example: nanmean]
// NumPy's nanmean in one pass: a transform to a struct, then your functor and its identity
struct SumCount {
  double sum;
  std::int64_t count;
};
struct IfNumber {
  __host__ __device__ SumCount operator()(float x) const { return isnan(x) ? SumCount{0, 0} : SumCount{x, 1}; }
};
struct AddSumCount {
  __host__ __device__ SumCount operator()(SumCount a, SumCount b) const { return {a.sum + b.sum, a.count + b.count}; }
};
// [/example]

TEST(test_readme_examples, transform_into_a_struct) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = 1000003;
  auto hx = random_input<float>(n, test_seed());
  for (std::uint64_t i = 0; i < n; i += 1 + i % 97) hx[i] = std::numeric_limits<float>::quiet_NaN();
  DeviceInput<float> in(hx, 0);
  const float* d_x = in.get();
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // [example: nanmean_call]
  const SumCount s = gpureduce::transform_reduce_sync(d_x, n, IfNumber{}, AddSumCount{}, SumCount{0, 0}, stream);
  const double mean = s.count ? s.sum / double(s.count) : NAN;
  // [/example]

  const auto want = reference::float_sum(hx.data(), n, true);
  const auto numbers = std::count_if(hx.begin(), hx.end(), [](float x) { return !std::isnan(x); });
  EXPECT_EQ(s.count, numbers);
  EXPECT_GT(numbers, 0);
  expect_float_sum(s.sum, want, n, "sum of the numbers");
  EXPECT_NEAR(mean, double(want.sum / numbers), 1e-12 * double(want.abs_sum / numbers));
  cudaStreamDestroy(stream);
}

struct Length2 {
  __host__ __device__ float operator()(float3 p) const { return p.x * p.x + p.y * p.y + p.z * p.z; }
};

TEST(test_readme_examples, records) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = 1000003;
  const auto re = random_input<float>(n, test_seed()), im = random_input<float>(n, test_seed() + 1);
  std::vector<cuda::std::complex<float>> hz(n);
  std::vector<float3> hp(n);
  for (std::uint64_t i = 0; i < n; ++i) {
    hz[i] = {re[i], im[i]};
    hp[i] = {float(int(i % 1001) - 500), float(int(i % 997) - 498), float(int(i % 13))};  // exact lengths
  }
  DeviceInput<cuda::std::complex<float>> z(hz, 1);
  DeviceInput<float3> points(hp, 1);
  const cuda::std::complex<float>* d_z = z.get();
  const float3* d_points = points.get();
  cuda::std::complex<float>* d_zsum;
  gpureduce::IndexedValue<float>* d_far;
  cudaMalloc(&d_zsum, sizeof *d_zsum);
  cudaMalloc(&d_far, sizeof *d_far);
  cudaStream_t stream;
  cudaStreamCreate(&stream);

  // [example: records]
  // Arrays of structs, as CUB's Reduce takes them, with your functor and its identity or a
  // transform: a complex sum, and the first point farthest from the origin (float3 in, Length2 a
  // functor)
  gpureduce::reduce(d_z, n, d_zsum, cuda::std::plus<>{}, cuda::std::complex<float>{}, stream);
  gpureduce::transform_reduce(d_points, n, d_far, Length2{}, gpureduce::ArgMax{}, stream);
  // [/example]

  cuda::std::complex<float> zsum;
  gpureduce::IndexedValue<float> far;
  cudaMemcpyAsync(&zsum, d_zsum, sizeof zsum, cudaMemcpyDeviceToHost, stream);
  cudaMemcpyAsync(&far, d_far, sizeof far, cudaMemcpyDeviceToHost, stream);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  expect_float_sum(zsum.real(), reference::float_sum(re.data(), n, false), n, "real");
  expect_float_sum(zsum.imag(), reference::float_sum(im.data(), n, false), n, "imag");
  std::int64_t want = 0;
  for (std::uint64_t i = 1; i < n; ++i)
    if (Length2{}(hp[i]) > Length2{}(hp[want])) want = std::int64_t(i);
  EXPECT_EQ(far.index, want);
  EXPECT_EQ(far.value, Length2{}(hp[want]));
  cudaFree(d_zsum);
  cudaFree(d_far);
  cudaStreamDestroy(stream);
}

TEST(test_readme_examples, exact_sum) {
  GPUREDUCE_REQUIRE_GPU();
  // [example: exact]
  // 1e8 + 1 - 1e8 + 1 + 3e-8: in float, the first 1 is lost against 1e8
  const std::vector<float> x{1e8f, 1.0f, -1e8f, 1.0f, 3e-8f};
  float* d_x;
  float* d_out;
  cudaMalloc(&d_x, x.size() * sizeof(float));
  cudaMalloc(&d_out, sizeof(float));
  cudaMemcpy(d_x, x.data(), x.size() * sizeof(float), cudaMemcpyHostToDevice);
  gpureduce::exact_sum(d_x, x.size(), d_out);
  float exact;
  cudaMemcpy(&exact, d_out, sizeof exact, cudaMemcpyDeviceToHost);
  // exact == 2.0f: the real sum (2 + 3e-8), rounded once to float; left to right in float: 1.0f.
  // gpureduce::exact_sum_host(x.data(), x.size()) gives the same bits on the CPU.
  // [/example]
  EXPECT_EQ(exact, 2.0f);
  EXPECT_EQ(exact, exact_sum_host(x.data(), x.size()));
  cudaFree(d_x);
  cudaFree(d_out);
}

TEST(test_readme_examples, graph_and_workspace) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t n = 1 << 20;
  const auto h = random_input<double>(n, test_seed());
  DeviceInput<double> in(h, 0);
  const double* d_x = in.get();
  double* d_out;
  cudaMalloc(&d_out, sizeof *d_out);
  cudaStream_t stream;
  cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);

  // [example: graph]
  // Capturable: the graph holds one kernel node, and nothing in the call synchronises.
  cudaGraph_t graph;
  cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
  gpureduce::dot(d_x, d_x, n, d_out, stream);  // sum of squares, in double
  cudaStreamEndCapture(stream, &graph);
  cudaGraphExec_t exec;
  cudaGraphInstantiate(&exec, graph, 0);
  cudaGraphLaunch(exec, stream);

  // A workspace of your own (zero it once): to keep allocation out of the first call, or for two
  // executable graphs of one captured graph replayed at the same time. Zero it on the stream that
  // uses it: a non-blocking stream does not wait for a cudaMemset on the null stream.
  void* ws;
  cudaMalloc(&ws, gpureduce::workspace_bytes);
  cudaMemsetAsync(ws, 0, gpureduce::workspace_bytes, stream);
  gpureduce::Options opt;
  opt.workspace = ws;
  opt.workspace_size = gpureduce::workspace_bytes;
  gpureduce::sum(d_x, n, d_out, stream, opt);
  // [/example]

  cudaStreamSynchronize(stream);
  double got = 0;
  cudaMemcpy(&got, d_out, sizeof got, cudaMemcpyDeviceToHost);
  expect_float_sum(got, reference::float_sum(h.data(), n, false), n, "sum with own workspace");
  cudaFree(ws);
  cudaFree(d_out);

  // [example: release]
  // Destroying the graph gives its workspace slot back. A stream keeps its slot until released
  // (which waits for the stream): release before destroying, where streams come and go.
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  gpureduce::release_workspace(stream);
  cudaStreamDestroy(stream);
  // [/example]
}

}  // namespace
}  // namespace gpureduce::test
