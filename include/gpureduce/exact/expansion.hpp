// The per-thread front of an exact sum: a two-term floating-point expansion (hi, lo) in double,
// kept exact with TwoSum (Knuth). A term whose addition leaves a remainder that neither term can
// hold is deposited into the superaccumulator. On well-conditioned data the first TwoSum is
// already exact (its error is 0) for most terms, so a term costs about six double additions and
// one compare; the deposit is the rare path (ExBLAS's design, Collange et al. 2015).
#pragma once

#include <gpureduce/exact/format.hpp>
#include <gpureduce/exact/superaccumulator.hpp>

#include <cstdint>
#include <cstring>

namespace gpureduce::exact {

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

  // Adds term x; deposit(double) receives the remainders (exact multiples of 2^lsb_exp).
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

  template <class Deposit>
  GPUREDUCE_HD void add_special(double x, Deposit&& deposit) {
    if (x != x) flags |= flag_nan;
    else if (x - x != 0) flags |= x > 0 ? flag_pos_inf : flag_neg_inf;  // inf - inf is NaN
    else deposit(x);                                                   // large but finite
    flags |= flag_not_neg_zero;
  }

  // Deposits what the expansion holds; returns the flags.
  template <class Deposit>
  GPUREDUCE_HD unsigned finish(Deposit&& deposit) {
    std::uint64_t bits;
    std::memcpy(&bits, &hi, sizeof bits);
    if (bits != (std::uint64_t(1) << 63)) flags |= flag_not_neg_zero;
    deposit(hi);
    deposit(lo);
    return flags;
  }
};

}  // namespace gpureduce::exact
