// What a rung's launcher needs besides its input and output.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace gpureduce::ladder {

struct DeviceShape {
  int sm_count;
  int max_threads_per_sm;

  // Upper bound on co-resident blocks of `block` threads (the capped grids of r7-r9 use at most
  // this).
  constexpr std::uint64_t max_resident_blocks(unsigned block) const {
    return std::uint64_t(sm_count) * std::uint64_t(max_threads_per_sm / int(block));
  }
};

struct LaunchContext {
  unsigned block;        // threads per block: a power of two in [64, 1024]
  DeviceShape device;
  void* workspace;       // at least the rung's workspace_bytes, zero-filled once when allocated
  cudaStream_t stream;
};

constexpr bool is_valid_block(unsigned block) {
  return block >= 64 && block <= 1024 && (block & (block - 1)) == 0;
}

}  // namespace gpureduce::ladder
