// A test's override of the launch the dispatcher would choose: the kernel, the grid's block count,
// an exact sum's block size, a CSR reduction's path. Not part of the API: the tests and the bench
// tool compare paths with it (every path gives a correct result), through testing::ForceLaunch,
// which sets it for the calls its thread makes while it lives.
#pragma once

#include <gpureduce/dispatch/launch_plan.hpp>
#include <gpureduce/grid/merge_path.hpp>

#include <cstdint>

namespace gpureduce::detail {

struct ForcedLaunch {
  Kernel kernel = Kernel::automatic;
  std::uint64_t blocks = 0;  // > 0: the grid kernel's block count
  unsigned threads = 0;      // exact sums: 128, 256 or 512 threads per block (0: tuned); test builds only
  CsrPath csr = CsrPath::automatic;  // CSR segments, but batch-invariant ones
  bool unlisted = false;  // batch-invariant long segments folded by the warp that meets them
};

// The calling thread's override (constant-initialised: reading it costs a thread-local load).
inline ForcedLaunch& forced_launch() noexcept {
  static thread_local ForcedLaunch forced;
  return forced;
}

namespace testing {
// Forces the launch of every reduction this thread starts until the scope ends, then restores the
// one before it.
class ForceLaunch {
 public:
  explicit ForceLaunch(ForcedLaunch f) noexcept : saved_(forced_launch()) { forced_launch() = f; }
  ~ForceLaunch() { forced_launch() = saved_; }
  ForceLaunch(const ForceLaunch&) = delete;
  ForceLaunch& operator=(const ForceLaunch&) = delete;

 private:
  ForcedLaunch saved_;
};
}  // namespace testing

}  // namespace gpureduce::detail
