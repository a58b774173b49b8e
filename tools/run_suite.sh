#!/usr/bin/env bash
# The main job: install what is missing, build, run the default scenario suite (scenarios/,
# scenarios/faults/, scenarios/link/, scenarios/field/ and scenarios/pmp/), print the summary table, write JUnit XML,
# and compare the goldens of the scenarios that have one.
# Results land in out/suite/ (one folder per scenario, summary.json, junit.xml).
# Fails if a scenario fails or a golden does not match (the diff is printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build -DCMAKE_BUILD_TYPE=Release
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$root/out/suite"
rc=0
"$root/build/bin/satasim" run "$root/scenarios" "$root/scenarios/faults" "$root/scenarios/link" "$root/scenarios/field" \
    "$root/scenarios/pmp" --out "$out" "$@" || rc=$?
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

# The same suite on the SiI3124 model (about 4 s of wall time on an idle 2-core machine).
echo
echo "== sil24: the default and fault scenarios adapted for the SiI3124 =="
scen24="$root/out/suite-sil24-scenarios"
out24="$root/out/suite-sil24"
rm -rf "$scen24" "$out24"
rc24=0
PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controllers adapt --controller sil24 \
    --out "$scen24" "$root/scenarios" "$root/scenarios/faults" > /dev/null || rc24=$?
if [ "$rc24" -eq 0 ]; then
    "$root/build/bin/satasim" run "$scen24" --out "$out24" "$@" || rc24=$?
fi
if [ -f "$out24/summary.json" ]; then
    echo
    echo "== summary (sil24) =="
    PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.report "$out24" \
        --junit "$out24/junit.xml" --golden-dir "$root/golden" --show-diffs || report24=$?
    if [ "$rc24" -eq 0 ] && [ "${report24:-0}" -ne 0 ]; then
        rc24=$report24
    fi
fi
if [ "$rc" -eq 0 ] && [ "$rc24" -ne 0 ]; then
    rc=$rc24
fi
exit "$rc"
