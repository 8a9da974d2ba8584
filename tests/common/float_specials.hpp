// Floating values for the host tests of min/max (tests/cpu): the bits of a float or double, and
// mixes of ties, both zeros, both infinities and NaN of either sign and several payloads.
#pragma once

#include <gpureduce/thread/tree_key.hpp>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

namespace gpureduce::test {
using namespace gpureduce::detail;

template <class F>
using U = detail::key_bits_t<F>;

template <class F>
U<F> bits(F x) {
  U<F> u;
  std::memcpy(&u, &x, sizeof x);
  return u;
}

template <class F>
F from_bits(U<F> u) {
  F x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Values with ties, both zeros, both infinities and NaNs of either sign and several payloads.
template <class F>
std::vector<F> special_mix(std::mt19937_64& rng, std::size_t n, unsigned nan_every) {
  const F inf = std::numeric_limits<F>::infinity();
  const U<F> exponent = bits(inf);
  std::vector<F> x(n);
  for (auto& v : x) {
    const unsigned r = unsigned(rng() % 16);
    if (nan_every && rng() % nan_every == 0) {
      const U<F> fraction = U<F>(1) + U<F>(rng() % 1000) * (rng() % 2 ? U<F>(1) : detail::nan_patterns<F> / 1000);
      v = from_bits<F>(exponent | fraction | (rng() % 2 ? bits(F(-0.0)) : U<F>(0)));
    } else if (r == 0) {
      v = rng() % 2 ? inf : -inf;
    } else if (r < 4) {
      v = rng() % 2 ? F(0.0) : F(-0.0);
    } else {
      v = F(int(rng() % 9) - 4) * F(0.75);
    }
  }
  return x;
}

}  // namespace gpureduce::test
