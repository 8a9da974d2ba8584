// Reduction operators: a binary combine plus its identity. Host and device, so the CPU tests check
// exactly what the kernels run.
#pragma once

#include <gpureduce/config.hpp>

#include <type_traits>

namespace gpureduce {

// Sum. Integer sums wrap modulo 2^bits (the result CUB and Thrust give in practice); the addition is
// done on the unsigned type so the wrap is defined behaviour rather than signed overflow.
struct Sum {
  template <class T>
  GPUREDUCE_HD static constexpr T identity() {
    return T(0);
  }

  template <class T>
  GPUREDUCE_HD constexpr T operator()(T a, T b) const {
    if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    } else {
      return a + b;
    }
  }
};

}  // namespace gpureduce
