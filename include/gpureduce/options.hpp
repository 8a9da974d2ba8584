// Per-call options of the public API.
#pragma once

#include <cstddef>

namespace gpureduce {

// NaN handling of the built-in operators on floating inputs: propagate (the default, as NumPy and
// PyTorch) or skip them (ignore: nansum, fmin/fmax).
enum class NanPolicy : unsigned char { propagate, ignore };

// The L2 priority of a grid's input loads: automatic (evict-first up to 4x the L2 size, plain
// above), normal or evict_first at every size.
enum class L2Policy : unsigned char { automatic, normal, evict_first };

struct Options {
  NanPolicy nan = NanPolicy::propagate;
  // A caller-provided workspace of at least gpureduce::workspace_bytes, zero-filled before its
  // first use (on the call's stream, or before a synchronisation: a non-blocking stream does not
  // wait for a cudaMemset on the null stream), used by one reduction at a time. nullptr: the
  // library's per-stream workspace.
  void* workspace = nullptr;
  std::size_t workspace_size = 0;
  // The L2 priority of the input's lines (dispatch/launch_plan.hpp): by default evict-first up to
  // 4x the L2 size; L2Policy::normal keeps them as other data, for an input read again later.
  // Grids of up to 129 blocks then combine in their last reading block rather than in a combiner
  // block, so a floating result may differ from the default's in its last bits.
  L2Policy l2 = L2Policy::automatic;
  // Launch as a programmatic dependent of the stream's previous kernel (sm_90 and later; not tested
  // on earlier devices): the reduction's blocks are scheduled as that kernel's blocks exit and wait
  // on the GPU for it to complete, its writes visible, before reading anything, so the result is
  // the same. After a kernel on the same stream, or in a chain of reductions, a call takes
  // 1.05-1.35 us less GPU time (H100); in a captured graph it saves nothing (docs/design.md,
  // "Dependent launch"). Off by default: a kernel before it that lets its dependents launch early
  // (griddepcontrol.launch_dependents) would share its SMs with the reduction's waiting blocks.
  bool dependent_launch = false;
  // Axis and segmented reductions (axis.cuh): each result's bits depend on its elements' values and
  // count alone, not on the number of rows or segments, the result's position or the input's
  // alignment, at some cost in speed (docs/api.md). Results whose bits never depend on the order of
  // their elements (integer sums, min/max, argmin/argmax, bitwise and logical operators) are
  // invariant without it. The whole-array calls refuse it (exact_sum's bits depend on the values
  // alone).
  bool batch_invariant = false;
};

}  // namespace gpureduce
