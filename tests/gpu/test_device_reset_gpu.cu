// cudaDeviceReset destroys the device's primary context with every allocation in it, the library's
// workspace included; the next call runs in a new context (dispatch/context_id.hpp). Before the
// pool was kept per context, the first grid-sized reduction after a reset faulted with an illegal
// address. An executable of its own: a reset takes every other test's device state with it.
#include "reduce_checks.cuh"

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

// Three rounds of: allocate, fill the memory just freed by a reset with ones (so a stale workspace
// would read full flags), then reduce through a stream's slot, a graph's, the _sync calls' and the
// ticket of int64 minmax, each exact; then reset.
TEST(test_device_reset, reductions_after_a_reset_run_in_the_new_context) {
  GPUREDUCE_REQUIRE_GPU();
  const std::uint64_t seed = test_seed();
  constexpr std::uint64_t n = (1u << 22) + 1;  // the grid kernel, which takes a workspace slot
  for (int round = 0; round < 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const auto h = random_input<std::int64_t>(n, seed + round);
    void* junk = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&junk, std::size_t(64) << 20));
    GPUREDUCE_CHECK_CUDA(cudaMemset(junk, 0xFF, std::size_t(64) << 20));
    GPUREDUCE_CHECK_CUDA(cudaFree(junk));
    std::int64_t* d = nullptr;  // freed by the reset, as every allocation below
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&d, n * sizeof(std::int64_t)));
    GPUREDUCE_CHECK_CUDA(cudaMemcpy(d, h.data(), n * sizeof(std::int64_t), cudaMemcpyHostToDevice));
    cudaStream_t s;
    GPUREDUCE_CHECK_CUDA(cudaStreamCreate(&s));  // blocking: ordered after run_to_host's poison
    std::int64_t want_sum = 0, want_min = h[0], want_max = h[0];
    for (const std::int64_t x : h) {
      want_sum = std::int64_t(std::uint64_t(want_sum) + std::uint64_t(x));  // 64-bit sums wrap
      want_min = std::min(want_min, x);
      want_max = std::max(want_max, x);
    }
    EXPECT_EQ(run_to_host<std::int64_t>([&](std::int64_t* o) {
                sum(d, n, o, s);
                cudaStreamSynchronize(s);
              }),
              want_sum);
    const auto mm = run_to_host<MinMax<std::int64_t>>([&](MinMax<std::int64_t>* o) { minmax(d, n, o); });
    EXPECT_EQ(mm.min, want_min);
    EXPECT_EQ(mm.max, want_max);
    EXPECT_EQ(sum_sync(d, n, s), want_sum);
    std::int64_t* out = nullptr;
    GPUREDUCE_CHECK_CUDA(cudaMalloc(&out, sizeof(std::int64_t)));
    cudaGraph_t graph;
    GPUREDUCE_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    sum(d, n, out, s);
    GPUREDUCE_CHECK_CUDA(cudaStreamEndCapture(s, &graph));
    cudaGraphExec_t exec;
    GPUREDUCE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    GPUREDUCE_CHECK_CUDA(cudaMemsetAsync(out, 0xA5, sizeof(std::int64_t), s));
    GPUREDUCE_CHECK_CUDA(cudaGraphLaunch(exec, s));
    std::int64_t got = 0;
    GPUREDUCE_CHECK_CUDA(cudaMemcpyAsync(&got, out, sizeof got, cudaMemcpyDeviceToHost, s));
    GPUREDUCE_CHECK_CUDA(cudaStreamSynchronize(s));
    EXPECT_EQ(got, want_sum);
    EXPECT_GT(current_pool().counts().slots, 0u);
    // Left for the reset to destroy, as a program that resets at its end would: the memory, the
    // stream, the graph and their slots.
    GPUREDUCE_CHECK_CUDA(cudaDeviceReset());
  }
}

}  // namespace
}  // namespace gpureduce::test
