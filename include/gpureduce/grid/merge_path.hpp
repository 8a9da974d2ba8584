// The merge path of CSR segments (Merrill and Garland, "Merge-based parallel sparse matrix-vector
// multiplication", SC16): the segments' ends and the elements merged into one sequence of
// segments + elements items, where segment x's end comes after its last element (item
// end(x) + x). Splitting that sequence into equal runs balances the work whatever the lengths.
// Host arithmetic, tested on the CPU (tests/cpu/test_merge_path.cpp); the kernels run the same.
#pragma once

#include <gpureduce/config.hpp>

#include <cstdint>

namespace gpureduce::detail {

// A point on the path: `segment` ends and `element` elements consumed.
struct PathPoint {
  std::uint64_t segment = 0;
  std::uint64_t element = 0;
};

// The point `diagonal` items along the path of `segments` ends and `elements` elements, where
// end(x) is segment x's end relative to the first element (non-decreasing: CSR offsets). End x is
// consumed before diagonal d when end(x) + x < d, so the point's segment count is the number of
// ends that satisfy this. Offsets that decrease give some point within [0, segments] x
// [0, elements], never one outside.
template <class EndAt>
GPUREDUCE_HD PathPoint merge_path_point(std::uint64_t diagonal, std::uint64_t segments, std::uint64_t elements,
                                        EndAt&& end) {
  std::uint64_t lo = diagonal > elements ? diagonal - elements : 0;
  std::uint64_t hi = diagonal < segments ? diagonal : segments;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    if (std::uint64_t(end(mid)) + mid < diagonal) lo = mid + 1;
    else hi = mid;
  }
  return {lo, diagonal - lo};
}

// The items each of `blocks` blocks takes: an equal share of the path, rounded up to whole tiles.
GPUREDUCE_HD std::uint64_t path_share(std::uint64_t items, std::uint64_t blocks, std::uint64_t tile) {
  const std::uint64_t share = (items + blocks - 1) / blocks;
  return (share + tile - 1) / tile * tile;
}

}  // namespace gpureduce::detail
