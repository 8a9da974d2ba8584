// gpureduce._core: the extension that Python's gpureduce package calls (gpureduce/_call.py). One
// function, reduce(), takes a request in plain numbers (call.hpp), enqueues it on the given stream
// and returns; errors come back as (code, message) for Python to raise as its own exceptions.
#include "call.hpp"

#include <nanobind/nanobind.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>

#include <gpureduce/exact/exchange.hpp>
#include <gpureduce/exact/format.hpp>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>
#include <tuple>
#include <utility>

namespace nb = nanobind;
using namespace gpureduce::python;

namespace {

void take_view(View& v, std::uintptr_t data, const nb::tuple& extents, const nb::tuple& strides) {
  const std::size_t n = nb::len(extents);
  if (n > std::size_t(max_dims) || nb::len(strides) != n) throw nb::value_error("gpureduce: more than 8 dimensions");
  v.data = data;
  v.ndim = int(n);
  for (std::size_t d = 0; d < n; ++d) {
    v.extents[d] = nb::cast<std::int64_t>(extents[d]);
    v.strides[d] = nb::cast<std::int64_t>(strides[d]);
  }
}

// Enters `device` for the call (the library takes the stream's device, and the null stream's is
// the current one) and goes back to the caller's current device after it.
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    if (cudaGetDevice(&previous_) == cudaSuccess && previous_ != device && cudaSetDevice(device) == cudaSuccess)
      entered_ = true;
  }
  ~DeviceScope() {
    if (entered_) cudaSetDevice(previous_);
  }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
  bool entered_ = false;
};

// Returns (0, "") on success, else (code, message): code a gpureduce::Errc, or -1 where this
// extension has no kernel for the combination.
std::pair<int, std::string> reduce(int op, int in_type, int out_type, int acc_type, std::uintptr_t in_data,
                                   const nb::tuple& extents, const nb::tuple& strides, const nb::tuple& axes,
                                   std::uintptr_t out_data, const nb::tuple& out_extents,
                                   const nb::tuple& out_strides, std::uintptr_t second, std::uintptr_t offsets,
                                   std::uint64_t segments, bool nan_ignore, bool batch_invariant, int device,
                                   std::uintptr_t stream) {
  if (in_type < 0 || in_type >= int(DType::count) || op < 0 || op >= int(Op::count))
    return {unsupported, "unknown type or operator"};
  const Runner run = runner(DType(in_type));
  if (run == nullptr) return {unsupported, "this build of gpureduce has no kernels for the input's dtype"};
  Call c;
  c.op = Op(op);
  c.out_type = DType(out_type);
  c.acc_type = DType(acc_type);
  take_view(c.in, in_data, extents, strides);
  take_view(c.out, out_data, out_extents, out_strides);
  const std::size_t naxes = nb::len(axes);
  if (naxes > std::size_t(max_dims)) throw nb::value_error("gpureduce: more than 8 axes");
  c.naxes = int(naxes);
  for (std::size_t k = 0; k < naxes; ++k) c.axes[k] = nb::cast<int>(axes[k]);
  c.second = second;
  c.offsets = offsets;
  c.segments = segments;
  c.nan_ignore = nan_ignore;
  c.batch_invariant = batch_invariant;
  c.device = device;
  c.stream = stream;
  Outcome o;
  {
    nb::gil_scoped_release released;
    DeviceScope on(device);
    o = run(c);
  }
  return {o.code, o.code == 0 ? std::string() : std::string(o.message)};
}

// segment_reduce's check of its offsets: (code, message, first bad segment).
std::tuple<int, std::string, std::uint64_t> check_offsets(std::uintptr_t offsets, std::uint64_t segments,
                                                          std::uint64_t n, int device, std::uintptr_t stream) {
  std::uint64_t first_bad = 0;
  Outcome o;
  {
    nb::gil_scoped_release released;
    DeviceScope on(device);
    o = check_segments(offsets, segments, n, stream, &first_bad);
  }
  return {o.code, o.code == 0 ? std::string() : std::string(o.message), first_bad};
}

// Orders `consumer` after the work enqueued so far on `producer` (the __cuda_array_interface__'s
// stream), as the protocol asks of a consumer on another stream.
std::pair<int, std::string> wait_stream(std::uintptr_t producer, std::uintptr_t consumer, int device) {
  DeviceScope on(device);
  cudaEvent_t e = nullptr;
  cudaError_t err = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  if (err == cudaSuccess) err = cudaEventRecord(e, reinterpret_cast<cudaStream_t>(producer));
  if (err == cudaSuccess) err = cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(consumer), e, 0);
  if (e != nullptr) cudaEventDestroy(e);
  return {err == cudaSuccess ? 0 : 5, err == cudaSuccess ? std::string() : std::string(cudaGetErrorString(err))};
}

// The device whose memory p points into, or -1 for host memory and unknown pointers.
int pointer_device(std::uintptr_t p) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, reinterpret_cast<const void*>(p)) != cudaSuccess) {
    cudaGetLastError();
    return -1;
  }
  return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

// The length of an exact sum's exchange vector (Op::exact_words) for element type t; 0 for types
// without exact sums.
int exchange_words(int t) {
  namespace exact = gpureduce::detail::exact;
  switch (DType(t)) {
    case DType::float16: return exact::exchange_words(exact::SumOf<__half>::range.words());
    case DType::bfloat16: return exact::exchange_words(exact::SumOf<__nv_bfloat16>::range.words());
    case DType::float32: return exact::exchange_words(exact::SumOf<float>::range.words());
    case DType::float64: return exact::exchange_words(exact::SumOf<double>::range.words());
    default: return 0;
  }
}

// The number of CUDA devices, 0 where there is no driver or no device.
int device_count() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "gpureduce's kernels; call them through the gpureduce package";
  m.def("reduce", &reduce);
  m.def("check_offsets", &check_offsets);
  m.def("wait_stream", &wait_stream);
  m.def("pointer_device", &pointer_device);
  m.def("device_count", &device_count);
  m.def("exchange_words", &exchange_words);
  nb::dict types;
  const char* names[] = {"bool",    "int8",   "uint8",   "int16",    "uint16",  "int32",  "uint32",
                         "int64",   "uint64", "float16", "bfloat16", "float32", "float64"};
  for (int t = 0; t < int(DType::count); ++t) types[names[t]] = nb::make_tuple(t, runner(DType(t)) != nullptr);
  m.attr("dtypes") = types;
  nb::dict ops;
  const char* op_names[] = {"sum",       "prod",   "min", "max",       "argmin", "argmax",    "min_index",
                            "max_index", "minmax", "all", "any",       "exact_sum", "dot",    "exact_dot",
                            "exact_words", "round_words"};
  for (int o = 0; o < int(Op::count); ++o) ops[op_names[o]] = o;
  m.attr("ops") = ops;
}
