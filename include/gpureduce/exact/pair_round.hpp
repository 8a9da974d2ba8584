// An exact sum held as two doubles, x = h + l with h = fl(x) (a TwoSum's pair), rounded once into
// Out: the cheap end of an exact sum that a warp could add up without a remainder
// (kernel/exact_axis_kernel.cuh). It declines (returns false) where x is zero (whose sign the
// flags decide) or where x is not finite or rounds to the top of Out's range; the
// superaccumulator's rounding then takes over.
#pragma once

#include <gpureduce/config.hpp>
#include <gpureduce/thread/numeric.hpp>

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace gpureduce::detail::exact {

GPUREDUCE_EXEC_CHECK_DISABLE
template <class Out>
GPUREDUCE_HD bool round_pair(double h, double l, Out* r) {
  if (!(h != 0) || h - h != 0) return false;  // zero, an infinity or NaN
  if constexpr (std::is_same_v<Out, double>) {
    *r = h;  // fl(x) is x rounded once
    return true;
  } else {
    using Bits = std::conditional_t<sizeof(Out) == 4, std::uint32_t, std::uint16_t>;
    const auto value_of = [](Bits k) {
      Out v;
      std::memcpy(&v, &k, sizeof v);
      return v;
    };
    // By magnitude: x = s (H + L), H > 0.
    const bool neg = h < 0;
    const double H = neg ? -h : h, L = neg ? -l : l;
    // A conversion of H lands on one of H's two neighbours in Out (16-bit types round through
    // float, twice); from it, the neighbours a = k and b = k + 1 (bits) with a <= H + L <= b.
    const Out c = convert<Out>(H);
    Bits k;
    std::memcpy(&k, &c, sizeof k);
    const double dc = convert<double>(c);
    Bits pick = k;
    if (dc != H || L != 0) {
      if (dc > H || (dc == H && L < 0)) --k;
      const double a = convert<double>(value_of(k)), b = convert<double>(value_of(Bits(k + 1)));
      if (b - b != 0) return false;  // b is the infinity: the overflow threshold
      // Which side of the midpoint m (exact in double) x lies: H - m is exact where it matters
      // (H next to m), and adding L cannot change the sign of a non-zero difference.
      const double m = (a + b) * 0.5;
      const double side = H == m ? L : (H - m) + L;
      pick = side < 0 ? k : side > 0 ? Bits(k + 1) : Bits(k + (k & 1));  // a tie: the even one
    }
    if (neg) pick = Bits(pick | Bits(Bits(1) << (8 * sizeof(Bits) - 1)));
    *r = value_of(pick);
    return true;
  }
}

}  // namespace gpureduce::detail::exact
