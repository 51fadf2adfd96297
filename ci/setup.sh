#!/usr/bin/env bash
# Installs what statecheck builds and runs with, from Debian 12's packages, when missing.
# Run as root (or with sudo available). Safe to run again: it installs only what is missing.
set -euo pipefail

packages=(
  g++ cmake ninja-build pkg-config git ca-certificates
  librocksdb-dev librapidcheck-dev libgtest-dev libbenchmark-dev
  libfiu-dev fiu-utils libabsl-dev nlohmann-json3-dev libcli11-dev libfmt-dev
  libtcmalloc-minimal4  # the harness's executables allocate with tcmalloc (cmake/Dependencies.cmake)
  clang-14 libclang-rt-14-dev  # ci/fuzz.sh: clang and its libFuzzer and sanitizer runtimes.
  clang-tidy-14  # ci/check_engine_with_clang.sh: clang-tidy and -Wthread-safety over the engine.
  clang-format-14  # StatecheckCli.EmitGTestIsCurrent formats the generated test.
  # report_writers_test: xmllint checks junit.xml against reports/schemas/junit.xsd, headless
  # Chromium opens report.html, jsonschema checks report.json against docs/report-schema.json.
  libxml2-utils chromium python3-jsonschema
  python3-yaml  # ci/examples/check_examples.py reads the CI examples.
)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo="sudo"
  else
    echo "ci/setup.sh: these Debian packages are missing and installing them needs root:" >&2
    echo "  ${missing[*]}" >&2
    exit 2
  fi
fi
echo "ci/setup.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
