// The bandwidth ceiling the tables' "% of peak" refers to: a kernel that only streams a large
// buffer through 16-byte loads, four in flight per thread (and folds it so the loads are not
// optimised away), on one and on three waves of blocks, the faster taken.
#pragma once

#include "timer.hpp"

#include <cstdint>

namespace gpureduce {

// GB/s (1e9 bytes/s) reading `bytes` from device memory, median of `reps` cold-L2 samples.
double measure_read_gbps(GpuTimer& timer, std::uint64_t bytes, int reps);
// GB/s writing `bytes` (16-byte stores), measured the same way: the axis bench's write ceiling.
double measure_write_gbps(GpuTimer& timer, std::uint64_t bytes, int reps);

}  // namespace gpureduce
