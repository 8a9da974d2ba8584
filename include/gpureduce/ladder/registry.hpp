// The one list of ladder rungs. The CLI, the tests and the benchmark all iterate over it; adding a
// rung means adding its file and one entry in src/ladder/registry.cu.
#pragma once

#include <gpureduce/ladder/launch_context.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

namespace gpureduce::ladder {

template <class T>
using RungLaunch = cudaError_t (*)(const T* in, std::uint64_t n, T* out, const LaunchContext& ctx);

struct Rung {
  const char* name;    // "r0" ... : position in the ladder
  const char* adds;    // what this rung changes, in a few words (table column)
  bool single_launch;  // false: the multi-pass host driver relaunches on the partial sums
  std::size_t (*workspace_bytes)(std::uint64_t n, std::size_t elem_bytes, unsigned block, DeviceShape device);
  RungLaunch<std::int32_t> launch_int32;
  RungLaunch<float> launch_float32;
  RungLaunch<double> launch_float64;

  template <class T>
  RungLaunch<T> launcher() const {
    if constexpr (std::is_same_v<T, std::int32_t>) return launch_int32;
    else if constexpr (std::is_same_v<T, float>) return launch_float32;
    else return launch_float64;
  }
};

std::span<const Rung> rungs();

// nullptr when no rung has that name.
const Rung* find_rung(std::string_view name);

}  // namespace gpureduce::ladder
