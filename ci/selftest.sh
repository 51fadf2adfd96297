#!/usr/bin/env bash
# The harness's self-test: builds the planted build (ci/build.sh planted: the engine with its
# planted-bug catalogue compiled in, none active; STATECHECK_SELFTEST_FLAVOUR=asan uses the
# ASan+UBSan build instead, which holds the catalogue too), runs its catalogue checks, then
# `statecheck selftest`: a control run with no bug planted, then each planted bug's campaign for
# STATECHECK_SELFTEST_BUDGET seconds (default 60) until its first finding. It fails when the
# control run finds anything or the mutation score is below STATECHECK_SELFTEST_MIN_SCORE
# (default 95). STATECHECK_SELFTEST_BUGS=a,b runs only those bugs, STATECHECK_SELFTEST_SELECT=W
# only the bugs tied to those rules; STATECHECK_SELFTEST_CONTROL_BUDGET sets the control run's
# seconds (default: the per-bug budget).
#
# The report (with its mutation-score section) goes to $STATECHECK_SELFTEST_DIR (default
# build/<flavour>/selftest-report); each bug's own campaign report, with the counterexamples
# its replay commands replay, is under bugs/ there.
set -euo pipefail
cd "$(dirname "$0")/.."
budget=${STATECHECK_SELFTEST_BUDGET:-60}
min_score=${STATECHECK_SELFTEST_MIN_SCORE:-95}
seed=${STATECHECK_SEED:-$(date -u +%Y%m%d)}
flavour=${STATECHECK_SELFTEST_FLAVOUR:-planted}
case "$flavour" in
  planted | asan) ;;
  *) echo "ci/selftest.sh: STATECHECK_SELFTEST_FLAVOUR is planted or asan, not '$flavour'" >&2
     exit 2 ;;
esac
build=build/$flavour
report=${STATECHECK_SELFTEST_DIR:-$build/selftest-report}
args=()
[ -n "${STATECHECK_SELFTEST_BUGS:-}" ] && args+=(--bugs "$STATECHECK_SELFTEST_BUGS")
[ -n "${STATECHECK_SELFTEST_SELECT:-}" ] && args+=(--select "$STATECHECK_SELFTEST_SELECT")
[ -n "${STATECHECK_SELFTEST_CONTROL_BUDGET:-}" ] &&
  args+=(--control-budget "$STATECHECK_SELFTEST_CONTROL_BUDGET")

# The campaigns' scratch stores go on a RAM disk when there is one with room (unless TMPDIR is
# set): what a power loss keeps is the fault file system's decision, not the disk's, so real
# fsyncs only cost time — about half of it, measured on the slowest bugs.
if [ -z "${TMPDIR:-}" ] && [ -d /dev/shm ] &&
  [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((2 * 1024 * 1024)) ]; then
  TMPDIR=$(mktemp -d /dev/shm/statecheck-selftest.XXXXXX)
  export TMPDIR
  trap 'rm -rf "$TMPDIR"' EXIT
  echo "scratch directory: $TMPDIR (RAM)"
fi

mkdir -p build
build_log=build/$flavour-build.log
start=$(date +%s)
if ! STATECHECK_TARGET="statecheck selftest_test" ./ci/build.sh "$flavour" >"$build_log" 2>&1; then
  tail -n 60 "$build_log"
  echo "ci/selftest.sh: the $flavour build failed (log: $build_log)" >&2
  exit 1
fi
echo "$flavour build: $(($(date +%s) - start)) s ($build)"
(cd "$build" && ctest -R '^(PlantedBugs\.|StatecheckCli\.Selftest)' --output-on-failure)
rm -rf "$report"
"$build/tools/statecheck" selftest --budget "$budget" --min-score "$min_score" \
  --seed "$seed" --report-dir "$report" "${args[@]}"
