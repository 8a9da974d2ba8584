// Dispatch of the exact sums per row, column, slice or segment (kernel/exact_axis_kernel.cuh): a
// warp per result, results that are few and long sliced over several warps whose words
// exact_combine_kernel adds. One contiguous run is the full exact sum (dispatch_exact.cuh).
#pragma once

#include <gpureduce/dispatch/dispatch_axis.cuh>
#include <gpureduce/dispatch/dispatch_exact.cuh>
#include <gpureduce/kernel/exact_axis_kernel.cuh>

#include <cstdint>

namespace gpureduce::detail {

// Results of at most this many elements take a thread each; of at most exact_group_rows, where
// they are many, eight lanes each (H200, float32 2^26: rows of 256 at 1.05x of the plain sum's
// throughput, against 0.45x a warp each; bench --axis, variant gpureduce-exact).
inline constexpr std::uint64_t exact_thread_rows = 32;
inline constexpr std::uint64_t exact_group_rows = 2048;

// `results` results of at most `length` elements each (0: unknown), read through `pieces`: a
// thread or 8 lanes per result, or a warp per result or slice of one.
template <class Terms, class Out, class T, class Pieces>
Status run_exact_pieces(const T* in, const Pieces& pieces, std::uint64_t results, std::uint64_t length, Out* out,
                        const AxisDevice& dev, cudaStream_t stream) {
  constexpr unsigned warps = axis_threads / warp_threads;
  const auto grouped = [&]<unsigned G>() {
    const std::uint64_t blocks = ceil_div(results, axis_threads / G);
    exact_axis_kernel<axis_threads, G, Terms><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid),
                                                axis_threads, 0, stream>>>(in, pieces, results, 1, 0, out, nullptr);
    return Status::from_cuda(cudaGetLastError());
  };
  if (length > 0 && length <= exact_thread_rows) return grouped.template operator()<1>();
  if (length > 0 && length <= exact_group_rows && results >= dev.target_warps) return grouped.template operator()<8>();
  // A piece's lanes keep within the expansion's count per thread.
  constexpr std::uint64_t most = exact::max_elements_per_thread * warp_threads;
  std::uint64_t slice = slice_length(results, dev.target_warps, length, 4096, warp_threads * Vector<T>::size);
  slice = slice < most ? slice : most;
  const std::uint64_t slices = slice >= length ? 1 : ceil_div(length, slice);
  const std::uint64_t blocks = ceil_div(results * slices, warps);
  Partials<std::int64_t> partials{nullptr, stream};
  if (slices > 1)
    if (const Status s = partials.alloc(results * slices * piece_words<Terms>); !s) return s;
  exact_axis_kernel<axis_threads, warp_threads, Terms><<<unsigned(blocks < dev.max_grid ? blocks : dev.max_grid),
                                                         axis_threads, 0, stream>>>(in, pieces, results, slices, slice,
                                                                                    out, partials.p);
  cudaError_t e = cudaGetLastError();
  if (slices > 1 && e == cudaSuccess) {
    exact_combine_kernel<axis_threads, Terms><<<unsigned(ceil_div(results, warps)), axis_threads, 0, stream>>>(
        partials.p, pieces, results, slices, out);
    e = cudaGetLastError();
  }
  return Status::from_cuda(e);
}

template <class Terms, class Out, class T>
Status dispatch_exact_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape* out_shape,
                           cudaStream_t stream, const Options& opt) noexcept {
  if (const Status s = check_exact_call<Out>(opt); !s) return s;
  if constexpr (exact::is_exact_type_v<Out>) {
    return host_guarded([&]() -> Status {
      AxisPlan plan;
      StreamDeviceScope on_stream_device;
      if (const Status s = plan_axes(shape, axes, out_shape, false, &plan); !s) return s;
      if (const Status s = prepare_axes(in, out, plan, on_stream_device, stream); !s || plan.kernel == AxisKernel::none)
        return s;
      const T* origin = in + plan.base;
      if (plan.kernel == AxisKernel::rows && plan.outputs == 1 && plan.length > 0) {
        Options whole = opt;  // invariant as it is: the whole-array call refuses the request
        whole.batch_invariant = false;
        return dispatch_exact<Terms>(ArraySource<T>{origin, {}}, plan.length, out, stream, whole);
      }
      AxisDevice dev{};
      if (const Status s = axis_device(on_stream_device.device(), &dev); !s) return s;
      if (plan.kernel == AxisKernel::rows)
        return run_exact_pieces<Terms>(origin, ExactRuns<UniformRows>{{plan.kept, plan.length}}, plan.outputs,
                                       plan.length, out, dev, stream);
      Dims outer = plan.kept;
      if (plan.kernel == AxisKernel::columns) {  // the innermost kept dimension back in
        outer.extents[outer.count] = plan.inner;
        outer.in[outer.count] = 1;
        outer.out[outer.count] = 1;
        ++outer.count;
      }
      return run_exact_pieces<Terms>(origin, ExactWalk{outer, plan.reduced, plan.length}, plan.outputs, plan.length,
                                     out, dev, stream);
    });
  }
  return Status::ok();  // not reached: check_exact_call refuses other result types
}

// One warp per segment (their lengths are in device memory: one slice each).
template <class Terms, class Out, class T, class Offset>
Status dispatch_exact_segments(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out,
                               cudaStream_t stream, const Options& opt) noexcept {
  if (const Status s = check_exact_call<Out>(opt); !s) return s;
  if constexpr (exact::is_exact_type_v<Out>)
    return run_segments(in, segments, begin, end, out, stream, [&](const AxisDevice& dev) {
      return run_exact_pieces<Terms>(in, ExactRuns<OffsetRows<Offset>>{{begin, end}}, segments, 0, out, dev, stream);
    });
  return Status::ok();  // not reached: check_exact_call refuses other result types
}

}  // namespace gpureduce::detail
