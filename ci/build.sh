#!/usr/bin/env bash
# Configures and builds one flavour of statecheck: ci/build.sh release|asan|tsan|fuzz|planted
# [extra cmake args]. STATECHECK_TARGET="name ..." builds those targets alone. The fuzz flavour builds
# only the libFuzzer targets, with clang-14 (ci/fuzz.sh runs them); the planted flavour is the
# release build with the planted-bug catalogue compiled in (ci/selftest.sh runs it).
# Prints the build directory on its last line.
set -euo pipefail
cd "$(dirname "$0")/.."
flavour=${1:-release}
shift || true
case "$flavour" in
  release) dir=build/release; args=(-DCMAKE_BUILD_TYPE=Release) ;;
  asan) dir=build/asan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_SANITIZE=ON
                               -DSTATECHECK_BUILD_BENCH=OFF) ;;
  tsan) dir=build/tsan; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_TSAN=ON
                               -DSTATECHECK_BUILD_BENCH=OFF) ;;
  fuzz) dir=build/fuzz; args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTATECHECK_FUZZ=ON
                               -DSTATECHECK_BUILD_BENCH=OFF -DCMAKE_CXX_COMPILER=clang++-14) ;;
  planted) dir=build/planted; args=(-DCMAKE_BUILD_TYPE=Release -DSTATECHECK_PLANTED_BUGS=ON
                                     -DSTATECHECK_BUILD_BENCH=OFF) ;;
  *) echo "ci/build.sh: unknown flavour '$flavour' (release, asan, tsan, fuzz or planted)" >&2
     exit 2 ;;
esac
jobs=$(nproc 2>/dev/null || echo 2)
cmake -S . -B "$dir" -G Ninja "${args[@]}" "$@" >/dev/null
targets=()
if [ -n "${STATECHECK_TARGET:-}" ]; then
  read -ra names <<<"$STATECHECK_TARGET"
  targets=(--target "${names[@]}")
fi
cmake --build "$dir" -j "$jobs" "${targets[@]}"
echo "$dir"
