#!/usr/bin/env bash
# Planted defects of the AXI4 DMA clock-domain crossing (adapters/satasim_axi_cdc.v,
# satasim_async_fifo.v; docs/rtl-controller.md, separate register and DMA clocks): builds
# the crossing's testbench (adapters/tb/axi_cdc_test.cpp, the ctest ahci_rtl_axi_cdc_*)
# once without a defect and once per defect (the define SATASIM_AXI_CDC_BUG_<NAME>, a
# Verilator build each), runs every clock ratio of the testbench on each and prints which
# ratios catch which defect (the first failure line). Exit 0 only if the build without a
# defect passes every ratio and each defect fails every ratio. On demand (a few minutes:
# one Verilator build per defect), not part of the test command; on a machine shared with
# other builds under a lock (any file; here one in the checkout):
#   flock build.lock nice -n 10 model/ahci_rtl/scripts/axi_cdc_bugs.sh [WORKDIR]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
a="$here/adapters"
work="${1:-/tmp/satasim_axi_cdc_bugs}"
verilator="${VERILATOR:-verilator}"
# the testbench's parameters: the one list in CMakeLists.txt (set(AXI_CDC_TB_PARAMS ...))
params=$(sed -n 's/^set(AXI_CDC_TB_PARAMS \(.*\))$/\1/p' "$here/CMakeLists.txt")
[[ -n "$params" ]] || { echo "axi_cdc_bugs.sh: no AXI_CDC_TB_PARAMS in $here/CMakeLists.txt" >&2; exit 1; }
gargs=(-GDATA_W=64 -GADDR_W=64 -GID_W=4)
cflags=" -I$(cd "$here/../.." && pwd)" # the testbench's includes are from the project root
for p in $params; do
  gargs+=("-G$p")
  cflags+=" -DAXI_CDC_TB_$p"
done
bugs=(BINARY SYNC1_W2R SYNC1_R2W FULL DUP WLAST BRESP)
mkdir -p "$work"
build() { # NAME [DEFINE]
  local dir="$work/$1"
  rm -rf "$dir"
  "$verilator" --cc --exe --build -j 2 -O3 "${gargs[@]}" ${2:+"+define+$2"} -CFLAGS "-O1$cflags" \
      --top-module satasim_axi_cdc -Mdir "$dir" -o axi_cdc_test \
      "$a/satasim_axi_cdc.v" "$a/satasim_async_fifo.v" "$a/tb/axi_cdc_test.cpp" > "$dir.log" 2>&1 ||
    { echo "axi_cdc_bugs.sh: build $1 failed, see $dir.log" >&2; tail -20 "$dir.log" >&2; exit 1; }
  echo "$dir/axi_cdc_test"
}
status=0
clean=$(build none)
# the ratios: the testbench's own list (its usage line)
cases=$({ "$clean" 2>&1 || true; } | sed -n 's/^usage: axi_cdc_test //p' | tr '|' ' ')
[[ -n "$cases" ]] || { echo "axi_cdc_bugs.sh: no cases from the testbench's usage line" >&2; exit 1; }
for c in $cases; do
  if ! out=$("$clean" "$c" 2>&1); then
    echo "none $c: FAILED without a defect:"; echo "$out"; status=1
  fi
done
echo "no defect: every ratio passes ($cases)"
for b in "${bugs[@]}"; do
  exe=$(build "$b" "SATASIM_AXI_CDC_BUG_$b")
  for c in $cases; do
    if out=$("$exe" "$c" 2>&1); then
      echo "$b $c: NOT CAUGHT"; status=1
    else
      echo "$b $c: caught: $(grep -m1 '^FAIL' <<< "$out" || echo "$out" | tail -1)"
    fi
  done
done
exit $status
