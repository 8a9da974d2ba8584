// How a warp hands its 32 vectors round through shared memory (agent/sources.cuh,
// ArraySource::consume_vector): the vectors, `words` 16-byte words each, were loaded as the lanes'
// consecutive words, word k of lane l being word k * 32 + l of the warp's, and each lane wants its
// own vector's words, lane l's being words l * words... The stage holds the vectors of 32 / parts
// lanes at a time (part p: lanes p * part_lanes.., words p * part_words..), so that a block's stage
// fits where a whole warp's vectors would not. A round k of loads wholly inside a part goes in
// whole; a round that straddles two parts (an odd word count in two parts) goes in by half its
// lanes each time.
#pragma once

#include <gpureduce/config.hpp>

namespace gpureduce::detail {

struct WarpStage {
  unsigned words;  // per vector
  unsigned parts;  // a power of 2 up to 32

  GPUREDUCE_HD constexpr unsigned part_lanes() const { return unsigned(warp_threads) / parts; }
  GPUREDUCE_HD constexpr unsigned part_words() const { return words * part_lanes(); }
  // The rounds of loads that hold words of part p: first_round(p) <= k < end_round(p).
  GPUREDUCE_HD constexpr unsigned first_round(unsigned p) const { return p * words / parts; }
  GPUREDUCE_HD constexpr unsigned end_round(unsigned p) const { return ((p + 1) * words + parts - 1) / parts; }
  // Whether every lane's word of round k lies in part p.
  GPUREDUCE_HD constexpr bool whole_round(unsigned k, unsigned p) const {
    return k * warp_threads >= p * part_words() && (k + 1) * warp_threads <= (p + 1) * part_words();
  }
  // Where lane's word of round k goes in part p's stage; part_words() or more (unsigned wrap below
  // the part) where it lies in another part.
  GPUREDUCE_HD constexpr unsigned slot(unsigned k, unsigned lane, unsigned p) const {
    return k * warp_threads + lane - p * part_words();
  }
  GPUREDUCE_HD constexpr unsigned part_of(unsigned lane) const { return lane / part_lanes(); }
  // Where lane finds word j of its own vector in its part's stage.
  GPUREDUCE_HD constexpr unsigned own_slot(unsigned lane, unsigned j) const { return lane % part_lanes() * words + j; }
};

}  // namespace gpureduce::detail
