#!/usr/bin/env bash
# The engine's locking contracts, checked by the compiler: every engine source (not its tests)
# through clang's -Wthread-safety analysis, as errors, with the flags and warnings the build
# compiles it with (the build's compile_commands.json). The annotations are Abseil's (ABSL_GUARDED_BY,
# ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...) on the engine's mutexes (engine/mutex.h).
#   ci/check_thread_safety.sh BUILD_DIR [SOURCE...]
# SOURCE defaults to every engine/*.cc of the build but its tests and fuzz targets; a SOURCE
# outside the build is compiled with the flags of engine/status.cc. Exit 1 on any warning.
# CTest runs it (Contracts.TheEngineKeepsItsLockingAnnotations) on the engine and on a source
# with an unguarded access, which it must reject.
set -euo pipefail
build=${1:?usage: ci/check_thread_safety.sh BUILD_DIR [SOURCE...]}
shift
db="$build/compile_commands.json"
[ -f "$db" ] || { echo "$db: not found (configure the build first)" >&2; exit 2; }
clang=${STATECHECK_CLANG:-clang++-14}
command -v "$clang" >/dev/null || { echo "$clang: not installed (ci/setup.sh installs it)" >&2; exit 2; }

# One line per source: FILE<TAB>the -I/-D/-std/-W flags it is compiled with (so clang also
# holds the engine to the build's warnings, as errors).
plan=$(python3 - "$db" "$@" <<'PY'
import json, os, shlex, sys
db = json.load(open(sys.argv[1]))
wanted = [os.path.abspath(f) for f in sys.argv[2:]]
def flags(entry):
    args = shlex.split(entry["command"]) if "command" in entry else entry["arguments"]
    out, i = [], 0
    while i < len(args):
        a = args[i]
        if a in ("-I", "-D", "-isystem"):
            out += [a, args[i + 1]]; i += 2; continue
        if a.startswith(("-I", "-D", "-std=", "-W")):
            out.append(a)
        i += 1
    return out
engine = [e for e in db if "/engine/" in e["file"] and not e["file"].endswith(("_test.cc", "_fuzz.cc"))]
if not engine:
    sys.exit("no engine source in " + sys.argv[1])
by_file = {os.path.abspath(e["file"]): flags(e) for e in engine}
base = next(f for p, f in by_file.items() if p.endswith("/engine/status.cc"))
for f in (wanted or sorted(by_file)):
    print(f + "\t" + " ".join(shlex.quote(x) for x in by_file.get(f, base)))
PY
)
count=$(printf '%s\n' "$plan" | wc -l)
failed=0
# Two at a time: syntax only, about 2 s a file.
while IFS=$'\t' read -r file flags; do
  printf '%s\0%s\0' "$file" "$flags"
done <<<"$plan" | xargs -0 -n 2 -P "$(nproc 2>/dev/null || echo 2)" sh -c \
  'f=$1; eval "set -- $2"; exec "$0" -fsyntax-only -Wthread-safety -Werror "$@" "$f"' "$clang" \
  || failed=1
if [ "$failed" = 1 ]; then
  echo "ci/check_thread_safety.sh: the thread-safety analysis rejects the engine (above)" >&2
  exit 1
fi
echo "ci/check_thread_safety.sh: $count engine source(s) pass clang's -Wthread-safety"
