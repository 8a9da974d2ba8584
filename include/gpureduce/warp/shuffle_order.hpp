// The order in which warp_reduce<L> (warp/warp_reduce.cuh) combines L lanes' values, written as
// folds of arrays, so that a few threads can reproduce a shuffle tree's result bit for bit
// (warp/warp_fold_shared.cuh) and the CPU tests can check the order.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce {

// Lane 0's value after warp_reduce<L>'s steps: for offset L/2, ..., 1, value i becomes
// op(value i, value i + offset). L: a power of two up to 32.
GPUREDUCE_EXEC_CHECK_DISABLE
template <unsigned L, class T, class Op>
GPUREDUCE_HD T fold_in_shuffle_order(const T (&values)[L], Op op) {
  static_assert(L >= 1 && L <= warp_threads && (L & (L - 1)) == 0, "L: a power of two up to 32");
  T v[L];
#pragma unroll
  for (unsigned i = 0; i < L; ++i) v[i] = values[i];
#pragma unroll
  for (unsigned offset = L / 2; offset > 0; offset /= 2)
#pragma unroll
    for (unsigned i = 0; i < offset; ++i) v[i] = op(v[i], v[i + offset]);
  return v[0];
}

// Lane i's value (i < Stop) after only the steps of offset L/2 down to Stop: those steps combine
// the values i, i + Stop, i + 2 Stop, ... among themselves as a tree of L / Stop lanes, so it is
// their fold_in_shuffle_order, and the Stop values it leaves fold in that order to lane 0's.
// value(j): value j.
GPUREDUCE_EXEC_CHECK_DISABLE
template <unsigned L, unsigned Stop, class T, class Op, class Value>
GPUREDUCE_HD T fold_lane_in_shuffle_order(unsigned i, Value value, Op op) {
  static_assert(Stop >= 1 && Stop <= L && (Stop & (Stop - 1)) == 0);
  T v[L / Stop];
#pragma unroll
  for (unsigned k = 0; k < L / Stop; ++k) v[k] = value(i + k * Stop);
  return fold_in_shuffle_order(v, op);
}

}  // namespace gpureduce
