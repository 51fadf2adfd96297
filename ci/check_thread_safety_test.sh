#!/usr/bin/env bash
# Contracts.TheEngineKeepsItsLockingAnnotations: ci/check_thread_safety.sh passes on the engine,
# and rejects (naming the variable and the mutex) the engine's log with one of its locks taken
# out, and a source that reads a guarded member without its mutex.
#   ci/check_thread_safety_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: ci/check_thread_safety_test.sh BUILD_DIR}
"$here/check_thread_safety.sh" "$build"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# LogImpl::Sync without its lock: the annotations on the real engine must catch it.
awk '/Status Sync\(\) override/ { in_sync = 1 }
     in_sync && /internal::MutexLock l\(&mu_\);/ { in_sync = 0; next }
     { print }' "$here/../engine/log.cc" >"$tmp/log_without_a_lock.cc"
if cmp -s "$here/../engine/log.cc" "$tmp/log_without_a_lock.cc"; then
  echo "FAIL: no lock was taken out of engine/log.cc's Sync (has it changed?)"; exit 1
fi
if out=$("$here/check_thread_safety.sh" "$build" "$tmp/log_without_a_lock.cc" 2>&1); then
  echo "FAIL: the log's Sync without its lock passed:"; echo "$out"; exit 1
fi
grep -q "requires holding mutex 'mu_'" <<<"$out" ||
  { echo "FAIL: the unlocked access was not named:"; echo "$out"; exit 1; }

cat >"$tmp/unguarded.cc" <<'CC'
#include "engine/mutex.h"
struct Counter {
  statecheck::internal::Mutex mu;
  int n ABSL_GUARDED_BY(mu) = 0;
};
int Read(Counter* c) { return c->n; }
CC
if out=$("$here/check_thread_safety.sh" "$build" "$tmp/unguarded.cc" 2>&1); then
  echo "FAIL: a read of a guarded member without its mutex passed:"; echo "$out"; exit 1
fi
grep -q "reading variable 'n' requires holding mutex 'c->mu'" <<<"$out" ||
  { echo "FAIL: the unguarded read was not named:"; echo "$out"; exit 1; }
echo "Contracts: the engine passes -Wthread-safety; a lock taken out and an unguarded read fail"
