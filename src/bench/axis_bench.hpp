// `gpureduce bench --axis`: axis and segmented reductions against CUB's DeviceSegmentedReduce,
// same data, same run, each shape's time against its floor (its input bytes at the measured read
// ceiling plus its output bytes at the write ceiling).
#pragma once

#include "device_info.hpp"
#include "timer.hpp"
#include "../common/elem_type.hpp"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace gpureduce {

struct AxisRun {
  std::vector<ElemType> types;        // float32, bfloat16, int32 (the sweep's; --axis refuses others)
  std::vector<BenchOp> ops;           // sum, max, argmax
  std::vector<std::uint64_t> totals;  // elements per input
  int reps = 20;
  std::uint64_t seed = 42;
  double read_gbps = 0, write_gbps = 0;  // the ceilings the floors use
  std::vector<std::string> cases{"rows", "columns", "middle", "ragged"};  // which shapes
  std::string csr_path = "auto";  // forced for gpureduce's CSR segments: staged | tiles | warps | shares
};

struct AxisRow {
  std::string variant;  // "gpureduce" or "cub"
  ElemType type = ElemType::float32;
  BenchOp op = BenchOp::sum;
  std::vector<std::int64_t> shape;  // axis rows: the extents; segmented rows: {total elements}
  std::vector<int> axes;            // axis rows: the reduced axes
  std::uint64_t segments = 0;       // segmented rows: the count and mean length
  double mean_segment = 0;
  std::uint64_t bytes = 0;  // input read plus results written
  TimingStats time;
  double gbps = 0, floor_ms = 0;
  bool verified = false;  // against a sequential reference on the GPU (sums: within the error bound)
};

std::vector<AxisRow> run_axis(GpuTimer& timer, const AxisRun& run,
                              const std::function<void(const std::string&)>& progress);

}  // namespace gpureduce
