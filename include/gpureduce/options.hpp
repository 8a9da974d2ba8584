// Per-call options of the public API.
#pragma once

#include <gpureduce/thread/operators.hpp>

#include <cstddef>
#include <cstdint>

namespace gpureduce {

struct Options {
  // NaN handling of the built-in operators on floating inputs (see thread/operators.hpp).
  NanPolicy nan = NanPolicy::propagate;
  // A caller-provided workspace of at least gpureduce::workspace_bytes, zero-filled before its first
  // use, used by one reduction at a time. nullptr: the library's per-stream workspace.
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  // 0: the tuned launch. 1: force the one-block kernel; k > 1: force a grid of k blocks. The result
  // is correct either way; tests and benchmarks use it to compare paths.
  std::uint64_t force_blocks = 0;
};

}  // namespace gpureduce
