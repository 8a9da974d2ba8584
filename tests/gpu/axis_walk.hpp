// The host side of the axis tests: the kept and reduced dimensions of a view, walked row-major.
#pragma once

#include <gpureduce/shape.hpp>

#include <cstdint>
#include <vector>

namespace gpureduce::test {

// Dimensions of a view, walked row-major: offset() of a flat index over them.
struct Walk {
  std::vector<std::int64_t> extents, strides;
  std::uint64_t size() const {
    std::uint64_t n = 1;
    for (auto e : extents) n *= std::uint64_t(e);
    return n;
  }
  std::int64_t offset(std::uint64_t flat) const {
    std::int64_t off = 0;
    for (std::size_t k = extents.size(); k-- > 0;) {
      const std::uint64_t e = std::uint64_t(extents[k]);
      off += std::int64_t(flat % e) * strides[k];
      flat /= e;
    }
    return off;
  }
};

// The view's kept and reduced dimensions, in order.
inline void split_dims(const Shape& s, const Axes& axes, Walk* kept, Walk* reduced) {
  bool r[max_dims] = {};
  for (int k = 0; k < axes.count; ++k) r[axes.axes[k] < 0 ? axes.axes[k] + s.ndim : axes.axes[k]] = true;
  for (int d = 0; d < s.ndim; ++d) {
    Walk& w = r[d] ? *reduced : *kept;
    w.extents.push_back(s.extents[d]);
    w.strides.push_back(s.strides[d]);
  }
}

}  // namespace gpureduce::test
