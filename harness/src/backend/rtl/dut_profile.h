// A DUT profile: the YAML file beside a controller's RTL that tells satasim how to
// verilate it (top module, files, include paths, defines, Verilator flags, parameters),
// what its shell interface is (ports, AXI data and address width, clock) and which
// quirks the driver and the suite must take as data (docs/rtl-controller.md). Paths in
// the file are relative to the file's folder; parse_dut_profile() makes them absolute.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace satasim::harness::rtl {

// Where a DUT with quirks.onchip_cmd_area keeps each port's command list (1 KiB) and
// received-FIS area (256 bytes): byte offsets in its register window, port n's at
// command_list + n * port_stride and fis_area + n * port_stride.
struct OnchipArea {
    uint32_t command_list = 0, fis_area = 0, port_stride = 0;
};

struct DutQuirks {
    bool single_slot = false;     // CAP.NCS = 0: one command slot
    bool no_ncq = false;          // CAP.SNCQ = 0
    bool no_64bit_dma = false;    // CAP.S64A = 0
    unsigned only_gen = 0;        // 1..3: the PHY runs this one rate only (0: any up to CAP.ISS)
    bool onchip_cmd_area = false; // command list / received-FIS area in on-chip RAM
    OnchipArea onchip;            // where (with onchip_cmd_area)
    bool no_pmp = true;           // CAP.SPM = 0
};

// What the driver and the suite take the DUT to have: its CAP (dut_caps.h) less what the
// profile's quirks take away.
struct DutFeatures {
    bool cap_read = false; // from the DUT's CAP (else from the profile alone)
    uint32_t cap = 0;      // CAP as the DUT reports it (when cap_read)
    unsigned slots = 32;   // command slots the driver uses
    bool ncq = true;       // NCQ usable
    bool dma64 = true;     // 64-bit DMA addresses
    unsigned gen = 3;      // fastest generation (CAP.ISS, or quirks.only_gen)
    bool fixed_gen = false; // the PHY runs `gen` only (quirks.only_gen): no slower link
    bool pmp = false;      // port multipliers
    bool rx_symbol_errors = true; // the top takes the PHY's symbol error flags (phy_rx_codeerr /
                                  // phy_rx_disperr or phy_rx_err): known once the DUT is built
};

// The shell's AXI4 memory slave (host memory behind the DUT's DMA master).
struct AxiSlaveConfig {
    unsigned read_latency = 8;     // cycles from the AR handshake to the first R beat
    unsigned write_latency = 4;    // cycles from the last W beat to B
    unsigned backpressure_pct = 0; // chance (per cycle) that READY / VALID is held off
    unsigned max_reads = 4;        // outstanding read bursts the slave accepts
    unsigned max_writes = 4;       // outstanding write bursts
};

struct DutProfile {
    std::string file;    // the profile, absolute
    std::string name;    // the DUT's name (messages, cache folder)
    std::string top;     // top module
    std::vector<std::string> files;        // absolute
    std::vector<std::string> include_dirs; // absolute
    std::map<std::string, std::string> defines;    // +define+NAME=VALUE
    std::map<std::string, std::string> parameters; // -GNAME=VALUE
    std::vector<std::string> verilator_flags;
    unsigned ports = 1, data_width = 64, addr_width = 64;
    unsigned reg_addr_width = 12; // the register slave's address bits (s_awaddr / s_araddr)
    double clock_mhz = 150;      // the DUT's clock clk (bus, link; the PHY's dword clock)
    double reg_clock_mhz = 0;    // >0: the top has reg_clk / reg_rst, the register slave's clock
    double dma_clock_mhz = 0;    // >0: the top has dma_clk / dma_rst, the DMA master's clock
    unsigned phy_width = 32;     // PHY data per port and PHY clock: 32 or 16 bits
    bool phy_clocks = false;     // the top has phy_tx_clk / phy_rx_clk (needed for 16 bits)
    bool irq_per_port = false;   // the interrupt is irq_port, one line per port (else irq)
    std::vector<int> rx_ppm;     // phy.rx_ppm: each port's phy_rx_clk offset from phy_tx_clk (ports entries)
    unsigned ssc_ppm = 0;        // phy.ssc.spread_ppm: the receive clocks' SSC down-spread (0: none)
    unsigned ssc_hz = 31500;     // phy.ssc.freq_hz: its modulation frequency
    // The optional PHY pins (docs/rtl-controller.md, "The PHY pins"): the groups the top has
    // (interface.phy_pins, SATASIM_DUT_PHY_* bits of dut_abi.h) and the sideband width.
    unsigned phy_pins = 0;
    unsigned phy_sideband_width = 0;   // interface.phy_sideband_width, 0..32 (0: no sideband)
    unsigned rate_ack_clocks = 64;     // phy.rate_ack_clocks: PHY clocks from a rate request to its ack
    unsigned reset_done_clocks = 256;  // phy.reset_done_clocks: clk cycles from PHY reset release to done
    std::vector<uint32_t> sideband_status; // phy.sideband_status, per port (empty: 0)
    unsigned refclk_mhz = 0;           // phy.refclk_mhz: phy_refclk (the refclk pin), 0: none
    unsigned pll_n = 0;                // the PHY PLL's multiplier: line rate (clock_mhz x 40) / refclk_mhz
    bool signal_oob = false;           // phy.oob: signal (OOB bursts, dword-level speed negotiation)
    unsigned idle_cycles = 4096; // quiet cycles after which the shell stops the clock
    DutQuirks quirks;
    AxiSlaveConfig axi;
    DutFeatures features;            // set by use_controller_rtl (rtl_backend.h)
    std::map<std::string, int> lines; // line of each key read ("interface.ports"), for messages
};

// Reads and checks a profile; throws ScenarioError ("file:line: key: what is wrong") on
// anything malformed: unknown keys, wrong types, missing files, unsupported widths,
// on-chip areas that are misaligned, overlap the registers or each other, or lie outside
// the register window, PHY pin groups unknown or named twice, PHY settings for pins the
// top does not have.
DutProfile parse_dut_profile(const std::string &path);

// The line of a key read ("interface.reg_clock_mhz"), else of its section, else 1.
int profile_line(const DutProfile &p, const std::string &key);

// The profile `satasim run --controller-rtl` gave (the rtl backend's rules consult it),
// or null. Set once by the command line.
const DutProfile *active_profile();
void set_active_profile(const DutProfile *p);

} // namespace satasim::harness::rtl
