#!/usr/bin/env bash
# The nightly run: the test suite (release and sanitizers), the long-running checks, the crash
# runner (300 cycles per configuration; 100 with seeded random I/O errors, --io-errors; and a
# smoke run under fiu-run -x), a longer fuzzing run
# ($STATECHECK_NIGHTLY_FUZZ_SECONDS per target, default 600; ci/test.sh only replays the seeds), and
# the conformance campaign: $STATECHECK_NIGHTLY_BUDGET seconds (default 1800) on the release
# build and $STATECHECK_NIGHTLY_ASAN_BUDGET (default 300) on the ASan+UBSan build; then the
# harness's self-test (ci/selftest.sh): every planted bug's campaign for
# $STATECHECK_SELFTEST_BUDGET seconds (default 60), failing below a 95% mutation score.
#
# Reports (report.html, report.json, junit.xml, summary.md), counterexamples and fuzz findings
# land in $STATECHECK_ARTIFACTS (default nightly-artifacts/), to keep as CI artifacts.
#
# Sharding: the campaigns run the shard the CI job's environment names — STATECHECK_SHARD=i/n,
# GitLab's CI_NODE_INDEX/CI_NODE_TOTAL, Buildkite's BUILDKITE_PARALLEL_JOB(_COUNT), a Kubernetes
# Indexed Job's JOB_COMPLETION_INDEX with STATECHECK_SHARD_COUNT, or GoogleTest's
# GTEST_SHARD_INDEX/GTEST_TOTAL_SHARDS (`statecheck shard` prints it; two that disagree stop
# the run). ci/examples/ runs n jobs on GitHub Actions, GitLab CI and Kubernetes and merges their
# reports with `statecheck report merge`. The shards of one night share the seed:
# $STATECHECK_SEED, by default the date (YYYYMMDD).
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${STATECHECK_ARTIFACTS:-nightly-artifacts}
budget=${STATECHECK_NIGHTLY_BUDGET:-1800}
asan_budget=${STATECHECK_NIGHTLY_ASAN_BUDGET:-300}
seed=${STATECHECK_SEED:-$(date -u +%Y%m%d)}
mkdir -p "$artifacts"
STATECHECK_UBSAN_ALL=ON ./ci/test.sh
# The shard, read once (the release and ASan campaigns then run the same one): i/n, 0/1 unsharded.
shard=$(build/release/tools/statecheck shard --source)
echo "nightly: shard $shard"
(cd build/release && ctest -L long --output-on-failure)
status=0
STATECHECK_FUZZ_SECONDS=${STATECHECK_NIGHTLY_FUZZ_SECONDS:-600} ./ci/fuzz.sh || status=$?
rm -rf "$artifacts/fuzz-findings"
[ -d build/fuzz/findings ] && cp -r build/fuzz/findings "$artifacts/fuzz-findings"
./ci/fiu-smoke.sh || status=$?
build/release/tools/statecheck crash --cycles 300 --seed "$seed" || status=$?
build/release/tools/statecheck crash --cycles 100 --seed "$seed" --io-errors 0.002 || status=$?
c=0
# The release campaign must earn every pass: a rule whose situations were not all reached fails.
build/release/tools/statecheck run --budget "$budget" --seed "$seed" --shard "$shard" \
  --require-evidence --report-dir "$artifacts/campaign" || c=$?
[ "$c" -ne 0 ] && status=$c
c=0
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build/asan/tools/statecheck run --budget "$asan_budget" --seed "$seed" --shard "$shard" \
  --report-dir "$artifacts/campaign-asan" || c=$?
[ "$c" -ne 0 ] && status=$c
# The self-test runs once per night: unsharded, or on shard 0.
if [ "${shard%%/*}" = 0 ]; then
  c=0
  STATECHECK_SEED=$seed STATECHECK_SELFTEST_DIR="$artifacts/selftest" ./ci/selftest.sh || c=$?
  [ "$c" -ne 0 ] && status=$c
fi
echo "nightly: exit $status; reports in $artifacts/campaign, $artifacts/campaign-asan and" \
  "$artifacts/selftest"
exit $status
