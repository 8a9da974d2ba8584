// The per-thread front of an exact sum: a two-term floating-point expansion (hi, lo) in double,
// kept exact with TwoSum (Knuth). A term whose addition leaves a remainder that neither term can
// hold is deposited into the superaccumulator (ExBLAS's design, Collange et al. 2015). Terms come
// in batches (one 16-byte vector): on well-conditioned data adding a term to hi is exact (TwoSum's
// error is 0), so a batch is first added to hi alone, branch-free, and only a batch where some
// error is not 0 (or some term is special) is redone term by term through lo and the deposits.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/exact/format.hpp>
#include <gpureduce/exact/narrow_batch.hpp>
#include <gpureduce/exact/superaccumulator.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce::detail::exact {

// s + e == a + b exactly (round to nearest, no overflow); also exact under gradual underflow.
struct TwoSum {
  double s, e;
};
GPUREDUCE_HD TwoSum two_sum(double a, double b) {
  const double s = a + b;
  const double bb = s - a;
  return {s, (a - (s - bb)) + (b - bb)};
}

template <class Terms>
struct Expansion {
  // hi starts at -0.0: IEEE addition keeps it -0.0 exactly while every term added is -0.0, which
  // is how the sign of an exact zero sum is told apart at no cost per term.
  double hi = -0.0;
  double lo = 0.0;
  unsigned flags = 0;

  // Adds the terms x[0, K): hi alone when that is exact for all of them, else term by term. The
  // fast path's only chain from term to term is one addition (s = hi + x), and it has no branch.
  GPUREDUCE_EXEC_CHECK_DISABLE
  template <int K, class Deposit>
  GPUREDUCE_HD void add_batch(const double (&x)[K], Deposit&& deposit) {
    double h = hi;
    bool exact = true;
GPUREDUCE_UNROLL
    for (int k = 0; k < K; ++k) {
      const TwoSum a = two_sum(h, x[k]);
      h = a.s;
      exact &= a.e == 0 && x[k] < Terms::range.fast_limit && x[k] > -Terms::range.fast_limit;
    }
    if (exact) {
      hi = h;
      return;
    }
    Batch<K> b;
GPUREDUCE_UNROLL
    for (int k = 0; k < K; ++k) b.x[k] = x[k];
    *this = added_each(*this, b, deposit);
  }

  // Adds one vector of elements (or of exact products): a vector of 16-bit floats as its exact
  // sum in float where that fits (narrow_batch.hpp), one term instead of K; otherwise each one.
  GPUREDUCE_EXEC_CHECK_DISABLE
  template <class T, int K, class Deposit>
  GPUREDUCE_HD void add_values(const T (&y)[K], Deposit&& deposit) {
    if constexpr (is_narrow_v<T>) {
      float s;
      if (narrow_batch_sum(y, s)) {
        const double x[1] = {convert<double>(s)};
        add_batch(x, deposit);
        return;
      }
    }
    double x[K];
GPUREDUCE_UNROLL
    for (int k = 0; k < K; ++k) x[k] = convert<double>(y[k]);
    add_batch(x, deposit);
  }

  template <int K>
  struct Batch {
    double x[K];
  };
  // The batch term by term, out of line and rolled: the path is rare, and inlined at each of a
  // kernel's unrolled batches it made the exact kernels 100-274 KB of code, which a plain sum run
  // between two exact ones evicts (H100: up to 1.5 us per call at 2^10-2^12). The expansion, the
  // terms and the deposit go by value: by reference their addresses kept them in local memory on the
  // fast path too (1.4-4x the time from 2^22 up).
  GPUREDUCE_EXEC_CHECK_DISABLE
  template <int K, class Deposit>
  static GPUREDUCE_HD_NOINLINE Expansion added_each(Expansion e, Batch<K> b, Deposit deposit) {
GPUREDUCE_NO_UNROLL
    for (int k = 0; k < K; ++k) e.add(b.x[k], deposit);
    return e;
  }

  // Adds term x; deposit(double) receives the remainders (exact multiples of 2^lsb_exp).
  GPUREDUCE_EXEC_CHECK_DISABLE
  template <class Deposit>
  GPUREDUCE_HD void add(double x, Deposit&& deposit) {
    if (x < Terms::range.fast_limit && x > -Terms::range.fast_limit) {  // false for NaN and infinities
      const TwoSum a = two_sum(hi, x);
      hi = a.s;
      if (a.e != 0) {
        const TwoSum b = two_sum(lo, a.e);
        lo = b.s;
        if (b.e != 0) deposit(b.e);
      }
    } else {
      add_special(x, deposit);
    }
  }

  GPUREDUCE_EXEC_CHECK_DISABLE
  template <class Deposit>
  GPUREDUCE_HD void add_special(double x, Deposit&& deposit) {
    if (x != x) flags |= flag_nan;
    else if (x - x != 0) flags |= x > 0 ? flag_pos_inf : flag_neg_inf;  // inf - inf is NaN
    else deposit(x);                                                   // large but finite
    flags |= flag_not_neg_zero;
  }

  // The flags once every term is in.
  GPUREDUCE_HD unsigned final_flags() const {
    std::uint64_t bits;
    std::memcpy(&bits, &hi, sizeof bits);
    return flags | (bits != (std::uint64_t(1) << 63) ? flag_not_neg_zero : 0u);
  }

  // Deposits what the expansion holds; returns the flags.
  GPUREDUCE_EXEC_CHECK_DISABLE
  template <class Deposit>
  GPUREDUCE_HD unsigned finish(Deposit&& deposit) {
    deposit(hi);
    deposit(lo);
    return final_flags();
  }
};

}  // namespace gpureduce::detail::exact
