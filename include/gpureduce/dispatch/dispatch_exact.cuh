// From a validated exact-sum call to one launch of exact_sum_kernel (kernel/exact_kernel.cuh).
#pragma once

#include <gpureduce/dispatch/dispatch_reduce.cuh>
#include <gpureduce/dispatch/exact_plan.hpp>
#include <gpureduce/kernel/exact_kernel.cuh>

namespace gpureduce::detail {

template <class Terms, unsigned Threads, class Out, class Source>
Status launch_exact(Source src, std::uint64_t n, Out* out, cudaStream_t stream, const Options& opt, int device,
                    const ForcedLaunch& force) {
  constexpr int words = Terms::range.words();
  constexpr auto plain = exact_sum_kernel<Threads, exact::unroll, Terms, Out, Source>;
  constexpr auto evict_first = exact_sum_kernel<Threads, exact::unroll, Terms, Out, Source, true>;
  DeviceLimits limits{};
  if (const Status s = device_limits<Threads, plain, evict_first>(device, &limits); !s) return s;
  constexpr unsigned bytes = sizeof(typename Source::element_type) * Source::arrays;
  const bool ef = exact::evict_first(opt.l2, n * bytes, limits.l2_bytes);
  const std::uint64_t vectors = src.split(n).vectors, resident = limits.resident_blocks[ef];
  std::uint64_t blocks = force.kernel == Kernel::grid
                             ? exact::grid_blocks(vectors, Threads, resident, limits.sm_count, words)
                             : exact::plan_blocks(vectors, Threads, resident, limits.sm_count, words);
  if (force.kernel == Kernel::one_block) blocks = 1;
  if (force.blocks > 0) blocks = min_u64(force.blocks, exact::max_blocks(words));
  if (ceil_div(n, exact::readers(blocks) * Threads) > exact::max_elements_per_thread)
    return Status::fail(Errc::invalid_argument, "exact sum: too many elements per thread for the forced grid");
  unsigned char* ws = nullptr;
  if (blocks > 1)
    if (const Status s = grid_workspace(opt, stream, &ws); !s) return s;
  return Status::from_cuda(
      launch_kernel(ef && blocks > 1 ? evict_first : plain,
                    Launch{unsigned(blocks), Threads, stream, opt.dependent_launch}, src, n, out, ws));
}

// Whether an exact sum can run: it propagates NaN, and writes a floating type.
template <class Out>
Status check_exact_call(const Options& opt) {
  if (opt.nan == NanPolicy::ignore)
    return Status::fail(Errc::invalid_argument,
                        "exact sums propagate NaN: NanPolicy::ignore is not supported (filter the NaN first, or "
                        "use sum with NanPolicy::ignore)");
  if constexpr (!exact::is_exact_type_v<Out>)
    return Status::fail(Errc::invalid_argument, "an exact sum writes float, double, __half or __nv_bfloat16");
  return Status::ok();
}

template <class Terms, class Out, class Source>
Status dispatch_exact(Source src, std::uint64_t n, Out* out, cudaStream_t stream, const Options& opt) noexcept {
  return host_guarded([&]() -> Status {
    const RelaxedCaptureScope relaxed;
    if (n > exact::max_count) return Status::fail(Errc::invalid_argument, "exact sum: count exceeds 2^40");
    StreamDeviceScope on_stream_device;
    if (const Status s = check_call(src, n, out, stream, opt, on_stream_device); !s) return s;
    const int device = on_stream_device.device();
    const ForcedLaunch force = forced_launch();
    // Other block sizes only where the tests compile them (GPUREDUCE_TESTING), to show that the
    // result does not depend on the launch: a user's exact sum compiles one size.
#if defined(GPUREDUCE_TESTING)
    if (force.threads == 128) return launch_exact<Terms, 128>(src, n, out, stream, opt, device, force);
    if (force.threads == 256) return launch_exact<Terms, 256>(src, n, out, stream, opt, device, force);
#endif
    if (force.threads != 0 && force.threads != exact::threads)
      return Status::fail(Errc::invalid_argument, "forced exact-sum block size must be 0, 128, 256 or 512");
    return launch_exact<Terms, exact::threads>(src, n, out, stream, opt, device, force);
  });
}

}  // namespace gpureduce::detail
