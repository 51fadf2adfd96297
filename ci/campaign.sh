#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs a default conformance campaign.
# Arguments go to `statecheck run` (default: --budget 60). Prints where the report is.
set -euo pipefail
cd "$(dirname "$0")/.."
./ci/setup.sh
./ci/build.sh release >/dev/null
[ $# -eq 0 ] && set -- --budget 60
exec build/release/tools/statecheck run "$@"
