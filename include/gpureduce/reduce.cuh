// The public API. Every call enqueues one kernel on `stream` and returns without synchronising;
// the result is written to device memory (`out`). The *_sync calls are the exceptions, and say so:
// they wait for the stream and return the value to the host.
//
//   gpureduce::sum(d_in, n, d_out, stream);            // d_out: int64 for int32 input
//   gpureduce::argmax(d_in, n, d_best, stream);        // IndexedValue<T>{value, index}
//   gpureduce::max(d_in, n, d_out, stream, {.nan = gpureduce::NanPolicy::ignore});
//   gpureduce::reduce(d_in, n, d_out, MyOp{}, identity, stream);  // associative, commutative
//   gpureduce::transform_reduce(d_in, n, d_out, ToPair{}, AddPairs{}, Pair{}, stream);  // a struct
//   gpureduce::reduce(d_z, n, d_sum, cuda::std::plus<>{}, cuda::std::complex<float>{}, stream);
//   float s = gpureduce::sum_sync(d_half, n, stream);  // waits for the stream
//
//   gpureduce::exact_sum(d_float, n, d_out, stream);   // the exact sum, rounded once
//   gpureduce::exact_dot(d_a, d_b, n, d_out, stream);  // float: the exact dot product, rounded once
//
// Errors throw gpureduce::error; the try_ forms (try_reduce, try_transform_reduce, try_dot,
// try_exact_sum, try_exact_dot) return a Status instead.
#pragma once

#include <gpureduce/dispatch/dispatch_exact.cuh>
#include <gpureduce/dispatch/dispatch_reduce.cuh>
#include <gpureduce/exact/host.hpp>
#include <gpureduce/error.hpp>
#include <gpureduce/options.hpp>
#include <gpureduce/thread/accumulator.hpp>
#include <gpureduce/thread/operators.hpp>

#include <cuda_runtime_api.h>

#include <cstdint>
#include <mutex>
#include <type_traits>

namespace gpureduce {

namespace detail {
template <class Op>
concept has_identity = requires(const Op& op) { op.template identity<int>(); };

// The overloads that take a caller's functor and its identity: not an operator with an identity
// of its own, and not a stream where the identity would go (reduce(in, n, out, Max{}, 0) is Max on
// the null stream).
template <class F, class Init>
concept functor_and_identity = !has_identity<F> && !std::is_convertible_v<Init, cudaStream_t>;

// An exact sum where it applies (a floating result), an error where the result type cannot hold
// it, or where NaN were to be skipped: the exact sum propagates NaN.
template <class Terms, class Out, class Source>
Status dispatch_exact_sum(Source src, std::uint64_t n, Out* out, cudaStream_t stream, const Options& opt) {
  if (const Status s = check_exact_call<Out>(opt); !s) return s;
  if constexpr (exact::is_exact_type_v<Out>) return dispatch_exact<Terms>(src, n, out, stream, opt);
  else return Status::ok();  // not reached: check_exact_call refuses other result types
}

template <class Op>
inline constexpr bool is_arg_op_v = std::is_same_v<Op, ArgMin> || std::is_same_v<Op, ArgMax>;

template <class Op>
inline constexpr bool is_bitwise_op_v =
    std::is_same_v<Op, BitAnd> || std::is_same_v<Op, BitOr> || std::is_same_v<Op, BitXor>;

// Under nvcc --extended-lambda, host code sees a __device__ lambda as a placeholder whose return
// type is unknown (nvcc's documentation), unless the lambda declares it: the accumulator of a
// transform is chosen from that type on the host.
template <class F>
inline constexpr bool host_sees_result_type_v =
#if defined(__CUDACC_EXTENDED_LAMBDA__) && !defined(__CUDA_ARCH__)
    !__nv_is_extended_device_lambda_closure_type(F) || __nv_is_extended_host_device_lambda_closure_type(F) ||
    __nv_is_extended_device_lambda_with_preserved_return_type(F);
#else
    true;
#endif

template <class Transform>
constexpr void check_transform() {
  static_assert(host_sees_result_type_v<Transform>,
                "gpureduce: a __device__ lambda transform needs a trailing return type "
                "([] __device__ (float x) -> double {...}), or make it __host__ __device__, or wrap it in "
                "cuda::proclaim_return_type<R>");
}
template <class Transform, class T>
using transformed_t = std::decay_t<std::invoke_result_t<Transform, T>>;

template <class AccT, class T, class Op>
using chosen_accumulator_t = std::conditional_t<std::is_void_v<AccT>, accumulator_t<T, Op>, AccT>;

// The built-in operators take their NaN policy from Options.
template <class Op>
Op with_options(Op op, const Options& opt) {
  if constexpr (requires { op.nan; }) op.nan = opt.nan;
  return op;
}

// The input of a caller's functor or transform: numbers, or records (structs) the functor or the
// transform takes.
template <class T>
constexpr void check_readable() {
  static_assert(is_element_v<T> || is_record_v<T>,
                "gpureduce: elements must be numbers (integer, floating-point, __half, __nv_bfloat16) or trivially "
                "copyable, default-constructible structs");
}

// Element (or transformed value) T under operator Op into accumulator A, written to Out.
template <class T, class Op, class A, class Out>
constexpr void check_types() {
  if constexpr (is_user_op_v<Op>) {
    check_readable<T>();
  } else if constexpr (is_complex_v<T>) {
    static_assert(std::is_same_v<Op, Sum> || std::is_same_v<Op, Product>,
                  "gpureduce: complex numbers take sum and product (they have no order, and no bits to and/or); "
                  "transform them for the others (their magnitudes, say)");
  } else {
    static_assert(is_element_v<T>,
                  "gpureduce: elements must be an integer, floating-point, __half or __nv_bfloat16 type "
                  "(reduce structs with your functor and its identity, or transform them to numbers)");
  }
  static_assert(has_identity<Op>,
                "gpureduce: this operator has no identity; pass your functor's with it: "
                "reduce(in, n, out, op, identity, stream), "
                "transform_reduce(in, n, out, transform, op, identity, stream)");
  static_assert(!is_bitwise_op_v<Op> || std::is_integral_v<T>, "gpureduce: bitwise and/or/xor need integer elements");
  static_assert(std::is_trivially_copyable_v<A> && sizeof(A) <= 16 && alignof(A) <= 16,
                "gpureduce: the accumulator must be trivially copyable and at most 16 bytes");
  static_assert(converts_to_result_v<Out, A>,
                "gpureduce: the accumulator type does not convert to the result pointer's type");
}
}  // namespace detail

// Reduces in[0, n) with a built-in operator (Sum, Product, Min, Max, MinMaxOp, ArgMin, ArgMax,
// BitAnd, BitOr, BitXor, All, Any) into *out. AccT overrides the accumulator (accumulator.hpp).
template <class AccT = void, class T, class Out, class Op>
Status try_reduce(const T* in, std::uint64_t n, Out* out, Op op, cudaStream_t stream = nullptr,
                  const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  if constexpr (detail::is_arg_op_v<Op>)
    if (n == 0) return Status::fail(Errc::empty_input, "argmin/argmax of an empty input has no index");
  return detail::dispatch_reduce<A>(detail::ArraySource<T>{in, {}}, n, out, detail::with_options(op, opt), stream, opt);
}

template <class AccT = void, class T, class Out, class Op>
void reduce(const T* in, std::uint64_t n, Out* out, Op op, cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_reduce<AccT>(in, n, out, op, stream, opt));
}

// A caller's functor f(a, b), associative and commutative, with its identity. The accumulator is
// the identity's type unless AccT says otherwise (functor_and_identity: a 0 after a built-in
// operator is the null stream, as in CUB, not an identity).
template <class AccT = void, class T, class Out, class F, class Init>
  requires detail::functor_and_identity<F, Init>
Status try_reduce(const T* in, std::uint64_t n, Out* out, F f, Init identity, cudaStream_t stream = nullptr,
                  const Options& opt = {}) noexcept {
  using A = std::conditional_t<std::is_void_v<AccT>, Init, AccT>;
  static_assert(std::is_invocable_r_v<A, F, A, A>, "gpureduce: the functor must take two accumulators and return one");
  using Op = detail::UserOp<F, A>;
  detail::check_types<T, Op, A, Out>();
  static_assert(std::is_convertible_v<T, A> || (detail::is_element_v<T> && detail::is_element_v<A>),
                "gpureduce: the elements do not convert to the accumulator (the identity's type): "
                "transform them (transform_reduce)");
  return detail::with_array_source(in, n, detail::Identity{}, [&](const auto& src) {
    return detail::dispatch_reduce<A>(src, n, out, Op{f, static_cast<A>(identity)}, stream, opt);
  });
}

template <class AccT = void, class T, class Out, class F, class Init>
  requires detail::functor_and_identity<F, Init>
void reduce(const T* in, std::uint64_t n, Out* out, F f, Init identity, cudaStream_t stream = nullptr,
            const Options& opt = {}) {
  throw_if_error(try_reduce<AccT>(in, n, out, f, identity, stream, opt));
}

// transform(x) applied to each element as it is loaded, then reduced with a built-in operator.
template <class AccT = void, class T, class Out, class Transform, class Op>
Status try_transform_reduce(const T* in, std::uint64_t n, Out* out, Transform transform, Op op,
                            cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  detail::check_transform<Transform>();
  detail::check_readable<T>();
  using U = detail::transformed_t<Transform, T>;
  using A = detail::chosen_accumulator_t<AccT, U, Op>;
  detail::check_types<U, Op, A, Out>();
  if constexpr (detail::is_arg_op_v<Op>)
    if (n == 0) return Status::fail(Errc::empty_input, "argmin/argmax of an empty input has no index");
  return detail::with_array_source(in, n, transform, [&](const auto& src) {
    return detail::dispatch_reduce<A>(src, n, out, detail::with_options(op, opt), stream, opt);
  });
}

template <class AccT = void, class T, class Out, class Transform, class Op>
void transform_reduce(const T* in, std::uint64_t n, Out* out, Transform transform, Op op,
                      cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_transform_reduce<AccT>(in, n, out, transform, op, stream, opt));
}

// transform(x) applied on load, then a caller's functor f(a, b) with its identity, as
// thrust::transform_reduce(first, last, transform, init, f). The accumulator is the identity's type
// unless AccT says otherwise; the transform's values convert to it, so they may be structs (a sum
// and a sum of squares, say) that the functor combines.
template <class AccT = void, class T, class Out, class Transform, class F, class Init>
  requires detail::functor_and_identity<F, Init>
Status try_transform_reduce(const T* in, std::uint64_t n, Out* out, Transform transform, F f, Init identity,
                            cudaStream_t stream = nullptr, const Options& opt = {}) noexcept {
  detail::check_transform<Transform>();
  using A = std::conditional_t<std::is_void_v<AccT>, Init, AccT>;
  static_assert(std::is_invocable_r_v<A, F, A, A>, "gpureduce: the functor must take two accumulators and return one");
  static_assert(std::is_convertible_v<detail::transformed_t<Transform, T>, A>,
                "gpureduce: the transform's result does not convert to the accumulator (the identity's type)");
  using Op = detail::UserOp<F, A>;
  detail::check_types<T, Op, A, Out>();
  return detail::with_array_source(in, n, transform, [&](const auto& src) {
    return detail::dispatch_reduce<A>(src, n, out, Op{f, static_cast<A>(identity)}, stream, opt);
  });
}

template <class AccT = void, class T, class Out, class Transform, class F, class Init>
  requires detail::functor_and_identity<F, Init>
void transform_reduce(const T* in, std::uint64_t n, Out* out, Transform transform, F f, Init identity,
                      cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_transform_reduce<AccT>(in, n, out, transform, f, identity, stream, opt));
}

// sum a[i] * b[i], products formed in the accumulator type (the sum's: int64 for int32, float for
// half, ...).
template <class AccT = void, class T, class Out>
Status try_dot(const T* a, const T* b, std::uint64_t n, Out* out, cudaStream_t stream = nullptr,
               const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Sum>;
  detail::check_types<T, Sum, A, Out>();
  return detail::with_product_source<T, A>(
      a, b, detail::shifted_dot_b<sizeof(T)>(n, detail::is_floating_v<T>), [&](const auto& src) {
        return detail::dispatch_reduce<A>(src, n, out, detail::with_options(Sum{}, opt), stream, opt);
      });
}

template <class AccT = void, class T, class Out>
void dot(const T* a, const T* b, std::uint64_t n, Out* out, cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_dot<AccT>(a, b, n, out, stream, opt));
}

// The named operators. Out may be any type the accumulator converts to (result_t<T, Op> keeps the
// full accumulator; a narrower type rounds once, at the end).
// try_sum, try_argmax, ...: the same, returning a Status instead of throwing.
#define GPUREDUCE_NAMED(name, Op)                                                                              \
  template <class AccT = void, class T, class Out>                                                             \
  void name(const T* in, std::uint64_t n, Out* out, cudaStream_t stream = nullptr, const Options& opt = {}) {      \
    reduce<AccT>(in, n, out, Op{}, stream, opt);                                                               \
  }                                                                                                            \
  template <class AccT = void, class T, class Out>                                                             \
  Status try_##name(const T* in, std::uint64_t n, Out* out, cudaStream_t stream = nullptr,                     \
                    const Options& opt = {}) noexcept {                                                        \
    return try_reduce<AccT>(in, n, out, Op{}, stream, opt);                                                    \
  }
GPUREDUCE_NAMED(sum, Sum)
GPUREDUCE_NAMED(product, Product)
GPUREDUCE_NAMED(min, Min)
GPUREDUCE_NAMED(max, Max)
GPUREDUCE_NAMED(minmax, MinMaxOp)
GPUREDUCE_NAMED(argmin, ArgMin)
GPUREDUCE_NAMED(argmax, ArgMax)
GPUREDUCE_NAMED(bit_and, BitAnd)
GPUREDUCE_NAMED(bit_or, BitOr)
GPUREDUCE_NAMED(bit_xor, BitXor)
GPUREDUCE_NAMED(all, All)
GPUREDUCE_NAMED(any, Any)
#undef GPUREDUCE_NAMED

// The exact sum of in[0, n) (float, double, __half, __nv_bfloat16), rounded once to nearest even
// into *out, a floating type (docs/exact.md): the same bits on every device, launch and input
// order, and on the host (exact_sum_host). NaN propagate; NanPolicy::ignore is refused.
template <class T, class Out>
Status try_exact_sum(const T* in, std::uint64_t n, Out* out, cudaStream_t stream = nullptr,
                     const Options& opt = {}) noexcept {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  return detail::dispatch_exact_sum<detail::exact::SumOf<T>>(detail::ArraySource<T>{in, {}}, n, out, stream, opt);
}

template <class T, class Out>
void exact_sum(const T* in, std::uint64_t n, Out* out, cudaStream_t stream = nullptr, const Options& opt = {}) {
  throw_if_error(try_exact_sum(in, n, out, stream, opt));
}

// The exact sum of a[i] * b[i] (float: each product is exact in double), rounded once into *out
// (exact_dot_host on the host).
template <class T, class Out>
Status try_exact_dot(const T* a, const T* b, std::uint64_t n, Out* out, cudaStream_t stream = nullptr,
                     const Options& opt = {}) noexcept {
  static_assert(std::is_same_v<T, float>, "gpureduce: exact dot products take float");
  return detail::dispatch_exact_sum<detail::exact::FloatProducts>(detail::ProductSource<float, double>{a, b}, n, out,
                                                                  stream, opt);
}

template <class T, class Out>
void exact_dot(const T* a, const T* b, std::uint64_t n, Out* out, cudaStream_t stream = nullptr,
               const Options& opt = {}) {
  throw_if_error(try_exact_dot(a, b, n, out, stream, opt));
}

namespace detail {
// Runs reduce_into(d) with d the stream's small result buffer in the library workspace, waits for
// `stream` and returns *d; calls from several threads on one stream take turns at the buffer.
// Refused on a stream being captured, before anything joins the capture: waiting would fail and
// invalidate the caller's capture.
template <class R, class Reduce>
R reduce_to_host(cudaStream_t stream, Reduce&& reduce_into) {
  static_assert(sizeof(R) <= slot_result_bytes);
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  throw_if_error(Status::from_cuda(cudaStreamIsCapturing(stream, &capture)));
  if (capture != cudaStreamCaptureStatusNone)
    throw error(Status::fail(Errc::invalid_argument,
                             "a _sync call waits for its stream, which cannot be done while the stream is captured: "
                             "reduce into a device pointer instead"));
  StreamDeviceScope on_stream_device;  // the slot is allocated on the stream's device
  throw_if_error(on_stream_device.enter(stream));
  unsigned char* slot = nullptr;
  std::mutex* result_lock = nullptr;
  throw_if_error(workspace_result(stream, &slot, &result_lock));
  const std::lock_guard turn(*result_lock);
  R* d_result = reinterpret_cast<R*>(slot);
  reduce_into(d_result);
  R result;
  throw_if_error(Status::from_cuda(cudaMemcpyAsync(&result, d_result, sizeof(R), cudaMemcpyDeviceToHost, stream)));
  throw_if_error(Status::from_cuda(cudaStreamSynchronize(stream)));
  return result;
}
}  // namespace detail

// Reduces, then waits for `stream` and returns the result to the host (through the stream's own
// small result buffer in the library workspace). Refused on a stream being captured.
template <class AccT = void, class T, class Op>
auto reduce_sync(const T* in, std::uint64_t n, Op op, cudaStream_t stream = nullptr, const Options& opt = {}) {
  using R = std::conditional_t<std::is_void_v<AccT>, result_t<T, Op>, AccT>;
  return detail::reduce_to_host<R>(stream, [&](R* d) { reduce<AccT>(in, n, d, op, stream, opt); });
}

// The same with a caller's functor and its identity (as thrust::reduce(first, last, init, op)):
// the result has the accumulator's type, the identity's unless AccT says otherwise.
template <class AccT = void, class T, class F, class Init>
  requires detail::functor_and_identity<F, Init>
auto reduce_sync(const T* in, std::uint64_t n, F f, Init identity, cudaStream_t stream = nullptr,
                 const Options& opt = {}) {
  using A = std::conditional_t<std::is_void_v<AccT>, Init, AccT>;
  return detail::reduce_to_host<A>(stream, [&](A* d) { reduce<AccT>(in, n, d, f, identity, stream, opt); });
}

// transform_reduce, then the value to the host, as reduce_sync.
template <class AccT = void, class T, class Transform, class Op>
auto transform_reduce_sync(const T* in, std::uint64_t n, Transform transform, Op op, cudaStream_t stream = nullptr,
                           const Options& opt = {}) {
  detail::check_transform<Transform>();
  using R = std::conditional_t<std::is_void_v<AccT>, result_t<detail::transformed_t<Transform, T>, Op>, AccT>;
  return detail::reduce_to_host<R>(stream,
                                   [&](R* d) { transform_reduce<AccT>(in, n, d, transform, op, stream, opt); });
}

template <class AccT = void, class T, class Transform, class F, class Init>
  requires detail::functor_and_identity<F, Init>
auto transform_reduce_sync(const T* in, std::uint64_t n, Transform transform, F f, Init identity,
                           cudaStream_t stream = nullptr, const Options& opt = {}) {
  using A = std::conditional_t<std::is_void_v<AccT>, Init, AccT>;
  return detail::reduce_to_host<A>(
      stream, [&](A* d) { transform_reduce<AccT>(in, n, d, transform, f, identity, stream, opt); });
}

template <class AccT = void, class T>
auto dot_sync(const T* a, const T* b, std::uint64_t n, cudaStream_t stream = nullptr, const Options& opt = {}) {
  using R = std::conditional_t<std::is_void_v<AccT>, result_t<T, Sum>, AccT>;
  return detail::reduce_to_host<R>(stream, [&](R* d) { dot<AccT>(a, b, n, d, stream, opt); });
}

template <class AccT = void, class T>
auto sum_sync(const T* in, std::uint64_t n, cudaStream_t stream = nullptr, const Options& opt = {}) {
  return reduce_sync<AccT>(in, n, Sum{}, stream, opt);
}

}  // namespace gpureduce
