#!/usr/bin/env bash
# Configures and builds one flavour of statecheck: ci/build.sh
# release|asan|tsan|fuzz|planted|product|clang [extra cmake args]. STATECHECK_TARGET="name ..." builds those targets alone. The fuzz flavour builds
# only the libFuzzer targets, with clang-14 (ci/fuzz.sh runs them); the planted flavour is the
# release build with the planted-bug catalogue compiled in (ci/selftest.sh runs it); the asan
# flavour holds the catalogue too (none active unless chosen), so that CI runs the self-test
# under the sanitizers without a third build of the harness; it has UBSan on engine/, model/
# and faults/, or everywhere with STATECHECK_UBSAN_ALL=ON (the nightly). The product
# flavour is the engine as users link it — no fail point, no planted bug, no libfiu — and the
# example that uses it: the build then checks with nm that the library holds none of them, and
# runs the example.
# Prints the build directory on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
shift || true
# The sanitizer and clang flavours build as unity builds: each target's sources compile in
# batches, so the heavy headers (RocksDB, gtest, rapidcheck) are parsed once per batch instead of
# once per file (CI builds each flavour from nothing). The release and product flavours compile
# file by file, as a developer's build does, so that a file missing an include of its own fails
# there (in a batch it could borrow a neighbour's). Two files of a target that define the same
# file-local name collide in a batch: keep such names distinct, or the file out of the batches
# (SKIP_UNITY_BUILD_INCLUSION, as engine/, properties/ and reports/ do for a few).
unity=(-DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16)
case "$flavour" in
  release) dir=build/release; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build/asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_SANITIZE=ON
                               "${unity[@]}"
                               -DSTATECHECK_PLANTED_BUGS=ON -DSTATECHECK_BUILD_BENCH=OFF
                               -DSTATECHECK_UBSAN_ALL="${STATECHECK_UBSAN_ALL:-OFF}") ;;
  tsan) dir=build/tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_TSAN=ON
                               "${unity[@]}"
                               -DSTATECHECK_BUILD_BENCH=OFF) ;;
  fuzz) dir=build/fuzz; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_FUZZ=ON
                               -DSTATECHECK_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14) ;;
  planted) dir=build/planted; args=(-DCMAKE_BUILD_TYPE=Release -DSTATECHECK_PLANTED_BUGS=ON
                                     -DSTATECHECK_BUILD_BENCH=OFF) ;;
  product) dir=build/product; args=(-DCMAKE_BUILD_TYPE=Release -DSTATECHECK_PRODUCT=ON) ;;
  # Every target through clang-14 with -Wthread-safety, warnings as errors: the compiler check
  # alone (CI builds it and runs nothing from it), so each source goes through clang's front
  # end only (ci/syntax_only.sh) and nothing is linked.
  clang) dir=build/clang; args=(-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=clang++-14
                                 -DCMAKE_CXX_FLAGS=-Wthread-safety "${unity[@]}"
                                 "-DCMAKE_CXX_COMPILER_LAUNCHER=$PWD/ci/syntax_only.sh") ;;
  *) echo "ci/build.sh: unknown flavour '$flavour' (release, asan, tsan, fuzz, planted," \
          "product or clang)" >&2
     exit 2 ;;
esac
jobs=$(nproc 2>/dev/null || echo 2)
# Every flavour builds with warnings as errors (gcc 12; clang 14 for fuzz and clang).
cmake -S . -B "$dir" -G Ninja "${args[@]}" -DSTATECHECK_WERROR=ON "$@" >/dev/null
targets=()
if [ -n "${STATECHECK_TARGET:-}" ]; then
  read -ra names <<<"$STATECHECK_TARGET"
  targets=(--target "${names[@]}")
fi
if [ "$flavour" = clang ] && [ ${#targets[@]} -eq 0 ]; then
  mapfile -t objects < <(ninja -C "$dir" -t targets all | sed -n 's/^\(.*\.o\): .*/\1/p')
  ninja -C "$dir" -j "$jobs" "${objects[@]}"
else
  cmake --build "$dir" -j "$jobs" "${targets[@]}"
fi
if [ "$flavour" = product ]; then
  # What a product build must not hold: libfiu (the fail points' library) and any planted bug.
  lib="$dir/engine/libstatecheck_engine.a"
  leaks=$(nm -C "$lib" | grep -Ei 'fiu_|planted' || true)
  if [ -n "$leaks" ]; then
    echo "ci/build.sh product: $lib holds test hooks:" >&2
    echo "$leaks" >&2
    exit 1
  fi
  if nm -C "$lib" | grep -q 'statecheck::internal::FailPoint'; then
    echo "ci/build.sh product: $lib calls fail points" >&2
    exit 1
  fi
  "$dir/examples/quickstart" >/dev/null
  echo "product build: no libfiu symbol, no planted bug, no fail point in $lib; quickstart passes"
fi
echo "$dir"
