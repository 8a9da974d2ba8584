#include "device_info.hpp"

#include <gpureduce/dispatch/launch_plan.hpp>

#include <cuda_runtime_api.h>

#include <ctime>
#include <fstream>
#include <regex>

namespace gpureduce {
namespace {

// The NVIDIA kernel module's version, as nvidia-smi reports it.
std::string kernel_driver_version() {
  std::ifstream f("/proc/driver/nvidia/version");
  std::string line;
  std::getline(f, line);
  std::smatch m;
  if (std::regex_search(line, m, std::regex(R"((\d+\.\d+(\.\d+)?))"))) return m[1];
  return "";
}

}  // namespace

std::optional<DeviceInfo> query_device(std::string& error) {
  int count = 0;
  if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess || count == 0) {
    error = e != cudaSuccess ? std::string(cudaGetErrorString(e)) : "no CUDA device found";
    return std::nullopt;
  }
  DeviceInfo d;
  cudaGetDevice(&d.ordinal);
  cudaDeviceProp p{};
  if (const cudaError_t e = cudaGetDeviceProperties(&p, d.ordinal); e != cudaSuccess) {
    error = cudaGetErrorString(e);
    return std::nullopt;
  }
  d.name = p.name;
  d.sm_count = p.multiProcessorCount;
  d.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
  d.l2_bytes = static_cast<std::uint64_t>(p.l2CacheSize);
  d.global_mem_bytes = p.totalGlobalMem;
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, d.ordinal);
  d.theoretical_gbps = detail::dram_gbps(std::uint64_t(clock_khz), std::uint64_t(p.memoryBusWidth));
  int api = 0;
  cudaDriverGetVersion(&api);
  d.cuda_driver_api = std::to_string(api / 1000) + "." + std::to_string(api % 1000 / 10);
  d.driver = kernel_driver_version();
  return d;
}

std::string utc_now_iso8601() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace gpureduce
