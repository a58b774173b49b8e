// SataLink: OOB/negotiation, SStatus, frame timing, arbitration, flow control, R_ERR.
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
    std::string who;
    bool ready = true;
    bool accept = true;
    int ups = 0, downs = 0, oobs = 0;
    Gen last_gen = Gen::None;
    struct Rx {
        sata::Fis fis;
        sc_time at;
    };
    std::vector<Rx> rx;
    explicit Endpoint(std::string w) : who(std::move(w)) {}
    bool receive_fis(const sata::Fis &f) override {
        if (!accept)
            return false;
        rx.push_back({f, sc_core::sc_time_stamp()});
        return true;
    }
    bool ready_to_receive() const override { return ready; }
    void phy_changed(bool up, Gen g) override {
        (up ? ups : downs)++;
        last_gen = g;
    }
    void oob_reset() override { ++oobs; }
    void clear() {
        rx.clear();
        ups = downs = oobs = 0;
    }
};

struct Bench {
    Endpoint host{"host"}, dev{"dev"};
    SataLink link;
    Bench(const char *name, SataLink::Config cfg) : link(name, cfg) { link.attach(&host, &dev); }
};

Bench *b3, *b_host2, *b_dev1;

// Brings a link up with a COMRESET pulse (1 ms held, as AHCI drivers do); returns the
// time from release to PhyRdy.
sc_time link_up(Bench &b, Gen limit = Gen::None) {
    b.link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false, limit);
    sc_time t0 = sc_core::sc_time_stamp();
    for (int i = 0; i < 100 && !b.link.phy_ready(); ++i)
        sc_core::wait(10, SC_US);
    return sc_core::sc_time_stamp() - t0;
}

sata::Fis data_fis(size_t payload_bytes, uint8_t seed) {
    std::vector<uint8_t> p(payload_bytes);
    for (size_t i = 0; i < p.size(); ++i)
        p[i] = uint8_t(seed + i);
    return sata::make_data(p.data(), p.size());
}

} // namespace

MODEL_TEST(power_on_link_down_until_comreset) {
    EXPECT_EQ(b3->link.det(), 1);    // device present, no PHY communication
    EXPECT_EQ(b3->link.sstatus(), 1u);
    EXPECT_TRUE(!b3->link.phy_ready());
    sc_core::wait(5, SC_MS);         // nothing happens on its own
    EXPECT_EQ(b3->link.det(), 1);
    EXPECT_EQ(b3->host.ups, 0);
    EXPECT_EQ(b3->link.send_from_host(data_fis(8, 0)), FrameStatus::NoLink);
    EXPECT_EQ(b3->link.send_from_device(data_fis(8, 0)), FrameStatus::NoLink);
}

MODEL_TEST(comreset_held_then_negotiates_gen3) {
    b3->link.host_comreset(true);
    EXPECT_EQ(b3->link.det(), 1);
    EXPECT_EQ(b3->dev.oobs, 1);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b3->link.det(), 1); // held: stays down
    b3->link.host_comreset(false);
    sc_time t0 = sc_core::sc_time_stamp();
    while (!b3->link.phy_ready())
        sc_core::wait(b3->host.ups ? sc_time(0, SC_NS) : sc_time(100, SC_NS));
    sc_time took = sc_core::sc_time_stamp() - t0;
    // COMRESET + COMINIT (after the response time) + 2 COMWAKE + lock; no failed step.
    sc_time expect = SataLink::comreset_time() * 2.0 + sc_time(20, SC_US) +
                     SataLink::comwake_time() * 2.0 + dword_period(Gen::Gen3) * 256.0;
    EXPECT_TRUE(took >= expect && took <= expect + sc_time(100, SC_NS));
    EXPECT_EQ(b3->link.det(), 3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
    EXPECT_EQ(int(b3->link.gen()), int(Gen::Gen3));
    EXPECT_EQ(b3->host.ups, 1);
    EXPECT_EQ(b3->dev.ups, 1);
    EXPECT_EQ(int(b3->dev.last_gen), 3);
}

MODEL_TEST(frame_timing_each_gen) {
    // 2048 payload dwords + header at Gen3: about 2049 x 6.667 ns plus a little overhead.
    sata::Fis f = data_fis(8192, 1);
    EXPECT_EQ(f.dwords(), 2049u);
    sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_EQ(b3->link.send_from_host(f), FrameStatus::Ok);
    sc_time took = sc_core::sc_time_stamp() - t0;
    EXPECT_TRUE(took == SataLink::frame_time(Gen::Gen3, 2049));
    EXPECT_TRUE(took >= sc_time(2049 * 6.667, SC_NS));
    EXPECT_TRUE(took <= sc_time((2049 + 40) * 6.667, SC_NS));
    EXPECT_EQ(b3->dev.rx.size(), 1u);
    EXPECT_TRUE(b3->dev.rx.at(0).fis.bytes == f.bytes);
    EXPECT_TRUE(b3->dev.rx.at(0).at == sc_core::sc_time_stamp());
    // Dword periods and scaling between generations.
    EXPECT_EQ(dword_period(Gen::Gen1).value(), sc_time(26667, sc_core::SC_PS).value());
    EXPECT_EQ(dword_period(Gen::Gen2).value(), sc_time(13333, sc_core::SC_PS).value());
    EXPECT_EQ(dword_period(Gen::Gen3).value(), sc_time(6667, sc_core::SC_PS).value());
    double r1 = SataLink::frame_time(Gen::Gen1, 2049) / SataLink::frame_time(Gen::Gen3, 2049);
    EXPECT_TRUE(r1 > 3.999 && r1 < 4.001);
    // A register FIS: 5 dwords + 13 overhead + one ALIGN pair = 20 dwords.
    EXPECT_EQ(SataLink::frame_dwords(5), 20u);
    t0 = sc_core::sc_time_stamp();
    EXPECT_EQ(b3->link.send_from_device(sata::make_reg_d2h(0x50, 0, 0, 0, 0, true)),
              FrameStatus::Ok);
    EXPECT_EQ((sc_core::sc_time_stamp() - t0).value(), sc_time(20 * 40 / 6.0, SC_NS).value());
}

MODEL_TEST(negotiation_picks_min_of_host_device_limit) {
    sc_time t3 = link_up(*b3, Gen::Gen2);
    EXPECT_EQ(b3->link.sstatus(), 0x123u);
    sc_time t2 = link_up(*b3, Gen::Gen1);
    EXPECT_EQ(b3->link.sstatus(), 0x113u);
    // Each speed the device tries above the result costs one 54.6 us ALIGN attempt.
    EXPECT_TRUE(t2 > t3 + sc_time(54, SC_US));
    link_up(*b3, Gen::Gen3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);

    link_up(*b_host2);
    EXPECT_EQ(b_host2->link.sstatus(), 0x123u);
    EXPECT_EQ(int(b_host2->host.last_gen), 2);
    link_up(*b_dev1, Gen::Gen3);
    EXPECT_EQ(b_dev1->link.sstatus(), 0x113u);
}

MODEL_TEST(comreset_while_up_drops_link) {
    link_up(*b3);
    b3->host.clear();
    b3->dev.clear();
    b3->link.host_comreset(true);
    EXPECT_EQ(b3->link.det(), 1);
    EXPECT_EQ(b3->link.sstatus(), 1u);
    EXPECT_EQ(b3->host.downs, 1);
    EXPECT_EQ(b3->dev.oobs, 1);
    EXPECT_EQ(b3->link.send_from_host(data_fis(4, 0)), FrameStatus::NoLink);
    b3->link.host_comreset(false);
    sc_core::wait(200, SC_US);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
}

MODEL_TEST(device_wins_collision) {
    link_up(*b3);
    b3->host.clear();
    b3->dev.clear();
    // Both sides raise X_RDY in the same delta, while the wire is busy with a third frame.
    FrameStatus hs = FrameStatus::NoLink, ds = FrameStatus::NoLink;
    sc_time h_done, d_done;
    sc_core::sc_spawn([&] { b3->link.send_from_host(data_fis(64, 0)); });
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::sc_spawn([&] { hs = b3->link.send_from_host(data_fis(16, 1)); h_done = sc_core::sc_time_stamp(); });
    sc_core::sc_spawn([&] { ds = b3->link.send_from_device(data_fis(16, 2)); d_done = sc_core::sc_time_stamp(); });
    sc_core::wait(10, SC_US);
    EXPECT_EQ(hs, FrameStatus::Ok);
    EXPECT_EQ(ds, FrameStatus::Ok);
    EXPECT_TRUE(d_done < h_done);
    EXPECT_EQ(b3->host.rx.size(), 1u);
    EXPECT_EQ(b3->dev.rx.size(), 2u);
    // Host sent first and uncontested; then the device frame, then the held-off host frame.
    EXPECT_TRUE(b3->host.rx.at(0).at < b3->dev.rx.at(1).at);
    EXPECT_TRUE(h_done - d_done == SataLink::frame_time(Gen::Gen3, 5));
}

MODEL_TEST(receiver_not_ready_holds_sender) {
    link_up(*b3);
    b3->dev.clear();
    b3->dev.ready = false;
    FrameStatus st = FrameStatus::NoLink;
    bool done = false;
    sc_core::sc_spawn([&] { st = b3->link.send_from_host(data_fis(32, 3)); done = true; });
    sc_core::wait(50, SC_US);
    EXPECT_TRUE(!done);
    EXPECT_EQ(b3->dev.rx.size(), 0u);
    // The wire is not owned while waiting for R_RDY: the device may transmit meanwhile.
    EXPECT_EQ(b3->link.send_from_device(data_fis(4, 0)), FrameStatus::Ok);
    b3->dev.ready = true;
    b3->link.receiver_ready_changed();
    sc_time t0 = sc_core::sc_time_stamp();
    while (!done)
        sc_core::wait(10, SC_NS);
    EXPECT_EQ(st, FrameStatus::Ok);
    EXPECT_EQ(b3->dev.rx.size(), 1u);
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 <= SataLink::frame_time(Gen::Gen3, 9) + sc_time(10, SC_NS));
}

MODEL_TEST(receiver_rejects_gives_r_err) {
    b3->dev.accept = false;
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 3)), FrameStatus::Error);
    b3->dev.accept = true;
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 3)), FrameStatus::Ok);
}

MODEL_TEST(phy_loss_mid_frame_aborts) {
    link_up(*b3, Gen::Gen1);
    b3->dev.clear();
    FrameStatus st = FrameStatus::Ok;
    sc_core::sc_spawn([&] { st = b3->link.send_from_host(data_fis(8192, 0)); });
    sc_core::wait(20, SC_US); // the frame takes ~55 us at Gen1
    b3->link.host_comreset(true);
    sc_core::wait(100, SC_US);
    EXPECT_EQ(st, FrameStatus::Error);
    EXPECT_EQ(b3->dev.rx.size(), 0u);
    b3->link.host_comreset(false);
    sc_core::wait(200, SC_US);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
}

MODEL_TEST(hotplug_offline_and_reset) {
    b3->host.clear();
    b3->dev.clear();
    b3->link.set_device_present(false);
    EXPECT_EQ(b3->link.det(), 0);
    EXPECT_EQ(b3->link.sstatus(), 0u);
    EXPECT_EQ(b3->host.downs, 1);
    EXPECT_EQ(b3->dev.downs, 1);
    // COMRESET without a device: stays DET 0.
    link_up(*b3);
    EXPECT_EQ(b3->link.det(), 0);
    b3->link.set_device_present(true);
    EXPECT_EQ(b3->host.oobs, 0);
    sc_core::wait(10, SC_US);
    EXPECT_EQ(b3->host.oobs, 1); // COMINIT reached the host
    EXPECT_EQ(b3->link.det(), 1);
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
    b3->link.host_offline();
    EXPECT_EQ(b3->link.det(), 4);
    EXPECT_EQ(b3->link.sstatus(), 4u);
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
    b3->link.reset();
    EXPECT_EQ(b3->link.sstatus(), 1u);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b3->link.sstatus(), 1u);
}

int sc_main(int, char **) {
    Bench a("link_g3", {Gen::Gen3, Gen::Gen3, true});
    Bench h("link_host2", {Gen::Gen2, Gen::Gen3, true});
    Bench d("link_dev1", {Gen::Gen3, Gen::Gen1, true});
    b3 = &a;
    b_host2 = &h;
    b_dev1 = &d;
    return satasim::test::run_all();
}
