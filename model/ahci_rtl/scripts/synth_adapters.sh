#!/usr/bin/env bash
# Yosys synthesis check of the register-bus adapters (model/ahci_rtl/adapters,
# docs/rtl-controller.md, adapters): generic `synth -flatten` of each adapter with its
# default parameters and of the APB one as APB3, and of the AXI4-Lite clock-domain crossing and
# the AXI4 DMA crossing (satasim_axi_cdc: 64-bit data and addresses, 1-bit IDs, FIFOs of
# 4 / 16 / 4 / 4 / 16 entries, SYNC 2); fails if any latch (after `proc` and
# after mapping) or tristate buffer is inferred; prints each cell and flip-flop count.
#   model/ahci_rtl/scripts/synth_adapters.sh [LOG]
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
a="$here/adapters"
log="${1:-/tmp/ahci_rtl_adapters_synth.log}"
command -v yosys >/dev/null || { echo "synth_adapters.sh: SKIP: yosys not found (tools/install_deps.sh installs it)" >&2; exit 77; }
: > "$log"
for cfg in satasim_axil2axi4 satasim_axil2axi3 satasim_axil2ahb satasim_axil2apb "satasim_axil2apb APB4=0" \
           satasim_axil_cdc satasim_axi_cdc; do
  read -r top params <<< "$cfg"
  chparam=""
  [[ -n "$params" ]] && chparam="chparam -set ${params%%=*} ${params#*=} $top"
  yosys -q -l "$log.one" -p "
    read_verilog $a/satasim_axil_front.v $a/satasim_axil2axi4.v $a/satasim_axil2axi3.v \
        $a/satasim_axil2ahb.v $a/satasim_axil2apb.v $a/satasim_axil_cdc.v \
        $a/satasim_async_fifo.v $a/satasim_axi_cdc.v
    $chparam
    hierarchy -check -top $top
    proc
    select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr
    synth -flatten
    select -assert-none t:\$_DLATCH_* t:\$_DLATCHSR_* t:\$_SR_* t:\$_TBUF_ t:\$tribuf
    tee -o $log.stat stat
  " || { cat "$log.one" >> "$log"; echo "synth_adapters.sh: $cfg: yosys failed (latch, tristate or error), see $log" >&2; tail -20 "$log.one" >&2; exit 1; }
  cat "$log.one" >> "$log"
  cells=$(awk '/Number of cells:/ {n=$4} END {print n}' "$log.stat")
  ffs=$(grep -E '^\s+\$_(DFF|SDFF|DFFE|SDFFE|SDFFCE)' "$log.stat" | awk '{s+=$2} END {print s+0}')
  echo "$cfg synthesized: $cells cells, $ffs flip-flops, no latches, no tristates"
done
rm -f "$log.one" "$log.stat"
