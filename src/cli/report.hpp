// The outputs of `ladder`, `bench` and `matmul`: markdown tables on stdout and the JSON results
// files.
#pragma once

#include "../bench/axis_bench.hpp"
#include "../bench/device_info.hpp"
#include "../bench/ladder_bench.hpp"
#include "../bench/matmul_bench.hpp"
#include "../bench/production_bench.hpp"
#include "args.hpp"

#include <ostream>
#include <string>
#include <vector>

namespace gpureduce::cli {

struct RunInfo {
  DeviceInfo device;
  double measured_read_gbps;
  std::string commit;
  std::string date;  // UTC, ISO 8601
};

void print_header(std::ostream& os, const RunInfo& info);
void print_table(std::ostream& os, const LadderArgs& args, const std::vector<BenchRow>& rows);
void write_json(std::ostream& os, const RunInfo& info, const LadderArgs& args, const std::vector<BenchRow>& rows);

void print_bench_table(std::ostream& os, const RunInfo& info, const BenchArgs& args,
                       const std::vector<ProductionRow>& rows);

void print_matmul_table(std::ostream& os, const MatmulArgs& args, const std::vector<MatmulRow>& rows);
void write_matmul_json(std::ostream& os, const RunInfo& info, const MatmulArgs& args,
                       const std::vector<MatmulRow>& rows);
void print_exact_accuracy(std::ostream& os, const ExactAccuracy& a);
void print_axis_table(std::ostream& os, const std::vector<AxisRow>& rows);
void write_axis_json(std::ostream& os, const RunInfo& info, const BenchArgs& args, double write_gbps,
                     const std::vector<AxisRow>& rows);
void write_bench_json(std::ostream& os, const RunInfo& info, const BenchArgs& args, const ExactAccuracy* accuracy,
                      const std::vector<ProductionRow>& rows);

std::string build_commit();  // $GPUREDUCE_COMMIT if set, else the commit the binary was built from

}  // namespace gpureduce::cli
