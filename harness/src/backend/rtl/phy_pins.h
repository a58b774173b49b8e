// The optional PHY pins of one DUT port (docs/rtl-controller.md, "The PHY pins"): what the
// shell's PHY drives on them and the protocol checks on what the DUT drives, in plain C++
// (no SystemC: harness/tests/unit/phy_pins_test.cpp drives it alone). PhyPort (phy_port.h)
// owns one per port and feeds it the DUT's sampled outputs and the PHY model's events.
//
//   electrical idle  phy_rx_elecidle follows the wire: high until the device transmits (from
//                    its COMWAKE on: ALIGNs, then the link), high again once the link is
//                    lost, the DUT sends COMRESET or goes offline, or its PHY is in reset.
//                    phy_tx_elecidle is the DUT's request for transmit electrical idle: while
//                    it holds it outside OOB (no COMRESET, COMWAKE, offline or PHY reset
//                    requested) with the link up, the device's receiver hears nothing:
//                    carried() is false for each such dword (the shell puts an ALIGN, which
//                    carries no information, in its place), and after squelch_dwords of
//                    them in a row the device's PHY has lost the signal: link_drop().
//   COMWAKE detect   phy_comwake_det: one clk cycle when the device's COMWAKE is recognised.
//   rate             phy_rate (1..3) is the DUT's rate request; phy_rate_ack a one-clk-cycle
//                    pulse rate_ack_clocks PHY transmit clocks after each change.
//   PHY reset        phy_reset held by the DUT; phy_reset_done low while it is held and
//                    reset_done_clocks clk cycles after its release (from power-on for a DUT
//                    that never holds it). A reset after power-on stops the DUT's PHY as a
//                    real transceiver's: PhyRdy reads low at once (until the PHY model's next
//                    change), the receiver hears nothing (rx idle until the device's next
//                    COMWAKE), and link_drop() asks the PHY model to take the link down on
//                    both sides; only the DUT's next COMRESET brings it back.
//   sideband         phy_sb_status driven with the profile's value; changes of phy_sb_ctrl
//                    are reported (the shell traces them).
//
// Rules checked (each reported once per occurrence; rule names as in the trace):
//   oob_not_idle       COMRESET or COMWAKE requested with the transmitter not in electrical idle
//   idle_while_ready   transmit electrical idle held more than kIdleGrace clk cycles into PhyRdy
//                      (cycles with COMRESET, COMWAKE, offline or PHY reset requested do not count)
//   data_in_elecidle   a frame dword (SOF to EOF) sent while in transmit electrical idle
//   comreset_in_reset  COMRESET requested while the PHY is in reset (phy_reset_done low)
//   data_in_reset      a frame dword sent while the PHY is in reset
//   rate_invalid       a rate request other than 1, 2 or 3
//   rate_change_pending a new rate requested before the previous change was acknowledged
//   rate_mismatch      a frame started (SOF) while PhyRdy at a rate other than the link's
//                      negotiated one, or before its change was acknowledged
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace satasim::harness::rtl {

class PhyPins {
  public:
    static constexpr unsigned kIdleGrace = 16; // clk cycles a DUT may take to leave idle at PhyRdy

    struct Config {
        unsigned groups = 0;            // SATASIM_DUT_PHY_* bits (dut_abi.h)
        unsigned sideband_width = 0;    // 0: no sideband
        unsigned rate_ack_clocks = 64;  // PHY transmit clocks
        unsigned reset_done_clocks = 256; // clk cycles
        uint32_t sideband_status = 0;
        // Dwords of transmit electrical idle under PhyRdy after which the device's PHY has
        // lost the signal: longer than an OOB signal's longest gap, 525 ns (the shell
        // converts it at its dword clock: 79 at 150 MHz).
        unsigned squelch_dwords = 79;
    };
    // The DUT's outputs as sampled at a step.
    struct Out {
        bool tx_elecidle = false, reset = false, comreset = false, comwake = false, offline = false;
        uint8_t rate = 0;
        uint32_t sb_ctrl = 0;
        // Requests under which transmit electrical idle is the DUT's due: OOB (COMRESET,
        // COMWAKE), offline, PHY reset (the link goes down with them).
        bool idle_due() const { return comreset || comwake || offline || reset; }
    };
    using Report = std::function<void(const char *rule, const std::string &msg)>;
    using SidebandChange = std::function<void(uint32_t ctrl)>;

    PhyPins(const Config &cfg, Report report, SidebandChange sideband);

    bool any() const { return cfg_.groups != 0 || cfg_.sideband_width != 0; }
    bool has(unsigned group) const { return (cfg_.groups & group) != 0; }

    // The shell's PHY model: the device started / stopped transmitting, its COMWAKE was
    // recognised, PhyRdy changed.
    void device_transmitting(bool on) { dev_tx_ = on; }
    void comwake_detected();
    void phy_changed() { lost_ = false; }

    // Values for the DUT's inputs at this step.
    bool rx_elecidle() const { return !dev_tx_ || !reset_done_; }
    bool comwake_det() const { return comwake_pulse_; }
    bool rate_ack() const { return ack_pulse_; }
    bool reset_done() const { return reset_done_; }
    uint32_t sb_status() const { return cfg_.sideband_status; }
    // PhyRdy as the DUT sees it: the PHY model's, unless the DUT reset its PHY under it.
    bool phy_ready(bool model_ready) const { return model_ready && !lost_; }
    // Once per event that must take the PHY model's link down (a PHY reset after power-on,
    // transmit electrical idle under PhyRdy for squelch_dwords):
    // its reason for the trace, else null.
    const char *link_drop() {
        const char *w = drop_;
        drop_ = nullptr;
        return w;
    }

    // After each step's outputs are sampled: a core (clk) edge, a PHY transmit clock edge,
    // a dword of the DUT's transmitter (frame: SOF through EOF; sof: the SOF itself).
    // rst: the shell's power-on reset (no checks). ready / gen: PhyRdy and the negotiated
    // Gen as the DUT sees them.
    void core_edge(const Out &o, bool rst, bool ready);
    void phy_tx_edge();
    void tx_dword(const Out &o, bool frame, bool sof, bool ready, uint8_t gen);
    // The same dword as the device's receiver hears it (link_up: the PHY model's PhyRdy):
    // false while the DUT's transmitter is squelched (above); counts toward the loss.
    bool carried(const Out &o, bool link_up);

    // Nothing counting (the shell may stop its clock).
    bool idle() const {
        return !comwake_pulse_ && !ack_pulse_ && rate_wait_ == 0 && (reset_done_ || reset_held_) && !drop_;
    }
    uint64_t violations() const { return violations_; }

  private:
    void violation(const char *rule, const std::string &msg);
    // A condition reported once while it lasts: true when it starts.
    static bool starts(bool now, bool &was) {
        const bool s = now && !was;
        was = now;
        return s;
    }

    Config cfg_;
    Report report_;
    SidebandChange sideband_;
    bool dev_tx_ = false, lost_ = false;
    const char *drop_ = nullptr; // link_drop()'s pending reason
    bool comwake_pulse_ = false, ack_pulse_ = false;
    uint8_t rate_req_ = 0, rate_cur_ = 0; // last requested / last acknowledged
    unsigned rate_wait_ = 0;              // PHY clocks until the pending change is acknowledged
    bool reset_held_ = false, reset_done_ = false;
    unsigned reset_wait_;
    unsigned ready_cycles_ = 0;
    unsigned squelch_ = 0; // dwords in a row the device heard nothing
    uint32_t sb_seen_ = 0;
    bool oob_busy_ = false, idle_ready_ = false, idle_data_ = false, reset_oob_ = false, reset_data_ = false;
    uint64_t violations_ = 0;
};

} // namespace satasim::harness::rtl
