// The optional PHY pins of one DUT port (phy_pins.h).
#include "backend/rtl/phy_pins.h"

#include "backend/rtl/dut_abi.h"

namespace satasim::harness::rtl {

PhyPins::PhyPins(const Config &cfg, Report report, SidebandChange sideband)
    : cfg_(cfg), report_(std::move(report)), sideband_(std::move(sideband)), reset_wait_(cfg.reset_done_clocks) {}

void PhyPins::violation(const char *rule, const std::string &msg) {
    ++violations_;
    if (report_)
        report_(rule, msg);
}

void PhyPins::comwake_detected() {
    comwake_pulse_ = true;
    dev_tx_ = true; // after its COMWAKE the device transmits (ALIGNs at its speeds, then the link)
}

void PhyPins::core_edge(const Out &o, bool rst, bool ready) {
    comwake_pulse_ = false; // one-cycle pulses: seen at this edge
    ack_pulse_ = false;
    const bool done_seen = reset_done_; // as the DUT saw it at this edge
    // PHY reset: done reset_done_clocks clk cycles after the release.
    if (has(SATASIM_DUT_PHY_RESET)) {
        if (o.reset && !rst && !reset_held_) {
            // The DUT resets its PHY after power-on: PhyRdy is gone at once, the receiver
            // hears nothing, and the PHY model takes the link down on both sides (the
            // device loses the host's signal; a negotiation under way is abandoned).
            lost_ = ready;
            dev_tx_ = false;
            drop_ = "host PHY reset";
        }
        reset_held_ = o.reset;
        if (o.reset) {
            reset_done_ = false;
            reset_wait_ = cfg_.reset_done_clocks;
        } else if (!reset_done_ && --reset_wait_ == 0) {
            reset_done_ = true;
        }
    } else {
        reset_done_ = true;
    }
    if (o.comreset || o.offline)
        dev_tx_ = false; // the device answers COMRESET with its own reset; offline: no receiver
    if (rst)
        return; // the DUT's outputs are its reset values: nothing to check yet
    if (has(SATASIM_DUT_PHY_ELECIDLE)) {
        if (starts((o.comreset || o.comwake) && !o.tx_elecidle, oob_busy_))
            violation("oob_not_idle", std::string(o.comreset ? "COMRESET" : "COMWAKE") +
                                          " requested with the transmitter out of electrical idle (phy_tx_elecidle "
                                          "low): OOB bursts are sent from electrical idle");
        // Idle is the DUT's right during its OOB requests, offline and PHY reset: the link
        // goes down with them (the PHY model hears of them after the current burst).
        ready_cycles_ = ready && !o.idle_due() ? ready_cycles_ + 1 : 0;
        if (starts(ready_cycles_ > kIdleGrace && o.tx_elecidle, idle_ready_))
            violation("idle_while_ready", "the transmitter is in electrical idle (phy_tx_elecidle) " +
                                              std::to_string(kIdleGrace) +
                                              " cycles into PhyRdy: the device loses its receive signal");
    }
    if (has(SATASIM_DUT_PHY_RESET) && starts(o.comreset && (o.reset || !done_seen), reset_oob_))
        violation("comreset_in_reset",
                  "COMRESET requested while the PHY is in reset (phy_reset high or phy_reset_done low)");
    if (has(SATASIM_DUT_PHY_RATE) && o.rate != rate_req_) {
        if (o.rate < 1 || o.rate > 3)
            violation("rate_invalid", "rate request " + std::to_string(o.rate) + " (Gen1..3 are 1..3)");
        if (rate_wait_ > 0)
            violation("rate_change_pending", "rate request changed to " + std::to_string(o.rate) + " from " +
                                                 std::to_string(rate_req_) +
                                                 " before the PHY acknowledged the previous change (phy_rate_ack)");
        rate_req_ = o.rate;
        rate_wait_ = cfg_.rate_ack_clocks;
    }
    if (cfg_.sideband_width && o.sb_ctrl != sb_seen_) {
        sb_seen_ = o.sb_ctrl;
        if (sideband_)
            sideband_(o.sb_ctrl);
    }
}

void PhyPins::phy_tx_edge() {
    if (rate_wait_ > 0 && --rate_wait_ == 0) {
        rate_cur_ = rate_req_;
        ack_pulse_ = true;
    }
}

void PhyPins::tx_dword(const Out &o, bool frame, bool sof, bool ready, uint8_t gen) {
    if (has(SATASIM_DUT_PHY_ELECIDLE) && starts(frame && o.tx_elecidle, idle_data_))
        violation("data_in_elecidle", "a frame sent while the transmitter is in electrical idle (phy_tx_elecidle): "
                                      "the device receives nothing");
    if (has(SATASIM_DUT_PHY_RESET) && starts(frame && (o.reset || !reset_done_), reset_data_))
        violation("data_in_reset", "a frame sent while the PHY is in reset (phy_reset / phy_reset_done)");
    if (has(SATASIM_DUT_PHY_RATE) && sof && ready && (rate_wait_ > 0 || rate_cur_ != gen))
        violation("rate_mismatch", "a frame started at rate " + std::to_string(rate_wait_ > 0 ? rate_req_ : rate_cur_) +
                                       (rate_wait_ > 0 ? " (not yet acknowledged)" : "") + " on a Gen" +
                                       std::to_string(gen) + " link");
}

bool PhyPins::carried(const Out &o, bool link_up) {
    if (!has(SATASIM_DUT_PHY_ELECIDLE) || !link_up || !o.tx_elecidle || o.idle_due()) {
        squelch_ = 0;
        return true;
    }
    if (++squelch_ == cfg_.squelch_dwords)
        drop_ = "host transmitter in electrical idle";
    return false;
}

} // namespace satasim::harness::rtl
