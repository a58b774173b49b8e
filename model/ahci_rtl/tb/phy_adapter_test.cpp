// Standalone Verilator testbench of the reference controller's PHY adapter
// (rtl/ahci_phy_adapter.v with its elastic buffer, rtl/ahci_rx_elastic.v) and of the
// shell's side of the same PHY (model/link/phy_lane.h: gearbox, elastic queue, clocks):
// the adapter verilated alone (PHY_W / EB per build), its link side driven and read at
// the core clock, its PHY side joined to the shell's PhyClocks / WordGearbox /
// ElasticQueue exactly as the RTL backend's PhyPort joins a DUT port. Both directions
// carry a SATA-like dword stream (primitives, data, an ALIGN pair every 256 dwords as
// sata_link.v sends it; SATA 3.x 9 (?)) at a receive-clock offset, and with the receive
// clock spread (SSC: a triangular down-spread of 5000 ppm at 31.5 kHz, SATA 3.x 7 (?)):
//   phy_adapter_test[16|32] CASE     (ppm0, ppm350, ppm-350, ppm700, ppm-700, ssc, ssc350,
//                                     ssc-350, err350, err-350)
// Each case checks that every non-ALIGN dword arrives, in order, unchanged, in both
// directions, and that the ALIGNs dropped (receive clock faster) or added (slower) account
// for the offset (with SSC: the offset less half the spread on average, the receive
// clock's measured dwords within a few of it). The decode errors the adapter reports per
// dword must be exactly those the receive stream carried: none, except in the err cases,
// which mark one dword in 37 with a per-byte symbol error (a code error, a disparity error,
// both on different bytes, or a K flag on byte 1 or 3, a symbol no SATA dword has) on a
// byte that cycles through 0..3: each must come out on that dword (in 16-bit mode also
// when it is on the dword's second word) and on no other dword. (Code and disparity
// errors are one decode error to an AHCI port, PxSERR.DIAG.B: the adapter ORs them.)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "Vahci_phy_adapter.h"
#include "model/link/phy_lane.h"
#include "model/tests/plain_check.h"
#include "verilated.h"

#ifndef PHY_TB_W
#define PHY_TB_W 16
#endif

namespace {

using satasim::link::ElasticQueue;
using satasim::link::LaneDword;
using satasim::link::PhyClocks;
using satasim::link::PhyWord;
using satasim::link::SscSpec;
using satasim::link::WordGearbox;
namespace prim = satasim::link::prim;

constexpr unsigned kW = PHY_TB_W;
constexpr uint64_t kCycles = 200000; // core cycles per case

// A transmitter's dword stream: 16 SYNCs (a link starts with primitives: the receiver's
// word alignment comes from them), then data and primitives, an ALIGN pair at dwords
// 254 and 255 of every 256.
struct Stream {
    uint32_t lcg;
    uint64_t n = 0;
    explicit Stream(uint32_t seed) : lcg(seed) {}
    LaneDword next() {
        const uint64_t i = n++;
        if (i % 256 >= 254)
            return {prim::kAlign, true};
        if (i < 16)
            return {prim::kSync, true};
        lcg = lcg * 1103515245u + 12345u;
        const uint32_t r = lcg;
        lcg = lcg * 1103515245u + 12345u;
        if ((r & 7) == 0) {
            static const uint32_t kPrims[] = {prim::kSync, prim::kXRdy, prim::kRRdy, prim::kRIp,
                                              prim::kHold, prim::kHolda, prim::kSof, prim::kEof};
            return {kPrims[(r >> 3) & 7], true};
        }
        return {lcg ^ (r << 16), false};
    }
};

bool is_align(const LaneDword &d) { return d.isk && d.data == prim::kAlign; }

// The dwords one direction delivered, compared with what was sent (ALIGNs apart).
struct Direction {
    const char *name;
    std::vector<LaneDword> sent, got; // non-ALIGN dwords
    uint64_t aligns_sent = 0, aligns_got = 0;
    void send(const LaneDword &d) {
        if (is_align(d))
            ++aligns_sent;
        else
            sent.push_back(d);
    }
    // ALIGNs before the first other dword are the receiver filling up, not counted.
    void receive(const LaneDword &d) {
        if (!is_align(d))
            got.push_back(d);
        else if (!got.empty())
            ++aligns_got;
    }
    void check(uint64_t in_flight) {
        CHECK(got.size() <= sent.size());
        CHECK(got.size() + in_flight >= sent.size());
        size_t bad = 0;
        for (size_t i = 0; i < got.size() && i < sent.size(); ++i)
            if (got[i].data != sent[i].data || got[i].isk != sent[i].isk) {
                if (!bad)
                    std::printf("%s: dword %zu is 0x%08x/%d, sent 0x%08x/%d\n", name, i, got[i].data,
                                got[i].isk, sent[i].data, sent[i].isk);
                ++bad;
            }
        CHECK_EQ(bad, 0);
    }
};

// SSC at a 150 MHz dword rate: 5000 ppm down-spread, 31.5 kHz (4762 dwords per period).
constexpr unsigned kSscPpm = 5000;
constexpr double kSscWords = 150e6 * (32.0 / kW) / 31500.0;

// The receive symbol errors planned for the far end's n-th non-ALIGN dword (err cases):
// per byte code-error, disparity-error and K flags, and the dword's expected report.
struct SymErr {
    uint8_t code = 0, disp = 0, k = 0; // a bit per byte
    unsigned report() const { return code || disp || k ? 1u : 0u; }
};

SymErr plan_err(uint64_t n) {
    SymErr e;
    if (n % 37 != 11)
        return e;
    const uint64_t i = n / 37;
    const uint8_t byte = uint8_t(1u << (i % 4));
    switch ((i / 4) % 4) {
    case 0:
        e.code = byte;
        break;
    case 1:
        e.disp = byte;
        break;
    case 2: // both, on different bytes
        e.code = byte;
        e.disp = uint8_t(((byte << 2) | (byte >> 2)) & 0xF);
        break;
    default: // a K flag where a SATA dword has none: byte 1 or 3 (a K on byte 2, the low
             // byte of a 16-bit high half, would be taken as a realignment)
        e.k = (i % 2) ? 0x8 : 0x2;
        break;
    }
    return e;
}

void run_case(int ppm, bool ssc, bool with_errors) {
    VerilatedContext ctx;
    Vahci_phy_adapter m(&ctx, "phy");
    PhyClocks clocks = ssc ? PhyClocks(kW, std::vector<int>{ppm}, SscSpec{kSscPpm, kSscWords}) : PhyClocks(kW, ppm);
    WordGearbox to_dut(kW), from_dut(kW); // the shell's serializer / deserializer
    ElasticQueue dev_rx;                  // the far end's receive elastic buffer
    to_dut.reset();
    Stream link_tx(1), dev_tx(2);
    Direction h2d{"host->device", {}, {}, 0, 0}, d2h{"device->host", {}, {}, 0, 0};
    uint64_t core = 0, rx_dwords = 0;
    // Decode errors: planned per non-ALIGN dword the far end sent (d2h.sent order) and
    // reported per non-ALIGN dword the link got (d2h.got order; o_link_rx_err comes one
    // core clock after its dword); errors reported on ALIGNs.
    std::vector<uint8_t> planned, reported;
    uint64_t align_errors = 0;
    bool prev_align = true; // the dword sampled at the previous core edge
    SymErr cur_err;         // the dword the far end is sending now
    bool cur_hi = false;    // 16-bit: its high half is on the wire
    m.rst = 1;
    m.i_link_tx_data = prim::kAlign;
    m.i_link_tx_isk = 1;
    m.i_phy_rx_data = 0;
    m.i_phy_rx_isk = 0;
    m.i_phy_rx_codeerr = 0;
    m.i_phy_rx_disperr = 0;
    const uint64_t reset_cycles = 16, start = 40; // both transmitters start after the reset
    while (core < kCycles) {
        const unsigned edges = clocks.next();
        m.clk = 0;
        m.i_tx_clk = 0;
        m.i_rx_clk = 0;
        m.eval();
        // What the clocks that rise now sample: the adapter's outputs before the edge.
        if (edges & satasim::link::kEdgePhyTx) {
            LaneDword d;
            if (from_dut.take(m.o_phy_tx_data, m.o_phy_tx_isk, d) && core > reset_cycles + 4) // (registers set)
                dev_rx.push(d);
        }
        if (edges & satasim::link::kEdgeCore && core > reset_cycles) {
            if (core > reset_cycles + 1) { // the error of the dword sampled last edge
                if (!prev_align)
                    reported.push_back(m.o_link_rx_err);
                else
                    align_errors += m.o_link_rx_err != 0;
            }
            const LaneDword d{m.o_link_rx_data, m.o_link_rx_isk != 0};
            // (ALIGNs before the first dword are the buffer filling: not the stream's)
            prev_align = is_align(d);
            d2h.receive(d);
        }
        m.clk = (edges & satasim::link::kEdgeCore) != 0;
        m.i_tx_clk = (edges & satasim::link::kEdgePhyTx) != 0;
        m.i_rx_clk = (edges & satasim::link::kEdgePhyRx) != 0;
        m.eval();
        // The domains that ticked present their next values.
        if (edges & satasim::link::kEdgeCore) {
            ++core;
            m.rst = core < reset_cycles;
            const LaneDword d = core > start ? link_tx.next() : LaneDword{};
            if (core > start)
                h2d.send(d);
            m.i_link_tx_data = d.data;
            m.i_link_tx_isk = d.isk;
        }
        if (edges & satasim::link::kEdgePhyRx) {
            if (to_dut.needs_dword()) {
                // the far end's dword clock: its transmitter and its receiver tick
                h2d.receive(dev_rx.pop());
                const LaneDword d = core > start ? dev_tx.next() : LaneDword{};
                cur_err = SymErr{};
                if (core > start && !is_align(d)) {
                    if (with_errors)
                        cur_err = plan_err(d2h.sent.size());
                    planned.push_back(uint8_t(cur_err.report()));
                }
                if (core > start)
                    d2h.send(d);
                // the decoder's flags travel with the dword, as in the shell's cable
                LaneDword flagged = d;
                flagged.code_err = cur_err.code;
                flagged.disp_err = cur_err.disp;
                to_dut.load(flagged);
                ++rx_dwords;
                cur_hi = false;
            } else {
                cur_hi = true; // 16-bit: the second word of the loaded dword
            }
            const PhyWord w = to_dut.next_word();
            // a stray K flag off byte 0 is no dword's (the gearbox carries byte 0's): this
            // word's bytes of it, all four or the half on the wire
            const unsigned sh = kW == 16 && cur_hi ? 2 : 0, mask = kW == 16 ? 0x3 : 0xF;
            m.i_phy_rx_data = w.data;
            m.i_phy_rx_isk = w.isk | ((cur_err.k >> sh) & mask);
            m.i_phy_rx_codeerr = w.code_err;
            m.i_phy_rx_disperr = w.disp_err;
        }
    }
    std::printf("ppm %d%s: %llu core cycles, %llu receive dwords; ALIGN sent/got h2d %llu/%llu, d2h %llu/%llu\n",
                ppm, ssc ? " ssc" : "", (unsigned long long)core, (unsigned long long)rx_dwords,
                (unsigned long long)h2d.aligns_sent, (unsigned long long)h2d.aligns_got,
                (unsigned long long)d2h.aligns_sent, (unsigned long long)d2h.aligns_got);
    // Every dword the link got came with the error planned for it, and no others.
    size_t wrong = 0, flagged = 0, got_err = 0;
    for (size_t i = 0; i < reported.size() && i < planned.size(); ++i) {
        flagged += planned[i] != 0;
        got_err += reported[i] != 0;
        if (reported[i] != planned[i]) {
            if (wrong < 4)
                std::printf("device->host dword %zu (0x%08x): error %u reported, %u sent\n", i,
                            i < d2h.got.size() ? d2h.got[i].data : 0u, reported[i], planned[i]);
            ++wrong;
        }
    }
    std::printf("  decode errors: %zu dwords flagged, %zu reported; %llu on ALIGNs\n", flagged, got_err,
                (unsigned long long)align_errors);
    CHECK_EQ(wrong, 0);
    CHECK_EQ(align_errors, 0);
    CHECK(reported.size() + 41 >= planned.size());
    if (with_errors)
        CHECK(flagged > 1000); // every kind on every byte, many times over
    h2d.check(16);
    d2h.check(40);
    CHECK_EQ(dev_rx.overflows(), 0);
    CHECK_EQ(dev_rx.underflows(), 0);
    // The offset shows in the ALIGNs: a faster receive clock (ppm > 0) brings ~ppm 1e-6
    // more dwords than the core takes (the DUT's buffer drops ALIGNs) and takes ~ppm 1e-6
    // more than the DUT sends (the far end's buffer repeats ALIGNs); the reverse for
    // ppm < 0. Slack: the buffers' fill and the dwords in flight.
    // With SSC the receive clock runs on average half the spread slower (a triangle); the
    // dwords it actually brought (per PHY word: 32 / W of them per dword) must agree.
    const int64_t drift = int64_t(kCycles) * (ppm - (ssc ? int(kSscPpm) / 2 : 0)) / 1000000;
    const int64_t rx_drift = int64_t(rx_dwords) - int64_t(kCycles);
    std::printf("  receive clock: %lld dwords more than the core's (%lld expected)\n", (long long)rx_drift,
                (long long)drift);
    CHECK(std::llabs(rx_drift - drift) <= 8);
    const int64_t dropped_d2h = int64_t(d2h.aligns_sent) - int64_t(d2h.aligns_got);
    const int64_t added_h2d = int64_t(h2d.aligns_got) - int64_t(h2d.aligns_sent);
    std::printf("  offset %lld dwords: DUT buffer net ALIGNs dropped %lld (%llu decode errors), far end net ALIGNs "
                "added %lld (dropped %llu, repeated %llu), %llu realigns at the far end\n",
                (long long)drift, (long long)dropped_d2h, (unsigned long long)got_err, (long long)added_h2d,
                (unsigned long long)dev_rx.dropped(), (unsigned long long)dev_rx.repeated(),
                (unsigned long long)from_dut.realigns());
    CHECK(std::llabs(dropped_d2h - drift) <= 24);
    CHECK(std::llabs(added_h2d - drift) <= 24);
}

} // namespace

int main(int argc, char **argv) {
    struct Case {
        const char *first;
        int ppm;
        bool ssc;
        bool errors;
    };
    static const Case kCases[] = {{"ppm0", 0, false, false},    {"ppm350", 350, false, false},
                                  {"ppm-350", -350, false, false}, {"ppm700", 700, false, false},
                                  {"ppm-700", -700, false, false}, {"ssc", 0, true, false},
                                  {"ssc350", 350, true, false},    {"ssc-350", -350, true, false},
                                  {"err350", 350, false, true},    {"err-350", -350, false, true}};
    if (argc < 2 || std::string(argv[1]) == "list") {
        for (auto &c : kCases)
            std::printf("%s\n", c.first);
        return argc < 2 ? 2 : 0;
    }
    int bad = 0;
    for (int i = 1; i < argc; ++i) {
        const Case *c = nullptr;
        for (auto &k : kCases)
            if (argv[i] == std::string(k.first))
                c = &k;
        if (!c) {
            std::fprintf(stderr, "phy_adapter_test: unknown case '%s' (try 'list')\n", argv[i]);
            return 2;
        }
        failures = 0;
        run_case(c->ppm, c->ssc, c->errors);
        std::printf("%s: %s\n", argv[i], failures ? "FAILED" : "passed");
        bad += failures != 0;
    }
    return bad ? 1 : 0;
}
