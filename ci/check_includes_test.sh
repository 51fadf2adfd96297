#!/usr/bin/env bash
# Fence.IncludesStayWithinTheirTargets: ci/check_includes.sh passes on the repository, and
# rejects a planted cross-target include (model/ including an engine-internal header, a library
# including a test helper, a report writer including the engine's test hooks), naming the file,
# the line and the rule.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
"$here/check_includes.sh" "$here/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/model" "$tmp/engine" "$tmp/properties" "$tmp/reports"
printf '#include "statecheck/status.h"\n#include "engine/log/log_format.h"\n' >"$tmp/model/bad.cc"
printf '#include "testing/test_util.h"\n' >"$tmp/properties/lib.cc"
printf '#include "statecheck/status.h"\n#include "statecheck/hooks/fail_points.h"\n' \
  >"$tmp/reports/hooked.cc"
printf '#include "statecheck/hooks/planted_bugs.h"\n' >"$tmp/properties/hooks_ok.cc"
printf '#include "testing/test_util.h"\n#include "reports/run_report.h"\n' \
  >"$tmp/properties/ok_test.cc"
if out=$("$here/check_includes.sh" "$tmp" 2>&1); then
  echo "FAIL: a planted cross-target include passed:"; echo "$out"; exit 1
fi
grep -q 'model/bad.cc:2: #include "engine/log/log_format.h": engine/ headers are the engine' <<<"$out" ||
  { echo "FAIL: the violation was not named:"; echo "$out"; exit 1; }
grep -q 'properties/lib.cc:1: #include "testing/test_util.h": testing/ is for test files only' \
  <<<"$out" || { echo "FAIL: the test-helper include was not named:"; echo "$out"; exit 1; }
grep -q 'reports/hooked.cc:2: #include "statecheck/hooks/fail_points.h": the engine.s test hooks' \
  <<<"$out" || { echo "FAIL: the test-hook include was not named:"; echo "$out"; exit 1; }
if grep -q 'ok_test.cc\|hooks_ok.cc' <<<"$out"; then echo "FAIL: an allowed include was rejected"; exit 1; fi
echo "Fence: the repository passes, the planted cross-target includes are rejected"
