// The arrays of the axis reductions (axis.cuh): an N-D array's extents and strides, and the set of
// axes to reduce.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <span>

namespace gpureduce {

inline constexpr int max_dims = 8;

// Extents and strides of an array of up to max_dims dimensions, outermost first. Strides count
// elements, not bytes (NumPy's and CuPy's count bytes: divide them by the item size; PyTorch's
// count elements); they may be 0 (a broadcast dimension) or negative (x[::-1]). A Shape built
// from more than max_dims extents, or from extents and strides of different lengths, is refused by
// the call that takes it (ndim is then -1).
struct Shape {
  int ndim = 0;
  std::int64_t extents[max_dims] = {};
  std::int64_t strides[max_dims] = {};

  Shape() = default;
  // Row-major (C order): the last dimension is contiguous.
  Shape(std::initializer_list<std::int64_t> e) : Shape(std::span<const std::int64_t>(e.begin(), e.size())) {}
  Shape(std::initializer_list<std::int64_t> e, std::initializer_list<std::int64_t> s)
      : Shape(std::span<const std::int64_t>(e.begin(), e.size()), std::span<const std::int64_t>(s.begin(), s.size())) {}
  explicit Shape(std::span<const std::int64_t> e) {
    if (!take_extents(e)) return;
    std::int64_t stride = 1;
    for (int d = ndim; d-- > 0;) {
      strides[d] = stride;
      stride *= extents[d] > 0 ? extents[d] : 1;
    }
  }
  Shape(std::span<const std::int64_t> e, std::span<const std::int64_t> s) {
    if (!take_extents(e)) return;
    if (s.size() != e.size()) {
      ndim = -1;
      return;
    }
    for (int d = 0; d < ndim; ++d) strides[d] = s[std::size_t(d)];
  }

 private:
  bool take_extents(std::span<const std::int64_t> e) {
    if (e.size() > std::size_t(max_dims)) {
      ndim = -1;
      return false;
    }
    ndim = int(e.size());
    for (int d = 0; d < ndim; ++d) extents[d] = e[std::size_t(d)];
    return true;
  }
};

// The axes to reduce: up to max_dims of them, each in [-ndim, ndim) (negative counts from the end,
// as in NumPy and PyTorch); none reduces nothing (every output is its one element, as NumPy's
// axis=()). More than max_dims axes make count -1, refused by the call.
struct Axes {
  int count = 0;
  int axes[max_dims] = {};

  Axes() = default;
  Axes(std::initializer_list<int> a) : Axes(std::span<const int>(a.begin(), a.size())) {}
  explicit Axes(std::span<const int> a) {
    if (a.size() > std::size_t(max_dims)) {
      count = -1;
      return;
    }
    count = int(a.size());
    for (int k = 0; k < count; ++k) axes[k] = a[std::size_t(k)];
  }
};

}  // namespace gpureduce
