// The element types the ladder runs on, by name, and a dispatch from the run-time type to a C++
// type.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <type_traits>

namespace gpureduce {

enum class DType { int32, float32, float64 };

inline constexpr DType all_dtypes[] = {DType::int32, DType::float32, DType::float64};

constexpr const char* dtype_name(DType t) {
  switch (t) {
    case DType::int32: return "int32";
    case DType::float32: return "float32";
    case DType::float64: return "float64";
  }
  return "?";
}

inline std::optional<DType> parse_dtype(std::string_view s) {
  for (DType t : all_dtypes)
    if (s == dtype_name(t)) return t;
  return std::nullopt;
}

template <class T>
struct TypeTag {
  using type = T;
};

// f(TypeTag<T>{}) with T the C++ type of t.
template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::int32: return f(TypeTag<std::int32_t>{});
    case DType::float32: return f(TypeTag<float>{});
    case DType::float64: break;
  }
  return f(TypeTag<double>{});
}

template <class T>
constexpr DType dtype_of() {
  if constexpr (std::is_same_v<T, std::int32_t>) return DType::int32;
  else if constexpr (std::is_same_v<T, float>) return DType::float32;
  else return DType::float64;
}

}  // namespace gpureduce
