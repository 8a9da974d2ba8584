// Axis and segmented reductions: one result per row, column, slice of an N-D array, or segment.
// Same conventions as the full reductions (reduce.cuh): asynchronous on `stream`, results in
// device memory, errors as gpureduce::error (try_ forms: a Status), the same operators,
// accumulators and NaN rules.
//
//   gpureduce::sum_axes(d_x, gpureduce::Shape{4096, 4096, 4}, {1}, d_out, stream);  // 4096 x 4
//   gpureduce::max_axes(d_x, gpureduce::Shape{{n, m}, {1, n}}, {-1}, d_out);       // column-major
//   gpureduce::reduce_rows(d_m, rows, cols, ld, d_out, gpureduce::Sum{}, stream);   // one per row
//   gpureduce::segmented_sum(d_x, segments, d_offsets, d_out, stream);              // CSR offsets
//   gpureduce::segmented_argmax(d_x, segments, d_begin, d_end, d_best, stream);     // begin/end
//   gpureduce::exact_sum_axes(d_x, gpureduce::Shape{rows, cols}, {1}, d_out);       // rounded once
//
// argmin/argmax index along the reduced axes (row-major over them) or within the segment, first
// on ties; an empty row or segment gives the identity (argmin/argmax: the identity's value and
// index -1).
#pragma once

#include <gpureduce/dispatch/dispatch_axis.cuh>
#include <gpureduce/dispatch/dispatch_exact_axis.cuh>
#include <gpureduce/reduce.cuh>
#include <gpureduce/shape.hpp>

#include <cstdint>
#include <type_traits>

namespace gpureduce {

namespace detail {
template <class Offset>
Status check_offsets(std::uint64_t segments, const Offset* begin, const Offset* end, std::uint64_t n, bool csr,
                     cudaStream_t stream, std::uint64_t* first_bad) noexcept {
  if (first_bad) *first_bad = ~std::uint64_t(0);
  if (segments == 0) return Status::ok();
  if (begin == nullptr || end == nullptr) return Status::fail(Errc::null_pointer, "offsets pointer is null");
  if (segments > std::uint64_t(INT64_MAX))
    return Status::fail(Errc::invalid_argument, "segment count exceeds 2^63 - 1");
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (const cudaError_t e = cudaStreamIsCapturing(stream, &capture); e != cudaSuccess) return Status::from_cuda(e);
  if (capture != cudaStreamCaptureStatusNone)
    return Status::fail(Errc::invalid_argument, "check_segments waits for its stream: not while it is captured");
  return host_guarded([&]() -> Status {
    try {
      const auto first = reduce_to_host<unsigned long long>(stream, [&](unsigned long long* d) {
        throw_if_error(Status::from_cuda(cudaMemsetAsync(d, 0xff, sizeof *d, stream)));
        const std::uint64_t blocks = ceil_div(segments, axis_threads);
        offsets_check_kernel<<<unsigned(blocks < 4096 ? blocks : 4096), axis_threads, 0, stream>>>(
            segments, begin, end, n, csr, d);
        throw_if_error(Status::from_cuda(cudaGetLastError()));
      });
      if (first == ~0ull) return Status::ok();
      if (first_bad) *first_bad = first >> 2;
      switch (OffsetsRule(first & 3)) {
        case OffsetsRule::begin_outside:
          return Status::fail(Errc::invalid_argument, "a segment begins outside the input");
        case OffsetsRule::end_outside: return Status::fail(Errc::invalid_argument, "a segment ends outside the input");
        default: return Status::fail(Errc::invalid_argument, "CSR offsets decrease");
      }
    } catch (const error& e) {
      return e.status();
    }
  });
}
}  // namespace detail

// Reduces `in`, laid out as `shape`, over `axes` with a built-in operator into `out`, laid out
// row-major over the kept axes (in their order), or as `out_shape` (the kept axes' extents, or
// every axis's with 1 on the reduced ones, as keepdim gives; any strides).
template <class AccT = void, class T, class Out, class Op>
Status try_reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape& out_shape, Op op,
                       cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  return detail::dispatch_axes<A>(in, shape, axes, out, &out_shape, detail::with_options(op, opt), stream, opt);
}

template <class AccT = void, class T, class Out, class Op>
Status try_reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, Op op,
                       cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  return detail::dispatch_axes<A>(in, shape, axes, out, nullptr, detail::with_options(op, opt), stream, opt);
}

template <class AccT = void, class T, class Out, class Op>
void reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, Op op, cudaStream_t stream = nullptr,
                 const Options& opt = {}) {
  throw_if_error(try_reduce_axes<AccT>(in, shape, axes, out, op, stream, opt));
}

template <class AccT = void, class T, class Out, class Op>
void reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape& out_shape, Op op,
                 cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_reduce_axes<AccT>(in, shape, axes, out, out_shape, op, stream, opt));
}

// A caller's functor f(a, b) with its identity (as reduce's).
template <class AccT = void, class T, class Out, class F, class Init>
  requires detail::functor_and_identity<F, Init>
Status try_reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, F f, Init identity,
                       cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  using A = std::conditional_t<std::is_void_v<AccT>, Init, AccT>;
  static_assert(std::is_invocable_r_v<A, F, A, A>, "gpureduce: the functor must take two accumulators and return one");
  using Op = detail::UserOp<F, A>;
  detail::check_types<T, Op, A, Out>();
  return detail::dispatch_axes<A>(in, shape, axes, out, nullptr, Op{f, static_cast<A>(identity)}, stream, opt);
}

template <class AccT = void, class T, class Out, class F, class Init>
  requires detail::functor_and_identity<F, Init>
void reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, F f, Init identity,
                 cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_reduce_axes<AccT>(in, shape, axes, out, f, identity, stream, opt));
}

// One result per row of a rows x cols matrix whose rows are `ld` elements apart (row-major), or
// per column.
template <class AccT = void, class T, class Out, class Op>
void reduce_rows(const T* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, Out* out, Op op,
                 cudaStream_t stream = nullptr, const Options& opt = {}) {
  reduce_axes<AccT>(in, Shape{{rows, cols}, {ld, 1}}, {1}, out, op, stream, opt);
}
template <class AccT = void, class T, class Out, class Op>
void reduce_columns(const T* in, std::int64_t rows, std::int64_t cols, std::int64_t ld, Out* out, Op op,
                    cudaStream_t stream = nullptr, const Options& opt = {}) {
  reduce_axes<AccT>(in, Shape{{rows, cols}, {ld, 1}}, {0}, out, op, stream, opt);
}

// Segment r is in[begin[r], end[r]) (int32 or int64 offsets, in device memory); out[r] its
// result. An end at or before its begin is an empty segment.
template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
Status try_segmented_reduce(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out,
                            Op op, cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  return detail::dispatch_segments<A>(in, segments, begin, end, out, detail::with_options(op, opt), stream, opt);
}

// CSR offsets: segment r is in[offsets[r], offsets[r + 1]) (segments + 1 offsets).
template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
Status try_segmented_reduce(const T* in, std::uint64_t segments, const Offset* offsets, Out* out, Op op,
                            cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  return detail::dispatch_csr_segments<A>(in, segments, offsets, out, detail::with_options(op, opt), stream, opt);
}

// Fixed-size segments: segment r is in[r * size, (r + 1) * size).
template <class AccT = void, class T, class Out, class Op>
Status try_segmented_reduce(const T* in, std::uint64_t segments, std::uint64_t size, Out* out, Op op,
                            cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  if (segments > std::uint64_t(INT64_MAX) || size > std::uint64_t(INT64_MAX))
    return Status::fail(Errc::invalid_argument, "segment count or size exceeds 2^63 - 1");
  return try_reduce_axes<AccT>(in, Shape{std::int64_t(segments), std::int64_t(size)}, {1}, out, op, stream, opt);
}

template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
void segmented_reduce(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out, Op op,
                      cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_segmented_reduce<AccT>(in, segments, begin, end, out, op, stream, opt));
}
template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
void segmented_reduce(const T* in, std::uint64_t segments, const Offset* offsets, Out* out, Op op,
                      cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_segmented_reduce<AccT>(in, segments, offsets, out, op, stream, opt));
}
template <class AccT = void, class T, class Out, class Op>
void segmented_reduce(const T* in, std::uint64_t segments, std::uint64_t size, Out* out, Op op,
                      cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_segmented_reduce<AccT>(in, segments, size, out, op, stream, opt));
}

// Exact sums per result (docs/exact.md): each the real sum of its elements (float, double, __half
// or __nv_bfloat16) rounded once to nearest even into Out (a floating type), so that its bits
// depend on those values alone, not on the layout, the batch, the result's position or the GPU.
// NaN propagate; NanPolicy::ignore is refused. Arguments as sum_axes and segmented_sum.
template <class T, class Out>
Status try_exact_sum_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, cudaStream_t stream = nullptr,
                          const Options& opt = {}) noexcept {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  return detail::dispatch_exact_axes<detail::exact::SumOf<T>>(in, shape, axes, out, nullptr, stream, opt);
}
template <class T, class Out>
Status try_exact_sum_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape& out_shape,
                          cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  return detail::dispatch_exact_axes<detail::exact::SumOf<T>>(in, shape, axes, out, &out_shape, stream, opt);
}
template <class T, class Out>
void exact_sum_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, cudaStream_t stream = nullptr,
                    const Options& opt = {}) {
  throw_if_error(try_exact_sum_axes(in, shape, axes, out, stream, opt));
}
template <class T, class Out>
void exact_sum_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, const Shape& out_shape,
                    cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_exact_sum_axes(in, shape, axes, out, out_shape, stream, opt));
}

template <class T, class Out, class Offset>
  requires std::is_integral_v<Offset>
Status try_exact_segmented_sum(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out,
                               cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  return detail::dispatch_exact_segments<detail::exact::SumOf<T>>(in, segments, begin, end, out, stream, opt);
}
template <class T, class Out, class Offset>
  requires std::is_integral_v<Offset>
Status try_exact_segmented_sum(const T* in, std::uint64_t segments, const Offset* offsets, Out* out,
                               cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  return try_exact_segmented_sum(in, segments, offsets, offsets ? offsets + 1 : nullptr, out, stream, opt);
}
template <class T, class Out>
Status try_exact_segmented_sum(const T* in, std::uint64_t segments, std::uint64_t size, Out* out,
                               cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  if (segments > std::uint64_t(INT64_MAX) || size > std::uint64_t(INT64_MAX))
    return Status::fail(Errc::invalid_argument, "segment count or size exceeds 2^63 - 1");
  return try_exact_sum_axes(in, Shape{std::int64_t(segments), std::int64_t(size)}, {1}, out, stream, opt);
}
template <class T, class Out, class Offsets>
void exact_segmented_sum(const T* in, std::uint64_t segments, Offsets offsets, Out* out, cudaStream_t stream = nullptr,
                         const Options& opt = {}) {
  throw_if_error(try_exact_segmented_sum(in, segments, offsets, out, stream, opt));
}
template <class T, class Out, class Offset>
  requires(!std::is_same_v<std::remove_cv_t<Out>, CUstream_st>)
void exact_segmented_sum(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out,
                         cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_exact_segmented_sum(in, segments, begin, end, out, stream, opt));
}

// Checks segment offsets for an input of n elements on the device and waits for the answer (so
// not on a stream being captured): every begin and end within [0, n], and CSR offsets
// non-decreasing. Errc::invalid_argument names the rule; *first_bad (where given) receives the
// first segment that breaks it. The segmented calls do not check their offsets, which stay in
// device memory: call this where they come from outside.
template <class Offset>
  requires std::is_integral_v<Offset>
Status check_segments(std::uint64_t segments, const Offset* begin, const Offset* end, std::uint64_t n,
                      cudaStream_t stream = nullptr, std::uint64_t* first_bad = nullptr) noexcept {
  return detail::check_offsets(segments, begin, end, n, false, stream, first_bad);
}
template <class Offset>
  requires std::is_integral_v<Offset>
Status check_segments(std::uint64_t segments, const Offset* offsets, std::uint64_t n, cudaStream_t stream = nullptr,
                      std::uint64_t* first_bad = nullptr) noexcept {
  return detail::check_offsets(segments, offsets, offsets ? offsets + 1 : nullptr, n, true, stream, first_bad);
}

// The named operators: sum_axes, max_axes, argmax_axes, ...; segmented_sum, segmented_max, ...
// (and their try_ forms), each with the arguments of reduce_axes and segmented_reduce less the
// operator.
#define GPUREDUCE_NAMED_AXES(name, Op)                                                                      \
  template <class AccT = void, class T, class Out>                                                          \
  void name##_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, cudaStream_t stream = nullptr, \
                   const Options& opt = {}) {                                                               \
    reduce_axes<AccT>(in, shape, axes, out, Op{}, stream, opt);                                             \
  }                                                                                                         \
  template <class AccT = void, class T, class Out>                                                          \
  Status try_##name##_axes(const T* in, const Shape& shape, const Axes& axes, Out* out,                     \
                           cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {               \
    return try_reduce_axes<AccT>(in, shape, axes, out, Op{}, stream, opt);                                  \
  }                                                                                                         \
  template <class AccT = void, class T, class Out, class Offsets>                                           \
  Status try_segmented_##name(const T* in, std::uint64_t segments, Offsets offsets, Out* out,               \
                              cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {            \
    return try_segmented_reduce<AccT>(in, segments, offsets, out, Op{}, stream, opt);                       \
  }                                                                                                         \
  template <class AccT = void, class T, class Out, class Offset>                                            \
    requires(!std::is_same_v<std::remove_cv_t<Out>, CUstream_st>)                                           \
  Status try_segmented_##name(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end,   \
                              Out* out, cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {  \
    return try_segmented_reduce<AccT>(in, segments, begin, end, out, Op{}, stream, opt);                    \
  }                                                                                                         \
  template <class AccT = void, class T, class Out, class Offsets>                                           \
  void segmented_##name(const T* in, std::uint64_t segments, Offsets offsets, Out* out,                     \
                        cudaStream_t stream = nullptr, const Options& opt = {}) {                           \
    throw_if_error(try_segmented_##name<AccT>(in, segments, offsets, out, stream, opt));                    \
  }                                                                                                         \
  template <class AccT = void, class T, class Out, class Offset>                                            \
    requires(!std::is_same_v<std::remove_cv_t<Out>, CUstream_st>)                                           \
  void segmented_##name(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out, \
                        cudaStream_t stream = nullptr, const Options& opt = {}) {                           \
    throw_if_error(try_segmented_##name<AccT>(in, segments, begin, end, out, stream, opt));                 \
  }
GPUREDUCE_NAMED_AXES(sum, Sum)
GPUREDUCE_NAMED_AXES(product, Product)
GPUREDUCE_NAMED_AXES(min, Min)
GPUREDUCE_NAMED_AXES(max, Max)
GPUREDUCE_NAMED_AXES(minmax, MinMaxOp)
GPUREDUCE_NAMED_AXES(argmin, ArgMin)
GPUREDUCE_NAMED_AXES(argmax, ArgMax)
GPUREDUCE_NAMED_AXES(bit_and, BitAnd)
GPUREDUCE_NAMED_AXES(bit_or, BitOr)
GPUREDUCE_NAMED_AXES(bit_xor, BitXor)
GPUREDUCE_NAMED_AXES(all, All)
GPUREDUCE_NAMED_AXES(any, Any)
#undef GPUREDUCE_NAMED_AXES

}  // namespace gpureduce
