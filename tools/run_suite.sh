#!/usr/bin/env bash
# The main job: install what is missing, build, run the default scenario suite (scenarios/,
# scenarios/faults/, scenarios/link/, scenarios/field/, scenarios/pmp/ and scenarios/sff/), print the summary table, write JUnit XML,
# and compare the goldens of the scenarios that have one.
# Results land in out/suite/ (one folder per scenario, summary.json, junit.xml).
# Fails if a scenario fails or a golden does not match (the diff is printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build --target satasim -DCMAKE_BUILD_TYPE=Release -DSATASIM_UNITY=ON
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$root/out/suite"
rc=0
"$root/build/bin/satasim" run "$root/scenarios" "$root/scenarios/faults" "$root/scenarios/link" "$root/scenarios/field" \
    "$root/scenarios/pmp" "$root/scenarios/sff" --out "$out" "$@" || rc=$?
if [ ! -f "$out/summary.json" ]; then
    exit "$rc"      # malformed scenario (exit 2): nothing was run or written
fi
echo
echo "== summary =="
report_rc=0
PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.report "$out" \
    --junit "$out/junit.xml" --golden-dir "$root/golden" --show-diffs || report_rc=$?
if [ "$rc" -eq 0 ] && [ "$report_rc" -ne 0 ]; then
    rc=$report_rc   # a golden mismatch (1) or unreadable output (2)
fi

# The same suite on the other controller models: the SiI3124 (about 4 s of wall time on an
# idle 2-core machine), and the taskfile controllers SiI3112 and ICH/PIIX (what of it they can
# run: no NCQ scenarios, two channels, no fault suite; their own faults are scenarios/sff/).
for ctl in sil24 sil3112 piix; do
    echo
    echo "== $ctl: the default and fault scenarios adapted for it =="
    scen="$root/out/suite-$ctl-scenarios"
    outc="$root/out/suite-$ctl"
    rm -rf "$scen" "$outc"
    rcc=0
    PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controllers adapt --controller "$ctl" \
        --out "$scen" "$root/scenarios" "$root/scenarios/faults" > /dev/null || rcc=$?
    if [ "$rcc" -eq 0 ]; then
        "$root/build/bin/satasim" run "$scen" --out "$outc" "$@" || rcc=$?
    fi
    if [ -f "$outc/summary.json" ]; then
        echo
        echo "== summary ($ctl) =="
        reportc=0
        PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.report "$outc" \
            --junit "$outc/junit.xml" --golden-dir "$root/golden" --show-diffs || reportc=$?
        if [ "$rcc" -eq 0 ] && [ "$reportc" -ne 0 ]; then
            rcc=$reportc
        fi
    fi
    if [ "$rc" -eq 0 ] && [ "$rcc" -ne 0 ]; then
        rc=$rcc
    fi
done
exit "$rc"
