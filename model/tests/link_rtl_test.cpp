// Verilator-level tests of the link-layer RTL (model/link/rtl): CRC and scrambler against
// the spec vectors, frame round trips both ways between a host-role and a device-role
// instance wired back to back, HOLD flow control both ways, R_ERR on a corrupted dword,
// collision back-off, CONT, ALIGN insertion, DMAT, a corrupted SOF, the SYNC between
// back-to-back frames. Plain C++ driving the
// verilated models; no SystemC process involved (sc_main is only the entry point).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "Vsata_link.h"
#include "Vsata_link_units.h"
#include "verilated.h"

#include "model/link/link_rtl.h"
#include "model/tests/plain_check.h"

using namespace satasim::link;

namespace {

int passed = 0, failed = 0;

std::vector<std::pair<std::string, std::function<void()>>> &cases() {
    static std::vector<std::pair<std::string, std::function<void()>>> c;
    return c;
}
struct Reg {
    Reg(const char *n, std::function<void()> f) { cases().emplace_back(n, std::move(f)); }
};
#define RTL_TEST(name)                                                                     \
    static void name();                                                                    \
    static Reg reg_##name(#name, name);                                                    \
    static void name()

// Byte-wise CRC-32/SATA as the CRC catalogs define it (non-reflected, MSB first).
uint32_t crc_bytes(const uint8_t *p, size_t n) {
    uint32_t c = kCrcInit;
    for (size_t i = 0; i < n; ++i) {
        c ^= uint32_t(p[i]) << 24;
        for (int b = 0; b < 8; ++b)
            c = (c & 0x80000000u) ? (c << 1) ^ 0x04C11DB7u : c << 1;
    }
    return c;
}

std::vector<uint32_t> pattern(size_t n, uint32_t seed) {
    std::vector<uint32_t> v(n);
    uint32_t x = seed * 2654435761u + 1;
    for (auto &d : v) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        d = x;
    }
    if (!v.empty())
        v[0] = (v[0] & ~0xFFu) | 0x46; // looks like a Data FIS header
    return v;
}

// Runs one frame from `from_host` through the pair, answering with `accept`.
void send_frame(LinkRtlPair &p, bool from_host, const std::vector<uint32_t> &f, bool accept = true,
                uint64_t max = 100000) {
    auto &tx = p.side(from_host);
    auto &rx = p.side(!from_host);
    rx.auto_verdict = true;
    rx.accept = accept;
    tx.start_frame(f.data(), f.size());
    p.run_until([&] { return tx.tx_done && p.both_idle(); }, max);
}

// tx sends frames to rx, which answers each itself; both record the dwords they put on the
// wire, for the flow-control tests.
void record_both(LinkRtlPair::Side &tx, LinkRtlPair::Side &rx) {
    rx.auto_verdict = true;
    tx.record = true;
    rx.record = true;
}

// Whether a side's recorded dwords hold the primitive `p`.
bool sent_primitive(const LinkRtlPair::Side &side, uint32_t p) {
    for (auto &d : side.sent)
        if (d.second && d.first == p)
            return true;
    return false;
}

struct XorDword : LinkRtlPair::WireHook {
    bool dir_host;
    unsigned index;   // data dword after SOF (0 = FIS header)
    uint32_t mask;
    bool in_frame = false;
    unsigned seen = 0;
    bool done = false;
    void on_dword(bool from_host, uint32_t &d, bool &isk) override {
        if (from_host != dir_host || done)
            return;
        if (isk) {
            if (d == prim::kSof) {
                in_frame = true;
                seen = 0;
            } else if (d == prim::kEof)
                in_frame = false;
            return;
        }
        if (in_frame && seen++ == index) {
            d ^= mask;
            done = true;
        }
    }
};

struct ReplacePrim : LinkRtlPair::WireHook {
    bool dir_host;
    uint32_t match, with;
    bool done = false;
    void on_dword(bool from_host, uint32_t &d, bool &isk) override {
        if (from_host == dir_host && !done && isk && d == match) {
            d = with;
            done = true;
        }
    }
};

} // namespace

RTL_TEST(crc_spec_vectors) {
    // Catalog check value of CRC-32/SATA over "123456789".
    const char *s = "123456789";
    CHECK_EQ(crc_bytes(reinterpret_cast<const uint8_t *>(s), 9), 0xCF72AFE8u);
    // A FIS dword is fed MSB first, so bytes "12345678" as two little-endian dwords equal
    // the byte-wise CRC of "43218765".
    uint32_t dw[2] = {0x34333231u, 0x38373635u};
    const char *swapped = "43218765";
    uint32_t want = crc_bytes(reinterpret_cast<const uint8_t *>(swapped), 8);
    CHECK_EQ(crc32_sata(dw, 2), want);
    Vsata_link_units u;
    u.i_crc = kCrcInit;
    u.i_data = dw[0];
    u.eval();
    u.i_crc = u.o_crc;
    u.i_data = dw[1];
    u.eval();
    CHECK_EQ(u.o_crc, want);
    // RTL step against the C++ reference on many dwords.
    uint32_t c = kCrcInit;
    for (uint32_t d : pattern(1000, 7)) {
        u.i_crc = c;
        u.i_data = d;
        u.eval();
        c = crc32_sata_step(c, d);
        if (u.o_crc != c) {
            CHECK_EQ(u.o_crc, c);
            break;
        }
    }
    u.final();
}

RTL_TEST(scrambler_spec_vectors) {
    Vsata_link_units u;
    const uint32_t want[4] = {0xC2D2768Du, 0x1F26B368u, 0xA508436Cu, 0x3452D354u};
    u.i_lfsr = 0xFFFF;
    for (uint32_t w : want) {
        u.eval();
        CHECK_EQ(u.o_scr_word, w);
        u.i_lfsr = u.o_lfsr;
    }
    u.final();
}

RTL_TEST(round_trip_both_directions_and_wire_format) {
    LinkRtlPair p;
    for (bool from_host : {true, false}) {
        auto f = pattern(from_host ? 5 : 37, from_host ? 1 : 2);
        p.side(from_host).record = true;
        p.side(from_host).sent.clear();
        send_frame(p, from_host, f);
        auto &tx = p.side(from_host);
        auto &rx = p.side(!from_host);
        CHECK(tx.tx_done);
        CHECK_EQ(tx.tx_status, 0u);
        CHECK(rx.rx_end && rx.rx_crc_ok && !rx.rx_abort);
        CHECK(rx.rx == f);
        // On the wire: SOF, then FIS dwords XOR the scrambler words from seed 0xFFFF, then
        // CRC XOR the next word, then EOF.
        const auto &w = tx.sent;
        size_t sof = 0;
        while (sof < w.size() && !(w[sof].second && w[sof].first == prim::kSof))
            ++sof;
        CHECK(sof < w.size());
        std::vector<uint32_t> data;
        size_t i = sof + 1;
        for (; i < w.size() && !(w[i].second && w[i].first == prim::kEof); ++i)
            if (!w[i].second)
                data.push_back(w[i].first);
        CHECK_EQ(data.size(), f.size() + 1);
        uint16_t s = 0xFFFF;
        std::vector<uint32_t> scr;
        for (size_t k = 0; k < data.size(); ++k) {
            uint32_t word = 0;
            for (int b = 0; b < 32; ++b) {
                uint32_t bit = s >> 15;
                word |= bit << b;
                s = uint16_t(s << 1);
                if (bit)
                    s ^= 0xA011;
            }
            scr.push_back(word);
        }
        CHECK_EQ(scr[0], 0xC2D2768Du);
        for (size_t k = 0; k < f.size() && k < data.size(); ++k)
            CHECK_EQ(data[k] ^ scr[k], f[k]);
        if (data.size() == f.size() + 1)
            CHECK_EQ(data.back() ^ scr[f.size()], crc32_sata(f.data(), f.size()));
        // Handshake order on the transmitter's wire: X_RDY ... SOF ... EOF WTRM ... SYNC.
        bool saw_xrdy = false, saw_wtrm = false;
        for (size_t k = 0; k < sof; ++k)
            saw_xrdy |= w[k].second && w[k].first == prim::kXRdy;
        for (size_t k = i; k < w.size(); ++k)
            saw_wtrm |= w[k].second && w[k].first == prim::kWtrm;
        CHECK(saw_xrdy && saw_wtrm);
        tx.record = false;
        tx.clear_frame();
        rx.clear_frame();
    }
}

RTL_TEST(long_frame_has_align_pairs_and_bad_verdict_gives_r_err) {
    LinkRtlPair p;
    auto f = pattern(2049, 3);
    p.side(true).record = true;
    send_frame(p, true, f);
    CHECK(p.side(false).rx == f);
    CHECK_EQ(p.side(true).tx_status, 0u);
    // ALIGN pairs at least once per 256 dwords, inside the frame too.
    const auto &w = p.side(true).sent;
    size_t last = 0, max_gap = 0, aligns = 0;
    for (size_t k = 0; k + 1 < w.size(); ++k)
        if (w[k].second && w[k].first == prim::kAlign) {
            CHECK(w[k + 1].second && w[k + 1].first == prim::kAlign);
            max_gap = std::max(max_gap, k - last);
            last = k + 2;
            ++aligns;
            ++k;
        }
    CHECK(aligns >= 8);
    CHECK(max_gap <= 254);
    // The transport refuses a good-CRC frame: R_ERR.
    p.side(true).clear_frame();
    p.side(false).clear_frame();
    send_frame(p, true, pattern(5, 4), false);
    CHECK_EQ(p.side(true).tx_status, 1u);
    CHECK(p.side(false).rx_crc_ok);
}

RTL_TEST(hold_flow_control_receiver_full) {
    LinkRtlPair p;
    auto f = pattern(600, 5);
    auto &tx = p.side(true);
    auto &rx = p.side(false);
    record_both(tx, rx);
    tx.start_frame(f.data(), f.size());
    p.run_until([&] { return rx.rx.size() >= 100; }, 10000);
    rx.rx_full = true;
    p.run_until([] { return false; }, 50);
    size_t frozen = rx.rx.size();
    p.run_until([] { return false; }, 200);
    CHECK_EQ(rx.rx.size(), frozen); // nothing more arrives while HOLD stands
    CHECK(frozen < 100 + 12);        // only the dwords already in flight
    rx.rx_full = false;
    p.run_until([&] { return tx.tx_done && p.both_idle(); }, 10000);
    CHECK(rx.rx == f);
    CHECK_EQ(tx.tx_status, 0u);
    CHECK(sent_primitive(rx, prim::kHold));
    CHECK(sent_primitive(tx, prim::kHolda));
}

RTL_TEST(hold_flow_control_transmitter_empty) {
    LinkRtlPair p;
    auto f = pattern(300, 6);
    auto &tx = p.side(false);
    auto &rx = p.side(true);
    record_both(tx, rx);
    tx.start_frame(f.data(), f.size());
    tx.tx_avail = 50;
    p.run_until([&] { return tx.tx_pos >= 50; }, 10000);
    p.run_until([] { return false; }, 100);
    CHECK_EQ(rx.rx.size(), 49u); // the 50th could still be the CRC: held back
    tx.tx_avail = SIZE_MAX;
    p.run_until([&] { return tx.tx_done && p.both_idle(); }, 10000);
    CHECK(rx.rx == f);
    CHECK_EQ(tx.tx_status, 0u);
    CHECK(sent_primitive(tx, prim::kHold) && sent_primitive(rx, prim::kHolda));
}

RTL_TEST(corrupted_dword_gives_bad_crc_and_r_err) {
    for (bool from_host : {true, false}) {
        for (unsigned idx : {0u, 3u, 5u}) { // header, payload, the CRC dword itself
            LinkRtlPair p;
            XorDword hook;
            hook.dir_host = from_host;
            hook.index = idx;
            hook.mask = 0x00010000;
            p.set_hook(&hook);
            auto f = pattern(5, 8);
            send_frame(p, from_host, f);
            CHECK(hook.done);
            CHECK(p.side(!from_host).rx_end);
            CHECK(!p.side(!from_host).rx_crc_ok);
            CHECK_EQ(p.side(from_host).tx_status, 1u);
            // The link recovers: the next frame goes through.
            p.set_hook(nullptr);
            p.side(true).clear_frame();
            p.side(false).clear_frame();
            send_frame(p, from_host, f);
            CHECK_EQ(p.side(from_host).tx_status, 0u);
            CHECK(p.side(!from_host).rx == f);
        }
    }
}

RTL_TEST(collision_host_backs_off) {
    LinkRtlPair p;
    auto fh = pattern(10, 9), fd = pattern(20, 10);
    auto &h = p.side(true);
    auto &d = p.side(false);
    h.auto_verdict = d.auto_verdict = true;
    h.start_frame(fh.data(), fh.size());
    d.start_frame(fd.data(), fd.size());
    p.run_until([&] { return d.tx_done; }, 10000);
    CHECK(d.tx_done && !h.tx_done);
    CHECK_EQ(d.tx_status, 0u);
    CHECK(h.rx == fd);
    CHECK_EQ(d.rx_frames, 0u);
    p.run_until([&] { return h.tx_done && p.both_idle(); }, 10000);
    CHECK_EQ(h.tx_status, 0u);
    CHECK(d.rx == fh);
}

RTL_TEST(cont_compresses_repeated_primitives) {
    LinkRtlPair p;
    auto &h = p.side(true);
    h.record = true;
    p.run_until([] { return false; }, 40); // idle: SYNC SYNC CONT junk...
    const auto &w = h.sent;
    size_t syncs = 0, conts = 0, junk = 0;
    for (auto &d : w) {
        if (d.second && d.first == prim::kSync)
            ++syncs;
        else if (d.second && d.first == prim::kCont)
            ++conts;
        else if (!d.second)
            ++junk;
    }
    CHECK(syncs >= 2 && syncs <= 4);
    CHECK_EQ(conts, 1u);
    CHECK(junk >= 30);
    // A frame after a CONT run is still received correctly (the X_RDY ends the run).
    auto f = pattern(9, 11);
    send_frame(p, true, f);
    CHECK(p.side(false).rx == f);
    // X_RDY held without an answer is compressed as well: receiver full, no R_RDY.
    p.side(true).clear_frame();
    p.side(false).clear_frame();
    p.side(false).rx_full = true;
    h.sent.clear();
    h.start_frame(f.data(), f.size());
    p.run_until([] { return false; }, 40);
    size_t xrdy = 0;
    conts = 0;
    for (auto &d : h.sent) {
        xrdy += d.second && d.first == prim::kXRdy;
        conts += xrdy > 0 && d.second && d.first == prim::kCont;
    }
    CHECK_EQ(xrdy, 2u);
    CHECK_EQ(conts, 1u);
    CHECK(p.state(false) == RtlState::Idle);
    p.side(false).rx_full = false;
    p.run_until([&] { return h.tx_done && p.both_idle(); }, 1000);
    CHECK(p.side(false).rx == f);
}

RTL_TEST(dmat_ends_frame_early) {
    LinkRtlPair p;
    auto f = pattern(1000, 12);
    auto &tx = p.side(false);
    auto &rx = p.side(true);
    rx.auto_verdict = true;
    tx.start_frame(f.data(), f.size());
    p.run_until([&] { return rx.rx.size() >= 100; }, 10000);
    rx.rx_dmat = true;
    p.run_until([&] { return tx.tx_done && p.both_idle(); }, 10000);
    CHECK(tx.tx_done && tx.tx_dmat);
    CHECK_EQ(tx.tx_status, 0u);
    CHECK(rx.rx_crc_ok);
    CHECK(rx.rx.size() < 120 && rx.rx.size() == tx.tx_pos);
    CHECK(std::equal(rx.rx.begin(), rx.rx.end(), f.begin()));
}

RTL_TEST(corrupted_sof_aborts_frame) {
    LinkRtlPair p;
    ReplacePrim hook;
    hook.dir_host = true;
    hook.match = prim::kSof;
    hook.with = 0x1234567C; // a K word that is no primitive
    p.set_hook(&hook);
    auto f = pattern(5, 13);
    send_frame(p, true, f, true, 5000);
    CHECK(hook.done);
    CHECK(p.side(true).tx_done);
    CHECK_EQ(p.side(true).tx_status, 2u); // SYNC escape: aborted
    CHECK(p.side(false).rx_abort);
    CHECK(p.side(false).bad_prims >= 1);
    CHECK(p.both_idle());
    // and an R_OK turned into R_ERR gives R_ERR at the transmitter
    ReplacePrim rok;
    rok.dir_host = false;
    rok.match = prim::kROk;
    rok.with = prim::kRErr;
    p.set_hook(&rok);
    p.side(true).clear_frame();
    p.side(false).clear_frame();
    send_frame(p, true, f);
    CHECK_EQ(p.side(true).tx_status, 1u);
}

// A transmitter whose transport has the next frame ready the moment the previous one ends
// (o_tx_done) still sends SYNC between that frame's WTRM and its next X_RDY: the receiver
// stays in its R_OK state until it sees SYNC (SATA 3.x 9, link receive state machine; table
// in docs/hardware.md 2.3), and the one IDLE dword must not be swallowed by an ALIGN slot.
// The first frame's length sweeps every phase of the 256-dword ALIGN period against the
// IDLE dword. Before the fix, the lengths whose IDLE dword fell on an ALIGN went from WTRM
// straight to X_RDY and both sides waited for ever (the RTL backend's dma-rw-verify hang).
RTL_TEST(back_to_back_frames_send_sync_between) {
    for (bool from_host : {false, true}) {
        unsigned hung = 0;
        for (size_t n = 1; n <= 260; ++n) {
            LinkRtlPair p;
            auto &tx = p.side(from_host);
            auto &rx = p.side(!from_host);
            record_both(tx, rx);
            auto a = pattern(n, 20), b = pattern(7, 21);
            tx.start_frame(a.data(), a.size());
            p.run_until([&] { return tx.tx_done; }, 10000);
            CHECK(tx.tx_done && tx.tx_status == 0u);
            const size_t mark = tx.sent.size();
            tx.start_frame(b.data(), b.size()); // at once: no turnaround in the transport
            p.run_until([&] { return tx.tx_done && p.both_idle(); }, 2000);
            if (!tx.tx_done || tx.tx_status != 0u || rx.rx != b) {
                ++hung;
                continue;
            }
            bool sync = false, xrdy_before_sync = false;
            for (size_t k = mark; k < tx.sent.size() && !sync; ++k) {
                const auto &d = tx.sent[k];
                sync = d.second && d.first == prim::kSync;
                xrdy_before_sync |= d.second && d.first == prim::kXRdy;
            }
            CHECK(sync && !xrdy_before_sync);
        }
        if (hung)
            std::printf("back_to_back (%s transmits): %u of 260 second frames never went through\n",
                        from_host ? "host" : "device", hung);
        CHECK_EQ(hung, 0u);
    }
}

RTL_TEST(frame_cycles_match_fis_level_overhead) {
    // Cycles from X_RDY to both sides idle for a short frame: printed for the record
    // (FIS-level timing assumes FIS dwords + 13 + an ALIGN pair per started 256).
    LinkRtlPair p;
    for (size_t n : {5u, 2049u}) {
        p.side(true).clear_frame();
        p.side(false).clear_frame();
        uint64_t c0 = p.cycles();
        send_frame(p, true, pattern(n, 14));
        std::printf("frame of %zu FIS dwords: %llu cycles\n", n,
                    (unsigned long long)(p.cycles() - c0));
        CHECK(p.cycles() - c0 >= n + 13);
    }
}

extern "C" int sc_main(int, char **);
int sc_main(int, char **) {
    for (auto &c : cases()) {
        failures = 0;
        c.second();
        if (failures) {
            ++failed;
            std::printf("FAIL %s\n", c.first.c_str());
        } else {
            ++passed;
        }
    }
    std::printf("%d passed, %d failed\n", passed, failed);
    return failed ? 1 : 0;
}
