// An independent oracle for exact sums: every term decoded from its bits into a GMP integer (in
// units of the smallest subnormal), summed exactly, and rounded once by MPFR into the output
// format with IEEE subnormals (mpfr_subnormalize). Special values by IEEE's rules, scanned here.
#pragma once

#include "exact_cases.hpp"

#include <gmp.h>
#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

namespace oracle {

using namespace exact_cases;

enum class Kind { finite, nan, pos_inf, neg_inf };

// A decoded value: (-1)^neg * mant * 2^exp2, or a special kind.
struct Decoded {
  Kind kind;
  bool neg;
  std::uint64_t mant;
  int exp2;
};

template <class T>
Decoded decode(T x) {
  const Layout l = layout_of<T>();
  const std::uint64_t b = bits_of(x);
  const bool neg = (b >> (l.exp_bits + l.frac_bits)) & 1;
  const int e = int((b >> l.frac_bits) & ((1u << l.exp_bits) - 1));
  std::uint64_t f = b & ((std::uint64_t(1) << l.frac_bits) - 1);
  if (e == (1 << l.exp_bits) - 1) return {f ? Kind::nan : (neg ? Kind::neg_inf : Kind::pos_inf), neg, 0, 0};
  if (e) f |= std::uint64_t(1) << l.frac_bits;
  return {Kind::finite, neg, f, (e ? e : 1) - l.bias() - l.frac_bits};
}

// Exact sum of terms given as Decoded values, all multiples of 2^lsb; rounded into Out.
template <class Out>
Out round_sum(const std::vector<Decoded>& terms, int lsb) {
  bool nan = false, pinf = false, ninf = false, all_neg_zero = !terms.empty();
  mpz_t acc, t;
  mpz_init(acc);
  mpz_init(t);
  for (const Decoded& d : terms) {
    nan |= d.kind == Kind::nan;
    pinf |= d.kind == Kind::pos_inf;
    ninf |= d.kind == Kind::neg_inf;
    all_neg_zero &= d.kind == Kind::finite && d.neg && d.mant == 0;
    if (d.kind != Kind::finite) continue;
    mpz_set_ui(t, d.mant);
    mpz_mul_2exp(t, t, d.exp2 - lsb);
    if (d.neg) mpz_sub(acc, acc, t);
    else mpz_add(acc, acc, t);
  }
  const Layout l = layout_of<Out>();
  double r;
  if (nan || (pinf && ninf)) r = NAN;
  else if (pinf) r = INFINITY;
  else if (ninf) r = -INFINITY;
  else if (mpz_sgn(acc) == 0) r = all_neg_zero ? -0.0 : 0.0;
  else {
    const mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(l.lsb_exp() + 1);  // MPFR's exponents: x = m * 2^e with 1/2 <= m < 1
    mpfr_set_emax(l.bias() + 1);
    mpfr_t m;
    mpfr_init2(m, l.frac_bits + 1);
    int inex = mpfr_set_z_2exp(m, acc, lsb, MPFR_RNDN);
    inex = mpfr_check_range(m, inex, MPFR_RNDN);
    mpfr_subnormalize(m, inex, MPFR_RNDN);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    r = mpfr_get_d(m, MPFR_RNDN);  // exact: Out's values are doubles
    mpfr_clear(m);
  }
  mpz_clear(acc);
  mpz_clear(t);
  if constexpr (std::is_same_v<Out, double>) return r;
  else if constexpr (std::is_same_v<Out, float>) return float(r);
  else if constexpr (std::is_same_v<Out, __half>) return __float2half_rn(float(r));
  else return __float2bfloat16_rn(float(r));
}

template <class Out = void, class T>
auto exact_sum(const std::vector<T>& x) {
  using R = std::conditional_t<std::is_void_v<Out>, T, Out>;
  std::vector<Decoded> d;
  for (const T& v : x) d.push_back(decode(v));
  return round_sum<R>(d, layout_of<T>().lsb_exp());
}

// Products of floats: mantissas multiply, exponents add (specials by IEEE: 0 * inf is NaN).
template <class Out = float>
Out exact_dot(const std::vector<float>& a, const std::vector<float>& b) {
  std::vector<Decoded> d;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const Decoded x = decode(a[i]), y = decode(b[i]);
    const bool neg = x.neg != y.neg;
    if (x.kind == Kind::nan || y.kind == Kind::nan) d.push_back({Kind::nan, false, 0, 0});
    else if (x.kind != Kind::finite || y.kind != Kind::finite) {
      const bool zero = (x.kind == Kind::finite && x.mant == 0) || (y.kind == Kind::finite && y.mant == 0);
      d.push_back({zero ? Kind::nan : (neg ? Kind::neg_inf : Kind::pos_inf), neg, 0, 0});
    } else {
      d.push_back({Kind::finite, neg, x.mant * y.mant, x.exp2 + y.exp2});
    }
  }
  return round_sum<Out>(d, 2 * layout_of<float>().lsb_exp());
}

}  // namespace oracle
