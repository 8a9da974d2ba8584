#!/usr/bin/env bash
# Runs tests/nccl/ranks.cu under NCCL settings that change how its collectives move data
# (algorithm, protocol, channels): each run must pass its own checks, and the fast sums' bits
# ("bits" lines) must be the same in every run. Usage: run_ranks.sh PATH_TO_nccl_ranks
set -uo pipefail
bin=$1
reference=""
# NCCL_ALGO per collective (NCCL 2.24 and later): all-gather and reduce have no tree algorithm.
for setting in "" "NCCL_ALGO=allreduce:ring" "NCCL_ALGO=allreduce:tree" "NCCL_PROTO=LL" "NCCL_PROTO=LL128" \
               "NCCL_PROTO=Simple" "NCCL_MIN_NCHANNELS=1 NCCL_MAX_NCHANNELS=1" "NCCL_MIN_NCHANNELS=32"; do
  if ! out=$(env $setting NCCL_NVLS_ENABLE=0 "$bin" 2>&1); then
    echo "$out"
    echo "FAILED under '${setting:-defaults}'"
    exit 1
  fi
  if grep -q '^SKIPPED' <<<"$out"; then echo "$out"; exit 0; fi
  bits=$(grep '^bits' <<<"$out")
  echo "${setting:-defaults}: $(grep -c '^bits' <<<"$out") rank counts, checks passed"
  if [ -z "$reference" ]; then
    reference=$bits
    echo "$out"
  elif [ "$bits" != "$reference" ]; then
    diff <(echo "$reference") <(echo "$bits")
    echo "FAILED: the fast sums' bits differ under '$setting'"
    exit 1
  fi
done
echo "the same bits under every setting"
