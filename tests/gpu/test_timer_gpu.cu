// The bench's timer (src/bench/timer.cpp): a sample's time is the GPU's, not the host's. Before the
// stream was held, a host thread paused between the L2 flush and the timed call put its pause into
// the sample (the bench at 107fbdf: int32 sums of 1-16 MB at medians of 30-32 us, against 5-13 us
// in every other run).
#include "../../src/bench/timer.hpp"
#include "reduce_checks.cuh"

#include <chrono>
#include <cstdlib>
#include <thread>

namespace gpureduce::test {
using namespace gpureduce::detail;
namespace {

__global__ void spin_for(std::uint64_t ns) {
  std::uint64_t start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  while (now - start < ns);
}

struct TimerTest : ::testing::Test {
  void SetUp() override {
    GPUREDUCE_REQUIRE_GPU();
    int device = 0;
    GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
    GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device));
    GPUREDUCE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  }
  void TearDown() override {
    if (stream) cudaStreamDestroy(stream);
  }
  int l2 = 0;
  cudaStream_t stream = nullptr;
};

constexpr std::uint64_t spin_ns = 20'000;
constexpr auto pause = std::chrono::milliseconds(20);

// Whether a CUDA tool is injected (ncu and nsys set CUDA_INJECTION64_PATH, compute-sanitizer
// NVTX_INJECTION64_PATH): it serializes and slows launches, so the samples are not the calls'
// times.
bool under_a_cuda_tool() {
  return std::getenv("CUDA_INJECTION64_PATH") != nullptr || std::getenv("NVTX_INJECTION64_PATH") != nullptr;
}

// A 20 ms pause of the host before a 20 us kernel: held, the sample is the kernel's; declared as a
// call that waits on the host (not held), the pause is in it.
TEST_F(TimerTest, host_pause_before_the_call_stays_out_of_a_held_sample) {
  GpuTimer timer(stream, std::uint64_t(l2));
  const auto paused_spin = [](cudaStream_t s) {
    std::this_thread::sleep_for(pause);
    spin_for<<<1, 1, 0, s>>>(spin_ns);
  };
  if (under_a_cuda_tool()) GTEST_SKIP() << "a CUDA tool serializes the launches: nothing to hold";
  const TimingStats held = timer.measure(paused_spin, 5, 1);
  EXPECT_TRUE(held.held);
  EXPECT_GE(held.min_ms, 0.02);
  EXPECT_LT(held.max_ms, 1.0) << "the host's pause entered a held sample";
  const TimingStats unheld = timer.measure(paused_spin, 3, 1, {}, HostWaits::yes);
  EXPECT_GE(unheld.min_ms, 15.0) << "without the hold the pause should be timed";
  EXPECT_FALSE(unheld.held);
}

// A call that waits for its own stream cannot run while the stream is held: the hold gives up after
// its timeout and the measurement goes on without it, rather than hanging.
TEST_F(TimerTest, call_that_waits_for_its_stream_is_timed_without_the_hold) {
  GpuTimer timer(stream, std::uint64_t(l2));
  const TimingStats t = timer.measure(
      [](cudaStream_t s) {
        spin_for<<<1, 1, 0, s>>>(spin_ns);
        cudaStreamSynchronize(s);
      },
      3, 1);
  EXPECT_FALSE(t.held);
  EXPECT_GE(t.min_ms, 0.02);
  EXPECT_LT(t.max_ms, 100.0);
}

// The SM clock over each sample: measured, and within the device's range; and the samples of two
// calls, alternating, each the time of its own call.
TEST_F(TimerTest, sm_clock_is_measured_over_the_samples) {
  GpuTimer timer(stream, std::uint64_t(l2));
  const auto [a, b] = timer.measure_pair([](cudaStream_t s) { spin_for<<<1, 1, 0, s>>>(spin_ns); },
                                         [](cudaStream_t s) { spin_for<<<1, 1, 0, s>>>(2 * spin_ns); }, 6);
  int device = 0, khz = 0;
  GPUREDUCE_CHECK_CUDA(cudaGetDevice(&device));
  GPUREDUCE_CHECK_CUDA(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device));
  for (const TimingStats& t : {a, b}) {
    EXPECT_GT(t.sm_mhz, 0.2 * khz / 1e3);
    EXPECT_LT(t.sm_mhz, 1.2 * khz / 1e3);
  }
  if (under_a_cuda_tool()) GTEST_SKIP() << "a CUDA tool slows the launches: the samples are not the calls' times";
  EXPECT_TRUE(a.held && b.held);
  EXPECT_GT(b.median_ms, a.median_ms + 0.015);
}

}  // namespace
}  // namespace gpureduce::test
