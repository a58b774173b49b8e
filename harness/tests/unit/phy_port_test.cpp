// The DUT shell's port (backend/rtl/phy_port.cpp): the DUT's COMRESET and offline requests,
// sampled at its core clock edges, reach the SataLink when the shell services the port
// (once simulated time has caught up with a burst of cycles). A request that comes and
// goes between two services must not be lost: the power-on COMRESET of a DUT whose first
// MMIO accesses clock it through its release before the clock thread ever services the
// port is told as an assert and a release (issue 32, 5b: PxSSTS stayed 1).
#include <cstring>

#include "backend/rtl/phy_port.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::harness::rtl;
using sc_core::SC_MS;
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

int sc_main(int, char **) {
    Bench pulse("link_pulse"), held("link_held"), again("link_again");
    b_pulse = &pulse;
    b_held = &held;
    b_again = &again;
    return satasim::test::run_all();
}
