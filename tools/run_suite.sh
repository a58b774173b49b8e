#!/usr/bin/env bash
# The main job: install what is missing, build the simulator, run the default scenario suite
# (scenarios/, scenarios/faults/, scenarios/link/, scenarios/field/, scenarios/pmp/ and
# scenarios/sff/, scenarios/sat/) and the same suite adapted for the other controller models, then print one
# table over everything that ran, one grand total (skips included), write one JUnit file and
# compare the goldens of the scenarios that have one.
# Results land in out/suite/ (one folder per scenario, summary.json), out/suite-<controller>/
# for the other controllers, and out/suite/junit.xml (a testsuite per controller).
# Fails if a scenario fails or a golden does not match (the diff is printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build --target satasim -DCMAKE_BUILD_TYPE=Release -DSATASIM_UNITY=ON
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$root/out/suite"
rc=0
# The controller the suites are written for, and the others they are adapted for: the
# controller table's (harness/src/controller/controller_table.cpp, via controller_table.json).
ref=$(PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controller_table reference)
targets=$(PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controller_table adapt-targets)
echo
echo "== $ref: the default suite =="
"$root/build/bin/satasim" run "$root/scenarios" "$root/scenarios/faults" "$root/scenarios/link" "$root/scenarios/field" \
    "$root/scenarios/pmp" "$root/scenarios/sff" "$root/scenarios/atapi" "$root/scenarios/sat" --out "$out" --no-total "$@" || rc=$?
if [ ! -f "$out/summary.json" ]; then
    exit "$rc"      # malformed scenario (exit 2): nothing was run or written
fi
suites=(--suite "$ref=$out")

# The same suite on the other controller models: the SiI3124, and the taskfile controllers
# SiI3112 and ICH/PIIX (what of it they can run: no NCQ scenarios, two channels, no fault
# suite; their own faults are scenarios/sff/). What cannot be adapted is skipped, and said so.
for ctl in $targets; do
    echo
    echo "== $ctl: the default and fault scenarios adapted for it =="
    scen="$root/out/suite-$ctl-scenarios"
    outc="$root/out/suite-$ctl"
    rm -rf "$scen" "$outc"
    rcc=0
    PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controllers adapt --controller "$ctl" \
        --out "$scen" --skipped-out "$root/out/suite-$ctl-skipped.json" \
        "$root/scenarios" "$root/scenarios/faults" > /dev/null 2>&1 || rcc=$?
    if [ "$rcc" -eq 0 ]; then
        "$root/build/bin/satasim" run "$scen" --out "$outc" --no-total "$@" || rcc=$?
    else
        echo "satasim.controllers adapt --controller $ctl failed (exit $rcc)"
    fi
    if [ -f "$outc/summary.json" ]; then
        mv "$root/out/suite-$ctl-skipped.json" "$outc/adapt-skipped.json"
        suites+=(--suite "$ctl=$outc")
    fi
    if [ "$rc" -eq 0 ] && [ "$rcc" -gt 1 ]; then
        rc=$rcc     # a malformed adapted scenario: the report below still shows what ran
    fi
done

echo
echo "== summary: every suite =="
report_rc=0
PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.report "${suites[@]}" \
    --junit "$out/junit.xml" --golden-dir "$root/golden" --show-diffs || report_rc=$?
if [ "$rc" -eq 0 ]; then
    rc=$report_rc   # a failed scenario or golden mismatch (1), unreadable output (2)
fi
exit "$rc"
