#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck over every rung and reference at small sizes
# (the GPU suite's sanitizer_sizes test: one and several passes, partial tiles, a misaligned start)
# and over the workspace's life cycle (slots released by streams and graphs, then reused, chunks
# trimmed), over the fuzz tests at the suite's size (seeded random counts, offsets and special
# values; random sequences of calls on eight streams), and over the axis, segmented (the merge
# path among them), batch-invariant and exact per-row kernels.
#   tools/sanitize.sh [BUILD_DIR]
# SANITIZE_TOOLS: the tools to run, space-separated (default: all three). Racecheck takes the most
# time: over test_records alone it can take most of the device's 10 minutes per command, so run it
# in two calls: SANITIZE_FILTER='*test_records*', then
# SANITIZE_FILTER="$(tools/sanitize.sh --filter)-*test_records*".
# SANITIZE_FILTER: the gtest filter (default: the one below; --filter prints it).
set -uo pipefail
filter='*sanitizer_sizes*:*released_stream_slots*:*give_slots_back*:*exec_update*:*trim_workspace*:*per_thread_default_streams*:*device_lambdas*:*transforms_under*:*transform_reduce_with_a_functor*:*test_records*:*test_shifted*:*test_dependent_launch*:*test_atomic_end*:*fuzz*:*random_mixed_calls*:*AxisGpu.*Rows*:*AxisGpu.Columns*:*AxisGpu.Segments*:*AxisGpu.StridedViews*:*ExactAxisGpu*RowsAndColumns*:*ExactAxisGpu*Segments*:*ExactAxisGpu*Special*:*InvariantGpu.Segments*:*InvariantGpu.LongSegments*:*InvariantGpu.Columns*'
if [ "${1:-}" = --filter ]; then echo "$filter"; exit 0; fi
build=${1:-build}
status=0
for tool in ${SANITIZE_TOOLS:-memcheck racecheck synccheck}; do
  echo "== $tool"
  if compute-sanitizer --tool "$tool" --error-exitcode 1 --print-limit 20 \
      "$build/tests/test_gpu" --gtest_filter="${SANITIZE_FILTER:-$filter}" --gtest_brief=1; then
    echo "$tool: clean"
  else
    echo "$tool: ERRORS"
    status=1
  fi
done
exit $status
