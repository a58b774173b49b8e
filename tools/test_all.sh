#!/usr/bin/env bash
# Every test: install what is missing, build the release simulator (build/, the main
# job's binary: proves it builds warning-free at release settings) and the sanitized
# tree with every test (build-san/, ASan + UBSan), run the C and model unit tests (ctest)
# and, beside them, the scenario tests (pytest) against the sanitized simulator.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build --target satasim -DCMAKE_BUILD_TYPE=Release -DSATASIM_UNITY=ON
"$root/tools/build.sh" build-san -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSATASIM_SANITIZE=ON -DSATASIM_UNITY=ON

export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
# the release binary built above, for the tests that check decisions rather than memory
# (test_golden_exact's FIS-level runs): the sanitized one runs every scenario already
export SATASIM_RELEASE_BIN="$root/build/bin/satasim"
export ASAN_OPTIONS=detect_leaks=0:detect_stack_use_after_return=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

# ctest runs beside pytest: its long pole (the yosys synthesis of the reference RTL, about
# two minutes on one core) would otherwise leave the other core idle. Its output is printed
# when both have ended; the command fails if either did.
ctest_log="$root/build-san/ctest.log"
echo "== unit tests (ctest, sanitized): started beside the scenario tests, output below =="
mkdir -p "$root/out/tests"
(cd "$root/build-san" && ctest --output-on-failure -j"$(nproc)" --output-junit "$root/out/tests/ctest-junit.xml") \
    >"$ctest_log" 2>&1 &
ctest_pid=$!

echo "== scenario tests (pytest, sanitized simulator) =="
cd "$root"
set +e
SATASIM_BIN="$root/build-san/bin/satasim" /usr/bin/python3 -m pytest -n "$(nproc)" \
    --junitxml="$root/out/tests/pytest-junit.xml" "$@"
pytest_rc=$?
wait "$ctest_pid"
ctest_rc=$?
set -e

echo "== unit tests (ctest, sanitized) =="
cat "$ctest_log"
echo "== ctest exit $ctest_rc, pytest exit $pytest_rc (JUnit: out/tests/pytest-junit.xml, out/tests/ctest-junit.xml) =="
[[ $ctest_rc -eq 0 && $pytest_rc -eq 0 ]]
