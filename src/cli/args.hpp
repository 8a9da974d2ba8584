// Command-line parsing for `gpureduce`, kept free of CUDA so the CPU tests cover every error path.
#pragma once

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
  std::uint64_t n = std::uint64_t(1) << 24;  // the seeds' 16M
  DType type = DType::int32;
  unsigned block = 256;
  int reps = 30;
  std::string json;  // empty: no JSON file
  bool sweep = false;
  std::uint64_t seed = 20261121;
};

struct Parsed {
  enum class Command { help, ladder } command = Command::help;
  LadderArgs ladder;
  std::string error;  // non-empty: a one-line message, exit with exit_usage
};

Parsed parse(const std::vector<std::string>& args);  // args without the program name

// Accepts decimal ("16777216") and powers of two ("2^24").
std::optional<std::uint64_t> parse_count(const std::string& s);

std::vector<std::uint64_t> sweep_sizes();  // 2^10 .. 2^28

extern const char* const usage;

}  // namespace gpureduce::cli
