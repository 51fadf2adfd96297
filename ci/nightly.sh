#!/usr/bin/env bash
# The nightly run: the test suite (release and sanitizers), the long-running checks, the crash
# runner (300 cycles per configuration, and a smoke run under fiu-run -x), a longer fuzzing run
# ($STATECHECK_NIGHTLY_FUZZ_SECONDS per target, default 600, instead of the suite's 60 s), and
# a campaign with a larger budget. Reports, counterexamples and fuzz findings land in
# $STATECHECK_ARTIFACTS (default nightly-artifacts/), to keep as CI artifacts.
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${STATECHECK_ARTIFACTS:-nightly-artifacts}
budget=${STATECHECK_NIGHTLY_BUDGET:-1800}
mkdir -p "$artifacts"
STATECHECK_SKIP_FUZZ=1 ./ci/test.sh
(cd build/release && ctest -L long --output-on-failure)
status=0
STATECHECK_FUZZ_SECONDS=${STATECHECK_NIGHTLY_FUZZ_SECONDS:-600} ./ci/fuzz.sh || status=$?
rm -rf "$artifacts/fuzz-findings"
[ -d build/fuzz/findings ] && cp -r build/fuzz/findings "$artifacts/fuzz-findings"
./ci/fiu-smoke.sh || status=$?
build/release/tools/statecheck crash --cycles 300 --seed "${STATECHECK_SEED:-$RANDOM}" || status=$?
c=0; build/release/tools/statecheck run --budget "$budget" --report-dir "$artifacts/campaign" || c=$?
[ "$c" -ne 0 ] && status=$c
echo "nightly: campaign exit $status; artifacts in $artifacts"
exit $status
