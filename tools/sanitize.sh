#!/usr/bin/env bash
# compute-sanitizer memcheck, racecheck and synccheck over every rung and reference at small sizes
# (the GPU suite's sanitizer_sizes test: one and several passes, partial tiles, a misaligned start)
# and over the workspace's life cycle (slots released by streams and graphs, then reused, chunks
# trimmed), and over the fuzz tests at the suite's size (seeded random counts, offsets and special
# values; random sequences of calls on eight streams).
#   tools/sanitize.sh [BUILD_DIR]
# SANITIZE_TOOLS: the tools to run, space-separated (default: all three). Racecheck takes the most
# time. On the H100 it took 556 s at 729f129. At 288c9ca test_records took 431 s and the rest 115 s
# (at 878fb67), so it runs in two calls, each under the device's 10 minutes per command:
# SANITIZE_FILTER='*test_records*', then SANITIZE_FILTER="$(tools/sanitize.sh --filter)-*test_records*".
# On an H200 test_records outgrew one call (past 560 s at af9cbeb); at 823d85d, split in two, its
# tests narrow_records_in_staged_vectors, records_one_per_load_in_words_of_their_alignment,
# many_narrow_fields_one_record_per_thread and narrow_records_in_vectors_of_80_bytes took 309 s and
# the other six 50 s (bench/results/*_H200_sanitize_racecheck_records_823d85d.log).
# SANITIZE_FILTER: the gtest filter (default: the one below; --filter prints it).
set -uo pipefail
filter='*sanitizer_sizes*:*released_stream_slots*:*give_slots_back*:*exec_update*:*trim_workspace*:*per_thread_default_streams*:*device_lambdas*:*transforms_under*:*transform_reduce_with_a_functor*:*test_records*:*test_shifted*:*test_dependent_launch*:*test_atomic_end*:*fuzz*:*random_mixed_calls*'
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
