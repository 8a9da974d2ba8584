// The kernels of one element type T behind the extension's Call (call.hpp): every operator through
// the axis API (axis.cuh), which takes a reduction over every element of a contiguous run as the
// full reduction. type_runner.cu.in instantiates it once per type, one translation unit each.
#pragma once

#include "call.hpp"

#include <gpureduce/axis.cuh>
#include <gpureduce/kernel/rank_kernels.cuh>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <span>
#include <type_traits>

namespace gpureduce::python {

template <DType D>
struct element;
#define GPUREDUCE_PY_ELEMENT(code, type) \
  template <>                            \
  struct element<DType::code> {          \
    using T = type;                      \
  };
GPUREDUCE_PY_ELEMENT(bool_, bool)
GPUREDUCE_PY_ELEMENT(int8, std::int8_t)
GPUREDUCE_PY_ELEMENT(uint8, std::uint8_t)
GPUREDUCE_PY_ELEMENT(int16, std::int16_t)
GPUREDUCE_PY_ELEMENT(uint16, std::uint16_t)
GPUREDUCE_PY_ELEMENT(int32, std::int32_t)
GPUREDUCE_PY_ELEMENT(uint32, std::uint32_t)
GPUREDUCE_PY_ELEMENT(int64, std::int64_t)
GPUREDUCE_PY_ELEMENT(uint64, std::uint64_t)
GPUREDUCE_PY_ELEMENT(float16, __half)
GPUREDUCE_PY_ELEMENT(bfloat16, __nv_bfloat16)
GPUREDUCE_PY_ELEMENT(float32, float)
GPUREDUCE_PY_ELEMENT(float64, double)
#undef GPUREDUCE_PY_ELEMENT

// The result type of a sum or product without dtype=: PyTorch's (bool and integers of up to 32
// bits into int64, uint8 included; 16-bit floats keep their type, accumulated in float), and
// uint64 for the wider unsigned types, as NumPy (PyTorch has no rule for them).
template <class T>
using default_sum_t = std::conditional_t<
    std::is_same_v<T, std::uint16_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t>,
    std::uint64_t, std::conditional_t<std::is_integral_v<T>, std::int64_t, T>>;

inline Outcome outcome(const Status& s) { return {int(s.code), s.message}; }
inline Outcome refused(const char* what) { return {unsupported, what}; }

template <class T>
class TypeRunner {
 public:
  explicit TypeRunner(const Call& c)
      : c_(c),
        in_(reinterpret_cast<const T*>(c.in.data)),
        shape_(std::span<const std::int64_t>(c.in.extents, std::size_t(c.in.ndim)),
               std::span<const std::int64_t>(c.in.strides, std::size_t(c.in.ndim))),
        axes_(std::span<const int>(c.axes, std::size_t(c.naxes))),
        out_shape_(std::span<const std::int64_t>(c.out.extents, std::size_t(c.out.ndim)),
                   std::span<const std::int64_t>(c.out.strides, std::size_t(c.out.ndim))),
        stream_(reinterpret_cast<cudaStream_t>(c.stream)) {
    opt_.nan = c.nan_ignore ? NanPolicy::ignore : NanPolicy::propagate;
    opt_.batch_invariant = c.batch_invariant;
  }

  Outcome run() const {
    switch (c_.op) {
      case Op::sum: return summed<Sum>();
      case Op::prod: return summed<Product>();
      case Op::min: return into<void, T>(Min{});
      case Op::max: return into<void, T>(Max{});
      case Op::argmin: return into<void, std::int64_t>(ArgMin{});
      case Op::argmax: return into<void, std::int64_t>(ArgMax{});
      case Op::min_index: return into<void, IndexedValue<T>>(ArgMin{});
      case Op::max_index: return into<void, IndexedValue<T>>(ArgMax{});
      case Op::minmax: return into<void, MinMax<T>>(MinMaxOp{});
      case Op::all: return into<void, bool>(All{});
      case Op::any: return into<void, bool>(Any{});
      case Op::exact_sum: return exact();
      case Op::dot: return dotted();
      case Op::exact_dot:
        if constexpr (std::is_same_v<T, float>)
          return outcome(try_exact_dot(in_, second(), count(), out<float>(), stream_));
        return refused("exact dot products take float32");
      case Op::exact_words: return exact_words();
      case Op::round_words: return round_words();
      default: return refused("unknown operator");
    }
  }

 private:
  template <class Out>
  Out* out() const {
    return reinterpret_cast<Out*>(c_.out.data);
  }
  const T* second() const { return reinterpret_cast<const T*>(c_.second); }
  std::uint64_t count() const {
    std::uint64_t n = 1;
    for (int d = 0; d < c_.in.ndim; ++d) n *= std::uint64_t(c_.in.extents[d]);
    return n;
  }

  const std::int64_t* offsets() const { return reinterpret_cast<const std::int64_t*>(c_.offsets); }

  template <class A, class Out, class Op>
  Outcome into(Op op) const {
    if (c_.offsets != 0)
      return outcome(try_segmented_reduce<A>(in_, c_.segments, offsets(), out<Out>(), op, stream_, opt_));
    return outcome(try_reduce_axes<A>(in_, shape_, axes_, out<Out>(), out_shape_, op, stream_, opt_));
  }

  // sum and prod: the library's accumulator into PyTorch's result type (or into T itself, which an
  // integer sum reaches by wrapping), or dtype='s type as accumulator and result.
  template <class Op>
  Outcome summed() const {
    using D = default_sum_t<T>;
    if (c_.acc_type == DType::count) {
      if (c_.out_type == dtype_of<D>()) return into<void, D>(Op{});
      if constexpr (!std::is_same_v<D, T> && !std::is_same_v<T, bool>)
        if (c_.out_type == dtype_of<T>()) return into<void, T>(Op{});
      return refused("result type of a sum or product");
    }
    if (c_.out_type != c_.acc_type) return refused("dtype= and the result type differ");
    switch (c_.acc_type) {
      case DType::int64: return into<std::int64_t, std::int64_t>(Op{});
      case DType::float32: return into<float, float>(Op{});
      case DType::float64: return into<double, double>(Op{});
      default: return refused("dtype= of a sum or product: int64, float32 or float64");
    }
  }

  // f.template operator()<Out>(), Out the exact sum's result type that out_type names: T or double.
  template <class F>
  Outcome into_exact_result(F&& f) const {
    if constexpr (exact_type<T>) {
      if (c_.out_type == dtype_of<T>()) return f.template operator()<T>();
      if constexpr (!std::is_same_v<T, double>)
        if (c_.out_type == DType::float64) return f.template operator()<double>();
      return refused("result type of an exact sum: the input's, or float64");
    }
    return refused("exact sums take float16, bfloat16, float32 or float64");
  }

  Outcome exact() const {
    return into_exact_result([this]<class Out>() { return exact_into<Out>(); });
  }

  template <class Out>
  Outcome exact_into() const {
    if (c_.offsets != 0)
      return outcome(try_exact_segmented_sum(in_, c_.segments, offsets(), out<Out>(), stream_, opt_));
    return outcome(try_exact_sum_axes(in_, shape_, axes_, out<Out>(), out_shape_, stream_, opt_));
  }

  // The whole input's exact sum as an exchange vector, into out (int64 words).
  Outcome exact_words() const {
    if constexpr (exact_type<T>)
      return outcome(detail::dispatch_exact<detail::exact::SumOf<T>>(
          detail::ArraySource<T>{in_, {}}, count(), out<detail::exact::ExchangeWord>(), stream_, opt_));
    return refused("exact sums take float16, bfloat16, float32 or float64");
  }

  // A summed exchange vector of T's exact sums (at in) rounded once into T or float64.
  Outcome round_words() const {
    return into_exact_result([this]<class Out>() { return rounded<Out>(); });
  }

  template <class Out>
  Outcome rounded() const {
    const auto* x = reinterpret_cast<const std::int64_t*>(c_.in.data);
    using Terms = detail::exact::SumOf<T>;
    detail::round_exchange_kernel<Terms, Out><<<1, detail::warp_threads, 0, stream_>>>(x, out<Out>());
    return outcome(Status::from_cuda(cudaGetLastError()));
  }

  Outcome dotted() const {
    using D = default_sum_t<T>;
    if (c_.acc_type == DType::count && c_.out_type == dtype_of<D>())
      return outcome(try_dot(in_, second(), count(), out<D>(), stream_, opt_));
    if (c_.acc_type == DType::float64 && c_.out_type == DType::float64)
      return outcome(try_dot<double>(in_, second(), count(), out<double>(), stream_, opt_));
    return refused("dtype= of a dot product: float64, or none");
  }

  template <class U>
  static constexpr bool exact_type = std::is_same_v<U, float> || std::is_same_v<U, double> ||
                                     std::is_same_v<U, __half> || std::is_same_v<U, __nv_bfloat16>;

  template <class U>
  static constexpr DType dtype_of() {
    if constexpr (std::is_same_v<U, bool>) return DType::bool_;
    else if constexpr (std::is_same_v<U, std::int8_t>) return DType::int8;
    else if constexpr (std::is_same_v<U, std::uint8_t>) return DType::uint8;
    else if constexpr (std::is_same_v<U, std::int16_t>) return DType::int16;
    else if constexpr (std::is_same_v<U, std::uint16_t>) return DType::uint16;
    else if constexpr (std::is_same_v<U, std::int32_t>) return DType::int32;
    else if constexpr (std::is_same_v<U, std::uint32_t>) return DType::uint32;
    else if constexpr (std::is_same_v<U, std::int64_t>) return DType::int64;
    else if constexpr (std::is_same_v<U, std::uint64_t>) return DType::uint64;
    else if constexpr (std::is_same_v<U, __half>) return DType::float16;
    else if constexpr (std::is_same_v<U, __nv_bfloat16>) return DType::bfloat16;
    else if constexpr (std::is_same_v<U, float>) return DType::float32;
    else return DType::float64;
  }

  const Call& c_;
  const T* in_;
  Shape shape_;
  Axes axes_;
  Shape out_shape_;
  cudaStream_t stream_;
  Options opt_{};
};

}  // namespace gpureduce::python
