// The element types and operators `gpureduce bench` sweeps, by name.
#pragma once

#include <optional>
#include <string_view>

namespace gpureduce {

enum class ElemType { int8, int32, int64, float32, float64, float16, bfloat16 };
enum class BenchOp { sum, max, argmax, dot };

inline constexpr ElemType all_elem_types[] = {ElemType::int8,    ElemType::int32,   ElemType::int64,
                                              ElemType::float32, ElemType::float64, ElemType::float16,
                                              ElemType::bfloat16};
// The bench's default sweep, and every operator `--ops` takes: dot reads two arrays.
inline constexpr BenchOp sweep_bench_ops[] = {BenchOp::sum, BenchOp::max, BenchOp::argmax};
inline constexpr BenchOp all_bench_ops[] = {BenchOp::sum, BenchOp::max, BenchOp::argmax, BenchOp::dot};

constexpr const char* elem_type_name(ElemType t) {
  constexpr const char* names[] = {"int8", "int32", "int64", "float32", "float64", "float16", "bfloat16"};
  return names[int(t)];
}

constexpr unsigned elem_type_bytes(ElemType t) {
  constexpr unsigned bytes[] = {1, 4, 8, 4, 8, 2, 2};
  return bytes[int(t)];
}

constexpr const char* bench_op_name(BenchOp op) {
  constexpr const char* names[] = {"sum", "max", "argmax", "dot"};
  return names[int(op)];
}

inline std::optional<ElemType> parse_elem_type(std::string_view s) {
  for (ElemType t : all_elem_types)
    if (s == elem_type_name(t)) return t;
  return std::nullopt;
}

inline std::optional<BenchOp> parse_bench_op(std::string_view s) {
  for (BenchOp op : all_bench_ops)
    if (s == bench_op_name(op)) return op;
  return std::nullopt;
}

}  // namespace gpureduce
