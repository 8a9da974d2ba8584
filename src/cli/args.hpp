// Command-line parsing for `gpureduce`, kept free of CUDA so the CPU tests cover every error path.
#pragma once

#include "../common/elem_type.hpp"
#include "../common/dtype.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpureduce::cli {

inline constexpr int exit_ok = 0;
inline constexpr int exit_runtime_error = 1;  // no GPU, CUDA failure, verification failure
inline constexpr int exit_usage = 2;          // bad arguments

struct LadderArgs {
  std::uint64_t n = std::uint64_t(1) << 24;  // 16M, as the classic ladder
  DType type = DType::int32;
  unsigned block = 256;
  int reps = 30;
  std::string json;  // empty: no JSON file
  bool sweep = false;
  std::uint64_t seed = 42;
};

struct BenchArgs {
  std::vector<ElemType> types{std::begin(all_elem_types), std::end(all_elem_types)};
  std::vector<BenchOp> ops{std::begin(sweep_bench_ops), std::end(sweep_bench_ops)};
  std::vector<std::uint64_t> sizes;  // default: bench_sizes()
  int reps = 20;
  std::string json;
  std::uint64_t seed = 42;
  std::string kernel = "auto";     // auto | one-block | grid
  std::uint64_t grid_blocks = 0;  // > 0: the grid kernel's block count
  std::string l2 = "auto";        // auto | normal | evict-first (Options::l2)
  bool exact = false;             // --mode exact: the exact sum against the plain one
  bool axis = false;              // --axis: the axis and segmented reductions
  std::vector<std::string> cases{"rows", "columns", "middle", "ragged"};  // --axis: which cases
  std::string csr_path = "auto";  // --axis: auto | staged | tiles | warps | shares (detail::CsrPath)
};

struct MatmulArgs {
  std::vector<unsigned> sizes;  // --n, or the sweep 8 .. 4096 (default 1024)
  std::string rung = "all";     // checked against the registry by the command
  int reps = 10;
  std::string json;
  std::uint64_t seed = 42;
};

struct Parsed {
  enum class Command { help, ladder, bench, matmul } command = Command::help;
  LadderArgs ladder;
  BenchArgs bench;
  MatmulArgs matmul;
  int device = 0;     // --device: the CUDA device the command runs on
  std::string error;  // non-empty: a one-line message, exit with exit_usage
};

Parsed parse(const std::vector<std::string>& args);  // args without the program name

// Accepts decimal ("65536") and powers of two ("2^24").
std::optional<std::uint64_t> parse_count(const std::string& s);

std::vector<std::uint64_t> sweep_sizes();  // 2^10 .. 2^28
std::vector<std::uint64_t> bench_sizes();  // 2^10 .. 2^30 in x4 steps

extern const char* const usage;

}  // namespace gpureduce::cli
