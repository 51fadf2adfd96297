#!/usr/bin/env bash
# Builds the libFuzzer targets (ci/build.sh fuzz: clang-14, ASan + UBSan) and runs each for
# STATECHECK_FUZZ_SECONDS (default 60) from its committed seed corpus, printing its executions.
# Fails on any finding: a crash, a sanitizer report, a broken invariant (the target aborts), a
# leak, a timeout or running out of memory. The input that found it is kept as
# build/fuzz/findings/<target>/<kind>-<sha1>; replay it with the target's binary (its path is in
# build/fuzz/fuzz_targets.txt, e.g. build/fuzz/engine/log_fuzz FILE).
# Inputs the run finds go to build/fuzz/corpus/<target>/ (kept between runs); the seed
# directory is only read.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${STATECHECK_FUZZ_SECONDS:-60}
dir=build/fuzz

mkdir -p build
build_log=build/fuzz-build.log
start=$(date +%s)
if ! ./ci/build.sh fuzz >"$build_log" 2>&1; then
  tail -n 60 "$build_log"
  echo "ci/fuzz.sh: the fuzz build failed (log: $build_log)" >&2
  exit 1
fi
echo "fuzz build: $(($(date +%s) - start)) s ($dir)"

# One target per core at a time: each runs for its $seconds alone, so the stage takes
# ceil(targets / cores) * $seconds.
jobs=$(nproc 2>/dev/null || echo 2)

# Runs one target and prints its summary; exits non-zero on a finding.
fuzz_one() {
  local target=$1 corpus=$2 name work findings log code execs rate
  name=$(basename "$target")
  work=$dir/corpus/$name
  findings=$dir/findings/$name
  log=$dir/findings/$name.log
  mkdir -p "$work" "$findings"
  code=0
  "$target" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$work" "$corpus" >"$log" 2>&1 || code=$?
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
  if [ -z "$execs" ]; then  # A finding ends the run before the final stats.
    execs=$(sed -n 's/^#\([0-9][0-9]*\).*/\1/p' "$log" | tail -n 1)
  fi
  echo "== fuzz $name for $seconds s (seeds: $corpus): ${execs:-?} executions (${rate:-?}/s)," \
    "corpus of $(find "$work" -type f | wc -l) inputs"
  if [ "$code" -ne 0 ]; then
    tail -n 40 "$log"
    echo "ci/fuzz.sh: $name found a problem (exit $code); input kept in $findings/, log $log" >&2
    return 1
  fi
}

status=0
pids=()
while IFS=$'\t' read -r target corpus; do
  [ -n "$target" ] || continue
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
  fuzz_one "$target" "$corpus" &
  pids+=($!)
done <"$dir/fuzz_targets.txt"
for pid in "${pids[@]}"; do wait "$pid" || status=1; done
exit $status
