// Waveform probes of a SataLink (model/wave, model/link/link_wave.cpp) with a recording
// sink: one dword-level and one FIS-level link, each brought up and sent one frame each way.
// The ctest link-mode variants do not matter: both links set their mode explicitly.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "model/link/sata_link.h"
#include "model/tests/model_test.h"
#include "model/wave/wave_probe.h"

using namespace satasim;
using namespace satasim::link;
namespace pc = satasim::wave::prim_code;
using sc_core::SC_MS;

namespace {

struct Endpoint : LinkEndpoint {
    bool receive_fis(const sata::Fis &) override { return true; }
    void phy_changed(bool, Gen) override {}
};

// Records every declaration and change; selects everything but the `regs` group.
struct Recorder : wave::Sink {
    std::vector<wave::SignalDecl> decls;
    struct Change {
        uint64_t t, v;
        uint64_t at; // simulated time when reported
    };
    std::map<std::string, std::vector<Change>> changes; // by "scope.name"
    wave::SignalId declare(const wave::SignalDecl &d) override {
        if (d.group == wave::Group::Regs)
            return wave::kNoSignal;
        decls.push_back(d);
        return wave::SignalId(decls.size() - 1);
    }
    void change(wave::SignalId id, uint64_t t, uint64_t v) override {
        const wave::SignalDecl &d = decls.at(id);
        changes[d.scope + "." + d.name].push_back({t, v, wave::now()});
    }
    void retract_after(wave::SignalId id, uint64_t t) override {
        const wave::SignalDecl &d = decls.at(id);
        auto &cs = changes[d.scope + "." + d.name];
        cs.erase(std::remove_if(cs.begin(), cs.end(), [&](const Change &c) { return c.t > t; }), cs.end());
    }
    bool has(const std::string &n) const {
        for (const auto &d : decls)
            if (d.scope + "." + d.name == n)
                return true;
        return false;
    }
    // Time of the first change of n to v at or after t0, or ~0.
    uint64_t first(const std::string &n, uint64_t v, uint64_t t0 = 0) const {
        auto it = changes.find(n);
        if (it != changes.end())
            for (const Change &c : it->second)
                if (c.v == v && c.t >= t0)
                    return c.t;
        return ~uint64_t(0);
    }
};

struct Bench {
    Endpoint host, dev;
    SataLink link;
    Recorder rec;
    Bench(const char *name, SataLink::Mode mode) : link(name, cfg(mode)) {
        link.attach(&host, &dev);
        link.set_wave(&rec, name, 0);
    }
    static SataLink::Config cfg(SataLink::Mode m) {
        SataLink::Config c;
        c.mode = m;
        return c;
    }
    void up() {
        link.host_comreset(true);
        sc_core::wait(1, SC_MS);
        link.host_comreset(false);
        sc_core::wait(1, SC_MS);
    }
};

Bench *dw, *fl;

sata::Fis reg_h2d() {
    sata::Fis f;
    f.bytes.assign(20, 0);
    f.bytes[0] = 0x27;
    f.bytes[1] = 0x80;
    f.bytes[2] = 0xEC;
    return f;
}

sata::Fis reg_d2h() {
    sata::Fis f;
    f.bytes.assign(20, 0);
    f.bytes[0] = 0x34;
    f.bytes[2] = 0x50;
    return f;
}

// Changes of one signal never go back in time and are never behind the time reported.
bool monotonic(const Recorder &r) {
    for (const auto &[name, cs] : r.changes)
        for (size_t i = 0; i < cs.size(); ++i)
            if (cs[i].t < cs[i].at || (i && cs[i].t < cs[i - 1].t)) {
                std::printf("%s: change %zu at %llu after %llu (reported at %llu)\n", name.c_str(), i,
                            (unsigned long long)cs[i].t, i ? (unsigned long long)cs[i - 1].t : 0ull,
                            (unsigned long long)cs[i].at);
                return false;
            }
    return true;
}

} // namespace

MODEL_TEST(dword_link_declares_and_records_primitives) {
    Recorder &r = dw->rec;
    EXPECT_TRUE(r.has("wdw.phy_rdy") && r.has("wdw.gen") && r.has("wdw.h2d.prim") && r.has("wdw.d2h.prim"));
    EXPECT_TRUE(r.has("wdw.h2d.frame") && r.has("wdw.h2d.fis") && r.has("wdw.d2h.frame"));
    dw->up();
    EXPECT_TRUE(dw->link.phy_ready());
    EXPECT_EQ(r.changes["wdw.phy_rdy"].size(), 1u);
    EXPECT_EQ(r.changes["wdw.gen"].back().v, 3u);
    const uint64_t t0 = wave::now();
    EXPECT_EQ(dw->link.send_from_host(reg_h2d()), FrameStatus::Ok);
    const uint64_t t_x = r.first("wdw.h2d.prim", pc::kXRdy, t0);
    const uint64_t t_r = r.first("wdw.d2h.prim", pc::kRRdy, t0);
    const uint64_t t_sof = r.first("wdw.h2d.prim", pc::kSof, t0);
    const uint64_t t_data = r.first("wdw.h2d.prim", pc::kData, t0);
    const uint64_t t_eof = r.first("wdw.h2d.prim", pc::kEof, t0);
    const uint64_t t_ok = r.first("wdw.d2h.prim", pc::kROk, t0);
    EXPECT_TRUE(t0 <= t_x && t_x < t_r && t_r < t_sof && t_sof < t_data && t_data < t_eof && t_eof < t_ok);
    EXPECT_TRUE(t_ok <= wave::now()); // the burst's time has passed by the time send returns
    EXPECT_EQ(r.first("wdw.h2d.frame", 1, t0), t_sof);
    EXPECT_EQ(r.first("wdw.h2d.frame", 0, t0), t_eof);
    EXPECT_EQ(r.first("wdw.h2d.fis", 0x27, t0), t_sof);
    // one dword = 6.667 ns at Gen3: SOF, 5 FIS dwords, CRC, then EOF
    EXPECT_TRUE(t_eof - t_sof >= 6 * 6666 && t_eof - t_sof <= 8 * 6667);
    const uint64_t t1 = wave::now();
    EXPECT_EQ(dw->link.send_from_device(reg_d2h()), FrameStatus::Ok);
    EXPECT_TRUE(r.first("wdw.d2h.fis", 0x34, t1) < r.first("wdw.d2h.frame", 0, t1));
    EXPECT_TRUE(monotonic(r));
    dw->link.host_comreset(true); // link down: nothing sent any more
    EXPECT_EQ(r.changes["wdw.phy_rdy"].back().v, 0u);
    EXPECT_EQ(r.changes["wdw.h2d.prim"].back().v, uint64_t(pc::kNone));
}

MODEL_TEST(phy_drop_mid_frame_cuts_what_the_burst_reported_ahead) {
    // The dword link ticks a whole frame before it lets time pass; when the PHY goes down
    // mid-frame the rest never went out, and the waveform must not show it.
    Recorder &r = dw->rec;
    dw->up();
    sata::Fis data;
    data.bytes.assign(4 + 8192, 0x5A); // Data FIS, 2048 payload dwords: about 13.7 us at Gen3
    data.bytes[0] = 0x46;
    data.bytes[1] = data.bytes[2] = data.bytes[3] = 0;
    FrameStatus st = FrameStatus::Ok;
    bool done = false;
    const uint64_t t0 = wave::now();
    sc_core::sc_spawn([&] {
        st = dw->link.send_from_host(data);
        done = true;
    });
    sc_core::wait(3, sc_core::SC_US);
    EXPECT_TRUE(r.first("wdw.h2d.prim", pc::kEof, t0) > wave::now()); // reported ahead
    const uint64_t t_drop = wave::now();
    dw->link.host_comreset(true);
    sc_core::wait(50, sc_core::SC_US);
    EXPECT_TRUE(done && st != FrameStatus::Ok);
    for (const char *n : {"wdw.h2d.prim", "wdw.d2h.prim", "wdw.h2d.frame", "wdw.h2d.fis"}) {
        const auto &cs = r.changes[n];
        EXPECT_TRUE(!cs.empty() && cs.back().t == t_drop && cs.back().v == 0);
    }
    EXPECT_EQ(r.first("wdw.h2d.prim", pc::kEof, t0), ~uint64_t(0)); // the EOF never went out
    EXPECT_EQ(r.first("wdw.h2d.prim", pc::kSof, t0) < t_drop, true);
    EXPECT_TRUE(monotonic(r));
}

MODEL_TEST(fis_link_has_frames_but_no_primitives) {
    Recorder &r = fl->rec;
    EXPECT_TRUE(!r.has("wfl.h2d.prim") && !r.has("wfl.d2h.prim"));
    EXPECT_TRUE(r.has("wfl.h2d.frame") && r.has("wfl.d2h.fis"));
    fl->up();
    const uint64_t t0 = wave::now();
    EXPECT_EQ(fl->link.send_from_host(reg_h2d()), FrameStatus::Ok);
    const uint64_t sof = r.first("wfl.h2d.frame", 1, t0), eof = r.first("wfl.h2d.frame", 0, t0);
    EXPECT_TRUE(t0 < sof && sof < eof && eof <= wave::now());
    EXPECT_EQ(r.first("wfl.h2d.fis", 0x27, t0), sof);
    EXPECT_TRUE(monotonic(r));
}

MODEL_TEST(detached_link_reports_nothing) {
    // A link without set_wave (the default) runs as before; a sink that selects nothing
    // leaves every probe detached.
    struct None : wave::Sink {
        int calls = 0;
        wave::SignalId declare(const wave::SignalDecl &) override { return wave::kNoSignal; }
        void change(wave::SignalId, uint64_t, uint64_t) override { ++calls; }
        void retract_after(wave::SignalId, uint64_t) override { ++calls; }
    } none;
    fl->link.set_wave(&none, "wfl", 0);
    EXPECT_EQ(fl->link.send_from_host(reg_h2d()), FrameStatus::Ok);
    EXPECT_EQ(none.calls, 0);
    fl->link.set_wave(nullptr, "wfl", 0);
    EXPECT_EQ(fl->link.send_from_host(reg_h2d()), FrameStatus::Ok);
}

int sc_main(int, char **) {
    Bench a("wdw", SataLink::Mode::Dword);
    Bench b("wfl", SataLink::Mode::Fis);
    dw = &a;
    fl = &b;
    return satasim::test::run_all();
}
