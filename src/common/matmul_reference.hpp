// Host checks of C = A x B (N x N int32, wrapping modulo 2^32): the full product for small N, and
// Freivalds' randomized check for any N: for random vectors r, A (B r) == C r, O(N^2) per vector.
// Over the integers modulo 2^32 a wrong C passes one vector with probability at most 1/2 (a wrong
// row's error e has some e_j != 0, and e_j * r_j takes at least two values), so `rounds` vectors
// miss it with probability at most 2^-rounds; random entries computed exactly back it up.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace gpureduce::matmul {

inline std::vector<std::int32_t> host_product(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                                              unsigned n) {
  std::vector<std::uint32_t> c(std::size_t(n) * n, 0);
  for (unsigned i = 0; i < n; ++i)
    for (unsigned k = 0; k < n; ++k) {
      const std::uint32_t aik = std::uint32_t(a[std::size_t(i) * n + k]);
      for (unsigned j = 0; j < n; ++j) c[std::size_t(i) * n + j] += aik * std::uint32_t(b[std::size_t(k) * n + j]);
    }
  return {c.begin(), c.end()};
}

// y = M x modulo 2^32.
inline std::vector<std::uint32_t> times_vector(const std::vector<std::int32_t>& m, const std::vector<std::uint32_t>& x,
                                               unsigned n) {
  std::vector<std::uint32_t> y(n, 0);
  for (unsigned i = 0; i < n; ++i) {
    std::uint32_t s = 0;
    for (unsigned j = 0; j < n; ++j) s += std::uint32_t(m[std::size_t(i) * n + j]) * x[j];
    y[i] = s;
  }
  return y;
}

inline bool freivalds(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                      const std::vector<std::int32_t>& c, unsigned n, int rounds, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> r(n);
  for (int k = 0; k < rounds; ++k) {
    for (auto& x : r) x = std::uint32_t(rng());
    if (times_vector(a, times_vector(b, r, n), n) != times_vector(c, r, n)) return false;
  }
  return true;
}

// `count` random entries of C computed exactly (modulo 2^32).
inline bool spot_check(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                       const std::vector<std::int32_t>& c, unsigned n, int count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < count && n > 0; ++k) {
    const unsigned i = unsigned(rng() % n), j = unsigned(rng() % n);
    std::uint32_t s = 0;
    for (unsigned t = 0; t < n; ++t)
      s += std::uint32_t(a[std::size_t(i) * n + t]) * std::uint32_t(b[std::size_t(t) * n + j]);
    if (std::int32_t(s) != c[std::size_t(i) * n + j]) return false;
  }
  return true;
}

// The check the tests and the benchmark use: the full product up to N = 512, else Freivalds with
// 20 vectors and 64 exact entries.
inline bool verify_product(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b,
                           const std::vector<std::int32_t>& c, unsigned n, std::uint64_t seed) {
  if (n <= 512) return host_product(a, b, n) == c;
  return freivalds(a, b, c, n, 20, seed) && spot_check(a, b, c, n, 64, seed + 1);
}

}  // namespace gpureduce::matmul
