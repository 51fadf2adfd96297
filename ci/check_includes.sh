#!/usr/bin/env bash
# The fence between the project's targets, checked: every #include "<folder>/..." of a project
# folder must be one the including folder may depend on (README, "Architecture"). Public engine
# headers ("statecheck/...") are open to everyone; the engine's internal headers ("engine/...")
# to the engine alone; test helpers ("testing/...") to test files (*_test.cc) alone.
#   ci/check_includes.sh [ROOT]   (default: the repository). Exit 1 listing each violation.
# CTest runs it (Fence.IncludesStayWithinTheirTargets) on the repository and on a tree with a
# planted cross-target include, which it must reject.
set -euo pipefail
root=${1:-"$(dirname "$0")/.."}
cd "$root"

# folder: the project folders its files may include from (besides itself and statecheck/).
declare -A allowed=(
  [engine]=""
  [model]=""
  [faults]=""
  [reports]=""
  [properties]="model faults"
  [tools]="properties model faults reports"
  [bench]="tools properties model faults reports"
  [examples]=""
  [testing]=""
)
# What test files may include besides: the harness pieces their checks use.
declare -A test_allowed=(
  [properties]="reports"
)
folders="engine model faults reports properties tools bench examples testing"
# What the installed package holds of the harness (cmake/StatecheckInstall.cmake).
harness_installed="model faults properties reports"
# The folders that may include the engine's test hooks (statecheck/hooks/...).
hook_folders="engine properties tools bench"

violations=0
for folder in $folders; do
  [ -d "$folder" ] || continue
  while IFS= read -r -d '' file; do
    is_test=0
    case "$file" in *_test.cc) is_test=1 ;; esac
    while IFS=: read -r line include; do
      target=${include%%/*}
      case " $folders " in *" $target "*) ;; *) continue ;; esac  # Not a project folder.
      [ "$target" = "$folder" ] && continue
      ok=0
      for a in ${allowed[$folder]} ; do [ "$a" = "$target" ] && ok=1; done
      # examples/verify-my-store is another project, built against the installed package: the
      # harness's installed headers are its to include, the engine's internals still are not.
      case "$file" in examples/verify-my-store/*)
        for a in $harness_installed; do [ "$a" = "$target" ] && ok=1; done ;;
      esac
      if [ "$is_test" = 1 ]; then
        [ "$target" = testing ] && ok=1
        for a in ${test_allowed[$folder]:-}; do [ "$a" = "$target" ] && ok=1; done
      fi
      if [ "$ok" = 0 ]; then
        why="$folder/ may not include $target/"
        [ "$target" = engine ] && why="engine/ headers are the engine's own: use its public headers (statecheck/...)"
        [ "$target" = testing ] && why="testing/ is for test files only"
        echo "$file:$line: #include \"$include\": $why"
        violations=$((violations + 1))
      fi
    done < <(grep -n -o '^#include "[a-z_]*/[^"]*"' "$file" | sed 's/#include "\(.*\)"/\1/')
    if [ "$is_test" = 0 ] && [[ " $hook_folders " != *" $folder "* ]]; then
      while IFS=: read -r line include; do
        echo "$file:$line: #include \"$include\": the engine's test hooks are the harness's" \
          "(properties/, tools/, bench/ and tests), not part of the engine's public API"
        violations=$((violations + 1))
      done < <(grep -n -o '^#include "statecheck/hooks/[^"]*"' "$file" |
        sed 's/#include "\(.*\)"/\1/')
    fi
  done < <(find "$folder" -type f \( -name '*.cc' -o -name '*.h' \) -print0)
done
if [ "$violations" -gt 0 ]; then
  echo "ci/check_includes.sh: $violations include(s) cross a target's fence" >&2
  exit 1
fi
echo "ci/check_includes.sh: every include stays within its target's dependencies"
