// Command-line parsing: defaults, every option, and a one-line error for each kind of bad input.
#include "../../src/cli/args.hpp"

#include <gtest/gtest.h>

namespace gpureduce::cli {
namespace {

Parsed p(std::vector<std::string> a) { return parse(a); }

TEST(test_cli_args, defaults) {
  const Parsed r = p({"ladder"});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.command, Parsed::Command::ladder);
  EXPECT_EQ(r.ladder.n, 1u << 24);
  EXPECT_EQ(r.ladder.type, DType::int32);
  EXPECT_EQ(r.ladder.block, 256u);
  EXPECT_FALSE(r.ladder.sweep);
  EXPECT_TRUE(r.ladder.json.empty());
}

TEST(test_cli_args, every_option) {
  const Parsed r = p({"ladder", "--n", "2^28", "--type", "float64", "--block", "512", "--reps", "7", "--json",
                      "out.json", "--sweep", "--seed", "9"});
  ASSERT_EQ(r.error, "");
  EXPECT_EQ(r.ladder.n, 1u << 28);
  EXPECT_EQ(r.ladder.type, DType::float64);
  EXPECT_EQ(r.ladder.block, 512u);
  EXPECT_EQ(r.ladder.reps, 7);
  EXPECT_EQ(r.ladder.json, "out.json");
  EXPECT_TRUE(r.ladder.sweep);
  EXPECT_EQ(r.ladder.seed, 9u);
  EXPECT_EQ(p({"ladder", "--n", "0"}).ladder.n, 0u);
  EXPECT_EQ(p({"ladder", "--n", "1000003"}).ladder.n, 1000003u);
}

// --device D: any command, anywhere after it; device 0 without it.
TEST(test_cli_args, device_for_every_command) {
  EXPECT_EQ(p({"ladder"}).device, 0);
  const Parsed l = p({"ladder", "--device", "1", "--n", "2^20"});
  ASSERT_EQ(l.error, "");
  EXPECT_EQ(l.device, 1);
  EXPECT_EQ(l.ladder.n, 1u << 20);
  const Parsed b = p({"bench", "--types", "int8", "--device", "3"});
  ASSERT_EQ(b.error, "");
  EXPECT_EQ(b.device, 3);
  EXPECT_EQ(b.bench.types, std::vector<ElemType>{ElemType::int8});
  EXPECT_EQ(p({"matmul", "--n", "64", "--device", "2"}).device, 2);
  EXPECT_EQ(p({"matmul", "--device"}).error, "option --device needs a value");
  EXPECT_EQ(p({"bench", "--device", "-1"}).error, "--device: '-1' is not a device number (0, 1, ...)");
  EXPECT_EQ(p({"ladder", "--device", "gpu1"}).error, "--device: 'gpu1' is not a device number (0, 1, ...)");
  EXPECT_NE(p({"--device", "1"}).error, "");  // the command comes first
}

TEST(test_cli_args, bench_mode_exact_takes_float_types_and_sum) {
  const Parsed e = p({"bench", "--mode", "exact"});
  ASSERT_TRUE(e.error.empty()) << e.error;
  EXPECT_TRUE(e.bench.exact);
  EXPECT_EQ(e.bench.types.size(), 4u);
  ASSERT_EQ(e.bench.ops.size(), 1u);
  EXPECT_EQ(e.bench.ops[0], BenchOp::sum);
  EXPECT_NE(p({"bench", "--mode", "exact", "--types", "int32"}).error.find("float32"), std::string::npos);
  EXPECT_NE(p({"bench", "--mode", "fast"}).error.find("plain, exact"), std::string::npos);
  EXPECT_FALSE(p({"bench"}).bench.exact);
}

TEST(test_cli_args, bench_axis_defaults_and_refusals) {
  const Parsed a = p({"bench", "--axis"});
  ASSERT_TRUE(a.error.empty()) << a.error;
  EXPECT_TRUE(a.bench.axis);
  EXPECT_EQ(a.bench.types, (std::vector<ElemType>{ElemType::float32, ElemType::bfloat16, ElemType::int32}));
  EXPECT_EQ(a.bench.sizes, (std::vector<std::uint64_t>{1u << 14, 1u << 26, 1u << 28}));
  EXPECT_EQ(p({"bench", "--axis", "--types", "int32", "--n", "2^21"}).bench.sizes, std::vector<std::uint64_t>{1u << 21});
  EXPECT_EQ(p({"bench", "--axis", "--types", "int8"}).error, "--axis: types are float32, bfloat16 and int32");
  EXPECT_NE(p({"bench", "--axis", "--n", "1000"}).error.find("2^10"), std::string::npos);
  EXPECT_NE(p({"bench", "--axis", "--ops", "dot"}).error.find("sum, max and argmax"), std::string::npos);
  EXPECT_NE(p({"bench", "--axis", "--mode", "exact"}).error.find("full reductions only"), std::string::npos);
}

TEST(test_cli_args, bench_axis_cases_and_csr_path) {
  const Parsed a = p({"bench", "--axis"});
  EXPECT_EQ(a.bench.cases, (std::vector<std::string>{"rows", "columns", "middle", "ragged"}));
  EXPECT_EQ(a.bench.csr_path, "auto");
  const Parsed b = p({"bench", "--axis", "--cases", "ragged,columns", "--csr-path", "shares"});
  ASSERT_TRUE(b.error.empty()) << b.error;
  EXPECT_EQ(b.bench.cases, (std::vector<std::string>{"ragged", "columns"}));
  EXPECT_EQ(b.bench.csr_path, "shares");
  EXPECT_EQ(p({"bench", "--axis", "--cases", "rows,diagonals"}).error,
            "--cases: 'rows,diagonals' is not a list of rows, columns, middle, ragged");
  EXPECT_EQ(p({"bench", "--axis", "--csr-path", "fast"}).error,
            "--csr-path: 'fast' is not one of auto, staged, tiles, warps, shares");
  EXPECT_EQ(p({"bench", "--csr-path", "tiles"}).error, "--cases and --csr-path apply to --axis only");
  EXPECT_EQ(p({"bench", "--cases", "rows"}).error, "--cases and --csr-path apply to --axis only");
}

TEST(test_cli_args, matmul_options) {
  const Parsed d = p({"matmul"});
  ASSERT_TRUE(d.error.empty()) << d.error;
  EXPECT_EQ(d.command, Parsed::Command::matmul);
  EXPECT_EQ(d.matmul.sizes, std::vector<unsigned>{1024});
  EXPECT_EQ(d.matmul.rung, "all");
  const Parsed e = p({"matmul", "--n", "100", "--rung", "m3", "--reps", "5"});
  ASSERT_TRUE(e.error.empty()) << e.error;
  EXPECT_EQ(e.matmul.sizes, std::vector<unsigned>{100});
  EXPECT_EQ(e.matmul.rung, "m3");
  EXPECT_EQ(e.matmul.reps, 5);
  EXPECT_EQ(p({"matmul", "--sweep"}).matmul.sizes.back(), 4096u);
  EXPECT_NE(p({"matmul", "--n", "0"}).error.find("--n"), std::string::npos);
  EXPECT_NE(p({"matmul", "--bogus"}).error.find("--bogus"), std::string::npos);
}

TEST(test_cli_args, help) {
  EXPECT_EQ(p({"--help"}).command, Parsed::Command::help);
  EXPECT_EQ(p({"-h"}).command, Parsed::Command::help);
  EXPECT_EQ(p({"ladder", "--help"}).command, Parsed::Command::help);
  EXPECT_NE(std::string(usage).find("--sweep"), std::string::npos);
}

TEST(test_cli_args, errors_are_one_line_and_name_the_problem) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{}, "missing command"},
      {{"frobnicate"}, "unknown command 'frobnicate'"},
      {{"ladder", "--bogus"}, "unknown option '--bogus'"},
      {{"ladder", "--n"}, "--n needs a value"},
      {{"ladder", "--n", "-5"}, "--n: '-5'"},
      {{"ladder", "--n", "12abc"}, "--n: '12abc'"},
      {{"ladder", "--n", "2^63"}, "--n: '2^63'"},
      {{"ladder", "--type", "int8"}, "--type: 'int8'"},
      {{"ladder", "--block", "100"}, "--block: '100'"},
      {{"ladder", "--block", "32"}, "--block: '32'"},
      {{"ladder", "--reps", "0"}, "--reps: '0'"},
      {{"ladder", "--json", ""}, "--json: empty"},
      {{"ladder", "--seed", "x"}, "--seed: 'x'"},
  };
  for (const auto& [args, msg] : cases) {
    const Parsed r = parse(args);
    EXPECT_NE(r.error.find(msg), std::string::npos) << "got: " << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos);
  }
}

TEST(test_cli_args, sweep_sizes_2_pow_10_to_28) {
  const auto s = sweep_sizes();
  ASSERT_EQ(s.size(), 19u);
  EXPECT_EQ(s.front(), 1u << 10);
  EXPECT_EQ(s.back(), 1u << 28);
}

TEST(test_cli_args, bench_lists_and_defaults) {
  const Parsed p = parse({"bench", "--types", "int8,bfloat16", "--ops", "argmax", "--n", "2^10,1000", "--kernel",
                          "grid", "--grid-blocks", "7", "--l2", "normal", "--reps", "5", "--seed", "3"});
  ASSERT_TRUE(p.error.empty()) << p.error;
  EXPECT_EQ(p.command, Parsed::Command::bench);
  EXPECT_EQ(p.bench.types, (std::vector<ElemType>{ElemType::int8, ElemType::bfloat16}));
  EXPECT_EQ(p.bench.ops, std::vector<BenchOp>{BenchOp::argmax});
  EXPECT_EQ(p.bench.sizes, (std::vector<std::uint64_t>{1024, 1000}));
  EXPECT_EQ(p.bench.kernel, "grid");
  EXPECT_EQ(p.bench.grid_blocks, 7u);
  EXPECT_EQ(p.bench.l2, "normal");
  EXPECT_EQ(p.bench.reps, 5);
  EXPECT_EQ(p.bench.seed, 3u);
  const Parsed d = parse({"bench"});
  EXPECT_EQ(d.bench.sizes.front(), 1u << 10);
  EXPECT_EQ(d.bench.sizes.back(), 1u << 30);
  EXPECT_EQ(d.bench.sizes.size(), 11u);
  EXPECT_EQ(d.bench.types.size(), 7u);
  EXPECT_EQ(d.bench.ops, (std::vector<BenchOp>{BenchOp::sum, BenchOp::max, BenchOp::argmax}));  // the bench's default sweep
  EXPECT_EQ(d.bench.l2, "auto");
  EXPECT_EQ(parse({"bench", "--ops", "dot,sum"}).bench.ops, (std::vector<BenchOp>{BenchOp::dot, BenchOp::sum}));
}

TEST(test_cli_args, bench_rejects_bad_values) {
  EXPECT_NE(parse({"bench", "--types", "int8,int9"}).error.find("--types"), std::string::npos);
  EXPECT_NE(parse({"bench", "--ops", "sum,"}).error.find("--ops"), std::string::npos);
  EXPECT_NE(parse({"bench", "--kernel", "cluster"}).error.find("--kernel"), std::string::npos);
  EXPECT_NE(parse({"bench", "--grid-blocks", "0"}).error.find("--grid-blocks"), std::string::npos);
  EXPECT_NE(parse({"bench", "--l2", "evict_first"}).error.find("--l2"), std::string::npos);
  EXPECT_NE(parse({"bench", "--reps", "0"}).error.find("--reps"), std::string::npos);
}

}  // namespace
}  // namespace gpureduce::cli
