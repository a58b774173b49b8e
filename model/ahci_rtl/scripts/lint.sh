#!/usr/bin/env bash
# verilator --lint-only -Wall over the reference AHCI controller in every supported
# configuration (ports 1/2/4/8, AXI data 32/64/128, addresses 32/64; one slot, no NCQ,
# Gen1 / Gen2 only; 16-bit PHY, elastic buffer; on-chip command list and FIS area, a wider
# register window). No -Wno flags: the only waivers are the documented lint_off comments in
# the sources (BLKSEQ temporaries in ahci_port.v as in sata_link.v, the unused second
# look-ahead of the rx FIFO, the unused upper half of an address temporary with 32-bit
# addresses, the PHY adapter's clocks and reset and the optional PHY pins in the
# configurations that do not use them,
# the zero bits above SAW of the register address widened to 32 bits in ahci_hba.v).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
link="$here/../link/rtl"
verilator="${VERILATOR:-verilator}"
srcs=("$here"/rtl/ahci_hba.v "$here"/rtl/ahci_port.v "$here"/rtl/ahci_axi_master.v
      "$here"/rtl/ahci_fifo.v "$here"/rtl/ahci_phy_adapter.v "$here"/rtl/ahci_rx_elastic.v
      "$here"/rtl/ahci_onchip_ram.v "$here"/rtl/ahci_phy_ctl.v
      "$link"/sata_link.v)
n=0
for np in 1 2 4 8; do
  for dw in 32 64 128; do
    for aw in 32 64; do
      if ! out=$("$verilator" --lint-only -Wall -I"$link" -GNPORTS=$np -GDW=$dw -GAW=$aw \
                 --top-module ahci_hba "${srcs[@]}" 2>&1); then
        echo "lint.sh: NPORTS=$np DW=$dw AW=$aw:" >&2
        echo "$out" >&2
        exit 1
      fi
      n=$((n + 1))
    done
  done
done
# the feature-reduced configurations (model/ahci_rtl/profile-min.yaml and each alone)
# the PHY interfaces: 16-bit words, 32-bit with the elastic buffer, 16-bit on 2 ports;
# and the on-chip command list / FIS area (profile-onchip.yaml; 8 ports need SAW = 15);
# the optional PHY pins and sideband vectors (profile-phyctl.yaml: PHY_CTL, SBW)
for feat in "-GNCS=0 -GSNCQ=0 -GAW=32 -GISS=1 -GDW=32" "-GNCS=0" "-GSNCQ=0" "-GISS=1" "-GISS=2 -GNCS=7" \
            "-GPHY_W=16" "-GEB=1" "-GPHY_W=16 -GNPORTS=2" \
            "-GONCHIP=1 -GSAW=13" "-GONCHIP=1 -GSAW=15 -GNPORTS=8 -GAW=32" "-GSAW=16" \
            "-GPHY_CTL=1 -GSBW=8" "-GPHY_CTL=1 -GSBW=32 -GNPORTS=2" "-GPHY_CTL=1 -GPHY_W=16" "-GSBW=1"; do
  # shellcheck disable=SC2086
  if ! out=$("$verilator" --lint-only -Wall -I"$link" $feat --top-module ahci_hba "${srcs[@]}" 2>&1); then
    echo "lint.sh: $feat:" >&2
    echo "$out" >&2
    exit 1
  fi
  n=$((n + 1))
done
# the testbench top as well
"$verilator" --lint-only -Wall -I"$link" -I"$here/rtl" --top-module ahci_tb_top \
    "$here"/tb/ahci_tb_top.v "${srcs[@]}"
# the register-bus adapters (adapters/): each at its defaults and at the widths that change
# its code (an ID of one bit, addresses of 12 or 64 bits, APB3; the clock-domain crossing
# with a wider window and three synchronizer stages; the AXI4 DMA crossing at 32 / 64 / 128
# data bits, 32 / 64 address bits, IDs of 1 and 8 bits, the smallest FIFOs and three
# stages), their testbench top, and the APB example DUT top of profile-apb.yaml
a="$here/adapters"
asrcs=("$a"/satasim_axil_front.v "$a"/satasim_axil2axi4.v "$a"/satasim_axil2axi3.v
       "$a"/satasim_axil2ahb.v "$a"/satasim_axil2apb.v "$a"/satasim_axil_cdc.v
       "$a"/satasim_async_fifo.v "$a"/satasim_axi_cdc.v)
m=0
for cfg in "satasim_axil2axi4" "satasim_axil2axi4 -GID_W=1 -GADDR_W=12" "satasim_axil2axi4 -GID_W=16 -GADDR_W=64" \
           "satasim_axil2axi3" "satasim_axil2axi3 -GID_W=1 -GADDR_W=12" "satasim_axil2ahb" \
           "satasim_axil2ahb -GADDR_W=12" "satasim_axil2apb" "satasim_axil2apb -GAPB4=0 -GADDR_W=32" \
           "satasim_axil_cdc" "satasim_axil_cdc -GADDR_W=16 -GSYNC=3" \
           "satasim_axi_cdc" "satasim_axi_cdc -GDATA_W=32 -GADDR_W=32" \
           "satasim_axi_cdc -GDATA_W=128 -GID_W=8 -GSYNC=3" \
           "satasim_axi_cdc -GAW_DEPTH=2 -GW_DEPTH=2 -GB_DEPTH=2 -GAR_DEPTH=2 -GR_DEPTH=2" \
           "satasim_axi_cdc -GW_DEPTH=64 -GR_DEPTH=64"; do
  read -r top params <<< "$cfg"
  # shellcheck disable=SC2086
  if ! out=$("$verilator" --lint-only -Wall $params --top-module "$top" "${asrcs[@]}" 2>&1); then
    echo "lint.sh: adapter $cfg:" >&2
    echo "$out" >&2
    exit 1
  fi
  m=$((m + 1))
done
"$verilator" --lint-only -Wall --top-module adapters_tb_top "$a"/tb/adapters_tb_top.v "${asrcs[@]}"
"$verilator" --lint-only -Wall -I"$link" --top-module ahci_hba_apb "$a"/example/ahci_hba_apb.v \
    "$a"/example/ahci_apb_slave.v "$a"/satasim_axil_front.v "$a"/satasim_axil2apb.v "${srcs[@]}"
# the register-clock example top of profile-regclk.yaml (the CDC in front of ahci_hba)
"$verilator" --lint-only -Wall -I"$link" --top-module ahci_hba_cdc "$a"/example/ahci_hba_cdc.v \
    "$a"/satasim_axil_front.v "$a"/satasim_axil_cdc.v "${srcs[@]}"
# the DMA-clock example top of profile-dmaclk.yaml (ahci_hba's DMA master behind the AXI4
# crossing), also at 32-bit data and addresses and at 128-bit data on two ports
for p in "" "-GDW=32 -GAW=32" "-GDW=128 -GNPORTS=2"; do
  # shellcheck disable=SC2086
  "$verilator" --lint-only -Wall -I"$link" $p --top-module ahci_hba_dmaclk "$a"/example/ahci_hba_dmaclk.v \
      "$a"/satasim_async_fifo.v "$a"/satasim_axi_cdc.v "${srcs[@]}"
done
echo "ahci_rtl lint: $n configurations, the testbench top, $m adapter configurations, their testbench top and the APB, register-clock and DMA-clock example tops clean under -Wall"
