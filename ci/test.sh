#!/usr/bin/env bash
# The test suite: installs what is missing, builds, runs every unit and property test (with
# each fuzz target's seed corpus replayed through its checks: FuzzSeeds.*), compiles every target
# with clang too (warnings, -Wthread-safety's included, as errors), then runs the suite
# under AddressSanitizer + UndefinedBehaviorSanitizer (UBSan on engine/, model/ and faults/) in
# a build that also holds the planted-bug catalogue, and in it the catalogue's checks and the
# self-test of the window-store bugs (ci/selftest.sh; the nightly runs every bug in the
# release-planted build), then the multi-threaded tests under ThreadSanitizer (RocksDB itself is
# not instrumented: ci/tsan.supp says why and what it suppresses).
# Fuzzing (ci/fuzz.sh, clang and libFuzzer) runs in the nightly, 600 s per target; here only
# with STATECHECK_FUZZ_SECONDS=N (N s per target).
# STATECHECK_SKIP_SELFTEST=1 skips the self-test, STATECHECK_SKIP_SANITIZERS=1 the sanitizer
# builds (and with them the self-test).
# Long-running checks (label "long") are left to ci/nightly.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/setup.sh
jobs=$(nproc 2>/dev/null || echo 2)
# Each stage's heading says when it starts, counted from the suite's start, so that a slow
# stage shows in the log (CI's limit is on the whole run).
suite_start=$SECONDS
stage() { echo "== $* (at $((SECONDS - suite_start)) s)"; }

stage "release build"
./ci/build.sh release | tail -n 3
stage "release tests"
(cd build/release && ctest -LE long -j "$jobs" --output-on-failure)

stage "the installed package: examples/verify-my-store built against it alone"
./ci/verify_my_store.sh | tail -n 1

stage "product build: the engine as users link it, checked to hold no test hook"
./ci/build.sh product | tail -n 2

stage "clang build: every target through clang-14, -Wthread-safety, warnings as errors"
./ci/build.sh clang | tail -n 1

if [ "${STATECHECK_FUZZ_SECONDS:-0}" -gt 0 ]; then
  stage "fuzz ($STATECHECK_FUZZ_SECONDS s per target)"
  ./ci/fuzz.sh
fi

if [ "${STATECHECK_SKIP_SANITIZERS:-0}" != 1 ]; then
  # Eight frames of each allocation's and free's stack in a report (ASan's default, 30, costs a
  # sixth of the fault sweep's time: RocksDB allocates thousands of strings on every open).
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_context_size=8}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
  stage "ASan+UBSan build (with the planted-bug catalogue, none active)"
  ./ci/build.sh asan | tail -n 3
  stage "ASan+UBSan tests"
  # Under the sanitizers every test runs, with fewer cases per property configuration (each
  # configuration still runs, so every code path the release run reaches is reached here) and
  # the fault sweep over three of its five configurations (every reachable point still fires:
  # the test checks it), except the tests whose assertion is only *how much* a long run
  # reaches — every situation counted, every fail point fired; they need their full case counts
  # and check the harness's bookkeeping, which the release run above already checked on the
  # same code.
  coverage_only='Evidence\.|^TaskPropertyCoverage\.EveryEngineFailPointFires$|^WindowStoreProperty\.EveryDeclaredSituationIsReached$'
  (cd build/asan && STATECHECK_PROPERTY_CASES=500 \
     STATECHECK_KV_PROPERTY_CASES=20 STATECHECK_TASK_PROPERTY_CASES=12 \
     STATECHECK_WINDOWED_PROPERTY_CASES=20 STATECHECK_CRASH_CYCLES=10 \
     STATECHECK_FAULT_SWEEP_CONFIGS=alos_ru_powerloss,eos_ru_powerloss,alos_unset_formats,eos_unset_formats \
     ctest -LE long -E "$coverage_only" -j "$jobs" --output-on-failure)

  if [ "${STATECHECK_SKIP_SELFTEST:-0}" != 1 ]; then
    stage "self-test (in the ASan build): the catalogue's checks, then the W bugs"
    # The window-store bugs are each caught within a second; all of them must be.
    STATECHECK_SELFTEST_FLAVOUR=asan STATECHECK_SELFTEST_SELECT=W STATECHECK_SELFTEST_BUDGET=20 \
      STATECHECK_SELFTEST_MIN_SCORE=100 STATECHECK_SELFTEST_CONTROL_BUDGET=5 ./ci/selftest.sh
  fi

  # Every test binary that runs threads: the concurrency check, the engine's unit tests (IQ
  # readers of both key-value stores, the window store's iterators), the fault file system's
  # concurrent writers and the model's concurrent views.
  tsan_tests="kv_concurrency_test engine_test fault_fs_test key_value_store_model_test"
  stage "ThreadSanitizer build ($tsan_tests)"
  STATECHECK_TARGET="$tsan_tests" ./ci/build.sh tsan | tail -n 3
  stage "ThreadSanitizer tests"
  (cd build/tsan && export TSAN_OPTIONS="suppressions=$PWD/../../ci/tsan.supp halt_on_error=1" &&
     ctest -R '^KvConcurrency\.' -j "$jobs" --output-on-failure &&
     # Of the engine's tests, the stores' (IQ readers on other threads, iterators): the log,
     # the task runtime and the aggregations run on one thread.
     ./engine/engine_test --gtest_brief=1 \
       --gtest_filter='InMemoryKeyValueStore.*:*RocksDBStore*:InMemoryWindowStore.*' &&
     for t in faults/fault_fs_test model/key_value_store_model_test; do
       "./$t" --gtest_brief=1 || exit 1
     done)
fi
stage "done"
