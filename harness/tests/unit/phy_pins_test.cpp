// Unit tests of the DUT shell's optional PHY pins (harness/src/backend/rtl/phy_pins.h):
// what the shell's PHY drives on them and every protocol rule it checks, stepped here the
// way PhyPort steps them (one core edge and one PHY transmit edge per clk cycle, a DUT
// without PHY clocks); and the shell's PHY clocks with a receive clock per port and SSC
// (model/link/phy_lane.h, PhyClocks). Prints each failure and exits non-zero on one.
#include <cstdio>
#include <string>
#include <vector>

#include "backend/rtl/dut_abi.h"
#include "backend/rtl/phy_pins.h"
#include "model/link/phy_lane.h"
#include "model/tests/plain_check.h"

using satasim::harness::rtl::PhyPins;

namespace {


constexpr unsigned kAll = SATASIM_DUT_PHY_ELECIDLE | SATASIM_DUT_PHY_COMWAKE_DET | SATASIM_DUT_PHY_RATE |
                          SATASIM_DUT_PHY_RESET;

struct Bench {
    std::vector<std::string> rules;
    std::vector<uint32_t> sideband;
    PhyPins pins;
    explicit Bench(unsigned groups, unsigned sbw = 0, unsigned ack = 4, unsigned done = 3)
        : pins(PhyPins::Config{groups, sbw, ack, done, 0x5A}, [this](const char *r, const std::string &) { rules.push_back(r); },
               [this](uint32_t v) { sideband.push_back(v); }) {}
    // One clk cycle: the core edge, then the PHY transmit edge (PhyPort::edge's order).
    void cycle(const PhyPins::Out &o, bool ready = false, bool rst = false) {
        pins.core_edge(o, rst, pins.phy_ready(ready));
        pins.phy_tx_edge();
    }
    size_t count(const char *rule) const {
        size_t n = 0;
        for (const std::string &r : rules)
            n += r == rule;
        return n;
    }
};

// The PHY's reset: done reset_done_clocks cycles after the release, low while held; a
// COMRESET or a frame before it is a violation (once per occurrence).
void reset_and_done() {
    Bench b(SATASIM_DUT_PHY_RESET, 0, 4, 3);
    PhyPins::Out o;
    o.reset = true;
    for (int i = 0; i < 5; ++i)
        b.cycle(o, false, i < 2);
    CHECK(!b.pins.reset_done());
    o.reset = false;
    b.cycle(o);
    b.cycle(o);
    CHECK(!b.pins.reset_done());
    CHECK(!b.pins.idle()); // counting: the shell must keep its clock running
    o.comreset = true;     // COMRESET before reset done
    b.cycle(o);
    CHECK(b.pins.reset_done());
    CHECK(b.count("comreset_in_reset") == 1);
    b.cycle(o);
    CHECK(b.count("comreset_in_reset") == 1); // reported once while it lasts
    b.pins.tx_dword(o, true, true, false, 0);
    CHECK(b.count("data_in_reset") == 0);
    o.reset = true;
    b.cycle(o);
    CHECK(b.count("comreset_in_reset") == 2);
    b.pins.tx_dword(o, true, true, false, 0);
    CHECK(b.count("data_in_reset") == 1);
    CHECK(b.rules.size() == 3);
}

// A PHY reset under a live link, as a transceiver's: PhyRdy reads low at once, the receiver
// hears nothing until the device's next COMWAKE (not merely until reset done), and the PHY
// model is asked once to take the link down on both sides. The power-on reset asks nothing.
void reset_loses_the_link() {
    Bench b(SATASIM_DUT_PHY_RESET | SATASIM_DUT_PHY_ELECIDLE, 0, 4, 2);
    PhyPins::Out o;
    o.reset = true;
    b.cycle(o, false, true); // held through the shell's power-on reset: no drop
    b.cycle(o, false, true);
    o.reset = false;
    for (int i = 0; i < 3; ++i)
        b.cycle(o);
    CHECK(b.pins.link_drop() == nullptr);
    b.pins.comwake_detected();
    for (int i = 0; i < 3; ++i)
        b.cycle(o, true);
    CHECK(b.pins.phy_ready(true) && !b.pins.rx_elecidle());
    o.reset = true;
    b.cycle(o, true);
    CHECK(!b.pins.phy_ready(true) && b.pins.rx_elecidle());
    CHECK(!b.pins.idle()); // the drop is pending: the shell must hand it on
    const char *why = b.pins.link_drop();
    CHECK(why != nullptr && std::string(why) == "host PHY reset");
    CHECK(b.pins.link_drop() == nullptr); // once
    b.cycle(o, true);
    CHECK(b.pins.link_drop() == nullptr); // held: still the same reset
    o.reset = false;
    for (int i = 0; i < 4; ++i)
        b.cycle(o, true);
    CHECK(b.pins.reset_done() && !b.pins.phy_ready(true));
    CHECK(b.pins.rx_elecidle()); // the device stopped with the link
    b.pins.phy_changed();
    CHECK(b.pins.phy_ready(true));
    b.pins.comwake_detected(); // the DUT's COMRESET brought the device back
    CHECK(!b.pins.rx_elecidle());
    CHECK(b.rules.empty());
}

// Rate: acknowledged after rate_ack_clocks PHY clocks, one core edge long; a change before
// the acknowledge, a rate outside 1..3 and a frame at a rate other than the link's are
// violations.
void rate_request_and_ack() {
    Bench b(SATASIM_DUT_PHY_RATE, 0, 4);
    PhyPins::Out o;
    o.rate = 3;
    b.cycle(o, false, true); // during the shell's reset: not a request yet
    CHECK(b.pins.idle());
    unsigned acks = 0, cycles = 0;
    for (; cycles < 10; ++cycles) {
        acks += b.pins.rate_ack(); // as driven at the next step's core edge
        b.cycle(o);
    }
    CHECK(acks == 1);
    CHECK(b.rules.empty());
    // PhyRdy at Gen2 with the transceiver at Gen3: a frame is a mismatch
    b.pins.tx_dword(o, true, true, true, 2);
    CHECK(b.count("rate_mismatch") == 1);
    o.rate = 2;
    b.cycle(o, true);
    b.pins.tx_dword(o, true, true, true, 2); // not yet acknowledged
    CHECK(b.count("rate_mismatch") == 2);
    o.rate = 1; // changed again before the acknowledge
    b.cycle(o, true);
    CHECK(b.count("rate_change_pending") == 1);
    for (int i = 0; i < 6; ++i)
        b.cycle(o, true);
    b.pins.tx_dword(o, true, true, true, 1);
    b.pins.tx_dword(o, true, false, true, 1);
    CHECK(b.count("rate_mismatch") == 2);
    o.rate = 0;
    b.cycle(o, true);
    CHECK(b.count("rate_invalid") == 1);
    CHECK(b.rules.size() == 4);
}

// Electrical idle: the receive side follows the wire, the transmit side is checked.
void electrical_idle() {
    Bench b(SATASIM_DUT_PHY_ELECIDLE | SATASIM_DUT_PHY_COMWAKE_DET);
    PhyPins::Out o;
    o.tx_elecidle = true;
    b.cycle(o);
    CHECK(b.pins.rx_elecidle()); // no device transmitting yet
    b.pins.comwake_detected();
    CHECK(b.pins.comwake_det() && !b.pins.rx_elecidle());
    b.cycle(o);
    CHECK(!b.pins.comwake_det()); // one core edge long
    o.comreset = true;            // COMRESET from idle: fine; the device stops transmitting
    b.cycle(o);
    CHECK(b.pins.rx_elecidle());
    CHECK(b.rules.empty());
    o.tx_elecidle = false; // COMRESET out of idle
    b.cycle(o);
    CHECK(b.count("oob_not_idle") == 1);
    o.comreset = false;
    o.tx_elecidle = true; // idle under PhyRdy: allowed for kIdleGrace cycles
    for (unsigned i = 0; i < PhyPins::kIdleGrace; ++i)
        b.cycle(o, true);
    CHECK(b.count("idle_while_ready") == 0);
    b.cycle(o, true);
    b.cycle(o, true);
    CHECK(b.count("idle_while_ready") == 1);
    o.comreset = true; // a COMRESET under PhyRdy: idle is its due (the link goes down with it)
    for (unsigned i = 0; i < 2 * PhyPins::kIdleGrace; ++i)
        b.cycle(o, true);
    CHECK(b.count("idle_while_ready") == 1);
    o.comreset = false;
    b.pins.tx_dword(o, false, false, true, 3); // an ALIGN / SYNC in idle: no frame
    CHECK(b.count("data_in_elecidle") == 0);
    b.pins.tx_dword(o, true, true, true, 3);
    b.pins.tx_dword(o, true, false, true, 3);
    CHECK(b.count("data_in_elecidle") == 1); // once per frame
    b.pins.device_transmitting(true);
    CHECK(!b.pins.rx_elecidle());
    b.pins.device_transmitting(false);
    CHECK(b.pins.rx_elecidle());
    CHECK(b.rules.size() == 3);
}

// Transmit electrical idle under PhyRdy: the device hears none of the DUT's dwords, and
// after squelch_dwords in a row it has lost the signal (one request to take the link down).
// Dwords in OOB, offline or PHY reset, with no link, or from an active transmitter are carried.
void squelch() {
    PhyPins::Config cfg{SATASIM_DUT_PHY_ELECIDLE, 0, 4, 3, 0};
    cfg.squelch_dwords = 5;
    std::vector<std::string> rules;
    PhyPins pins(cfg, [&](const char *r, const std::string &) { rules.push_back(r); }, nullptr);
    PhyPins::Out o;
    o.tx_elecidle = true;
    CHECK(pins.carried(o, false)); // no link: OOB is the PHY model's
    o.tx_elecidle = false;
    CHECK(pins.carried(o, true));
    o.tx_elecidle = true;
    for (int i = 0; i < 4; ++i)
        CHECK(!pins.carried(o, true));
    CHECK(pins.link_drop() == nullptr);
    o.tx_elecidle = false; // the transmitter back in time: the count starts again
    CHECK(pins.carried(o, true));
    o.tx_elecidle = true;
    for (int i = 0; i < 4; ++i)
        CHECK(!pins.carried(o, true));
    CHECK(pins.link_drop() == nullptr);
    CHECK(!pins.carried(o, true)); // the fifth in a row
    CHECK(!pins.idle());
    const char *why = pins.link_drop();
    CHECK(why != nullptr && std::string(why) == "host transmitter in electrical idle");
    for (int i = 0; i < 10; ++i)
        CHECK(!pins.carried(o, true));
    CHECK(pins.link_drop() == nullptr); // once per silence
    o.comreset = true; // idle is the DUT's due in OOB, offline and PHY reset
    CHECK(pins.carried(o, true));
    o.comreset = false;
    o.offline = true;
    CHECK(pins.carried(o, true));
    o.offline = false;
    o.reset = true;
    CHECK(pins.carried(o, true));
    PhyPins none(PhyPins::Config{SATASIM_DUT_PHY_RESET, 0, 4, 3, 0}, nullptr, nullptr);
    o.reset = false;
    for (int i = 0; i < 10; ++i)
        CHECK(none.carried(o, true)); // no elecidle pins: every dword carried
    CHECK(none.link_drop() == nullptr);
    CHECK(rules.empty()); // carried() reports no rule (tx_dword and core_edge do)
}

// The sideband: the status vector is the configured value, each control change reported.
void sideband() {
    Bench b(0, 8);
    CHECK(b.pins.any() && b.pins.sb_status() == 0x5A);
    PhyPins::Out o;
    o.sb_ctrl = 0x11;
    b.cycle(o, false, true); // reset values are not reported
    b.cycle(o);
    b.cycle(o);
    o.sb_ctrl = 0x22;
    b.cycle(o);
    CHECK(b.sideband == (std::vector<uint32_t>{0x11, 0x22}));
    CHECK(b.rules.empty());
}

// A top without the pins: nothing is checked, the status reads as a plain PHY's.
void no_pins() {
    Bench b(0, 0);
    CHECK(!b.pins.any());
    PhyPins::Out o;
    o.comreset = true;
    o.rate = 0;
    b.cycle(o, true);
    b.pins.tx_dword(o, true, true, true, 3);
    CHECK(b.rules.empty() && b.pins.reset_done() && b.pins.phy_ready(true));
    Bench all(kAll, 0, 4, 3);
    CHECK(all.pins.any() && all.pins.has(SATASIM_DUT_PHY_RATE));
}

// Receive clocks: one per port with its own offset, SSC stretching each; one offset for
// every port keeps the single shared clock's edges.
void receive_clocks() {
    using satasim::link::kEdgeCore;
    using satasim::link::kEdgePhyRx;
    using satasim::link::PhyClocks;
    using satasim::link::SscSpec;
    PhyClocks one(32, 350), each(32, std::vector<int>{350, 350}, SscSpec{});
    for (int i = 0; i < 5000; ++i) {
        const unsigned a = one.next(), b = each.next();
        CHECK(a == b);
        CHECK((a & kEdgePhyRx ? 3u : 0u) == (each.rx_edges() & 3u));
        CHECK(one.rx_edges() == (a & kEdgePhyRx ? 0xFFu : 0u));
    }
    // 0 and +1000 ppm; port 1 spread 5000 ppm over 1000-word periods (its phase half a period on)
    PhyClocks two(32, std::vector<int>{0, 1000}, SscSpec{});
    PhyClocks ssc(32, std::vector<int>{0, 0}, SscSpec{5000, 1000});
    uint64_t rx[2] = {0, 0}, srx[2] = {0, 0};
    auto count = [](PhyClocks &c, uint64_t *edges) {
        for (uint64_t core = 0; core < 100000;) {
            core += (c.next() & kEdgeCore) != 0;
            for (unsigned n = 0; n < 2; ++n)
                edges[n] += (c.rx_edges() >> n) & 1u;
        }
    };
    count(two, rx);
    count(ssc, srx);
    CHECK(rx[0] == 100000 || rx[0] == 99999);
    CHECK(rx[1] >= 100099 && rx[1] <= 100101); // +1000 ppm: 100 more
    // SSC: 2500 ppm fewer on average, whole periods (100 of them): 250 fewer
    for (unsigned n = 0; n < 2; ++n)
        CHECK(srx[n] >= 99748 && srx[n] <= 99752);
    // The reference clock: 100 MHz under a 150 MHz core (32-bit words, PLL x60 to 6000 Mbps)
    // rises every 1.5 core cycles; at 150 MHz (x40) with every transmit edge.
    for (unsigned n : {60u, 40u}) {
        PhyClocks c(32, 0);
        c.set_refclk(32, n);
        uint64_t ref = 0, together = 0, tx = 0;
        for (uint64_t core = 0; core < 100000;) {
            const unsigned e = c.next();
            core += (e & kEdgeCore) != 0;
            tx += (e & satasim::link::kEdgePhyTx) != 0;
            ref += (e & satasim::link::kEdgePhyRef) != 0;
            together += (e & satasim::link::kEdgePhyRef) && (e & satasim::link::kEdgePhyTx);
        }
        CHECK(ref == (n == 60 ? 66667u : 100000u));
        CHECK(together == (n == 60 ? 33334u : 100000u)); // phase-locked: every other / every one on a transmit edge
        CHECK(tx == 100000);
    }
    std::printf("  receive clocks: %llu / %llu edges at 0 / +1000 ppm, %llu / %llu with SSC, per 100000 core\n",
                (unsigned long long)rx[0], (unsigned long long)rx[1], (unsigned long long)srx[0],
                (unsigned long long)srx[1]);
}

} // namespace

int main() {
    const PlainCase cases[] = {{"reset_and_done", reset_and_done},
                               {"reset_loses_the_link", reset_loses_the_link},
                               {"rate_request_and_ack", rate_request_and_ack},
                               {"electrical_idle", electrical_idle},
                               {"squelch", squelch},
                               {"sideband", sideband},
                               {"no_pins", no_pins},
                               {"receive_clocks", receive_clocks}};
    return run_plain_cases(cases);
}
