// The exact sum on the host: the same algorithm as the GPU kernel (expansion, superaccumulator,
// one rounding), one thread. The result is the same bits as the GPU's, being the one correctly
// rounded value of the exact sum; the CPU tests check both against MPFR.
#pragma once

#include <gpureduce/exact/exchange.hpp>
#include <gpureduce/exact/expansion.hpp>
#include <gpureduce/exact/format.hpp>
#include <gpureduce/exact/superaccumulator.hpp>

#include <cstdint>
#include <stdexcept>

namespace gpureduce::detail::exact {

// The exchange vector (exchange.hpp) of in[0, n), terms(i) (a double, exact), into
// x[0, exchange_words(words)); batch(i, e, put) adds the K terms from i to the expansion e, as the
// kernel adds one vector.
template <class Terms, int K, class TermAt, class BatchAt>
void host_exchange(std::uint64_t n, TermAt&& term, BatchAt&& batch, std::int64_t* x) {
  if (n > max_count) throw std::invalid_argument("gpureduce: exact sums take at most 2^40 elements");
  constexpr TermRange r = Terms::range;
  std::int64_t w[r.words()] = {};
  const auto add = [&](int i, std::int64_t c) { w[i] += c; };
  const auto put = [&](double v) { deposit(v, r.lsb_exp, add); };
  Expansion<Terms> e;
  std::uint64_t i = 0;
  for (; i + K <= n; i += K) {
    batch(i, e, put);
    if (((i + K) & 0x3fffffff) == 0)  // keep each word within its 2^30-deposit headroom
      normalize(w);
  }
  for (; i < n; ++i) e.add(term(i), put);
  const unsigned flags = e.finish(put);
  for (int j = 0; j < exchange_words(r.words()); ++j) x[j] = exchange_word(w, r.words(), j, flags, n);
}

// The same, rounded once into Out.
template <class Terms, class Out, int K, class TermAt, class BatchAt>
Out host_sum(std::uint64_t n, TermAt&& term, BatchAt&& batch) {
  constexpr int words = Terms::range.words();
  std::int64_t x[exchange_words(words)];
  host_exchange<Terms, K>(n, term, batch, x);
  return round_exchange<Out, words>(x, Terms::range.lsb_exp);
}

// The exchange vector of in[0, n), read in vectors of 16 bytes as the kernel reads them.
template <class T>
void exchange_host(const T* in, std::uint64_t n, std::int64_t* x) {
  constexpr int K = 16 / sizeof(T);
  host_exchange<SumOf<T>, K>(
      n, [&](std::uint64_t i) { return convert<double>(in[i]); },
      [&](std::uint64_t i, auto& e, const auto& put) {
        T y[K];
        for (int k = 0; k < K; ++k) y[k] = in[i + k];
        e.add_values(y, put);
      },
      x);
}

}  // namespace gpureduce::detail::exact

namespace gpureduce {

// The exact sum of in[0, n), rounded once to nearest even into Out (by default T). In vectors of
// 16 bytes, as the kernel reads them.
template <class Out = void, class T>
auto exact_sum_host(const T* in, std::uint64_t n) {
  static_assert(detail::exact::is_exact_type_v<T>, "gpureduce: exact sums take float, double, __half or __nv_bfloat16");
  using R = std::conditional_t<std::is_void_v<Out>, T, Out>;
  constexpr int words = detail::exact::SumOf<T>::range.words();
  std::int64_t x[detail::exact::exchange_words(words)];
  detail::exact::exchange_host(in, n, x);
  return detail::exact::round_exchange<R, words>(x, detail::exact::SumOf<T>::range.lsb_exp);
}

// The exact dot product of two float arrays (each product is exact in double), rounded once.
template <class Out = float>
Out exact_dot_host(const float* a, const float* b, std::uint64_t n) {
  const auto term = [&](std::uint64_t i) { return double(a[i]) * double(b[i]); };
  const auto batch = [&](std::uint64_t i, auto& e, const auto& put) {
    const double x[4] = {term(i), term(i + 1), term(i + 2), term(i + 3)};
    e.add_batch(x, put);
  };
  return detail::exact::host_sum<detail::exact::FloatProducts, Out, 4>(n, term, batch);
}

}  // namespace gpureduce
