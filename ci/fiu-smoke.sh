#!/usr/bin/env bash
# Smoke test under libfiu's POSIX preload: real read and write system calls fail at random
# (probability ${STATECHECK_FIU_P:-0.0005} each), in every process of a crash-runner run. A cycle
# that dies of an I/O error (or of RocksDB 7.8's own assertion after one) counts as a crash; the
# next cycle's recovery must still find every commit (F1, F2). libfiu's random choices are not
# seeded by statecheck, so this run does not replay exactly: it is a smoke test, run nightly.
#   [STATECHECK_FIU_CYCLES=40] [STATECHECK_FIU_P=0.0005] ci/fiu-smoke.sh [--seed N] [--config LABEL]
set -euo pipefail
cd "$(dirname "$0")/.."
command -v fiu-run >/dev/null || { echo "fiu-smoke: fiu-run missing (apt-get install fiu-utils)" >&2; exit 2; }
[ -x build/release/tools/statecheck ] || bash ci/build.sh release >/dev/null
p=${STATECHECK_FIU_P:-0.0005}
exec fiu-run -x -c "enable_random name=posix/io/rw/*,probability=$p" \
  build/release/tools/statecheck crash --cycles "${STATECHECK_FIU_CYCLES:-40}" --tolerate-io-errors "$@"
