// Reductions of an array sharded over the ranks of an NCCL communicator (docs/nccl.md): each rank
// passes its shard, the communicator and a stream; the result lands on every rank, or on `root`
// only. Link NCCL (the gpureduce::nccl CMake target); the rest of the library does not need it.
//
//   gpureduce::nccl::exact_sum(d_shard, n, d_out, comm, stream);  // the same bits on any number of GPUs
//   gpureduce::nccl::sum(d_shard, n, d_out, comm, stream);        // combined in rank order
//   gpureduce::nccl::argmax(d_shard, n, d_best, comm, stream);    // index in the whole array
//   gpureduce::nccl::sum(d_shard, n, d_out, comm, stream, gpureduce::nccl::Root{0});
//   gpureduce::nccl::release(comm);  // the calls' scratch, before ncclCommDestroy(comm)
//
// Shards are the array's consecutive pieces in rank order (rank 0 holds its first elements); any
// may be empty. Each call enqueues the local reduction, one NCCL collective and one small kernel on
// `stream`, and returns without synchronising; every rank must make the same calls in the same
// order, as with NCCL's own. The bits of the result:
// - exact_sum: the exact sum of the whole array, rounded once: the same as exact_sum of it on one
//   GPU and exact_sum_host, whatever the number of ranks or the shards' sizes;
// - integer sum, min and max: exact (sums wrap as on one GPU);
// - every other operator: the ranks' partials combined in rank order, so that for fixed shards
//   the bits do not depend on NCCL's algorithm, protocol, channels or message size;
// - argmin/argmax: the first index of the best value in the whole array (rank order breaks ties
//   across ranks); index -1, value the identity, where every shard is empty.
// Errors: as the rest of the library (gpureduce::error, or the try_ forms' Status), and
// Errc::nccl_error with NCCL's message where a collective fails. A rank whose call fails before its
// collective leaves the others waiting in theirs, as with NCCL's own calls (ncclCommAbort ends them).
#pragma once

#include <gpureduce/dispatch/dispatch_nccl.cuh>

namespace gpureduce::nccl {

// Where the result lands: on every rank (rank < 0, the default), or on that rank only (the others'
// `out` is not written and may be null).
struct Root {
  int rank = -1;
};

// Frees the device memory the calls on `comm` keep between calls (a few bytes a rank, more for
// axis reductions), once the device has finished with it: call it before ncclCommDestroy(comm).
inline Status try_release(ncclComm_t comm) noexcept {
  return detail::host_guarded([&] { return detail::RankScratchPool::instance().release(comm); });
}
inline void release(ncclComm_t comm) { throw_if_error(try_release(comm)); }

// The shard in[0, n) of this rank reduced with a built-in operator over every rank's shard.
template <class AccT = void, class T, class Out, class Op>
Status try_reduce(const T* in, std::uint64_t n, Out* out, Op op, ncclComm_t comm, cudaStream_t stream,
                  Root to = {}, const Options& opt = {}) noexcept {
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  const Op o = detail::with_options(op, opt);
  return detail::dispatch_ranks<A>(n, 1, out, o, comm, to.rank, stream,
                                   [&](A* mine) { return gpureduce::try_reduce<A>(in, n, mine, o, stream, opt); });
}

template <class AccT = void, class T, class Out, class Op>
void reduce(const T* in, std::uint64_t n, Out* out, Op op, ncclComm_t comm, cudaStream_t stream, Root to = {},
            const Options& opt = {}) {
  throw_if_error(try_reduce<AccT>(in, n, out, op, comm, stream, to, opt));
}

#define GPUREDUCE_NCCL_NAMED(name, Op)                                                                          \
  template <class AccT = void, class T, class Out>                                                              \
  void name(const T* in, std::uint64_t n, Out* out, ncclComm_t comm, cudaStream_t stream, Root to = {},         \
            const Options& opt = {}) {                                                                          \
    reduce<AccT>(in, n, out, Op{}, comm, stream, to, opt);                                                      \
  }                                                                                                             \
  template <class AccT = void, class T, class Out>                                                              \
  Status try_##name(const T* in, std::uint64_t n, Out* out, ncclComm_t comm, cudaStream_t stream, Root to = {}, \
                    const Options& opt = {}) noexcept {                                                         \
    return try_reduce<AccT>(in, n, out, Op{}, comm, stream, to, opt);                                           \
  }
GPUREDUCE_NCCL_NAMED(sum, Sum)
GPUREDUCE_NCCL_NAMED(product, Product)
GPUREDUCE_NCCL_NAMED(min, Min)
GPUREDUCE_NCCL_NAMED(max, Max)
GPUREDUCE_NCCL_NAMED(minmax, MinMaxOp)
GPUREDUCE_NCCL_NAMED(argmin, ArgMin)
GPUREDUCE_NCCL_NAMED(argmax, ArgMax)
GPUREDUCE_NCCL_NAMED(bit_and, BitAnd)
GPUREDUCE_NCCL_NAMED(bit_or, BitOr)
GPUREDUCE_NCCL_NAMED(bit_xor, BitXor)
GPUREDUCE_NCCL_NAMED(all, All)
GPUREDUCE_NCCL_NAMED(any, Any)
#undef GPUREDUCE_NCCL_NAMED

// The exact sum of every rank's shard (float, double, __half, __nv_bfloat16; up to 2^40 elements a
// rank), rounded once into *out, a floating type: each rank's exact sum as integer digits, added
// by one int64 all-reduce (or reduce), rounded once.
template <class T, class Out>
Status try_exact_sum(const T* in, std::uint64_t n, Out* out, ncclComm_t comm, cudaStream_t stream, Root to = {},
                     const Options& opt = {}) noexcept {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  if (const Status s = detail::check_exact_call<Out>(opt); !s) return s;
  if constexpr (detail::exact::is_exact_type_v<Out>) {
    using Terms = detail::exact::SumOf<T>;
    return detail::dispatch_exact_ranks<Terms>(out, comm, to.rank, stream, [&](detail::exact::ExchangeWord* x) {
      return detail::dispatch_exact<Terms>(detail::ArraySource<T>{in, {}}, n, x, stream, opt);
    });
  } else {
    return Status::ok();  // not reached: check_exact_call refuses other result types
  }
}

template <class T, class Out>
void exact_sum(const T* in, std::uint64_t n, Out* out, ncclComm_t comm, cudaStream_t stream, Root to = {},
               const Options& opt = {}) {
  throw_if_error(try_exact_sum(in, n, out, comm, stream, to, opt));
}

// An axis reduction (axis.cuh) of an array sharded along one of the reduced axes: each rank
// passes its piece (`shape` its own extents), and the results, laid out row-major over the kept
// axes, combine over the ranks as reduce's do. Not argmin/argmax (an index along sharded axes).
template <class AccT = void, class T, class Out, class Op>
Status try_reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, Op op, ncclComm_t comm,
                       cudaStream_t stream, Root to = {}, const Options& opt = {}) noexcept {
  static_assert(!detail::is_arg_extreme_v<Op>,
                "gpureduce: argmin/argmax over a sharded axis are not supported (reduce the whole array)");
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  const Op o = detail::with_options(op, opt);
  std::uint64_t outputs = 1;  // the kept extents' product (the local call checks the axes)
  for (int d = 0; d < shape.ndim && d < max_dims; ++d) {
    bool reduced = false;
    for (int k = 0; k < axes.count && k < max_dims; ++k)
      reduced |= axes.axes[k] == d || axes.axes[k] + shape.ndim == d;
    if (!reduced) outputs *= std::uint64_t(shape.extents[d] > 0 ? shape.extents[d] : 0);
  }
  if (shape.ndim < 0 || axes.count < 0) outputs = 1;  // refused by the local call
  return detail::dispatch_ranks<A>(1, outputs, out, o, comm, to.rank, stream, [&](A* mine) {
    return gpureduce::try_reduce_axes<A>(in, shape, axes, mine, o, stream, opt);
  });
}

template <class AccT = void, class T, class Out, class Op>
void reduce_axes(const T* in, const Shape& shape, const Axes& axes, Out* out, Op op, ncclComm_t comm,
                 cudaStream_t stream, Root to = {}, const Options& opt = {}) {
  throw_if_error(try_reduce_axes<AccT>(in, shape, axes, out, op, comm, stream, to, opt));
}

// A segmented reduction (axis.cuh) whose segments are spread over the ranks: every rank passes
// the same number of segments, segment r's part on this rank being in[begin[r], end[r]) of its
// shard (empty where it has none); out[r] combines the parts over the ranks as reduce does. Not
// argmin/argmax (an index within a segment spread over ranks).
template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
Status try_segmented_reduce(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out,
                            Op op, ncclComm_t comm, cudaStream_t stream, Root to = {},
                            const Options& opt = {}) noexcept {
  static_assert(!detail::is_arg_extreme_v<Op>,
                "gpureduce: argmin/argmax of segments spread over ranks are not supported");
  using A = detail::chosen_accumulator_t<AccT, T, Op>;
  detail::check_types<T, Op, A, Out>();
  const Op o = detail::with_options(op, opt);
  return detail::dispatch_ranks<A>(1, segments, out, o, comm, to.rank, stream, [&](A* mine) {
    return gpureduce::try_segmented_reduce<A>(in, segments, begin, end, mine, o, stream, opt);
  });
}

template <class AccT = void, class T, class Out, class Offset, class Op>
  requires std::is_integral_v<Offset>
void segmented_reduce(const T* in, std::uint64_t segments, const Offset* begin, const Offset* end, Out* out, Op op,
                      ncclComm_t comm, cudaStream_t stream, Root to = {}, const Options& opt = {}) {
  throw_if_error(try_segmented_reduce<AccT>(in, segments, begin, end, out, op, comm, stream, to, opt));
}

}  // namespace gpureduce::nccl
