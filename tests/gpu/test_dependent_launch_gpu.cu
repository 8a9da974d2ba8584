// Options::dependent_launch: a reduction launched as a programmatic dependent of the kernel before
// it on its stream waits for that kernel's writes, in every kernel (one block, grids with and
// without a combiner block, the exact sum), in chains of reductions that share the stream's
// workspace slot, and in a captured graph replayed on new data.
#include "reduce_checks.cuh"

#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

// A producer that lets its dependents launch at once, then spins for `delay` cycles (about 20 us)
// before copying src to dst: a dependent reduction that read dst before waiting for the producer
// would see the previous round's contents. (Before sm_90 there is no early launch to test.)
template <class T>
__global__ void copy_after_delay(const T* src, T* dst, std::uint64_t n, long long delay) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const long long start = clock64();
  while (clock64() - start < delay) {
  }
  for (std::uint64_t i = blockIdx.x * std::uint64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::uint64_t(gridDim.x) * blockDim.x)
    dst[i] = src[i];
}
constexpr long long delay_cycles = 40000;

template <class T>
void producer(const T* src, T* dst, std::uint64_t n, cudaStream_t s) {
  copy_after_delay<<<264, 256, 0, s>>>(src, dst, n, delay_cycles);
}

TEST(test_dependent_launch, reductions_wait_for_the_kernel_before_them) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, 2 * sizeof(std::int64_t)));
  for (const std::uint64_t n : {1000ull, 65539ull, (1ull << 22) + 1}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    DeviceInput<std::int32_t> dst(random_input<std::int32_t>(n, seed ^ 1), 0);
    each_kernel([&](Options opt, const std::string& how) {
      SCOPED_TRACE(how);
      opt.dependent_launch = true;
      for (int round = 0; round < 3; ++round) {
        const auto h = random_input<std::int32_t>(n, seed + 10 * n + round);
        const DeviceInput<std::int32_t> src(h, 0);
        GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, 2 * sizeof(std::int64_t), s));
        producer(src.get(), const_cast<std::int32_t*>(dst.get()), n, s);
        sum(dst.get(), n, out, s, opt);
        sum(dst.get(), n, out + 1, s, opt);  // a dependent of the first: the same slot, emptied first
        GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
        std::int64_t got[2];
        GPUREDUCE_CHECK_CUDA(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
        const std::uint64_t want = reference::int_sum(h.data(), n);
        EXPECT_EQ(std::uint64_t(got[0]), want) << "round " << round;
        EXPECT_EQ(std::uint64_t(got[1]), want) << "round " << round << ", second reduction";
      }
    });
  }
  cudaFree(out);
  cudaStreamDestroy(s);
}

// argmax (a 16-byte accumulator) and the exact sum (a kernel of its own, with a ticket) after the
// producer.
TEST(test_dependent_launch, argmax_and_exact_sums_wait_too) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  for (const std::uint64_t n : {3001ull, (1ull << 20) + 3}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    DeviceInput<float> dst(random_input<float>(n, seed ^ 2), 0);
    for (int round = 0; round < 3; ++round) {
      const auto h = random_input<float>(n, seed + 10 * n + round);
      const DeviceInput<float> src(h, 0);
      Options opt;
      opt.dependent_launch = true;
      const auto best = run_to_host<IndexedValue<float>>([&](IndexedValue<float>* d) {
        producer(src.get(), const_cast<float*>(dst.get()), n, s);
        argmax(dst.get(), n, d, s, opt);
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      });
      const auto want = reference::arg_extreme<false>(h.data(), n, false);
      EXPECT_EQ(best.index, want.index) << "round " << round;
      EXPECT_EQ(best.value, h[std::size_t(want.index)]) << "round " << round;
      const double total = run_to_host<double>([&](double* d) {
        // dst holds this round's input since the argmax: zero it, so that a sum that read it before
        // the producer's copy would be wrong.
        EXPECT_EQ(cudaMemsetAsync(const_cast<float*>(dst.get()), 0, n * sizeof(float), s), cudaSuccess);
        producer(src.get(), const_cast<float*>(dst.get()), n, s);
        exact_sum(dst.get(), n, d, s, opt);
        EXPECT_EQ(cudaStreamSynchronize(s), cudaSuccess);
      });
      EXPECT_EQ(total, exact_sum_host<double>(h.data(), n)) << "round " << round;  // the same bits
    }
  }
  cudaStreamDestroy(s);
}

// Captured, the dependent launches become programmatic edges of the graph; replayed on new data,
// each replay's reductions wait for its producer.
TEST(test_dependent_launch, captured_graph_replays_on_new_data) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  const std::uint64_t n = (1u << 20) + 7;
  cudaStream_t s;
  GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  DeviceInput<std::int32_t> src(random_input<std::int32_t>(n, seed), 0);
  DeviceInput<std::int32_t> dst(random_input<std::int32_t>(n, seed ^ 3), 0);
  std::int64_t* out = nullptr;
  GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, 2 * sizeof(std::int64_t)));
  Options opt;
  opt.dependent_launch = true;
  cudaGraph_t graph;
  GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  producer(src.get(), const_cast<std::int32_t*>(dst.get()), n, s);
  sum(dst.get(), n, out, s, opt);
  {
    const detail::testing::ForceLaunch forced({.kernel = Kernel::one_block});
    sum(dst.get(), 5000, out + 1, s, opt);
  }
  GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
  cudaGraphExec_t exec;
  GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 3; ++replay) {
    const auto h = random_input<std::int32_t>(n, seed + replay + 1);
    GPUREDUCE_CHECK_CUDA(
        cudaMemcpyAsync(const_cast<std::int32_t*>(src.get()), h.data(), n * 4, cudaMemcpyHostToDevice, s));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, 2 * sizeof(std::int64_t), s));
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    std::int64_t got[2];
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(got, out, sizeof(got), cudaMemcpyDeviceToHost));
    EXPECT_EQ(std::uint64_t(got[0]), reference::int_sum(h.data(), n)) << "replay " << replay;
    EXPECT_EQ(std::uint64_t(got[1]), reference::int_sum(h.data(), 5000)) << "replay " << replay;
  }
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaFree(out);
  cudaStreamDestroy(s);
}

}  // namespace
}  // namespace gpureduce::test
