#!/usr/bin/env bash
# The main job: install what is missing, build, run the default scenario suite (scenarios/
# and scenarios/faults/), print the summary table, write JUnit XML, and compare the goldens
# of the scenarios that have one.
# Results land in out/suite/ (one folder per scenario, summary.json, junit.xml).
# Fails if a scenario fails or a golden does not match (the diff is printed).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/tools/install_deps.sh"
"$root/tools/build.sh" build -DCMAKE_BUILD_TYPE=Release
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
out="$root/out/suite"
rc=0
"$root/build/bin/satasim" run "$root/scenarios" "$root/scenarios/faults" --out "$out" "$@" || rc=$?
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
exit "$rc"
