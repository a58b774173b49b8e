// SataLink's interface power management (SATA 3.x 8.4, docs/hardware.md 2.8): the
// PMREQ_P / PMREQ_S ... PMACK / PMNAK exchange from either side, SStatus.IPM, the wake-up
// (COMWAKE both ways, the PHY's restart, ALIGN lock at the kept speed) and its timing
// against the spec's exit latencies, a frame that wakes the link, a COMWAKE nobody answers,
// and a COMRESET out of Slumber. Runs at FIS and dword level (ctest runs it twice).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <string>
#include <vector>

#include "model/link/sata_link.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::link;
using sc_core::sc_time;
using sc_core::SC_NS;
using sc_core::SC_US;
using sc_core::SC_MS;

namespace {

struct Endpoint : LinkEndpoint {
    bool accept_pm = true;
    bool answer_comwake = true;
    int ups = 0, downs = 0, comwakes = 0;
    std::vector<PowerState> power;  // power_changed() calls
    std::vector<sc_time> rx_at;
    bool receive_fis(const sata::Fis &) override {
        rx_at.push_back(sc_core::sc_time_stamp());
        return true;
    }
    void phy_changed(bool up, Gen) override { (up ? ups : downs)++; }
    void oob_comwake() override { ++comwakes; }
    bool pm_accept(PowerState) override { return accept_pm; }
    void power_changed(PowerState s) override { power.push_back(s); }
    bool answers_comwake() override { return answer_comwake; }
    void clear() {
        ups = downs = comwakes = 0;
        power.clear();
        rx_at.clear();
        accept_pm = answer_comwake = true;
    }
};

struct Bench {
    Endpoint host, dev;
    SataLink link;
    Bench(const char *name, SataLink::Config cfg) : link(name, cfg) { link.attach(&host, &dev); }
};

Bench *g3, *g1;

void up(Bench &b) {
    b.link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false);
    sc_core::wait(1, SC_MS);
    b.host.clear();
    b.dev.clear();
}

sata::Fis reg_h2d() {
    sata::Fis f;
    f.bytes.assign(20, 0);
    f.bytes[0] = 0x27;
    f.bytes[1] = 0x80;
    f.bytes[2] = 0xEC;
    return f;
}

} // namespace

// The exchange costs 2 x 2 wire dwords + 4 PMACKs, then PhyRdy is off on both sides and
// SStatus reads DET 3, SPD kept, IPM 2 (Partial) / 6 (Slumber).
MODEL_TEST(host_request_acked_enters_the_state) {
    Bench &b = *g3;
    up(b);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(b.link.request_power(true, PowerState::Partial) == PmResult::Entered);
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 == dword_period(Gen::Gen3) * 8.0);
    EXPECT_EQ(b.link.sstatus(), 0x233u);
    EXPECT_TRUE(!b.link.phy_ready());
    EXPECT_TRUE(b.link.established());
    EXPECT_EQ(b.host.power.size(), 1u);
    EXPECT_EQ(b.dev.power.size(), 1u);
    EXPECT_TRUE(b.dev.power.at(0) == PowerState::Partial);
    EXPECT_EQ(b.dev.downs, 0); // PM is not a PhyRdy loss to the device's command layer
    // a second request while in the state is refused without an exchange
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::NoLink);
    EXPECT_TRUE(b.link.wake(true));
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::Entered);
    EXPECT_EQ(b.link.sstatus(), 0x633u);
    EXPECT_TRUE(b.link.wake(true));
}

MODEL_TEST(refused_request_stays_active) {
    Bench &b = *g3;
    up(b);
    b.dev.accept_pm = false;
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::Denied);
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 == dword_period(Gen::Gen3) * 8.0);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.link.phy_ready());
    EXPECT_EQ(b.host.power.size(), 0u);
    EXPECT_EQ(b.dev.power.size(), 0u);
}

// Device-initiated (DIPM): the host's endpoint answers; the device's own frame wakes the
// link (device-initiated wake-up), and the host's PHY sees its COMWAKE.
MODEL_TEST(device_request_and_device_wake) {
    Bench &b = *g3;
    up(b);
    b.host.accept_pm = false;
    EXPECT_TRUE(b.link.request_power(false, PowerState::Slumber) == PmResult::Denied);
    b.host.accept_pm = true;
    EXPECT_TRUE(b.link.request_power(false, PowerState::Slumber) == PmResult::Entered);
    EXPECT_EQ(b.link.sstatus(), 0x633u);
    sata::Fis d2h;
    d2h.bytes.assign(20, 0);
    d2h.bytes[0] = 0x34;
    d2h.bytes[2] = 0x50;
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(b.link.send_from_device(d2h) == FrameStatus::Ok);
    EXPECT_EQ(b.host.rx_at.size(), 1u);
    // woken before the frame started: the frame ends after the wake-up and its own time
    EXPECT_TRUE(b.host.rx_at.at(0) - t0 >= b.link.wake_time(PowerState::Slumber, Gen::Gen3) +
                                             SataLink::frame_time(Gen::Gen3, 5) - dword_period(Gen::Gen3) * 20.0);
    EXPECT_EQ(b.host.comwakes, 1);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.host.power.size() == 2 && b.host.power[1] == PowerState::Active);
}

// Wake-up timing: COMWAKE each way, the PHY's restart, 256 dwords of ALIGN lock, and within
// the spec's exit latencies (Partial 10 us, Slumber 10 ms) at every generation, Gen1 (the
// slowest lock) included. Measured on a real wake-up at Gen1 and Gen3.
MODEL_TEST(wake_up_timing_within_the_spec) {
    for (Bench *bp : {g1, g3}) {
        Bench &b = *bp;
        up(b);
        const Gen g = b.link.gen();
        for (PowerState s : {PowerState::Partial, PowerState::Slumber}) {
            const sc_time want = b.link.wake_time(s, g);
            const double restart_ns = s == PowerState::Partial ? 1000 : 200000;
            EXPECT_TRUE(want == SataLink::comwake_time() * 2.0 + sc_time(restart_ns, SC_NS) + dword_period(g) * 64.0);
            EXPECT_TRUE(b.link.request_power(true, s) == PmResult::Entered);
            sc_time t0 = sc_core::sc_time_stamp();
            EXPECT_TRUE(b.link.wake(true));
            EXPECT_TRUE(sc_core::sc_time_stamp() - t0 == want);
        }
    }
    for (Gen g : {Gen::Gen1, Gen::Gen2, Gen::Gen3}) {
        EXPECT_TRUE(g3->link.wake_time(PowerState::Partial, g) <= sc_time(SataLink::kPartialExitMaxUs, SC_US));
        EXPECT_TRUE(g3->link.wake_time(PowerState::Slumber, g) <= sc_time(SataLink::kSlumberExitMaxUs, SC_US));
    }
    // Gen1 Partial: 2 x 1280 ns COMWAKE + 1 us + 1706.7 ns ALIGN = 5.27 us; Gen3 Slumber:
    // 2560 ns + 200 us + 426.7 ns = 202.99 us
    EXPECT_TRUE(SataLink::comwake_time() == sc_time(1280, SC_NS));
    EXPECT_TRUE(g1->link.wake_time(PowerState::Partial, Gen::Gen1) > sc_time(5266, SC_NS));
    EXPECT_TRUE(g1->link.wake_time(PowerState::Partial, Gen::Gen1) < sc_time(5267, SC_NS));
    EXPECT_TRUE(g3->link.wake_time(PowerState::Slumber, Gen::Gen3) > sc_time(202986, SC_NS));
    EXPECT_TRUE(g3->link.wake_time(PowerState::Slumber, Gen::Gen3) < sc_time(202987, SC_NS));
}

// A host frame in Slumber wakes the link (L_NoCommPower -> L_WakeUp1) and goes out after it.
MODEL_TEST(host_frame_wakes_the_link) {
    Bench &b = *g3;
    up(b);
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::Entered);
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(b.link.send_from_host(reg_h2d()) == FrameStatus::Ok);
    EXPECT_EQ(b.dev.rx_at.size(), 1u);
    EXPECT_TRUE(b.dev.rx_at.at(0) - t0 >= b.link.wake_time(PowerState::Slumber, Gen::Gen3));
    EXPECT_EQ(b.link.sstatus(), 0x133u);
}

// The device never answers the host's COMWAKE (the wake_fail fault): after the spec's
// longest exit latency the host gives up, communication is lost (DET 1) until a COMRESET,
// which brings the link back Active.
MODEL_TEST(unanswered_comwake_loses_the_link_until_comreset) {
    Bench &b = *g3;
    up(b);
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::Entered);
    b.dev.answer_comwake = false;
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(b.link.send_from_host(reg_h2d()) == FrameStatus::NoLink);
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 == SataLink::comwake_time() + sc_time(10, SC_MS));
    EXPECT_EQ(b.link.det(), 1);
    EXPECT_EQ(b.dev.downs, 1);
    EXPECT_EQ(b.dev.rx_at.size(), 0u);
    b.link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.link.send_from_host(reg_h2d()) == FrameStatus::Ok);
}

// A COMRESET while in Slumber: the link renegotiates and comes back Active.
MODEL_TEST(comreset_in_slumber) {
    Bench &b = *g3;
    up(b);
    EXPECT_TRUE(b.link.request_power(true, PowerState::Slumber) == PmResult::Entered);
    b.link.host_comreset(true);
    EXPECT_EQ(b.link.det(), 1);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
    EXPECT_TRUE(b.link.power_state() == PowerState::Active);
}

// A request while the peer's frame waits for the wire: the peer's X_RDY wins (Busy).
MODEL_TEST(request_while_a_frame_waits_is_busy) {
    Bench &b = *g3;
    up(b);
    sata::Fis d2h;
    d2h.bytes.assign(20, 0);
    d2h.bytes[0] = 0x34;
    FrameStatus st = FrameStatus::Error;
    sc_core::sc_spawn([&] { st = b.link.send_from_device(d2h); });
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(b.link.request_power(true, PowerState::Partial) == PmResult::Busy);
    sc_core::wait(10, SC_US);
    EXPECT_TRUE(st == FrameStatus::Ok);
    EXPECT_EQ(b.link.sstatus(), 0x133u);
}

int sc_main(int, char **) {
    Bench a("link_pm_g3", {Gen::Gen3, Gen::Gen3, true});
    Bench c("link_pm_g1", {Gen::Gen3, Gen::Gen1, true});
    g3 = &a;
    g1 = &c;
    return satasim::test::run_all();
}
