#!/usr/bin/env bash
# The main job: install what is missing, build, run the default scenario suite.
# Results land in out/suite/ (one folder per scenario, plus summary.json).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build -DCMAKE_BUILD_TYPE=Release
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
exec "$root/build/bin/satasim" run "$root/scenarios" --out "$root/out/suite" "$@"
