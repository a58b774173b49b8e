#!/usr/bin/env bash
# Runs the controller-neutral suite (scenarios/suites/controller-neutral.txt) on a DUT:
#     tools/run_rtl_suite.sh [PROFILE.yaml] [satasim run options...]
# PROFILE defaults to the reference AHCI controller (model/ahci_rtl/profile.yaml); the other
# arguments go to `satasim run` (default --out out/rtl-suite --jobs 2). Needs build/bin/satasim.
# A scenario that needs what the DUT lacks (its CAP and its profile's quirks: NCQ, more
# slots, a faster link, ...) is skipped with the reason (--skip-refused), not failed.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
profile="$root/model/ahci_rtl/profile.yaml"
if [[ $# -gt 0 && "$1" == *.yaml ]]; then
  profile="$1"; shift
fi
# SATASIM_RTL_SUITE: another list in the same format (e.g. scenarios/suites/controller-neutral-quick.txt)
list="${SATASIM_RTL_SUITE:-$root/scenarios/suites/controller-neutral.txt}"
files=()
while IFS= read -r line; do
  line="${line%%#*}"; line="${line//[[:space:]]/}"
  [[ -n "$line" ]] && files+=("$root/scenarios/$line")
done < "$list"
if [[ $# -eq 0 ]]; then
  set -- --out "$root/out/rtl-suite" --jobs 2
fi
exec "${SATASIM_BIN:-$root/build/bin/satasim}" run "${files[@]}" --controller-rtl "$profile" --skip-refused --wall-limit 300 "$@"
