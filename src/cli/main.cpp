// gpureduce: command-line entry point.
#include "args.hpp"
#include "report.hpp"

#include "../bench/stream_read.hpp"

#include <algorithm>
#include <fstream>
#include <iostream>

namespace gpureduce::cli {
namespace {

// 1 GiB, or a quarter of device memory on smaller GPUs: large enough that launch overhead vanishes.
std::uint64_t read_probe_bytes(const DeviceInfo& d) {
  return std::min<std::uint64_t>(std::uint64_t(1) << 30, d.global_mem_bytes / 4);
}

int run_ladder_command(const LadderArgs& args) {
  std::string why;
  const auto device = query_device(why);
  if (!device) {
    std::cerr << "gpureduce: error: no usable CUDA GPU (" << why << ")\n";
    return exit_runtime_error;
  }
  cudaStream_t stream = nullptr;
  GPUREDUCE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  GpuTimer timer(stream, device->l2_bytes);
  const RunInfo info{*device, measure_read_gbps(timer, read_probe_bytes(*device), 20), build_commit(), utc_now_iso8601()};
  print_header(std::cout, info);

  LadderRun run{args.type, args.sweep ? sweep_sizes() : std::vector<std::uint64_t>{args.n}, args.block, args.reps,
                args.seed};
  const auto rows = run_ladder(*device, info.measured_read_gbps, timer, run, [&](std::size_t done, std::size_t total, std::uint64_t n) {
    if (!args.sweep) return;
    if (done < total) std::cerr << "\r[" << done + 1 << "/" << total << "] n = " << n << "          " << std::flush;
    else std::cerr << "\r[" << total << "/" << total << "] done                    \n";
  });
  print_table(std::cout, args, rows);
  if (!args.json.empty()) {
    std::ofstream f(args.json);
    write_json(f, info, args, rows);
    if (!f) {
      std::cerr << "gpureduce: error: cannot write " << args.json << "\n";
      return exit_runtime_error;
    }
  }
  const bool all_verified = std::all_of(rows.begin(), rows.end(), [](const BenchRow& r) { return r.verified; });
  if (!all_verified) std::cerr << "gpureduce: error: some results did not verify (rows marked NO)\n";
  cudaStreamDestroy(stream);
  return all_verified ? exit_ok : exit_runtime_error;
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
    return run_ladder_command(p.ladder);
  } catch (const std::exception& e) {
    std::cerr << "gpureduce: error: " << e.what() << "\n";
    return exit_runtime_error;
  }
}
