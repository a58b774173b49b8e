#!/usr/bin/env bash
# Refactor check: runs every scenario of the tree (the default suite, faults, link, field,
# PMP, directed, sil24, SFF, SAT, report, coverage, QEMU and QEMU-error scenarios) at both link levels (dword RTL and
# FIS), plus the default and fault scenarios adapted for the SiI3124 at both levels, and
# writes one line per output file, "sha256  level/folder/scenario/file", sorted, to
# OUT_DIR/digests.txt. A change meant to keep behaviour must leave that file identical:
#
#   tools/trace_snapshot.sh build /tmp/before   # on the old commit
#   tools/trace_snapshot.sh build /tmp/after    # on the new one
#   diff /tmp/before/digests.txt /tmp/after/digests.txt && echo identical
#
# trace.jsonl and satasim.log are hashed whole; result.json without its wall-time figures
# (wall_time_s, commands_per_wall_second: the only fields that depend on the machine). Usage: tools/trace_snapshot.sh BUILD_DIR OUT_DIR
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
build="$(cd "$1" && pwd)"; mkdir -p "$2"; out="$(cd "$2" && pwd)"
sim="$build/bin/satasim"
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1
rm -rf "$out"; mkdir -p "$out"
folders=(. faults link field pmp directed sil24 sff sat report coverage qemu qemu-errors)

PYTHONPATH="$root/harness" /usr/bin/python3 -m satasim.controllers adapt --controller sil24 \
    --out "$out/sil24-adapted-src" "$root/scenarios" "$root/scenarios/faults" > /dev/null

for level in dword fis; do
    for f in "${folders[@]}"; do
        name=${f//./default}
        SATASIM_LINK_MODE=$level "$sim" run "$root/scenarios/$f" --jobs "$(nproc)" \
            --out "$out/$level/$name" > "$out/$level-$name.console" 2>&1 || true
    done
    SATASIM_LINK_MODE=$level "$sim" run "$out/sil24-adapted-src" --jobs "$(nproc)" \
        --out "$out/$level/sil24-adapted" > "$out/$level-sil24-adapted.console" 2>&1 || true
done

cd "$out"
# Paths of this checkout and of OUT_DIR are written as ROOT and OUT, so two checkouts compare.
# QEMU's pid differs from run to run; under blkdebug (qemu-errors/) so do QEMU's timings and
# request counts, since its block layer runs in I/O threads: those are compared without times.
norm() {
    case "$1" in
        */qemu-errors/*) sed -E -e "s#$root#ROOT#g" -e "s#$out#OUT#g" -e 's/"pid":[0-9]+/"pid":0/' \
                             -e 's/"(t_ns|start_ns|end_ns|sim_time_ns|qemu_requests|qemu_round_trips)":( ?)[0-9]+/"\1":\20/g' \
                             -e 's/^\[ *[0-9.]+\]//' "$1" ;;
        *) sed -E -e "s#$root#ROOT#g" -e "s#$out#OUT#g" -e 's/"pid":[0-9]+/"pid":0/' "$1" ;;
    esac
}
{
    find dword fis \( -name trace.jsonl -o -name satasim.log \) | sort | while read -r f; do
        printf '%s  %s\n' "$(norm "$f" | sha256sum | cut -d' ' -f1)" "$f"
    done
    find dword fis -name result.json | sort | while read -r r; do
        printf '%s  %s\n' "$(norm "$r" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); [d.pop(k,None) for k in ("wall_time_s","commands_per_wall_second")]; print(json.dumps(d,sort_keys=True))' | sha256sum | cut -d' ' -f1)" "$r"
    done
} > digests.txt
echo "$(wc -l < digests.txt) files hashed into $out/digests.txt"
