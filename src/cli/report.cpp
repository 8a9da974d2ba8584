#include "report.hpp"

#include "../bench/json_writer.hpp"

#include <cmath>

#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "gpureduce_build_commit.hpp"  // GPUREDUCE_GIT_COMMIT, written at build time

namespace gpureduce::cli {
namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string size_label(std::uint64_t n) {
  std::string s = std::to_string(n);
  if (n && (n & (n - 1)) == 0) s += " (2^" + std::to_string(__builtin_ctzll(n)) + ")";
  return s;
}

#define GPUREDUCE_TIMING_METHOD                                                                             \
  "CUDA events, 3 warm-up runs, median of reps, L2 flushed (memset of 2x L2) before each sample, the stream held " \
  "until the sample is enqueued, samples with the SM clock below 80% of its peak taken again"
constexpr const char* timing_method = GPUREDUCE_TIMING_METHOD;
constexpr const char* paired_timing_method = GPUREDUCE_TIMING_METHOD
    "; the two calls compared (gpureduce and CUB; --mode exact: exact and plain) alternate sample by sample "
    "(a b, b a, ...)";
#undef GPUREDUCE_TIMING_METHOD

// Opens the top-level object and writes what identifies the run.
void write_run_fields(JsonWriter& w, const RunInfo& info, const char* tool) {
  const DeviceInfo& d = info.device;
  w.begin_object();
  w.field("tool", tool);
  w.key("device").begin_object();
  w.field("name", d.name).field("ordinal", d.ordinal).field("sm_count", d.sm_count).field("l2_bytes", d.l2_bytes);
  w.field("driver", d.driver).field("cuda_driver_api", d.cuda_driver_api);
  w.field("theoretical_gbps", d.theoretical_gbps).field("measured_read_gbps", info.measured_read_gbps);
  w.end_object();
  w.field("commit", info.commit).field("date", info.date);
}

}  // namespace

std::string build_commit() {
  const char* env = std::getenv("GPUREDUCE_COMMIT");
  return env && *env ? env : GPUREDUCE_GIT_COMMIT;
}

void print_header(std::ostream& os, const RunInfo& info) {
  const DeviceInfo& d = info.device;
  os << "GPU: " << d.name << ", " << d.sm_count << " SMs, L2 " << d.l2_bytes / (1024 * 1024) << " MiB, driver "
     << (d.driver.empty() ? "?" : d.driver) << " (CUDA " << d.cuda_driver_api << ")\n"
     << "memory bandwidth: " << fmt("%.0f", d.theoretical_gbps) << " GB/s theoretical (device attributes), "
     << fmt("%.0f", info.measured_read_gbps) << " GB/s measured streaming read (= 100% below)\n"
     << "commit " << info.commit << ", " << info.date << "\n";
}

void print_table(std::ostream& os, const LadderArgs& args, const std::vector<BenchRow>& rows) {
  std::uint64_t current = ~std::uint64_t(0);
  double r0_ms = 0, prev_ms = 0;
  for (const BenchRow& r : rows) {
    if (r.n != current) {
      current = r.n;
      os << "\n" << dtype_name(r.type) << " sum, n = " << size_label(r.n) << ", block " << args.block << ", median of "
         << args.reps << " samples, L2 flushed before each\n\n"
         << "| variant | adds | median (us) | GB/s | % peak | step | vs r0 | verified |\n"
         << "|---|---|---:|---:|---:|---:|---:|---|\n";
      r0_ms = prev_ms = 0;
    }
    const double ms = r.time.median_ms;
    const bool rung =
        r.variant.size() >= 2 && r.variant[0] == 'r' && std::isdigit(static_cast<unsigned char>(r.variant[1]));
    if (r.variant == "r0") r0_ms = ms;
    const std::string step = rung && prev_ms > 0 ? fmt("%.2fx", prev_ms / ms) : "";
    const std::string vs_r0 = r0_ms > 0 ? fmt("%.2fx", r0_ms / ms) : "";
    if (rung) prev_ms = ms;
    os << "| " << r.variant << " | " << r.adds << " | " << fmt("%.1f", ms * 1e3) << " | " << fmt("%.0f", r.gbps)
       << " | " << fmt("%.1f", r.pct_peak) << " | " << step << " | " << vs_r0 << " | " << (r.verified ? "yes" : "NO")
       << " |\n";
  }
}

void write_json(std::ostream& os, const RunInfo& info, const LadderArgs& args, const std::vector<BenchRow>& rows) {
  JsonWriter w(os);
  write_run_fields(w, info, "gpureduce ladder");
  w.key("config").begin_object();
  w.field("block", int(args.block)).field("reps", args.reps).field("seed", args.seed).field("sweep", args.sweep);
  w.field("timing", timing_method);
  w.field("data", "uniform non-negative (int32: 0..1000, float: [0,1)), so cuBLAS asum equals the sum");
  w.end_object();
  w.key("rows").begin_array();
  for (const BenchRow& r : rows) {
    w.begin_object();
    w.field("variant", r.variant).field("adds", r.adds).field("type", dtype_name(r.type)).field("op", "sum");
    w.field("n", r.n)
        .field("median_ms", r.time.median_ms)
        .field("min_ms", r.time.min_ms)
        .field("max_ms", r.time.max_ms)
        .field("sm_mhz", r.time.sm_mhz)
        .field("discarded", r.time.discarded);
    w.field("gbps", r.gbps).field("pct_peak", r.pct_peak).field("verified", r.verified);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  os << "\n";
}

void print_bench_table(std::ostream& os, const RunInfo& info, const BenchArgs& args,
                       const std::vector<ProductionRow>& rows) {
  const double peak = info.measured_read_gbps;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const ProductionRow& r = rows[i];
    if (i == 0 || rows[i - 1].op != r.op || rows[i - 1].type != r.type)
      os << "\n"
         << elem_type_name(r.type) << " " << bench_op_name(r.op) << ", median of " << args.reps
         << " samples, L2 flushed before each" << (args.l2 == "auto" ? "" : ", gpureduce's loads --l2 " + args.l2)
         << "\n\n"
         << (args.exact
                 ? "| n | exact (us) | plain sum (us) | exact / plain throughput | exact GB/s | % ceiling | plain GB/s "
                   "| verified |"
                 : "| n | gpureduce (us) | CUB (us) | speed-up | gpureduce GB/s | % ceiling | CUB GB/s | verified |")
         << (r.g2g.median_ms > 0 ? " CUB gpu_to_gpu (us) | exact / gpu_to_gpu throughput |\n" : "\n")
         << "|---|---:|---:|---:|---:|---:|---:|---|" << (r.g2g.median_ms > 0 ? "---:|---:|\n" : "\n");
    os << "| " << size_label(r.n) << " | " << fmt("%.1f", r.ours.median_ms * 1e3) << " | "
       << fmt("%.1f", r.cub.median_ms * 1e3) << " | " << fmt("%.2fx", r.cub.median_ms / r.ours.median_ms) << " | "
       << fmt("%.0f", r.ours_gbps) << " | " << fmt("%.1f", 100 * r.ours_gbps / peak) << " | " << fmt("%.0f", r.cub_gbps)
       << " | " << (r.verified ? "yes" : "NO") << " |";
    if (r.g2g.median_ms > 0)
      os << " " << fmt("%.1f", r.g2g.median_ms * 1e3) << " | " << fmt("%.2fx", r.g2g.median_ms / r.ours.median_ms)
         << " |";
    os << "\n";
  }
}

void print_exact_accuracy(std::ostream& os, const ExactAccuracy& a) {
  const auto rel = [&](double v) { return fmt("%.1e", std::fabs(v - a.reference) / std::fabs(a.reference)); };
  os << "\nill-conditioned float32 sum, n = " << a.n << " (cancelling pairs up to 1e8 among values in [0, 1)):\n\n"
     << "| sum | value | relative error |\n|---|---:|---:|\n"
     << "| exact, rounded once to double (host) | " << fmt("%.17g", a.reference) << " | 0 |\n"
     << "| gpureduce sum, float accumulator | " << fmt("%.9g", a.plain_float) << " | " << rel(a.plain_float) << " |\n"
     << "| double, left to right (host) | " << fmt("%.17g", a.host_double) << " | " << rel(a.host_double) << " |\n"
     << "| gpureduce exact sum, float | " << fmt("%.9g", a.exact_float) << " | " << rel(a.exact_float) << " |\n";
}

void write_bench_json(std::ostream& os, const RunInfo& info, const BenchArgs& args, const ExactAccuracy* accuracy,
                      const std::vector<ProductionRow>& rows) {
  JsonWriter w(os);
  write_run_fields(w, info, "gpureduce bench");
  w.key("config").begin_object();
  w.field("reps", args.reps)
      .field("seed", args.seed)
      .field("kernel", args.kernel)
      .field("grid_blocks", args.grid_blocks);
  w.field("l2", args.l2);
  w.field("timing", paired_timing_method);
  w.field("data", "device-generated hash: integers in [-100, 100], floating values in [-1, 1)");
  w.field("mode", args.exact ? "exact" : "plain");
  w.field("verified", args.exact ? "the exact sum has the bits of the host implementation (exact_sum_host)"
                                 : "gpureduce's result equals CUB's (sum of floats: within the summation error bound)");
  w.end_object();
  if (accuracy) {
    w.key("accuracy").begin_object();
    w.field("n", accuracy->n)
        .field("reference", accuracy->reference)
        .field("plain_float", double(accuracy->plain_float));
    w.field("host_double", accuracy->host_double).field("exact_float", double(accuracy->exact_float));
    w.end_object();
  }
  w.key("rows").begin_array();
  const double peak = info.measured_read_gbps;
  for (const ProductionRow& r : rows) {
    for (const int which : {0, 1, 2}) {  // ours, the comparison, CUB's gpu_to_gpu sum (when measured)
      if (which == 2 && r.g2g.median_ms <= 0) continue;
      const TimingStats& t = which == 0 ? r.ours : which == 1 ? r.cub : r.g2g;
      const double gbps = which == 0 ? r.ours_gbps : which == 1 ? r.cub_gbps : r.g2g_gbps;
      const char* variant = which == 2 ? "cub-gpu_to_gpu"
                            : which == 0 ? (args.exact ? "gpureduce-exact" : "gpureduce")
                                         : (args.exact ? "gpureduce" : "cub");
      w.begin_object();
      w.field("variant", variant).field("type", elem_type_name(r.type)).field("op", bench_op_name(r.op));
      w.field("n", r.n).field("median_ms", t.median_ms).field("min_ms", t.min_ms).field("max_ms", t.max_ms);
      w.field("sm_mhz", t.sm_mhz).field("discarded", t.discarded);
      w.field("gbps", gbps)
          .field("pct_peak", 100 * gbps / peak)
          .field("verified", which == 2 ? r.g2g_verified : r.verified);
      w.end_object();
    }
  }
  w.end_array();
  w.end_object();
  os << "\n";
}

// Per N: every rung and cuBLAS reference, with speed-ups over the previous rung and over m2 (the
// first many-block rung).
void print_matmul_table(std::ostream& os, const MatmulArgs& args, const std::vector<MatmulRow>& rows) {
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const MatmulRow& r = rows[i];
    if (i == 0 || rows[i - 1].n != r.n)
      os << "\nint32 C = A x A, N = " << r.n << ", median of " << args.reps << " samples, L2 flushed before each\n\n"
         << "| variant | adds | median (ms) | GOP/s | step | vs m2 | verified | note |\n"
         << "|---|---|---:|---:|---:|---:|---|---|\n";
    double prev = 0, m2 = 0;
    for (std::size_t j = i; j-- > 0 && rows[j].n == r.n;) {
      if (!prev && rows[j].variant[0] == 'm' && rows[j].time.median_ms > 0) prev = rows[j].time.median_ms;
      if (rows[j].variant == "m2") m2 = rows[j].time.median_ms;
    }
    if (r.variant == "m2") m2 = r.time.median_ms;
    const bool rung = r.variant[0] == 'm', ran = r.time.median_ms > 0;
    os << "| " << r.variant << " | " << r.adds << " | " << (ran ? fmt("%.3f", r.time.median_ms) : "-") << " | "
       << (ran ? fmt("%.0f", r.gops) : "-") << " | "
       << (rung && ran && prev ? fmt("%.2fx", prev / r.time.median_ms) : "") << " | "
       << (ran && m2 ? fmt("%.2fx", m2 / r.time.median_ms) : "") << " | " << (ran ? (r.verified ? "yes" : "NO") : "-")
       << " | " << r.note << " |\n";
  }
}

void write_matmul_json(std::ostream& os, const RunInfo& info, const MatmulArgs& args,
                       const std::vector<MatmulRow>& rows) {
  JsonWriter w(os);
  write_run_fields(w, info, "gpureduce matmul");
  w.key("config").begin_object();
  w.field("reps", args.reps).field("seed", args.seed).field("rung", args.rung);
  w.field("timing", timing_method);
  w.field("data", "A = B, int32 values in [-8, 7]; C wraps modulo 2^32 (no wrap at these values)");
  w.field("verified", "rungs: the full host product up to N = 512, Freivalds (20 vectors) and 64 exact entries beyond; "
                      "cuBLAS: equal to the rungs' int32 product");
  w.end_object();
  w.key("rows").begin_array();
  for (const MatmulRow& r : rows) {
    w.begin_object();
    w.field("variant", r.variant).field("adds", r.adds).field("n", std::uint64_t(r.n));
    w.field("median_ms", r.time.median_ms).field("min_ms", r.time.min_ms).field("max_ms", r.time.max_ms);
    w.field("sm_mhz", r.time.sm_mhz).field("discarded", r.time.discarded);
    w.field("gops", r.gops).field("verified", r.verified).field("note", r.note);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  os << "\n";
}

namespace {
std::string axis_shape(const AxisRow& r) {
  std::string s;
  for (std::size_t k = 0; k < r.shape.size(); ++k) s += (k ? "x" : "") + std::to_string(r.shape[k]);
  if (r.segments) return std::to_string(r.segments) + " segs, mean " + std::to_string(int(std::lround(r.mean_segment)));
  return s + " axis " + std::to_string(r.axes.empty() ? 0 : r.axes[0]);
}
}  // namespace

void print_axis_table(std::ostream& os, const std::vector<AxisRow>& rows) {
  char line[200];
  std::snprintf(line, sizeof line, "%-15s %-8s %-6s %-30s %11s %9s %9s %8s %4s\n", "variant", "type", "op", "shape",
                "median_ms", "GB/s", "floor_ms", "of_floor", "ok");
  os << line;
  for (const AxisRow& r : rows) {
    std::snprintf(line, sizeof line, "%-15s %-8s %-6s %-30s %11.4f %9.1f %9.4f %7.0f%% %4s\n", r.variant.c_str(),
                  elem_type_name(r.type), bench_op_name(r.op), axis_shape(r).c_str(), r.time.median_ms, r.gbps,
                  r.floor_ms, 100 * r.floor_ms / r.time.median_ms, r.verified ? "yes" : "NO");
    os << line;
  }
}

void write_axis_json(std::ostream& os, const RunInfo& info, const BenchArgs& args, double write_gbps,
                     const std::vector<AxisRow>& rows) {
  JsonWriter w(os);
  write_run_fields(w, info, "gpureduce bench --axis");
  w.field("read_ceiling_gbps", info.measured_read_gbps).field("write_ceiling_gbps", write_gbps);
  w.key("config").begin_object();
  w.field("reps", args.reps).field("seed", args.seed);
  w.key("cases").begin_array();
  for (const std::string& c : args.cases) w.value(c);
  w.end_array();
  w.field("csr_path", args.csr_path);
  w.field("timing", timing_method);
  w.field("data", "device-generated hash: integers in [-100, 100], floating values in [-1, 1)");
  w.field("floor", "input bytes at the read ceiling plus result bytes at the write ceiling");
  w.field("verified", "against a sequential double reference on the GPU: integers, max and argmax exactly, "
                      "floating sums within (length + 64) u sum|x|");
  w.end_object();
  w.key("rows").begin_array();
  for (const AxisRow& r : rows) {
    w.begin_object();
    w.field("variant", r.variant).field("type", elem_type_name(r.type)).field("op", bench_op_name(r.op));
    w.key("shape").begin_array();
    for (const std::int64_t e : r.shape) w.value(std::uint64_t(e));
    w.end_array();
    if (r.segments) {
      w.field("segments", r.segments).field("mean_segment", r.mean_segment);
    } else {
      w.key("axes").begin_array();
      for (const int a : r.axes) w.value(a);
      w.end_array();
    }
    w.field("bytes", r.bytes).field("median_ms", r.time.median_ms).field("min_ms", r.time.min_ms);
    w.field("max_ms", r.time.max_ms).field("gbps", r.gbps).field("floor_ms", r.floor_ms);
    w.field("verified", r.verified);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  os << "\n";
}

}  // namespace gpureduce::cli
