// The composite results: argmin/argmax give a value and its index, minmax gives both extremes.
#pragma once

#include <cstdint>

namespace gpureduce {

// argmin/argmax: the extreme value and the first (smallest) index holding it. The index is 64-bit
// and signed, as in PyTorch, so every count the library accepts fits.
template <class T>
struct IndexedValue {
  T value;
  std::int64_t index;
};

template <class T>
struct MinMax {
  T min;
  T max;
};

}  // namespace gpureduce
