#!/usr/bin/env bash
# Every test: install what is missing, build the release simulator (build/, the main
# job's binary: proves it builds warning-free at release settings) and the sanitized
# tree with every test (build-san/, ASan + UBSan), run the C and model unit tests (ctest)
# and the scenario tests (pytest) against the sanitized simulator.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build --target satasim -DCMAKE_BUILD_TYPE=Release
"$root/tools/build.sh" build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATASIM_SANITIZE=ON

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
export ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

echo "== unit tests (ctest, sanitized) =="
(cd "$root/build-san" && ctest --output-on-failure -j"$(nproc)")

echo "== scenario tests (pytest, sanitized simulator) =="
cd "$root"
SATASIM_BIN="$root/build-san/bin/satasim" /usr/bin/python3 -m pytest -n "$(nproc)" "$@"
