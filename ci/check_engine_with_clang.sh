#!/usr/bin/env bash
# The engine through clang: clang-tidy with the repository's .clang-tidy (its checks, and every
# compiler warning of the build's flags plus -Wthread-safety, all as errors) over every engine
# source but its tests and fuzz targets, each with the flags the build compiles it with (the
# build's compile_commands.json). -Wthread-safety holds the engine's locking contracts: the
# Abseil annotations (ABSL_GUARDED_BY, ABSL_EXCLUSIVE_LOCKS_REQUIRED, ...) on its mutexes
# (engine/base/mutex.h).
#   ci/check_engine_with_clang.sh BUILD_DIR [harness | SOURCE...]
# SOURCE defaults to the engine's sources; `harness` means the harness's instead (model/,
# faults/, properties/, reports/, tools/: every source but tests, fuzz targets and benchmarks);
# a source the build does not compile gets the flags of the nearest one it does. Exit 1 listing
# every finding.
# CTest runs it (Contracts.TheEngineIsCleanUnderClangTidyAndThreadSafety) on the engine and on
# planted defects it must reject.
set -euo pipefail
build=${1:?usage: ci/check_engine_with_clang.sh BUILD_DIR [SOURCE...]}
shift
db="$build/compile_commands.json"
[ -f "$db" ] || { echo "$db: not found (configure the build first)" >&2; exit 2; }
tidy=${STATECHECK_CLANG_TIDY:-clang-tidy-14}
command -v "$tidy" >/dev/null || { echo "$tidy: not installed (ci/setup.sh installs it)" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)

if [ $# -eq 0 ] || [ "$*" = harness ]; then
  what=${1:-engine}
  mapfile -t sources < <(python3 -c '
import json, sys
root, harness = sys.argv[2], sys.argv[3] == "harness"
dirs = ("model", "faults", "properties", "reports", "tools") if harness else ("engine",)
for e in json.load(open(sys.argv[1])):
    f = e["file"]
    if (any(f.startswith(root + "/" + d + "/") for d in dirs)
            and not f.endswith(("_test.cc", "_fuzz.cc", "_bench.cc"))):
        print(f)' "$db" "$root" "$what" | sort -u)
  [ ${#sources[@]} -gt 0 ] || { echo "$db: holds no $what source" >&2; exit 2; }
else
  sources=("$@")
fi

out=$(mktemp)
trap 'rm -f "$out"' EXIT
# One clang-tidy per source, as many at once as there are cores (about 3 s a source).
status=0
printf '%s\0' "${sources[@]}" |
  xargs -0 -n 1 -P "$(nproc 2>/dev/null || echo 2)" "$tidy" -p "$build" --quiet \
    --config-file="$root/.clang-tidy" --extra-arg=-Wthread-safety >"$out" 2>&1 || status=1
if [ "$status" != 0 ] || grep -q 'error:' "$out"; then
  grep -Ev '^[0-9]+ (warning|error)s?( and [0-9]+ errors?)? generated\.$' "$out" >&2 || true
  echo "ci/check_engine_with_clang.sh: clang rejects the sources (above)" >&2
  exit 1
fi
echo "ci/check_engine_with_clang.sh: ${#sources[@]} source(s) pass clang-tidy and -Wthread-safety"
