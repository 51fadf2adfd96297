#!/usr/bin/env bash
# The package as another project uses it: installs the release build (ci/build.sh release) to a
# prefix, checks that every installed header's quoted includes are installed too, builds
# examples/verify-my-store against the prefix alone (find_package(statecheck)), and runs
# it: the metered store as written must pass every configuration of the window-store property;
# the variant with its planted bug must be caught (exit 1, the rule W4), shrunk, and its saved
# trace must diverge again when replayed against that variant and pass against the store as
# written. Prints each step; exits non-zero at the first that does not hold.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$PWD/build/prefix
out=$PWD/build/verify-my-store
rm -rf "$prefix" "$out"
cmake --install build/release --prefix "$prefix" >/dev/null
fail() { echo "ci/verify_my_store.sh: $*" >&2; exit 1; }
# Every quoted include of an installed header is installed too: the engine's public headers
# name only each other, the harness's only the harness's and the engine's.
for h in $(cd "$prefix/include" && find statecheck statecheck-harness -name '*.h'); do
  for inc in $(sed -n 's/^#include "\(.*\)"/\1/p' "$prefix/include/$h"); do
    case "$h" in
      statecheck/*) [ -f "$prefix/include/$inc" ] ;;
      *) [ -f "$prefix/include/statecheck-harness/$inc" ] || [ -f "$prefix/include/$inc" ] ;;
    esac || fail "the installed $h includes \"$inc\", which the package does not install"
  done
done
cmake -S examples/verify-my-store -B "$out" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$out" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null
cd "$out"
"$out/verify_my_store" --traces "$out/traces" | tee "$out/correct.txt"
grep -q '^OK: ' "$out/correct.txt" || fail "the store as written did not pass"
set +e
"$out/verify_my_store" --planted --traces "$out/traces" > "$out/planted.txt"
code=$?
set -e
cat "$out/planted.txt"
[ "$code" = 1 ] || fail "the planted variant exited $code, not 1 (caught)"
grep -q '(rule W4)' "$out/planted.txt" || fail "the planted bug was not credited to W4"
grep -q '^shrunk to [1-9][0-9]* steps' "$out/planted.txt" || fail "no shrunk counterexample"
trace=$(sed -n 's/^trace: //p' "$out/planted.txt")
[ -f "$trace" ] || fail "the failing trace was not saved"
set +e
"$out/verify_my_store" --planted --replay "$trace" > "$out/replay.txt"
code=$?
set -e
[ "$code" = 1 ] && grep -q '^DIVERGED at step' "$out/replay.txt" ||
  fail "the saved trace did not diverge again on the planted variant (exit $code)"
"$out/verify_my_store" --replay "$trace" | grep -q '^OK: all' ||
  fail "the saved trace does not pass on the store as written"
echo "verify-my-store: the installed package checks an out-of-tree store; its planted bug is" \
  "caught (W4), shrunk and replayed"
