#!/usr/bin/env bash
# Yosys synthesis check of the reference AHCI controller (issue 15): generic `synth` of
# ahci_hba (default parameters unless given as NAME=VALUE arguments), then fails if any
# latch or tristate buffer was inferred; prints the cell count. Usage:
#   model/ahci_rtl/scripts/synth.sh [LOG] [NPORTS=1] [DW=64] [AW=64]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
link="$here/../link/rtl"
log="${1:-/tmp/ahci_rtl_synth.log}"
shift || true
chparam_cmd=""
top_opt="-top ahci_hba"
if (($#)); then
  chparam_cmd="chparam"
  for kv in "$@"; do chparam_cmd+=" -set ${kv%%=*} ${kv#*=}"; done
  chparam_cmd+=" ahci_hba"
  top_opt="-auto-top" # chparam renamed ahci_hba to its parameterized variant
fi
command -v yosys >/dev/null || { echo "synth.sh: SKIP: yosys not found (tools/install_deps.sh installs it)" >&2; exit 77; }
yosys -q -l "$log" -p "
  read_verilog -I$link $link/sata_link.v $here/rtl/ahci_fifo.v $here/rtl/ahci_axi_master.v \
      $here/rtl/ahci_phy_adapter.v $here/rtl/ahci_rx_elastic.v $here/rtl/ahci_onchip_ram.v $here/rtl/ahci_phy_ctl.v \
      $here/rtl/ahci_port.v $here/rtl/ahci_hba.v
  $chparam_cmd
  hierarchy -check $top_opt
  proc
  select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr
  synth -flatten
  select -assert-none t:\$_DLATCH_* t:\$_DLATCHSR_* t:\$_SR_* t:\$_TBUF_ t:\$tribuf
  tee -o $log.stat stat
" || { echo "synth.sh: yosys failed (latch, tristate or error), see $log" >&2; tail -20 "$log" >&2; exit 1; }
cells=$(awk '/Number of cells:/ {n=$4} END {print n}' "$log.stat")
echo "ahci_hba synthesized ($*): $cells cells, no latches, no tristates"
grep -E '^\s+\$_(DFF|SDFF|DFFE|SDFFE|SDFFCE)' "$log.stat" | awk '{s+=$2} END {print "flip-flops: " s}'
