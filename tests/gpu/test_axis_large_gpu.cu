// Axis and segmented reductions at counts past 2^31 (one segment longer than 2^31 elements, more
// than 2^31 segments), checked on the device against patterns whose results are known, and the
// calls captured in a CUDA graph (their partials come from the stream's pool).
#include <gpureduce/axis.cuh>

#include "reduce_checks.cuh"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gpureduce::test {
namespace {

constexpr std::uint64_t past_2to31 = (std::uint64_t(1) << 31) + 3;

__global__ void fill_mod7(std::int8_t* x, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    x[i] = std::int8_t(i % 7);
}

// Segment i is element i % 1000 of the input.
__global__ void fill_single_element_offsets(std::int32_t* begin, std::int32_t* end, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x) {
    begin[i] = std::int32_t(i % 1000);
    end[i] = begin[i] + 1;
  }
}

// CSR offsets of segments of one element each: offsets[i] = i.
__global__ void fill_counting_offsets(std::int64_t* offsets, std::uint64_t n) {
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    offsets[i] = std::int64_t(i);
}

// Counts the i where got[i] != want(i).
template <class Want>
__global__ void count_wrong(const std::int8_t* got, std::uint64_t n, Want want, unsigned long long* wrong) {
  unsigned long long mine = 0;
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    mine += got[i] != want(i);
  if (mine) atomicAdd(wrong, mine);
}

template <class T>
struct DeviceArray {
  T* p = nullptr;
  explicit DeviceArray(std::uint64_t n) { EXPECT_EQ(cudaMalloc(&p, n * sizeof(T)), cudaSuccess); }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

bool room_for(std::uint64_t bytes) {
  std::size_t free = 0, total = 0;
  return cudaMemGetInfo(&free, &total) == cudaSuccess && free > bytes + (std::uint64_t(1) << 30);
}

struct Mod7 {
  __device__ std::int8_t operator()(std::uint64_t i) const { return std::int8_t(i % 7); }
};
struct At1000 {
  __device__ std::int8_t operator()(std::uint64_t i) const { return std::int8_t((i % 1000) % 7); }
};

template <class Want>
unsigned long long wrong_results(const std::int8_t* got, std::uint64_t n, Want want) {
  DeviceArray<unsigned long long> wrong(1);
  EXPECT_EQ(cudaMemset(wrong.p, 0, sizeof(unsigned long long)), cudaSuccess);
  count_wrong<<<4096, 256>>>(got, n, want, wrong.p);
  unsigned long long h = ~0ull;
  EXPECT_EQ(cudaMemcpy(&h, wrong.p, sizeof h, cudaMemcpyDeviceToHost), cudaSuccess);
  return h;
}

// One segment of 2^31 + 3 int8 elements, all 1 but a 3 near its end.
TEST(AxisLargeGpu, SegmentLongerThan2To31) {
  GPUREDUCE_REQUIRE_GPU();
  if (!room_for(past_2to31)) GTEST_SKIP() << "needs " << past_2to31 << " bytes of device memory";
  DeviceArray<std::int8_t> x(past_2to31);
  ASSERT_EQ(cudaMemset(x.p, 1, past_2to31), cudaSuccess);
  const std::int8_t three = 3;
  ASSERT_EQ(cudaMemcpy(x.p + past_2to31 - 5, &three, 1, cudaMemcpyHostToDevice), cudaSuccess);
  const std::vector<std::int64_t> h_offsets{0, std::int64_t(past_2to31)};
  DeviceInput<std::int64_t> offsets(h_offsets, 0);
  DeviceArray<std::int64_t> sum(2);
  DeviceArray<IndexedValue<std::int8_t>> best(2);
  segmented_sum(x.p, 1, offsets.get(), sum.p);
  segmented_argmax(x.p, 1, offsets.get(), best.p);
  std::int64_t s = 0;
  IndexedValue<std::int8_t> b{};
  ASSERT_EQ(cudaMemcpy(&s, sum.p, sizeof s, cudaMemcpyDeviceToHost), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(&b, best.p, sizeof b, cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(s, std::int64_t(past_2to31) + 2);
  EXPECT_EQ(b.value, 3);
  EXPECT_EQ(b.index, std::int64_t(past_2to31) - 5);
}

// 2^31 + 3 segments of one element each: fixed size, and begin/end arrays.
TEST(AxisLargeGpu, MoreThan2To31Segments) {
  GPUREDUCE_REQUIRE_GPU();
  if (!room_for(past_2to31 * 10)) GTEST_SKIP() << "needs " << past_2to31 * 10 << " bytes of device memory";
  DeviceArray<std::int8_t> x(past_2to31), out(past_2to31);
  fill_mod7<<<4096, 256>>>(x.p, past_2to31);
  ASSERT_EQ(cudaMemset(out.p, 0x5a, past_2to31), cudaSuccess);
  segmented_max(x.p, past_2to31, std::uint64_t(1), out.p);
  EXPECT_EQ(wrong_results(out.p, past_2to31, Mod7{}), 0u) << "fixed-size segments";
  {
    DeviceArray<std::int32_t> begin(past_2to31), end(past_2to31);
    fill_single_element_offsets<<<4096, 256>>>(begin.p, end.p, past_2to31);
    ASSERT_EQ(cudaMemset(out.p, 0x5a, past_2to31), cudaSuccess);
    segmented_max(x.p, past_2to31, begin.p, end.p, out.p);
    EXPECT_EQ(wrong_results(out.p, past_2to31, At1000{}), 0u) << "begin/end segments";
  }
}

// 2^31 + 3 CSR segments of one element each (int64 offsets): the merge path past 2^32 items.
TEST(AxisLargeGpu, MoreThan2To31CsrSegments) {
  GPUREDUCE_REQUIRE_GPU();
  if (!room_for(past_2to31 * 10)) GTEST_SKIP() << "needs " << past_2to31 * 10 << " bytes of device memory";
  DeviceArray<std::int8_t> x(past_2to31), out(past_2to31);
  DeviceArray<std::int64_t> offsets(past_2to31 + 1);
  fill_mod7<<<4096, 256>>>(x.p, past_2to31);
  fill_counting_offsets<<<4096, 256>>>(offsets.p, past_2to31 + 1);
  ASSERT_EQ(cudaMemset(out.p, 0x5a, past_2to31), cudaSuccess);
  segmented_max(x.p, past_2to31, offsets.p, out.p);
  EXPECT_EQ(wrong_results(out.p, past_2to31, Mod7{}), 0u);
}

// Sliced columns, segments and sliced exact rows captured in a graph: launched twice, the same
// bits as the calls made directly.
TEST(AxisLargeGpu, CapturedInAGraph) {
  GPUREDUCE_REQUIRE_GPU();
  const std::int64_t rows = 1 << 18, cols = 3;
  const auto h = random_input<float>(std::uint64_t(rows * cols), test_seed() ^ 21);
  DeviceInput<float> d(h, 0);
  const std::vector<std::int32_t> h_offsets{0, 5, 5, 100000, std::int32_t(rows * cols)};
  DeviceInput<std::int32_t> offsets(h_offsets, 0);
  constexpr std::uint64_t results = 3 + 4 + 3;
  DeviceArray<float> direct(results), captured(results);
  const auto calls = [&](float* o, cudaStream_t s) {
    sum_axes(d.get(), Shape{rows, cols}, {0}, o, s);  // 3 long columns: sliced, then combined
    segmented_sum(d.get(), 4, offsets.get(), o + 3, s);
    exact_sum_axes(d.get(), Shape{cols, rows}, {1}, o + 7, s);  // 3 long rows: sliced
  };
  cudaStream_t s = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
  calls(direct.p, s);
  ASSERT_EQ(cudaMemsetAsync(captured.p, 0x5a, results * sizeof(float), s), cudaSuccess);
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
  calls(captured.p, s);
  ASSERT_EQ(cudaStreamEndCapture(s, &graph), cudaSuccess);
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  std::vector<float> want(results), got(results);
  ASSERT_EQ(cudaMemcpyAsync(want.data(), direct.p, results * sizeof(float), cudaMemcpyDeviceToHost, s), cudaSuccess);
  for (int launch = 0; launch < 2; ++launch) {
    ASSERT_EQ(cudaGraphLaunch(exec, s), cudaSuccess);
    ASSERT_EQ(cudaMemcpyAsync(got.data(), captured.p, results * sizeof(float), cudaMemcpyDeviceToHost, s),
              cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(s), cudaSuccess);
    for (std::uint64_t i = 0; i < results; ++i)
      EXPECT_TRUE(same_value(ld(got[i]), ld(want[i]))) << "result " << i << " of launch " << launch;
    ASSERT_EQ(cudaMemsetAsync(captured.p, 0x5a, results * sizeof(float), s), cudaSuccess);
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace gpureduce::test
