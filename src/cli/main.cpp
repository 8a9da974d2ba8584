// gpureduce: command-line entry point.
#include "args.hpp"
#include "report.hpp"

#include "../bench/stream_read.hpp"

#include <gpureduce/matmul/registry.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>

namespace gpureduce::cli {
using namespace gpureduce::detail;
namespace {

// 4 GiB, as the bench's largest 4-byte rows, or a quarter of device memory on smaller GPUs: over 1
// GiB the launch and the last wave's tail still cost 3-4% (H200: 4328-4344 GB/s against
// 4496-4509, tools/probes/read_ceiling_probe.cu).
std::uint64_t read_probe_bytes(const DeviceInfo& d) {
  return std::min<std::uint64_t>(std::uint64_t(4) << 30, d.global_mem_bytes / 4);
}

template <class Json>
bool write_json_file(const std::string& path, Json&& write) {
  if (path.empty()) return true;
  std::ofstream f(path);
  write(f);
  if (!f) std::cerr << "gpureduce: error: cannot write " << path << "\n";
  return bool(f);
}

// The GPU `ordinal` (--device), a stream and timer on it, and the measured read ceiling; then
// body(info, timer).
template <class Body>
int with_device(int ordinal, Body&& body) {
  int count = 0;  // with none, query_device says why
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0 && ordinal >= count) {
    std::cerr << "gpureduce: error: --device " << ordinal << ": this machine has " << count << " CUDA device"
              << (count == 1 ? "" : "s") << "\n";
    return exit_runtime_error;
  }
  if (count > 0) GPUREDUCE_CUDA(cudaSetDevice(ordinal));
  std::string why;
  const auto device = query_device(why);
  if (!device) {
    std::cerr << "gpureduce: error: no usable CUDA GPU (" << why << ")\n";
    return exit_runtime_error;
  }
#if defined(GPUREDUCE_COMPILE_CHECK)
  std::cerr << "gpureduce: error: this build's device code is an unoptimised compile check (configured where no "
               "GPU was present): reconfigure with -DGPUREDUCE_SASS=ON to measure\n";
  return exit_runtime_error;
#endif
  cudaStream_t stream = nullptr;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer(stream, device->l2_bytes);
  const RunInfo info{*device, measure_read_gbps(timer, read_probe_bytes(*device), 20), build_commit(),
                     utc_now_iso8601()};
  print_header(std::cout, info);
  const int rc = body(info, timer);
  cudaStreamDestroy(stream);
  return rc;
}

int run_axis_command(const BenchArgs& args, int device) {
  return with_device(device, [&](const RunInfo& info, GpuTimer& timer) {
    const double write_gbps = measure_write_gbps(timer, read_probe_bytes(info.device), 20);
    std::cout << "write ceiling: " << write_gbps << " GB/s\n";
    const AxisRun run{args.types,      args.ops,   args.sizes,   args.reps, args.seed, info.measured_read_gbps,
                      write_gbps,      args.cases, args.csr_path};
    // Each case over the last, padded to one width.
    const auto rows = run_axis(timer, run, [](const std::string& what) {
      std::cerr << "\r" << what << std::string(what.size() < 60 ? 60 - what.size() : 0, ' ') << std::flush;
    });
    std::cerr << "\n";
    print_axis_table(std::cout, rows);
    if (!write_json_file(args.json, [&](std::ostream& f) { write_axis_json(f, info, args, write_gbps, rows); }))
      return exit_runtime_error;
    const bool ok = std::all_of(rows.begin(), rows.end(), [](const AxisRow& r) { return r.verified; });
    if (!ok) std::cerr << "gpureduce: error: some results disagree with their reference (rows marked NO)\n";
    return ok ? exit_ok : exit_runtime_error;
  });
}

int run_bench_command(const BenchArgs& args, int device) {
  if (args.axis) return run_axis_command(args, device);
  return with_device(device, [&](const RunInfo& info, GpuTimer& timer) {
    const Kernel kernel = args.kernel == "one-block" ? Kernel::one_block
                          : args.kernel == "grid"    ? Kernel::grid
                                                     : Kernel::automatic;
    const L2Policy l2 = args.l2 == "normal"        ? L2Policy::normal
                        : args.l2 == "evict-first" ? L2Policy::evict_first
                                                   : L2Policy::automatic;
    const ProductionRun run{args.types, args.ops, args.sizes, args.reps, args.seed,
                            kernel, args.grid_blocks, l2, args.exact};
    const auto rows = run_production(
        info.device, timer, run,
        [](std::size_t done, std::size_t total) {
          if (done < total) std::cerr << "\r[" << done + 1 << "/" << total << "]     " << std::flush;
          else std::cerr << "\r[" << total << "/" << total << "] done\n";
        },
        [](ElemType type, std::uint64_t n, std::uint64_t largest) {
          // \r: over the progress line, which the note is longer than
          std::cerr << "\rgpureduce: note: " << elem_type_name(type) << " n = " << n
                    << " not run: more than 40% of device memory (at most " << largest << " elements)\n";
        });
    if (rows.empty()) {
      std::cerr << "gpureduce: error: no size fits in device memory: nothing was measured\n";
      return exit_runtime_error;
    }
    print_bench_table(std::cout, info, args, rows);
    std::optional<ExactAccuracy> accuracy;
    if (args.exact) {
      accuracy = exact_accuracy(args.seed);
      print_exact_accuracy(std::cout, *accuracy);
    }
    if (!write_json_file(args.json, [&](std::ostream& f) {
          write_bench_json(f, info, args, accuracy ? &*accuracy : nullptr, rows);
        }))
      return exit_runtime_error;
    const bool ok = std::all_of(rows.begin(), rows.end(), [](const ProductionRow& r) { return r.verified; });
    if (!ok) std::cerr << "gpureduce: error: some results disagree with their reference (rows marked NO)\n";
    return ok ? exit_ok : exit_runtime_error;
  });
}

int run_ladder_command(const LadderArgs& args, int device) {
  return with_device(device, [&](const RunInfo& info, GpuTimer& timer) {
    const LadderRun run{args.type, args.sweep ? sweep_sizes() : std::vector<std::uint64_t>{args.n}, args.block,
                        args.reps, args.seed};
    const auto rows = run_ladder(
        info.device, info.measured_read_gbps, timer, run, [&](std::size_t done, std::size_t total, std::uint64_t n) {
          if (!args.sweep) return;
          if (done < total)
            std::cerr << "\r[" << done + 1 << "/" << total << "] n = " << n << "          " << std::flush;
          else
            std::cerr << "\r[" << total << "/" << total << "] done                    \n";
        });
    print_table(std::cout, args, rows);
    if (!write_json_file(args.json, [&](std::ostream& f) { write_json(f, info, args, rows); }))
      return exit_runtime_error;
    const bool ok = std::all_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.verified; });
    if (!ok) std::cerr << "gpureduce: error: some results did not verify (rows marked NO)\n";
    return ok ? exit_ok : exit_runtime_error;
  });
}

int run_matmul_command(const MatmulArgs& args, int device) {
  if (args.rung != "all" && !matmul::find_rung(args.rung)) {
    std::cerr << "gpureduce: error: --rung: '" << args.rung << "' is not m0 .. m5 or all\n";
    return exit_usage;
  }
  return with_device(device, [&](const RunInfo& info, GpuTimer& timer) {
    const MatmulRun run{args.sizes, args.rung, args.reps, args.seed};
    const auto rows = run_matmul(timer, run);
    print_matmul_table(std::cout, args, rows);
    if (!write_json_file(args.json, [&](std::ostream& f) { write_matmul_json(f, info, args, rows); }))
      return exit_runtime_error;
    const bool ok =
        std::all_of(rows.begin(), rows.end(), [](const MatmulRow& r) { return r.verified || r.time.median_ms <= 0; });
    if (!ok) std::cerr << "gpureduce: error: some results did not verify (rows marked NO)\n";
    return ok ? exit_ok : exit_runtime_error;
  });
}

}  // namespace
}  // namespace gpureduce::cli

int main(int argc, char** argv) {
  using namespace gpureduce::cli;
  const Parsed p = parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!p.error.empty()) {
    std::cerr << "gpureduce: error: " << p.error << "\n";
    return exit_usage;
  }
  if (p.command == Parsed::Command::help) {
    std::cout << usage;
    return exit_ok;
  }
  try {
    switch (p.command) {
      case Parsed::Command::bench: return run_bench_command(p.bench, p.device);
      case Parsed::Command::matmul: return run_matmul_command(p.matmul, p.device);
      default: return run_ladder_command(p.ladder, p.device);
    }
  } catch (const std::exception& e) {
    std::cerr << "gpureduce: error: " << e.what() << "\n";
    return exit_runtime_error;
  }
}
