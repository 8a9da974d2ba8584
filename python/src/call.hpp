// The extension's one request: an operator over strided arrays, in plain data that Python fills
// (gpureduce/_arrays.py) and one translation unit per element type carries out (type_runner.cu.in).
// No CUDA or Python headers: the module (module.cpp) and the kernels' units share it.
#pragma once

#include <cstdint>

namespace gpureduce::python {

// Element types, as the DType codes of gpureduce/_dtypes.py.
enum class DType : int {
  bool_,
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  float16,
  bfloat16,
  float32,
  float64,
  count,
};

// The operators. min_index/max_index write IndexedValue<T>{value, index} (torch.max(x, dim)),
// argmin/argmax the index alone, minmax MinMax<T>{min, max}. exact_words writes the exact sum of
// the whole (contiguous) input as its exchange vector (exact/exchange.hpp: int64 words, which
// other parts' vectors add to); round_words rounds such a vector, at `in`, into the result type
// (gpureduce.distributed's exact sums).
enum class Op : int {
  sum,
  prod,
  min,
  max,
  argmin,
  argmax,
  min_index,
  max_index,
  minmax,
  all,
  any,
  exact_sum,
  dot,
  exact_dot,
  exact_words,
  round_words,
  count,
};

inline constexpr int max_dims = 8;

struct View {
  std::uintptr_t data = 0;
  int ndim = 0;
  std::int64_t extents[max_dims] = {};
  std::int64_t strides[max_dims] = {};  // in elements
};

struct Call {
  Op op = Op::sum;
  DType out_type = DType::count;
  // sum, prod and dot: the accumulator, or DType::count for the library's (accumulator.hpp).
  DType acc_type = DType::count;
  View in;
  // The result: its kept axes' extents and strides (row-major contiguous where Python allocated it).
  View out;
  std::uintptr_t second = 0;  // dot's second operand, laid out as `in`
  // Segmented calls: `segments` results, segment r the input's elements [offsets[r],
  // offsets[r + 1]) (int64 CSR offsets in device memory); the input is then one contiguous run.
  std::uintptr_t offsets = 0;
  std::uint64_t segments = 0;
  int naxes = 0;
  int axes[max_dims] = {};
  bool nan_ignore = false;
  bool batch_invariant = false;  // Options::batch_invariant
  int device = 0;  // the arrays' device, current while the call is enqueued
  std::uintptr_t stream = 0;
};

// code: a gpureduce::Errc value (0: success), or unsupported for an operator, type or result type
// this extension has no kernel for.
struct Outcome {
  int code = 0;
  const char* message = "success";
};
inline constexpr int unsupported = -1;

using Runner = Outcome (*)(const Call&);

// The runner of element type t, or nullptr where this build compiled no kernels for it.
Runner runner(DType t);

}  // namespace gpureduce::python

namespace gpureduce::python {
// gpureduce::check_segments over int64 CSR offsets (it waits for the stream): Outcome as the runners'.
Outcome check_segments(std::uintptr_t offsets, std::uint64_t segments, std::uint64_t n, std::uintptr_t stream,
                       std::uint64_t* first_bad);
}  // namespace gpureduce::python
