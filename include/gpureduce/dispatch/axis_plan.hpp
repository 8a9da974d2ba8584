// How an axis reduction runs: the array's dimensions split into kept ones (one output each) and
// reduced ones, size-1 dimensions dropped, and adjacent dimensions that are contiguous in memory
// merged, so that most requests become rows (each output reads one contiguous run), columns (the
// outputs' innermost dimension is contiguous in the input and in the result) or, failing both, the
// general form (any strides). Host arithmetic only, tested on the CPU
// (tests/cpu/test_axis_plan.cpp).
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/error.hpp>
#include <gpureduce/shape.hpp>

#include <cstdint>
#include <utility>

namespace gpureduce::detail {

enum class AxisKernel : unsigned char {
  none,     // no outputs: nothing to launch
  rows,     // each output reduces `length` contiguous elements from its kept offset
  columns,  // `inner` adjacent outputs reduce `length` elements each, `row_stride` apart
  general,  // any strides: the reduced dimensions walked by index
};

// Dimensions of one kind, outermost first, with input strides and (kept ones) result strides.
// offsets(): the input and result offsets (elements) of row-major index o over them; the kernels
// map kept and reduced indices with it.
struct Dims {
  int count = 0;
  std::int64_t extents[max_dims] = {};
  std::int64_t in[max_dims] = {};
  std::int64_t out[max_dims] = {};

  GPUREDUCE_HD void offsets(std::uint64_t o, std::int64_t* in_off, std::int64_t* out_off) const {
    if (count <= 1) {
      *in_off = count ? std::int64_t(o) * in[0] : 0;
      *out_off = count ? std::int64_t(o) * out[0] : 0;
      return;
    }
    std::int64_t a = 0, b = 0;
    for (int k = count - 1; k >= 0; --k) {
      const std::uint64_t e = std::uint64_t(extents[k]);
      const std::uint64_t q = o / e;
      const std::int64_t r = std::int64_t(o - q * e);
      a += r * in[k];
      b += r * out[k];
      o = q;
    }
    *in_off = a;
    *out_off = b;
  }
};

struct AxisPlan {
  AxisKernel kernel = AxisKernel::none;
  std::int64_t base = 0;      // element offset of the input's origin (negative reduced strides flipped)
  std::uint64_t outputs = 0;  // results written: the product of the kept extents
  std::uint64_t length = 0;   // elements each result reduces: the product of the reduced extents
  Dims kept;                  // merged kept dimensions (columns: less the innermost)
  Dims reduced;               // merged reduced dimensions
  std::int64_t inner = 1;     // columns: the innermost kept extent (input and result stride 1)
  std::int64_t row_stride = 1;  // rows and columns: the reduced dimension's stride (rows: 1)
  // The elements read and written, as offsets from the input and result pointers: [lo, hi].
  std::int64_t in_lo = 0, in_hi = 0, out_lo = 0, out_hi = 0;
};

namespace axis_plan {
inline bool mul_overflows(std::uint64_t a, std::uint64_t b, std::uint64_t* r) {
  if (a != 0 && b > std::uint64_t(INT64_MAX) / a) return true;
  *r = a * b;
  return false;
}

// Merges dimension k into k - 1 where k - 1 steps over exactly k's extent, in the input and, for
// kept dimensions, in the result.
inline void merge_adjacent(Dims& d, bool with_out) {
  int m = 0;
  for (int k = 0; k < d.count; ++k) {
    if (m > 0 && d.in[m - 1] == d.extents[k] * d.in[k] && (!with_out || d.out[m - 1] == d.extents[k] * d.out[k])) {
      d.extents[m - 1] *= d.extents[k];
      d.in[m - 1] = d.in[k];
      d.out[m - 1] = d.out[k];
      continue;
    }
    d.extents[m] = d.extents[k];
    d.in[m] = d.in[k];
    d.out[m] = d.out[k];
    ++m;
  }
  d.count = m;
}

inline std::int64_t magnitude(std::int64_t s) { return s < 0 ? -s : s; }
}  // namespace axis_plan

// Plans the reduction of `in` over `axes` into a result laid out as `out` (nullptr: row-major over
// the kept dimensions; otherwise its ndim is the kept dimensions' count, or in.ndim with extent 1
// on the reduced axes, as keepdim gives, and its extents match). Order: argmin/argmax index the
// reduced elements row-major in the caller's order of dimensions, so for them (ordered) reduced
// dimensions are neither reordered nor flipped; other operators' are sorted by stride and
// negative strides flipped, which merges more of them.
inline Status plan_axes(const Shape& in, const Axes& axes, const Shape* out, bool ordered, AxisPlan* plan) {
  using namespace axis_plan;
  *plan = AxisPlan{};
  if (in.ndim < 0)
    return Status::fail(Errc::invalid_argument,
                        "array shape: more than 8 dimensions, or extents and strides of different lengths");
  if (axes.count < 0) return Status::fail(Errc::invalid_argument, "axes: more than 8 of them");
  bool reduce[max_dims] = {};
  for (int k = 0; k < axes.count; ++k) {
    int a = axes.axes[k];
    if (a < -in.ndim || a >= in.ndim) return Status::fail(Errc::invalid_argument, "axis out of range for the array");
    if (a < 0) a += in.ndim;
    if (reduce[a]) return Status::fail(Errc::invalid_argument, "axes: the same axis twice");
    reduce[a] = true;
  }
  std::uint64_t outputs = 1, length = 1, elements = 1;
  int kept_dims = 0;
  for (int d = 0; d < in.ndim; ++d)
    if (in.extents[d] < 0) return Status::fail(Errc::invalid_argument, "array shape: a negative extent");
  for (int d = 0; d < in.ndim; ++d) {
    if (mul_overflows(elements, std::uint64_t(in.extents[d]), &elements))
      return Status::fail(Errc::invalid_argument, "array shape: more than 2^63 - 1 elements");
    mul_overflows(reduce[d] ? length : outputs, std::uint64_t(in.extents[d]), reduce[d] ? &length : &outputs);
    kept_dims += !reduce[d];
  }
  // The result's strides, one per kept dimension in order.
  std::int64_t out_strides[max_dims] = {};
  if (out == nullptr) {
    std::int64_t stride = 1;
    for (int d = in.ndim; d-- > 0;)
      if (!reduce[d]) {
        out_strides[d] = stride;
        stride *= in.extents[d] > 0 ? in.extents[d] : 1;
      }
  } else {
    const bool keepdim = out->ndim == in.ndim && out->ndim != kept_dims;
    if (out->ndim != kept_dims && !keepdim)
      return Status::fail(Errc::invalid_argument,
                          "result shape: one dimension per kept axis (or per axis, extent 1 on the reduced ones)");
    for (int d = 0, k = 0; d < in.ndim; ++d) {
      if (reduce[d]) {
        if (keepdim && out->extents[d] != 1)
          return Status::fail(Errc::invalid_argument, "result shape: a reduced axis kept with an extent other than 1");
        k += keepdim;
        continue;
      }
      if (out->extents[k] != in.extents[d])
        return Status::fail(Errc::invalid_argument, "result shape: an extent differs from the array's kept axis");
      out_strides[d] = out->strides[k++];
    }
  }
  plan->outputs = outputs;
  plan->length = length;
  if (outputs == 0) return Status::ok();
  for (int d = 0; d < in.ndim; ++d) {
    const std::int64_t span = in.extents[d] - 1;
    if (length > 0) (in.strides[d] < 0 ? plan->in_lo : plan->in_hi) += span * in.strides[d];
    if (!reduce[d]) (out_strides[d] < 0 ? plan->out_lo : plan->out_hi) += span * out_strides[d];
  }

  Dims kept, red;
  for (int d = 0; d < in.ndim; ++d) {
    if (in.extents[d] == 1) continue;
    Dims& to = reduce[d] ? red : kept;
    to.extents[to.count] = in.extents[d];
    to.in[to.count] = in.strides[d];
    to.out[to.count] = reduce[d] ? 0 : out_strides[d];
    ++to.count;
  }
  if (length == 0) red.count = 0;  // every result is the identity: nothing is read
  if (!ordered) {
    for (int k = 0; k < red.count; ++k)
      if (red.in[k] < 0) {
        plan->base += (red.extents[k] - 1) * red.in[k];
        red.in[k] = -red.in[k];
      }
    for (int k = 1; k < red.count; ++k)  // insertion sort, largest stride first, stable
      for (int j = k; j > 0 && red.in[j - 1] < red.in[j]; --j) {
        std::swap(red.extents[j - 1], red.extents[j]);
        std::swap(red.in[j - 1], red.in[j]);
      }
  }
  merge_adjacent(red, false);
  merge_adjacent(kept, true);

  if (red.count == 0 || (red.count == 1 && red.in[0] == 1)) {
    plan->kernel = AxisKernel::rows;
  } else if (red.count == 1 && kept.count >= 1 && kept.in[kept.count - 1] == 1 && kept.out[kept.count - 1] == 1) {
    plan->kernel = AxisKernel::columns;
    plan->inner = kept.extents[--kept.count];
    plan->row_stride = red.in[0];
  } else {
    plan->kernel = AxisKernel::general;
  }
  plan->kept = kept;
  plan->reduced = red;
  return Status::ok();
}

}  // namespace gpureduce::detail
