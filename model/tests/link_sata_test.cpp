// SataLink: OOB/negotiation, SStatus, frame timing, arbitration, flow control, R_ERR,
// fault hooks. Runs in the link mode SATASIM_LINK_MODE selects (ctest runs it twice: FIS
// level and dword level); timing checks allow the dword level's real handshake cycles.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <string>
#include <vector>

#include "model/link/link_rtl.h"
#include "model/link/phy_lane.h"
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
    // signal-level OOB (an external host's): the device's COMWAKE and ALIGN phase
    int comwakes = 0, aligns = 0;
    Gen align_gen = Gen::None;
    unsigned align_failed = 0;
    void oob_comwake() override { ++comwakes; }
    void oob_align(Gen common, unsigned failed) override {
        ++aligns;
        align_gen = common;
        align_failed = failed;
    }
    std::vector<LinkError> errors;
    void receive_error(LinkError e) override { errors.push_back(e); }
    void clear() {
        rx.clear();
        errors.clear();
        ups = downs = oobs = 0;
    }
};

struct Bench {
    Endpoint host{"host"}, dev{"dev"};
    SataLink link;
    Bench(const char *name, SataLink::Config cfg) : link(name, cfg) { link.attach(&host, &dev); }
};

Bench *b3, *b_host2, *b_dev1, *b_sig;

// An external host that runs OOB at the signal level (the RTL shell's phy.oob: signal).
struct SignalHost : ExternalHostWire {
    FrameStatus send_from_device(const sata::Fis &, bool, const SataLink::DwordFault &) override {
        return FrameStatus::NoLink;
    }
    void phy_reset() override {}
    void receiver_ready_changed() override {}
    bool signal_oob() const override { return true; }
};

bool dword_mode() { return b3->link.mode() == SataLink::Mode::Dword; }

// The wire time of a frame: exact in FIS mode; at dword level the RTL's handshake takes
// its real cycles (measured: FIS dwords + 19 + the ALIGN pairs that fall into the burst,
// the FIS-level formula is FIS dwords + 13 + 2 per started 256), so allow 0..+8 dwords.
bool frame_took(sc_time took, Gen g, size_t fis_dwords) {
    sc_time want = SataLink::frame_time(g, fis_dwords);
    if (!dword_mode())
        return took == want;
    bool ok = took >= want && took <= want + dword_period(g) * 8.0;
    if (!ok)
        std::printf("frame of %zu dwords took %s, FIS level %s\n", fis_dwords,
                    took.to_string().c_str(), want.to_string().c_str());
    return ok;
}

// Brings a link up with a COMRESET pulse (1 ms held, as AHCI drivers do); returns the
// time from release to PhyRdy.
sc_time link_up(Bench &b, Gen limit = Gen::None, sc_time step = sc_time(10, SC_US)) {
    b.link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false, limit);
    sc_time t0 = sc_core::sc_time_stamp();
    for (int i = 0; sc_core::sc_time_stamp() - t0 < sc_time(1, SC_MS) && !b.link.phy_ready(); ++i)
        sc_core::wait(step);
    return sc_core::sc_time_stamp() - t0;
}

// Link up, and what both endpoints saw so far forgotten: where most cases start.
void up_and_cleared(Bench &b) {
    link_up(b);
    b.host.clear();
    b.dev.clear();
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
    EXPECT_TRUE(frame_took(took, Gen::Gen3, 2049));
    EXPECT_TRUE(took >= sc_time(2049 * 6.667, SC_NS));
    EXPECT_TRUE(took <= sc_time((2049 + 40) * 6.667, SC_NS));
    EXPECT_EQ(b3->dev.rx.size(), 1u);
    EXPECT_TRUE(b3->dev.rx.at(0).fis.bytes == f.bytes);
    // FIS level delivers at the frame's end; dword level at the receiver's EOF, before
    // the R_OK / SYNC tail.
    EXPECT_TRUE(b3->dev.rx.at(0).at <= sc_core::sc_time_stamp());
    EXPECT_TRUE(b3->dev.rx.at(0).at + dword_period(Gen::Gen3) * 12.0 >= sc_core::sc_time_stamp());
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
    EXPECT_TRUE(frame_took(sc_core::sc_time_stamp() - t0, Gen::Gen3, 5));
    if (!dword_mode())
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
    up_and_cleared(*b3);
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

// The host's PHY lost its signal (the RTL shell: a PHY reset under PhyRdy): both sides see
// the link down, the device gets no COMRESET, and only the host's next COMRESET brings the
// link back.
MODEL_TEST(host_signal_lost_until_comreset) {
    up_and_cleared(*b3);
    b3->link.host_signal_lost("host PHY reset");
    EXPECT_EQ(b3->link.det(), 1);
    EXPECT_EQ(b3->host.downs, 1);
    EXPECT_EQ(b3->dev.downs, 1);
    EXPECT_EQ(b3->dev.oobs, 0);
    EXPECT_EQ(b3->link.send_from_host(data_fis(4, 0)), FrameStatus::NoLink);
    sc_core::wait(2, SC_MS);
    EXPECT_EQ(b3->link.sstatus(), 1u); // no recovery of its own
    EXPECT_EQ(b3->host.ups + b3->dev.ups, 0);
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
}

MODEL_TEST(device_wins_collision) {
    up_and_cleared(*b3);
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
    EXPECT_TRUE(frame_took(h_done - d_done, Gen::Gen3, 5));
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
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 <= SataLink::frame_time(Gen::Gen3, 9) + sc_time(70, SC_NS));
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

// SStatus.DET 1 is the host PHY's presence detection, a COMINIT it recognised since it last
// released a COMRESET (SATA 3.x 8.4 host PHY state machine, HR_AwaitCOMINIT; AHCI 1.3.1
// 3.3.10 PxSSTS.DET 1h "device presence detected but Phy communication not established").
// A drive whose PHY is silent answers no COMRESET: 0 (libata prints "SATA link down
// (SStatus 0 ...)" for such a flap, dmesg corpus 30 and 42), then 1 from its COMINIT when
// its PHY comes back. An empty connector's COMINIT bursts read 1 until the next COMRESET.
MODEL_TEST(det_1_is_the_host_phys_presence_detection) {
    up_and_cleared(*b3);
    b3->link.phy_glitch(sc_time(5, SC_MS));
    EXPECT_EQ(b3->link.det(), 1); // no COMRESET yet: the last detection holds
    b3->link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b3->link.host_comreset(false);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b3->link.sstatus(), 0u); // the silent drive sent no COMINIT
    sc_core::wait(4, SC_MS);            // the signal is back at 5 ms: COMINIT, negotiation
    EXPECT_EQ(b3->link.sstatus(), 0x133u);

    b3->link.set_device_present(false);
    EXPECT_EQ(b3->link.det(), 0);
    LinkEndpoint::Noise n;
    n.cominit = true;
    b3->link.line_noise(n); // a connector's bounce: a COMINIT burst with no drive behind it
    EXPECT_EQ(b3->link.sstatus(), 1u);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(b3->link.sstatus(), 1u); // held until the host's next COMRESET
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0u); // nobody answered it
    b3->link.set_device_present(true);
    EXPECT_EQ(b3->link.det(), 0); // plugged, its COMINIT not there yet
    sc_core::wait(10, SC_US);
    EXPECT_EQ(b3->link.det(), 1);
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
}

MODEL_TEST(receive_errors_reported_in_both_modes) {
    up_and_cleared(*b3);
    // Receiver refuses: R_ERR, reported to the transmitter.
    b3->dev.accept = false;
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 3)), FrameStatus::Error);
    b3->dev.accept = true;
    EXPECT_EQ(b3->host.errors.size(), 1u);
    EXPECT_TRUE(b3->host.errors.at(0) == LinkError::TxRErr);
    EXPECT_TRUE(b3->dev.errors.empty());
    // A flipped data dword of the 2nd Data FIS H2D: bad CRC at the device, R_ERR.
    b3->host.clear();
    SataLink::DwordFault f;
    f.from_host = true;
    f.type = sata::FisType::Data;
    f.nth = 2;
    f.dword = 3;
    f.xor_mask = 0x80000001;
    b3->link.inject_dword_fault(f);
    EXPECT_EQ(b3->link.send_from_host(sata::make_reg_d2h(0x50, 0, 0, 0, 0, false)),
              FrameStatus::Ok); // another type: not counted
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 1)), FrameStatus::Ok);
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 2)), FrameStatus::Error);
    EXPECT_EQ(b3->link.send_from_host(data_fis(32, 3)), FrameStatus::Ok);
    EXPECT_EQ(b3->dev.rx.size(), 3u); // the corrupted frame was not delivered
    EXPECT_EQ(b3->dev.errors.size(), 1u);
    EXPECT_TRUE(!b3->dev.errors.empty() && b3->dev.errors.at(0) == LinkError::RxCrc);
    EXPECT_EQ(b3->host.errors.size(), 1u);
    EXPECT_TRUE(!b3->host.errors.empty() && b3->host.errors.at(0) == LinkError::TxRErr);
    // The CRC dword itself, device to host.
    b3->host.clear();
    b3->dev.clear();
    f.from_host = false;
    f.type = sata::FisType::RegD2H;
    f.nth = 1;
    f.dword = 5;
    b3->link.inject_dword_fault(f);
    EXPECT_EQ(b3->link.send_from_device(sata::make_reg_d2h(0x50, 0, 0, 0, 0, true)),
              FrameStatus::Error);
    EXPECT_TRUE(b3->host.errors.size() == 1 && b3->host.errors.at(0) == LinkError::RxCrc);
    EXPECT_TRUE(b3->dev.errors.size() == 1 && b3->dev.errors.at(0) == LinkError::TxRErr);
    EXPECT_EQ(b3->host.rx.size(), 0u);
}

// A crc fault with `symbol`: the receiver's decoder flags the corrupted dword (RxDecode for a
// code error, RxDisparity for a disparity error) before the frame's bad CRC, in both modes;
// without `symbol` only the CRC is reported (as above). Transmitter: R_ERR as before.
MODEL_TEST(symbol_errors_reported_before_the_crc) {
    up_and_cleared(*b3);
    const struct {
        SymbolError symbol;
        bool from_host;
        LinkError want;
    } cases[] = {{SymbolError::Code, false, LinkError::RxDecode},
                 {SymbolError::Disparity, false, LinkError::RxDisparity},
                 {SymbolError::Code, true, LinkError::RxDecode},
                 {SymbolError::None, false, LinkError::RxCrc}};
    for (const auto &c : cases) {
        b3->host.clear();
        b3->dev.clear();
        SataLink::DwordFault f = SataLink::DwordFault::data_fis(c.from_host, 2, 0x00010000);
        f.symbol = c.symbol;
        b3->link.inject_dword_fault(f);
        const sata::Fis fis = data_fis(64, 7);
        EXPECT_EQ(c.from_host ? b3->link.send_from_host(fis) : b3->link.send_from_device(fis), FrameStatus::Error);
        Endpoint &rx = c.from_host ? b3->dev : b3->host;
        Endpoint &tx = c.from_host ? b3->host : b3->dev;
        const std::vector<LinkError> want =
            c.symbol == SymbolError::None ? std::vector<LinkError>{LinkError::RxCrc}
                                          : std::vector<LinkError>{c.want, LinkError::RxCrc};
        EXPECT_TRUE(rx.errors == want);
        EXPECT_TRUE(tx.errors.size() == 1 && tx.errors.at(0) == LinkError::TxRErr);
        EXPECT_EQ(rx.rx.size(), 0u);
        // The decoder's flags are told once: the next frame is clean.
        EXPECT_EQ(c.from_host ? b3->link.send_from_host(fis) : b3->link.send_from_device(fis), FrameStatus::Ok);
        EXPECT_EQ(rx.errors.size(), want.size());
    }
    // The SError bits (SATA SCR): DIAG.B / DIAG.D with ERR.T; neither loses a frame alone.
    EXPECT_EQ(serror_bits(LinkError::RxDecode), (1u << 19) | (1u << 8));
    EXPECT_EQ(serror_bits(LinkError::RxDisparity), (1u << 20) | (1u << 8));
    EXPECT_TRUE(symbol_error(LinkError::RxDisparity) && symbol_error(LinkError::RxDecode) &&
                !symbol_error(LinkError::RxCrc));
}

// The external cable (a controller's RTL, backend rtl): the flip's decoder flags, one bit per
// byte the mask touches, are taken once for the dword it hit; a 16-bit PHY word carries the
// flags of its own two bytes.
MODEL_TEST(symbol_flags_per_byte_on_the_external_cable) {
    if (!dword_mode())
        return; // the external cable is dword level
    SataLink::DwordFault f = SataLink::DwordFault::data_fis(false, 1, 0xFF000100);
    f.symbol = SymbolError::Disparity;
    b3->link.arm_external_flip(false, f);
    LinkRtlPair::WireHook *hook = b3->link.external_wire_hook();
    EXPECT_TRUE(hook != nullptr);
    if (!hook)
        return;
    uint32_t d = prim::kSof;
    bool k = true;
    hook->on_dword(false, d, k);
    d = 0x46, k = false; // the Data FIS header: dword 0, not hit
    hook->on_dword(false, d, k);
    EXPECT_TRUE(!b3->link.take_symbol_flags(false).any());
    d = 0x11223344;
    hook->on_dword(false, d, k);
    EXPECT_EQ(d, 0x11223344u ^ 0xFF000100u);
    const SataLink::SymbolFlags got = b3->link.take_symbol_flags(false);
    EXPECT_EQ(got.disparity, 0x0Au); // bytes 1 and 3
    EXPECT_EQ(got.code, 0u);
    EXPECT_TRUE(!b3->link.take_symbol_flags(false).any()); // taken once
    EXPECT_TRUE(!b3->link.take_symbol_flags(true).any());  // the other direction untouched

    LaneDword hit{d, false, 0x0A, 0x04};
    WordGearbox w16(16), w32(32);
    w32.load(hit);
    const PhyWord whole = w32.next_word();
    EXPECT_TRUE(whole.data == d && whole.isk == 0 && whole.code_err == 0x0A && whole.disp_err == 0x04);
    w16.reset();
    (void)w16.next_word(); // the high half of the ALIGN a PHY starts with
    w16.load(hit);
    const PhyWord lo = w16.next_word(), hi = w16.next_word();
    EXPECT_TRUE(lo.data == (d & 0xFFFFu) && lo.code_err == 0x2 && lo.disp_err == 0x0);
    EXPECT_TRUE(hi.data == (d >> 16) && hi.code_err == 0x2 && hi.disp_err == 0x1);
}

MODEL_TEST(primitive_faults_at_dword_level) {
    if (!dword_mode())
        return; // FIS level has no primitives
    up_and_cleared(*b3);
    SataLink::PrimitiveFault p;
    p.from_host = false;
    p.primitive = prim::kROk;
    p.replacement = prim::kRErr;
    b3->link.inject_primitive_fault(p);
    EXPECT_EQ(b3->link.send_from_host(data_fis(16, 1)), FrameStatus::Error);
    EXPECT_EQ(b3->dev.rx.size(), 1u); // the device took it; only the answer was hit
    EXPECT_TRUE(b3->host.errors.size() == 1 && b3->host.errors.at(0) == LinkError::TxRErr);
    // A SOF replaced by an invalid K word: the device misses the frame, the host's frame is
    // aborted (SYNC escape), both sides report it.
    b3->host.clear();
    b3->dev.clear();
    p.from_host = true;
    p.primitive = prim::kSof;
    p.replacement = 0x0102037C;
    b3->link.inject_primitive_fault(p);
    EXPECT_EQ(b3->link.send_from_host(data_fis(16, 1)), FrameStatus::Error);
    EXPECT_EQ(b3->dev.rx.size(), 0u);
    bool seq = false, dec = false, abort = false;
    for (auto e : b3->dev.errors) {
        seq |= e == LinkError::RxSequence;
        dec |= e == LinkError::RxDecode;
    }
    for (auto e : b3->host.errors)
        abort |= e == LinkError::TxAborted;
    EXPECT_TRUE(seq && dec && abort);
    // and the link is fine afterwards
    EXPECT_EQ(b3->link.send_from_host(data_fis(16, 2)), FrameStatus::Ok);
    EXPECT_EQ(b3->dev.rx.size(), 1u);
}

MODEL_TEST(idle_costs_no_cycles) {
    link_up(*b3);
    uint64_t c0 = b3->link.dword_cycles();
    sc_core::wait(50, SC_MS); // idle: nothing ticked
    EXPECT_EQ(b3->link.dword_cycles(), c0);
    EXPECT_EQ(b3->link.send_from_device(data_fis(400, 1)), FrameStatus::Ok);
    if (dword_mode()) {
        uint64_t n = b3->link.dword_cycles() - c0;
        EXPECT_TRUE(n >= 101 + 13 && n <= 101 + 13 + 12);
    } else {
        EXPECT_EQ(b3->link.dword_cycles(), 0u);
    }
}

namespace {
// With OOB fault `o` armed on b3, one link-up attempt fails (no device) and the next works.
void expect_one_failed_link_up(const SataLink::OobFault &o) {
    b3->link.inject_oob_fault(o);
    link_up(*b3);
    EXPECT_EQ(b3->link.det(), 0); // the host PHY never saw the device's COMINIT: no presence
    link_up(*b3);
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
}
} // namespace

MODEL_TEST(oob_faults_drop_and_stretch) {
    // A dropped COMINIT: no link; the next COMRESET works.
    SataLink::OobFault o;
    o.signal = SataLink::OobSignal::ComInit;
    o.drop = true;
    expect_one_failed_link_up(o);
    // A COMWAKE gap stretched inside the window (+40 ns -> 147 ns): recognised, slower.
    sc_time t_norm = link_up(*b3, Gen::None, sc_time(20, SC_NS));
    o.signal = SataLink::OobSignal::ComWake;
    o.drop = false;
    o.gap_stretch = sc_time(40, SC_NS);
    o.count = 2; // host's and device's COMWAKE
    b3->link.inject_oob_fault(o);
    sc_time t_slow = link_up(*b3, Gen::None, sc_time(20, SC_NS));
    EXPECT_EQ(b3->link.sstatus(), 0x133u);
    EXPECT_TRUE(t_slow > t_norm);
    // Stretched out of the window (+100 ns -> 207 ns > 175 ns): not recognised.
    o.gap_stretch = sc_time(100, SC_NS);
    o.count = 1;
    b3->link.inject_oob_fault(o);
    link_up(*b3);
    EXPECT_EQ(b3->link.det(), 1);
    // A dropped COMRESET, then recovery.
    o.signal = SataLink::OobSignal::ComReset;
    o.drop = true;
    expect_one_failed_link_up(o);
}

// Signal-level OOB (docs/rtl-controller.md, "OOB at the signal level"): the COMINIT that
// answers the host's COMRESET reaches the host; the device waits for the host's COMWAKE
// before its own, then for the host's ALIGN before PhyRdy, however long; a host that does
// not answer the ALIGNs fails the negotiation; steps nobody waits for are ignored.
MODEL_TEST(signal_oob_waits_for_the_hosts_steps) {
    Bench &b = *b_sig; // host Gen2, device Gen3: one attempt at Gen3 fails first
    b.link.host_comreset(true);
    sc_core::wait(10, SC_US);
    b.link.host_comwake(); // nobody waits for it yet: ignored
    b.link.host_comreset(false);
    sc_core::wait(100, SC_US);
    EXPECT_EQ(b.host.oobs, 1); // the device's COMINIT, answering the COMRESET
    EXPECT_EQ(b.host.comwakes, 0);
    sc_core::wait(2, SC_MS);
    EXPECT_EQ(b.host.comwakes, 0); // no COMWAKE of the device before the host's
    EXPECT_EQ(b.link.det(), 1);
    b.link.host_aligned(); // not awaited yet: ignored
    b.link.host_comwake();
    sc_core::wait(1, SC_US);
    EXPECT_EQ(b.host.comwakes, 0); // the device recognises the host's COMWAKE first (1.28 us)
    sc_core::wait(10, SC_US);
    EXPECT_EQ(b.host.comwakes, 1);
    EXPECT_EQ(b.host.aligns, 1);
    EXPECT_TRUE(b.host.align_gen == Gen::Gen2);
    EXPECT_EQ(b.host.align_failed, 1u);
    sc_core::wait(2, SC_MS);
    EXPECT_EQ(b.link.det(), 1); // no PhyRdy before the host's ALIGN
    EXPECT_EQ(b.host.ups, 0);
    b.link.host_aligned();
    sc_core::wait(1, SC_NS);
    EXPECT_EQ(b.link.sstatus(), 0x123u);
    EXPECT_EQ(b.host.ups, 1);
    EXPECT_EQ(b.dev.ups, 1);
    // again, and the host lets the device's ALIGN attempt time out
    b.host.clear();
    b.link.host_comreset(true);
    sc_core::wait(10, SC_US);
    b.link.host_comreset(false);
    sc_core::wait(100, SC_US);
    b.link.host_comwake();
    sc_core::wait(20, SC_US);
    EXPECT_EQ(b.host.aligns, 2);
    b.link.host_align_timeout();
    sc_core::wait(1, SC_MS);
    b.link.host_aligned(); // too late: nobody waits
    sc_core::wait(1, SC_US);
    EXPECT_EQ(b.link.det(), 1);
    EXPECT_EQ(b.host.ups, 0);
}

int sc_main(int, char **) {
    Bench a("link_g3", {Gen::Gen3, Gen::Gen3, true});
    Bench h("link_host2", {Gen::Gen2, Gen::Gen3, true});
    Bench d("link_dev1", {Gen::Gen3, Gen::Gen1, true});
    Bench sig("link_sig", {Gen::Gen2, Gen::Gen3, true});
    SignalHost sig_host;
    sig.link.attach_external_host(&sig_host);
    b3 = &a;
    b_host2 = &h;
    b_dev1 = &d;
    b_sig = &sig;
    return satasim::test::run_all();
}
