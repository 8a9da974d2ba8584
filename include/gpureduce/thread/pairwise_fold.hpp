// A fixed pairwise tree over an array of partials: host and device (the CPU tests check its order).
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

// x[0] op x[N/2], x[1] op x[N/2 + 1], ..., then the same over the first half, and so on: log2(N)
// dependent combines (a sequential fold takes N - 1). The order is fixed, so the result is the
// same bits on every run. Overwrites x. (Each level is its own instantiation: as nested loops,
// nvcc kept the outer one rolled and indexed the array through predicated moves.)
GPUREDUCE_EXEC_CHECK_DISABLE
template <unsigned N, unsigned Half = N / 2, class T, class Op>
GPUREDUCE_HD constexpr T fold_pairwise(T (&x)[N], Op op) {
  static_assert(N >= 1 && (N & (N - 1)) == 0, "N: a power of two");
  if constexpr (Half == 0) {
    return x[0];
  } else {
GPUREDUCE_UNROLL
    for (unsigned k = 0; k < Half; ++k) x[k] = op(x[k], x[k + Half]);
    return fold_pairwise<N, Half / 2>(x, op);
  }
}

}  // namespace gpureduce::detail
