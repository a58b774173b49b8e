// The DUT shell's port (backend/rtl/phy_port.cpp): the DUT's COMRESET and offline requests,
// sampled at its core clock edges, reach the SataLink when the shell services the port
// (once simulated time has caught up with a burst of cycles). A request that comes and
// goes between two services must not be lost: the power-on COMRESET of a DUT whose first
// MMIO accesses clock it through its release before the clock thread ever services the
// port is told as an assert and a release (issue 32, 5b: PxSSTS stayed 1).
#include <cstring>
#include <utility>
#include <vector>

#include "backend/rtl/phy_port.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::harness::rtl;
using sc_core::SC_MS;
using sc_core::SC_NS;
using sc_core::SC_US;

namespace {

// The device end of the link: counts COMRESETs (oob_reset) and PHY changes.
struct Device : link::LinkEndpoint {
    int oobs = 0, ups = 0, downs = 0;
    bool receive_fis(const sata::Fis &) override { return true; }
    void phy_changed(bool up, link::Gen) override { (up ? ups : downs)++; }
    void oob_reset() override { ++oobs; }
};

// One port of a shell: a 32-bit PHY, no PHY clocks, no optional pins, a Gen3 link.
struct Bench {
    Device dev;
    link::SataLink link;
    PhyPort port;
    satasim_dut_pins pins{};
    explicit Bench(const char *name)
        : link(name, {link::Gen::Gen3, link::Gen::Gen3, true, 20, link::SataLink::Mode::Dword}),
          port(0, 32, false, [] {}, PhyPins({}, [](const char *, const std::string &) {}, [](uint32_t) {})) {
        link.attach(&port, &dev);
        port.connect(&link);
    }
    // One core clock edge with the DUT driving COMRESET (and offline) as given.
    void edge(bool comreset, bool offline = false) {
        pins.phy_comreset[0] = comreset;
        pins.phy_offline[0] = offline;
        port.edge(pins, link::kEdgeCore);
    }
    // Waits for the link to come up (at most 2 ms of simulated time).
    bool up() {
        for (int i = 0; i < 200 && !link.phy_ready(); ++i)
            sc_core::wait(10, SC_US);
        return link.phy_ready();
    }
};

Bench *b_pulse, *b_held, *b_again;

// A port with signal-level OOB (phy.oob: signal) and the COMWAKE-detect pin, clocked cycle
// by cycle here as the shell does (one step: the core, transmit and receive edges).
struct SignalBench {
    Device dev;
    link::SataLink link;
    PhyPort port;
    satasim_dut_pins pins{};
    static PhyPins pins_cfg() {
        PhyPins::Config c;
        c.groups = SATASIM_DUT_PHY_ELECIDLE | SATASIM_DUT_PHY_COMWAKE_DET;
        return PhyPins(c, [](const char *, const std::string &) {}, [](uint32_t) {});
    }
    explicit SignalBench(const char *name)
        : link(name, {link::Gen::Gen2, link::Gen::Gen3, true, 20, link::SataLink::Mode::Dword}),
          port(0, 32, false, [] {}, pins_cfg(), PhyOobConfig{true, 150}) {
        link.attach(&port, &dev);
        port.connect(&link);
    }
    // One clk cycle with the DUT sending `tx` (K symbol in byte 0 when isk); true: the
    // port asked for a service.
    bool cycle(uint32_t tx, bool isk) {
        const unsigned e = link::kEdgeCore | link::kEdgePhyTx | link::kEdgePhyRx;
        port.drive(pins, e);
        pins.phy_tx_data[0] = tx;
        pins.phy_tx_isk[0] = isk ? 1 : 0;
        return port.edge(pins, e);
    }
};

SignalBench *b_signal;

} // namespace

// Asserted (during the DUT's reset) and released before the first service: both edges are
// told, the device sees the COMRESET and the link negotiates.
MODEL_TEST(comreset_pulse_between_services_reaches_the_link) {
    Bench &b = *b_pulse;
    EXPECT_EQ(b.link.det(), 1); // present, no PHY communication
    b.edge(true);
    b.edge(true);
    b.edge(false);
    b.port.service();
    EXPECT_EQ(b.dev.oobs, 1);
    EXPECT_TRUE(b.up());
    EXPECT_EQ(b.link.det(), 3);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    b.port.service(); // nothing new: told once
    EXPECT_EQ(b.dev.oobs, 1);
}

// Held across a service: the assert is told at that service, the release at the next one;
// the link stays down while it is held.
MODEL_TEST(comreset_held_across_services) {
    Bench &b = *b_held;
    b.edge(true);
    b.port.service();
    EXPECT_EQ(b.dev.oobs, 1);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b.link.det(), 1);
    EXPECT_EQ(b.dev.ups, 0);
    b.edge(false);
    b.port.service();
    EXPECT_TRUE(b.up());
    EXPECT_EQ(b.dev.oobs, 1);
}

// With the link up, a release and a new assert between two services (the DUT's next
// COMRESET, held on) is a new COMRESET: the link goes down and the device is reset again.
MODEL_TEST(comreset_again_between_services_resets_again) {
    Bench &b = *b_again;
    b.edge(true);
    b.edge(false);
    b.port.service();
    EXPECT_TRUE(b.up());
    const int downs = b.dev.downs;
    b.edge(true);
    b.edge(false);
    b.edge(true);
    b.port.service();
    EXPECT_EQ(b.dev.oobs, 2);
    EXPECT_TRUE(b.dev.downs > downs);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b.link.det(), 1); // held: stays down
    b.edge(false);
    b.port.service();
    EXPECT_TRUE(b.up());
    EXPECT_EQ(b.dev.oobs, 2);
}

// The signal-level OOB as a host that runs it itself sees it (docs/rtl-controller.md, OOB
// at the signal level): the COMINIT that answers its COMRESET comes as 6 bursts on the
// squelch detector, then one detection pulse; nothing more until its COMWAKE; the device's
// COMWAKE bursts and the detection; one unlockable Gen3 attempt (code errors), then ALIGNs
// at Gen2 while the host sends D10.2; SYNC and PhyRdy only after the host's ALIGN.
MODEL_TEST(signal_oob_as_a_strict_host_sees_it) {
    SignalBench &b = *b_signal;
    constexpr uint32_t kD102 = 0x4A4A4A4A;
    b.pins.phy_tx_elecidle[0] = 1;
    b.pins.phy_comreset[0] = 1;
    b.cycle(0, false);
    b.pins.phy_comreset[0] = 0;
    b.cycle(0, false);
    b.port.service();
    EXPECT_EQ(b.dev.oobs, 1);
    sc_core::wait(30, SC_US); // COMRESET recognised (2.56 us), the device's response (20 us)
    // the COMINIT bursts: count the squelch detector's low runs and the detection pulses
    int bursts = 0, cominits = 0, first_pulse = -1;
    bool idle_prev = true;
    for (int i = 0; i < 2000; ++i) {
        b.cycle(0, false);
        const bool idle = b.pins.phy_rx_elecidle[0];
        bursts += !idle && idle_prev;
        idle_prev = idle;
        if (b.pins.phy_cominit[0]) {
            ++cominits;
            if (first_pulse < 0)
                first_pulse = i;
        }
    }
    EXPECT_EQ(bursts, 6);
    EXPECT_EQ(cominits, 1);
    EXPECT_TRUE(first_pulse >= 6 * (16 + 48) - 2 && first_pulse <= 6 * (16 + 48) + 2);
    EXPECT_TRUE(b.port.idle()); // the device waits for the host's COMWAKE: the clock may stop
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b.link.det(), 1);
    // the host's COMWAKE (its rising edge), then the device's
    b.pins.phy_comwake[0] = 1;
    EXPECT_TRUE(b.cycle(0, false)); // asks for a service
    b.pins.phy_comwake[0] = 0;
    b.port.service();
    sc_core::wait(2, SC_US); // the device recognises it (1.28 us), then answers
    bursts = 0;
    int comwakes = 0, code_errs = 0, aligns_rx = 0, syncs_rx = 0;
    idle_prev = true;
    for (int i = 0; i < 6 * 32 + 8192 + 200; ++i) {
        b.cycle(kD102, false);
        comwakes += b.pins.phy_comwake_det[0];
        const bool idle = b.pins.phy_rx_elecidle[0];
        bursts += !idle && idle_prev && comwakes == 0; // the line stays on after the detection
        idle_prev = idle;
        code_errs += b.pins.phy_rx_codeerr[0] == 0xF;
        if (comwakes && b.pins.phy_rx_isk[0] && b.pins.phy_rx_data[0] == link::prim::kAlign)
            ++aligns_rx;
        syncs_rx += b.pins.phy_rx_isk[0] && b.pins.phy_rx_data[0] == link::prim::kSync;
    }
    EXPECT_EQ(bursts, 6);
    EXPECT_EQ(comwakes, 1);
    EXPECT_TRUE(code_errs >= 8190 && code_errs <= 8194); // one 54.6 us Gen3 attempt
    EXPECT_TRUE(aligns_rx > 100);                       // then ALIGNs at Gen2
    EXPECT_EQ(syncs_rx, 0);                             // no SYNC before the host's ALIGN
    EXPECT_EQ(b.pins.phy_ready[0], 0);
    EXPECT_EQ(b.link.det(), 1);
    // the host's ALIGN: the device answers SYNC, and PhyRdy at Gen2
    b.pins.phy_tx_elecidle[0] = 0;
    bool asked = false;
    for (int i = 0; i < 8 && !asked; ++i)
        asked = b.cycle(link::prim::kAlign, true);
    EXPECT_TRUE(asked);
    b.port.service();
    sc_core::wait(1, SC_NS);
    EXPECT_EQ(b.link.sstatus(), 0x123u);
    // The device's idle link after PhyRdy: SYNCs, then (primitive suppression) one CONT
    // after at least two of them, then scrambled junk; never a data dword before that CONT
    // (junk is only ever a CONT's continuation).
    std::vector<std::pair<uint32_t, bool>> seen;
    for (int i = 0; i < 16; ++i) {
        b.cycle(link::prim::kAlign, true);
        seen.emplace_back(b.pins.phy_rx_data[0], b.pins.phy_rx_isk[0] != 0);
    }
    size_t k = 0;
    while (k < seen.size() && seen[k].second && seen[k].first == link::prim::kAlign)
        ++k; // the negotiation's last ALIGNs
    int syncs = 0;
    for (; k < seen.size() && seen[k].second && seen[k].first == link::prim::kSync; ++k)
        ++syncs;
    EXPECT_TRUE(syncs >= 2);
    EXPECT_TRUE(k < seen.size() && seen[k].second && seen[k].first == link::prim::kCont);
    int junk = 0;
    for (++k; k < seen.size(); ++k)
        junk += !seen[k].second;
    EXPECT_TRUE(junk >= 8); // the rest of the 16 is the run's junk (no primitive changes)
    EXPECT_EQ(b.pins.phy_ready[0], 1);
    EXPECT_EQ(b.pins.phy_gen[0], 2);
}

int sc_main(int, char **) {
    Bench pulse("link_pulse"), held("link_held"), again("link_again");
    SignalBench signal("link_signal");
    b_pulse = &pulse;
    b_held = &held;
    b_again = &again;
    b_signal = &signal;
    return satasim::test::run_all();
}
