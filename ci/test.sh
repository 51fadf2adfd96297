#!/usr/bin/env bash
# The test suite: installs what is missing, builds, runs every unit and property test, fuzzes
# each libFuzzer target for STATECHECK_FUZZ_SECONDS (default 15 here, to keep the suite short
# with eight targets; ci/fuzz.sh alone defaults to 60), then runs the
# suite under AddressSanitizer + UndefinedBehaviorSanitizer, then the concurrency check under
# ThreadSanitizer (RocksDB itself is not instrumented: ci/tsan.supp says why and what it
# suppresses). STATECHECK_SKIP_FUZZ=1 skips the fuzzing, STATECHECK_SKIP_SANITIZERS=1 the last
# two.
# Long-running checks (label "long") are left to ci/nightly.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)

echo "== release build"
./ci/build.sh release | tail -n 3
echo "== release tests"
(cd build/release && ctest -LE long -j "$jobs" --output-on-failure)

if [ "${STATECHECK_SKIP_FUZZ:-0}" != 1 ]; then
  echo "== fuzz (${STATECHECK_FUZZ_SECONDS:-15} s per target)"
  STATECHECK_FUZZ_SECONDS=${STATECHECK_FUZZ_SECONDS:-15} ./ci/fuzz.sh
fi

if [ "${STATECHECK_SKIP_SANITIZERS:-0}" != 1 ]; then
  echo "== ASan+UBSan build"
  ./ci/build.sh asan | tail -n 3
  echo "== ASan+UBSan tests"
  # The windowed property runs 18 configurations; under the sanitizers fewer cases each cover
  # the same code paths.
  (cd build/asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
     UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 STATECHECK_WINDOWED_PROPERTY_CASES=25 \
     ctest -LE long -j "$jobs" --output-on-failure)

  echo "== ThreadSanitizer build (the concurrency check)"
  STATECHECK_TARGET=kv_concurrency_test ./ci/build.sh tsan | tail -n 3
  echo "== ThreadSanitizer tests"
  (cd build/tsan && TSAN_OPTIONS="suppressions=$PWD/../../ci/tsan.supp halt_on_error=1" \
     ctest -R '^KvConcurrency\.' -j "$jobs" --output-on-failure)
fi
