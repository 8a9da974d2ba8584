// What the benchmark header and the JSON results say about the GPU.
#pragma once

#include <gpureduce/ladder/launch_context.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace gpureduce {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int sm_count = 0;
  int max_threads_per_sm = 0;
  std::uint64_t l2_bytes = 0;
  std::uint64_t global_mem_bytes = 0;
  double theoretical_gbps = 0;  // 2 (DDR) x memory clock x bus width, from the device attributes
  std::string driver;           // kernel module version, e.g. 580.159.04 ("" when unreadable)
  std::string cuda_driver_api;  // e.g. 13.0

  ladder::DeviceShape shape() const { return {sm_count, max_threads_per_sm}; }
};

// The current device, or nullopt with `error` saying why there is none.
std::optional<DeviceInfo> query_device(std::string& error);

// Now, as the results files date their runs: 2026-11-29T16:48:56Z.
std::string utc_now_iso8601();

}  // namespace gpureduce
