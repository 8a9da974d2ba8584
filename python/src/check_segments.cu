// segment_reduce's offsets check (unsafe=False), through gpureduce::check_segments.
#include "call.hpp"

#include <gpureduce/axis.cuh>

namespace gpureduce::python {
Outcome check_segments(std::uintptr_t offsets, std::uint64_t segments, std::uint64_t n, std::uintptr_t stream,
                       std::uint64_t* first_bad) {
  const Status s = gpureduce::check_segments(segments, reinterpret_cast<const std::int64_t*>(offsets), n,
                                             reinterpret_cast<cudaStream_t>(stream), first_bad);
  return {int(s.code), s.message};
}
}  // namespace gpureduce::python
