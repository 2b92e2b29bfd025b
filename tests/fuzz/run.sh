#!/usr/bin/env bash
# Runs every fuzz target (tests/fuzz/) for SECONDS each, one after another, with fresh random
# seeds, and prints the cases run per target. A failure prints the shrunk input and exits
# non-zero.
#
#   tests/fuzz/run.sh 60            # release build: the most cases per second
#   tests/fuzz/run.sh 60 --debug    # debug build: also catches integer overflows
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds="${1:?usage: tests/fuzz/run.sh SECONDS [--debug]}"
profile=(--release)
if [ "${2:-}" = "--debug" ]; then
  profile=()
fi
start=$(date +%s)
FUZZ_SECONDS="$seconds" cargo test "${profile[@]}" --test fuzz -- --test-threads=1 --nocapture
echo "fuzzing took $(( $(date +%s) - start )) s in all"
