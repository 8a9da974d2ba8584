// The entry of a rung table with a given name (the reduction and matrix-multiplication registries).
#pragma once

#include <iterator>
#include <string_view>

namespace gpureduce {

template <class Table>
auto find_by_name(const Table& table, std::string_view name) -> decltype(&*std::begin(table)) {
  for (const auto& entry : table)
    if (name == entry.name) return &entry;
  return nullptr;
}

}  // namespace gpureduce
