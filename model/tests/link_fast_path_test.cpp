// The dword level's frame fast path (model/link/link_fast_path.h) against ticking every
// frame: three SataLinks at dword level, fast path on, off and in lockstep, carry the same
// 700 frames (both directions, lengths across the ALIGN period, random payloads, some
// refused by the receiver); every frame must end at the same simulated time, with the same
// status, and arrive with the same dwords, and the lockstep link must compare every frame
// it could replay without a difference.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "model/link/link_rtl.h"
#include "model/link/sata_link.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::link;
using sc_core::sc_time;
using sc_core::SC_MS;
using sc_core::SC_US;

namespace {

struct Endpoint : LinkEndpoint {
    bool accept = true;
    std::vector<sata::Fis> rx;
    bool receive_fis(const sata::Fis &f) override {
        if (!accept)
            return false;
        rx.push_back(f);
        return true;
    }
    void phy_changed(bool, Gen) override {}
};

struct Bench {
    Endpoint host, dev;
    SataLink link;
    Bench(const char *name, SataLink::Config::FastPath fp)
        : link(name, config(fp)) {
        link.attach(&host, &dev);
    }
    static SataLink::Config config(SataLink::Config::FastPath fp) {
        SataLink::Config c;
        c.mode = SataLink::Mode::Dword;
        c.fast_path = fp;
        return c;
    }
};

Bench *fast, *ticked, *lockstep;

// What one link did with the frame sequence: per frame, when it ended (from the start of
// the sequence), its status, and the payload the receiver got.
struct Outcome {
    std::vector<sc_time> ends;
    std::vector<FrameStatus> status;
    std::vector<std::vector<uint8_t>> got;
};

Outcome run_sequence(Bench &b, unsigned seed) {
    b.link.host_comreset(true);
    sc_core::wait(1, SC_MS);
    b.link.host_comreset(false);
    sc_core::wait(1, SC_MS);
    EXPECT_TRUE(b.link.phy_ready());
    std::mt19937 rng(seed);
    // lengths around the 256-dword ALIGN period and the 2048-dword Data FIS limit
    const size_t payload_dwords[] = {1, 2, 4, 6, 19, 200, 253, 254, 255, 256, 257, 511, 1024, 2048};
    Outcome out;
    const sc_time t0 = sc_core::sc_time_stamp();
    for (unsigned i = 0; i < 700; ++i) {
        const bool from_host = rng() % 2 == 0;
        const size_t n = payload_dwords[rng() % (sizeof payload_dwords / sizeof payload_dwords[0])];
        std::vector<uint8_t> payload(4 * n);
        for (uint8_t &x : payload)
            x = uint8_t(rng() % 4 == 0 ? rng() : 0); // mostly zeros, as blank media reads are
        Endpoint &rx = from_host ? b.dev : b.host;
        rx.accept = rng() % 13 != 0;
        const size_t got_before = rx.rx.size();
        const sata::Fis fis = sata::make_data(payload.data(), payload.size());
        const FrameStatus st = from_host ? b.link.send_from_host(fis) : b.link.send_from_device(fis);
        out.ends.push_back(sc_core::sc_time_stamp() - t0);
        out.status.push_back(st);
        out.got.push_back(rx.rx.size() > got_before ? rx.rx.back().bytes : std::vector<uint8_t>{});
        if (rng() % 5 == 0) // an idle gap: the links are not ticked while idle
            sc_core::wait(sc_time(double(rng() % 2000), sc_core::SC_NS));
    }
    return out;
}

} // namespace

MODEL_TEST(fast_path_gives_the_ticked_links_times_status_and_data) {
    const Outcome slow = run_sequence(*ticked, 7);
    const Outcome quick = run_sequence(*fast, 7);
    const Outcome both = run_sequence(*lockstep, 7);
    EXPECT_EQ(slow.ends.size(), size_t(700));
    bool same = slow.ends == quick.ends && slow.status == quick.status && slow.got == quick.got;
    EXPECT_TRUE(same);
    EXPECT_TRUE(slow.ends == both.ends && slow.got == both.got);
    // the sequence refused some frames and moved the rest
    size_t ok = 0;
    for (FrameStatus s : slow.status)
        ok += s == FrameStatus::Ok;
    EXPECT_TRUE(ok > 500 && ok < 700);
    // the fast path was taken, and the lockstep link compared what it replayed
    const LinkFastPath::Stats &f = *fast->link.fast_path_stats();
    const LinkFastPath::Stats &l = *lockstep->link.fast_path_stats();
    EXPECT_TRUE(f.replayed > 300);
    EXPECT_TRUE(l.checked > 300);
    EXPECT_EQ(l.replayed, uint64_t(0));
    EXPECT_EQ(ticked->link.fast_path_stats()->replayed, uint64_t(0));
    EXPECT_EQ(fast->link.dword_cycles(), ticked->link.dword_cycles());
    std::printf("fast path: %llu of %llu frame phases replayed; lockstep compared %llu\n",
                (unsigned long long)f.replayed, (unsigned long long)(f.replayed + f.ticked),
                (unsigned long long)l.checked);
}

MODEL_TEST(crc_with_the_rtls_tables_equals_the_reference) {
    LinkRtlPair &p = *fast->link.rtl();
    std::mt19937 rng(11);
    for (size_t n = 0; n < 40; ++n) {
        std::vector<uint32_t> d(n);
        for (uint32_t &x : d)
            x = rng();
        EXPECT_EQ(p.crc(d.data(), d.size()), crc32_sata(d.data(), d.size()));
    }
}

MODEL_TEST(state_round_trips_and_names_every_field) {
    LinkRtlPair &p = *ticked->link.rtl();
    const LinkRtlPair::State s = p.capture();
    size_t align = LinkRtlPair::State::kFields;
    for (size_t i = 0; i < LinkRtlPair::State::kFields; ++i) {
        const LinkRtlPair::StateField &f = LinkRtlPair::state_field(i);
        EXPECT_TRUE(f.name && *f.name);
        if (f.isk >= 0) // a primitive-or-data field's K flag is a control field
            EXPECT_TRUE(!LinkRtlPair::state_field(size_t(f.isk)).data);
        if (std::string(f.name) == "sata_link_pair__DOT__host__DOT__align_cnt")
            align = i;
    }
    EXPECT_TRUE(align < LinkRtlPair::State::kFields);
    if (align >= LinkRtlPair::State::kFields)
        return;
    LinkRtlPair::State changed = s;
    changed.v[align] = (s.v[align] + 77) % 256; // a register written back reads back
    p.restore(changed);
    EXPECT_EQ(p.capture().v[align], (s.v[align] + 77) % 256);
    p.restore(s);
    EXPECT_TRUE(p.capture() == s);
}

int sc_main(int, char **) {
    Bench a("link_fast", SataLink::Config::FastPath::On);
    Bench b("link_ticked", SataLink::Config::FastPath::Off);
    Bench c("link_lockstep", SataLink::Config::FastPath::Lockstep);
    fast = &a;
    ticked = &b;
    lockstep = &c;
    return satasim::test::run_all();
}
