#include "args.hpp"

#include <gpureduce/ladder/launch_context.hpp>

#include <algorithm>
#include <charconv>
#include <initializer_list>
#include <limits>
#include <string_view>

namespace gpureduce::cli {

const char* const usage =
    "usage: gpureduce <command> [options]\n"
    "\n"
    "commands:\n"
    "  ladder    run the reduction ladder (rungs r0..r9, the production path, CUB, Thrust, cuBLAS)\n"
    "  bench     the production path against CUB: every type x operator x size, same run\n"
    "  matmul    the int32 matrix-multiplication ladder (rungs m0..m5) and cuBLAS, same run\n"
    "\n"
    "ladder options:\n"
    "  --n N                  elements (decimal or 2^k; default 2^24)\n"
    "  --type T               int32 | float32 | float64 (default int32)\n"
    "  --block B              threads per block: 64, 128, 256, 512 or 1024 (default 256)\n"
    "  --reps R               timed samples per row, median reported (default 30)\n"
    "  --sweep                every n = 2^10 .. 2^28 instead of --n\n"
    "  --json FILE            also write the results as JSON\n"
    "  --seed S               input data seed\n"
    "\n"
    "bench options:\n"
    "  --types T,T,...        of int8 int32 int64 float32 float64 float16 bfloat16 (default all)\n"
    "  --ops OP,OP,...        of sum max argmax dot (default sum,max,argmax; dot: a.b of two arrays,\n"
    "                         against CUB's TransformReduce of a[i] * b[i] over the indices)\n"
    "  --n N[,N...]           sizes (default 2^10 .. 2^30 in x4 steps, up to 40% of device memory)\n"
    "  --reps R               timed samples per row (default 20)\n"
    "  --kernel K             auto | one-block | grid: force gpureduce's kernel (default auto)\n"
    "  --grid-blocks B        with the grid kernel, B blocks (default: sized from the input)\n"
    "  --l2 P                 auto | normal | evict-first: the L2 priority of gpureduce's grid loads\n"
    "                         (Options::l2; default auto: evict-first up to 4x the L2 size)\n"
    "  --mode M               plain | exact: exact compares the exact sum (float types) with the\n"
    "                         plain sum of the same type instead of CUB (default plain)\n"
    "  --axis                 axis and segmented reductions against CUB's DeviceSegmentedReduce:\n"
    "                         rows and columns of every width, a 3-D middle axis and ragged\n"
    "                         segments of arrays of --n elements (default 2^14,2^26,2^28) of float32,\n"
    "                         bfloat16 and int32 (--types picks among them)\n"
    "  --cases C,C,...        with --axis, of rows columns middle ragged (default all)\n"
    "  --csr-path P           with --axis, auto | staged | tiles | warps | shares: force the path of\n"
    "                         gpureduce's CSR segments\n"
    "  --json FILE, --seed S  as for ladder\n"
    "\n"
    "matmul options:\n"
    "  --n N                  matrix side, any N >= 1 (default 1024)\n"
    "  --sweep                N = 8, 16, ..., 4096 instead of --n\n"
    "  --rung R               one rung (m0 .. m5) or all (default all)\n"
    "  --reps R               timed samples per row (default 10)\n"
    "  --json FILE, --seed S  as for ladder\n"
    "\n"
    "  --device D             the CUDA device to run on, for every command (default 0)\n"
    "  -h, --help             this message\n"
    "\n"
    "exit status: 0 ok, 1 runtime error (no GPU, CUDA error, wrong result), 2 bad arguments\n";

namespace {

template <class U>
std::optional<U> parse_unsigned(const std::string& s) {
  if (s.empty() || s[0] == '-') return std::nullopt;  // from_chars takes a sign for a signed U
  U v{};
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::uint64_t> parse_count(const std::string& s) {
  if (s.rfind("2^", 0) == 0) {
    const auto k = parse_unsigned<unsigned>(s.substr(2));
    if (!k || *k > 62) return std::nullopt;
    return std::uint64_t(1) << *k;
  }
  return parse_unsigned<std::uint64_t>(s);
}

std::vector<std::uint64_t> sweep_sizes() {
  std::vector<std::uint64_t> v;
  for (int k = 10; k <= 28; ++k) v.push_back(std::uint64_t(1) << k);
  return v;
}

std::vector<std::uint64_t> bench_sizes() {
  std::vector<std::uint64_t> v;
  for (int k = 10; k <= 30; k += 2) v.push_back(std::uint64_t(1) << k);
  return v;
}

namespace {

// --reps, --json or --seed, shared by ladder and bench: the error message, or "" when valid.
std::string parse_run_option(const std::string& opt, const std::string& val, int& reps, std::string& json,
                             std::uint64_t& seed) {
  if (opt == "--reps") {
    const auto k = parse_unsigned<int>(val);
    if (!k || *k < 1 || *k > 100000) return "--reps: '" + val + "' is not a whole number in 1..100000";
    reps = *k;
  } else if (opt == "--json") {
    if (val.empty()) return "--json: empty file name";
    json = val;
  } else {
    const auto s = parse_unsigned<std::uint64_t>(val);
    if (!s) return "--seed: '" + val + "' is not a whole number";
    seed = *s;
  }
  return "";
}

// Comma-separated values, each parsed by `one`; nullopt if any is invalid.
template <class V, class F>
std::optional<std::vector<V>> parse_list(const std::string& s, F&& one) {
  std::vector<V> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = s.find(',', start);
    const auto v = one(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (!v) return std::nullopt;
    out.push_back(*v);
    if (end == std::string::npos) return out;
    start = end + 1;
  }
}

// The options after the command, in order: -h or --help makes the command help; each of `flags`
// goes to `take` alone, each of `valued` with the argument after it. `take` returns an error
// message or "". False, with r's command or error set, on help or the first error.
template <class Take>
bool take_options(const std::vector<std::string>& args, std::initializer_list<std::string_view> flags,
                  std::initializer_list<std::string_view> valued, Parsed& r, Take&& take) {
  const auto in = [](std::initializer_list<std::string_view> l, const std::string& s) {
    return std::find(l.begin(), l.end(), s) != l.end();
  };
  for (std::size_t i = 1; i < args.size(); ++i) {
    const std::string& opt = args[i];
    if (opt == "-h" || opt == "--help") {
      r.command = Parsed::Command::help;
      return false;
    }
    const bool flag = in(flags, opt);
    if (!flag && !in(valued, opt))
      r.error = "unknown option '" + opt + "' (try --help)";
    else if (!flag && i + 1 >= args.size())
      r.error = "option " + opt + " needs a value";
    else
      r.error = take(opt, flag ? std::string() : args[++i]);
    if (!r.error.empty()) return false;
  }
  return true;
}

Parsed parse_ladder(const std::vector<std::string>& args) {
  Parsed r;
  r.command = Parsed::Command::ladder;
  LadderArgs& a = r.ladder;
  const auto take = [&](const std::string& opt, const std::string& val) -> std::string {
    if (opt == "--sweep") {
      a.sweep = true;
    } else if (opt == "--n") {
      const auto n = parse_count(val);
      if (!n) return "--n: '" + val + "' is not a count (decimal or 2^k)";
      a.n = *n;
    } else if (opt == "--type") {
      const auto t = parse_dtype(val);
      if (!t) return "--type: '" + val + "' is not one of int32, float32, float64";
      a.type = *t;
    } else if (opt == "--block") {
      const auto b = parse_unsigned<unsigned>(val);
      if (!b || !ladder::is_valid_block(*b)) return "--block: '" + val + "' is not one of 64, 128, 256, 512, 1024";
      a.block = *b;
    } else {
      return parse_run_option(opt, val, a.reps, a.json, a.seed);
    }
    return "";
  };
  take_options(args, {"--sweep"}, {"--n", "--type", "--block", "--reps", "--json", "--seed"}, r, take);
  return r;
}

Parsed parse_bench(const std::vector<std::string>& args) {
  Parsed r;
  r.command = Parsed::Command::bench;
  BenchArgs& a = r.bench;
  const auto take = [&](const std::string& opt, const std::string& val) -> std::string {
    if (opt == "--types") {
      const auto t = parse_list<ElemType>(val, [](const std::string& x) { return parse_elem_type(x); });
      if (!t) return "--types: '" + val + "' is not a list of int8, int32, int64, float32, float64, float16, bfloat16";
      a.types = *t;
    } else if (opt == "--ops") {
      const auto o = parse_list<BenchOp>(val, [](const std::string& x) { return parse_bench_op(x); });
      if (!o) return "--ops: '" + val + "' is not a list of sum, max, argmax, dot";
      a.ops = *o;
    } else if (opt == "--n") {
      const auto n = parse_list<std::uint64_t>(val, [](const std::string& x) { return parse_count(x); });
      if (!n) return "--n: '" + val + "' is not a list of counts (decimal or 2^k)";
      a.sizes = *n;
    } else if (opt == "--mode") {
      if (val != "plain" && val != "exact") return "--mode: '" + val + "' is not one of plain, exact";
      a.exact = val == "exact";
    } else if (opt == "--axis") {
      a.axis = true;
    } else if (opt == "--cases") {
      const auto c = parse_list<std::string>(val, [](const std::string& x) -> std::optional<std::string> {
        if (x == "rows" || x == "columns" || x == "middle" || x == "ragged") return x;
        return std::nullopt;
      });
      if (!c) return "--cases: '" + val + "' is not a list of rows, columns, middle, ragged";
      a.cases = *c;
    } else if (opt == "--csr-path") {
      if (val != "auto" && val != "staged" && val != "tiles" && val != "warps" && val != "shares")
        return "--csr-path: '" + val + "' is not one of auto, staged, tiles, warps, shares";
      a.csr_path = val;
    } else if (opt == "--kernel") {
      if (val != "auto" && val != "one-block" && val != "grid")
        return "--kernel: '" + val + "' is not one of auto, one-block, grid";
      a.kernel = val;
    } else if (opt == "--l2") {
      if (val != "auto" && val != "normal" && val != "evict-first")
        return "--l2: '" + val + "' is not one of auto, normal, evict-first";
      a.l2 = val;
    } else if (opt == "--grid-blocks") {
      const auto k = parse_unsigned<std::uint64_t>(val);
      if (!k || *k < 1) return "--grid-blocks: '" + val + "' is not a whole number >= 1";
      a.grid_blocks = *k;
    } else {
      return parse_run_option(opt, val, a.reps, a.json, a.seed);
    }
    return "";
  };
  const bool ok = take_options(
      args, {"--axis"},
      {"--types", "--ops", "--n", "--reps", "--json", "--seed", "--kernel", "--grid-blocks", "--l2", "--mode",
       "--cases", "--csr-path"},
      r, take);
  if (!ok) return r;
  const bool axis_options = std::find(args.begin(), args.end(), "--cases") != args.end() || a.csr_path != "auto";
  if (!a.axis && axis_options) {
    r.error = "--cases and --csr-path apply to --axis only";
    return r;
  }
  if (a.axis) {
    if (a.exact || a.kernel != "auto" || a.l2 != "auto" || a.grid_blocks != 0) {
      r.error = "--axis: --mode, --kernel, --l2 and --grid-blocks apply to the full reductions only";
      return r;
    }
    if (std::find(a.ops.begin(), a.ops.end(), BenchOp::dot) != a.ops.end()) {
      r.error = "--axis: ops are sum, max and argmax";
      return r;
    }
    if (std::find(args.begin(), args.end(), "--types") == args.end())
      a.types = {ElemType::float32, ElemType::bfloat16, ElemType::int32};
    for (const ElemType t : a.types)
      if (t != ElemType::float32 && t != ElemType::bfloat16 && t != ElemType::int32) {
        r.error = "--axis: types are float32, bfloat16 and int32";
        return r;
      }
    // 2^14: the small inputs (64 KB of float32), where one launch must match CUB.
    if (a.sizes.empty()) a.sizes = {std::uint64_t(1) << 14, std::uint64_t(1) << 26, std::uint64_t(1) << 28};
    for (const std::uint64_t n : a.sizes)
      if (n < 1 << 10 || n >= std::uint64_t(1) << 31) {
        r.error = "--axis: --n from 2^10 to below 2^31 elements";
        return r;
      }
    return r;
  }
  if (a.sizes.empty()) a.sizes = bench_sizes();
  if (a.exact) {
    const bool types_given = std::find(args.begin(), args.end(), "--types") != args.end();
    if (!types_given) a.types = {ElemType::float32, ElemType::float64, ElemType::float16, ElemType::bfloat16};
    for (const ElemType t : a.types)
      if (t == ElemType::int8 || t == ElemType::int32 || t == ElemType::int64) {
        r.error = "--mode exact: types must be float32, float64, float16 or bfloat16";
        return r;
      }
    a.ops = {BenchOp::sum};
  }
  return r;
}

Parsed parse_matmul(const std::vector<std::string>& args) {
  Parsed r;
  r.command = Parsed::Command::matmul;
  MatmulArgs& a = r.matmul;
  bool sweep = false;
  const auto take = [&](const std::string& opt, const std::string& val) -> std::string {
    if (opt == "--sweep") {
      sweep = true;
    } else if (opt == "--n") {
      const auto n = parse_count(val);
      if (!n || *n < 1 || *n > 65536) return "--n: '" + val + "' is not a matrix side from 1 to 65536";
      a.sizes = {unsigned(*n)};
    } else if (opt == "--rung") {
      a.rung = val;
    } else {
      return parse_run_option(opt, val, a.reps, a.json, a.seed);
    }
    return "";
  };
  if (!take_options(args, {"--sweep"}, {"--n", "--rung", "--reps", "--json", "--seed"}, r, take)) return r;
  if (sweep) a.sizes = {8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
  if (a.sizes.empty()) a.sizes = {1024};
  return r;
}

Parsed parse_command(const std::vector<std::string>& args) {
  Parsed r;
  if (args.empty())
    r.error = "missing command (try --help)";
  else if (args[0] == "ladder")
    r = parse_ladder(args);
  else if (args[0] == "bench")
    r = parse_bench(args);
  else if (args[0] == "matmul")
    r = parse_matmul(args);
  else if (args[0] != "-h" && args[0] != "--help" && args[0] != "help")
    r.error = "unknown command '" + args[0] + "' (try --help)";
  return r;
}

}  // namespace

// --device D, anywhere after the command, applies to every command: taken out before the
// command's own options are read.
Parsed parse(const std::vector<std::string>& args) {
  std::vector<std::string> rest;
  int device = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (i == 0 || args[i] != "--device") {
      rest.push_back(args[i]);
      continue;
    }
    Parsed r;
    if (++i >= args.size()) {
      r.error = "option --device needs a value";
      return r;
    }
    const auto d = parse_unsigned<int>(args[i]);
    if (!d) {
      r.error = "--device: '" + args[i] + "' is not a device number (0, 1, ...)";
      return r;
    }
    device = *d;
  }
  Parsed r = parse_command(rest);
  r.device = device;
  return r;
}

}  // namespace gpureduce::cli
