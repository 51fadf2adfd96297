#!/usr/bin/env bash
# Contracts.TheEngineIsCleanUnderClangTidyAndThreadSafety: ci/check_engine_with_clang.sh passes
# on the engine, and rejects, naming each: the engine's log with one of its locks taken out, a
# read of a guarded member without its mutex, and a value used after it was moved.
#   ci/check_engine_with_clang_test.sh BUILD_DIR
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:?usage: ci/check_engine_with_clang_test.sh BUILD_DIR}
check="$here/check_engine_with_clang.sh"
"$check" "$build"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# rejects FILE EXPECTED: the check fails on FILE and its output holds EXPECTED.
rejects() {
  local out
  if out=$("$check" "$build" "$1" 2>&1); then
    echo "FAIL: $(basename "$1") passed:"; echo "$out"; exit 1
  fi
  grep -qF "$2" <<<"$out" || { echo "FAIL: $(basename "$1"): \"$2\" not named:"; echo "$out"; exit 1; }
}

# LogImpl::Sync without its lock: the annotations on the real engine must catch it.
awk '/Status Sync\(\) override/ { in_sync = 1 }
     in_sync && /internal::MutexLock l\(&mu_\);/ { in_sync = 0; next }
     { print }' "$here/../engine/log/log.cc" >"$tmp/log_without_a_lock.cc"
if cmp -s "$here/../engine/log/log.cc" "$tmp/log_without_a_lock.cc"; then
  echo "FAIL: no lock was taken out of engine/log/log.cc's Sync (has it changed?)"; exit 1
fi
rejects "$tmp/log_without_a_lock.cc" "requires holding mutex 'mu_'"

cat >"$tmp/unguarded.cc" <<'CC'
#include "engine/base/mutex.h"
struct Counter {
  statecheck::internal::Mutex mu;
  int n ABSL_GUARDED_BY(mu) = 0;
};
int Read(Counter* c) { return c->n; }
CC
rejects "$tmp/unguarded.cc" "reading variable 'n' requires holding mutex 'c->mu'"

cat >"$tmp/moved.cc" <<'CC'
#include <string>
#include <utility>
std::string Twice(std::string s) {
  std::string t = std::move(s);
  return s + t;
}
CC
rejects "$tmp/moved.cc" "'s' used after it was moved [bugprone-use-after-move"
echo "Contracts: the engine passes clang-tidy and -Wthread-safety; the three planted defects fail"
