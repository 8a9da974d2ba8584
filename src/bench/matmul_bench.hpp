// `gpureduce matmul`: every matrix-multiplication rung on the same A = B (the seed's case),
// verified (full product up to N = 512, Freivalds' check beyond), timed cold, with cuBLAS on the
// same values as a speed reference in the same run.
#pragma once

#include "device_info.hpp"
#include "timer.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gpureduce {

struct MatmulRun {
  std::vector<unsigned> sizes;
  std::string rung;  // a rung's name, or "all"
  int reps = 10;
  std::uint64_t seed = 1;
};

struct MatmulRow {
  std::string variant;  // m0..m5, cublas-sgemm, cublas-dgemm, cublas-int8
  std::string adds;
  unsigned n;
  TimingStats time;
  double gops;      // 2 N^3 operations / median time
  bool verified;    // equals the int32 product (rungs: checked on the host; cuBLAS: against m5)
  std::string note;  // why a variant did not run, or its exactness condition
};

// One-block rungs run up to N = 1024 only (one SM; N = 4096 would take minutes).
inline constexpr unsigned max_one_block_n = 1024;

std::vector<MatmulRow> run_matmul(GpuTimer& timer, const MatmulRun& run);

}  // namespace gpureduce
