// Standalone Verilator testbench of the reference AHCI controller RTL (model/ahci_rtl):
// the HBA (one port) on a C++ AXI4 memory model that checks the burst rules, a C++
// AXI4-Lite master for the registers, and a scripted SATA device behind a device-role
// sata_link instance (tb/ahci_tb_top.v). Plain C++ (no SystemC). One case per run:
//   ahci_rtl_test CASE        (ctest registers every case; `list` prints them)
// Register semantics checked against AHCI 1.3.1 (docs/hardware.md 5) and the SystemC
// model (model/ahci).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "Vahci_tb_top.h"
#include "model/tests/plain_check.h"
#include "verilated.h"

// The verilated configuration (CMake builds one test per configuration).
#ifndef AHCI_TB_DW
#define AHCI_TB_DW 64
#endif
#ifndef AHCI_TB_AW
#define AHCI_TB_AW 64
#endif
#ifndef AHCI_TB_NPORTS
#define AHCI_TB_NPORTS 1
#endif

namespace {

constexpr unsigned kDw = AHCI_TB_DW, kAw = AHCI_TB_AW, kPorts = AHCI_TB_NPORTS;

// ---- register map (AHCI 1.3.1 3.1, 3.3) ------------------------------------------------
constexpr uint32_t CAP = 0x00, GHC = 0x04, IS = 0x08, PI = 0x0C, VS = 0x10, CAP2 = 0x24;
constexpr uint32_t P0 = 0x100;
constexpr uint32_t PxCLB = P0 + 0x00, PxCLBU = P0 + 0x04, PxFB = P0 + 0x08, PxFBU = P0 + 0x0C,
                   PxIS = P0 + 0x10, PxIE = P0 + 0x14, PxCMD = P0 + 0x18, PxTFD = P0 + 0x20,
                   PxSIG = P0 + 0x24, PxSSTS = P0 + 0x28, PxSCTL = P0 + 0x2C,
                   PxSERR = P0 + 0x30, PxSACT = P0 + 0x34, PxCI = P0 + 0x38,
                   PxSNTF = P0 + 0x3C;
constexpr uint32_t IS_DHRS = 1u << 0, IS_PSS = 1u << 1, IS_DSS = 1u << 2, IS_SDBS = 1u << 3,
                   IS_PRCS = 1u << 22, IS_IFS = 1u << 27, IS_HBFS = 1u << 29,
                   IS_TFES = 1u << 30;
constexpr uint32_t CMD_ST = 1u << 0, CMD_CLO = 1u << 3, CMD_FRE = 1u << 4, CMD_FR = 1u << 14,
                   CMD_CR = 1u << 15;

// Memory layout of the tests (port n: everything 0x100000 * n higher, data excepted).
constexpr uint64_t kClb = 0x10000, kFb = 0x11000, kCtba = 0x20000; // + 0x1000 * slot
constexpr uint64_t ahci_rtl_clb(unsigned port) { return kClb + 0x100000 * uint64_t(port); }
constexpr uint64_t kBuf = 0x800000;                               // data buffers
constexpr uint64_t kErrLo = 0xE0000000, kErrHi = 0xF0000000;      // SLVERR window

// ---- AXI4 memory (slave) with protocol checks -------------------------------------------
struct AxiMem {
    std::unordered_map<uint64_t, std::vector<uint8_t>> pages;
    unsigned bytes = kDw / 8;
    uint32_t lcg = 12345;
    unsigned violations = 0;
    unsigned bursts = 0;
    bool backpressure = true;
    struct Burst { uint64_t addr; unsigned len, beat; bool err; unsigned delay; };
    std::deque<Burst> rq, wq; // read bursts to answer; writes waiting for data
    std::deque<std::pair<bool, unsigned>> bq; // write responses (err, delay)
    // next outputs
    bool arready = true, awready = true, wready = true, rvalid = false, bvalid = false;

    uint8_t &byte(uint64_t a) {
        auto &p = pages[a >> 12];
        if (p.empty())
            p.assign(4096, 0);
        return p[a & 0xFFF];
    }
    void write(uint64_t a, const void *src, size_t n) {
        for (size_t i = 0; i < n; ++i) byte(a + i) = static_cast<const uint8_t *>(src)[i];
    }
    void read(uint64_t a, void *dst, size_t n) {
        for (size_t i = 0; i < n; ++i) static_cast<uint8_t *>(dst)[i] = byte(a + i);
    }
    void w32(uint64_t a, uint32_t v) { write(a, &v, 4); }
    uint32_t r32(uint64_t a) { uint32_t v; read(a, &v, 4); return v; }
    bool rnd() { lcg = lcg * 1103515245u + 12345u; return !backpressure || ((lcg >> 16) & 3) != 0; }
    static bool is_err(uint64_t a) { return a >= kErrLo && a < kErrHi; }
    void violation(const char *what, uint64_t a) {
        std::printf("AXI violation: %s at 0x%llx\n", what, (unsigned long long)a);
        ++violations;
    }
    void check_burst(uint64_t addr, unsigned len, unsigned size, unsigned burst) {
        ++bursts;
        if (len > 15) violation("burst longer than 16 beats", addr);
        if ((1u << size) != bytes) violation("AxSIZE is not the bus width", addr);
        if (burst != 1) violation("not an INCR burst", addr);
        if ((addr & 0xFFF) + uint64_t(len + 1) * bytes > 4096)
            violation("burst crosses a 4 KiB boundary", addr);
    }

    template <class T> void pre_edge(T *t) {
        // AR
        if (t->m_arvalid && arready) {
            check_burst(t->m_araddr, t->m_arlen, t->m_arsize, t->m_arburst);
            rq.push_back({t->m_araddr, t->m_arlen + 1u, 0, is_err(t->m_araddr), 6});
        }
        // R: the beat on the bus is taken when rready
        if (rvalid && t->m_rready) {
            Burst &b = rq.front();
            if (++b.beat == b.len)
                rq.pop_front();
        }
        // AW / W
        if (t->m_awvalid && awready) {
            check_burst(t->m_awaddr, t->m_awlen, t->m_awsize, t->m_awburst);
            wq.push_back({t->m_awaddr, t->m_awlen + 1u, 0, is_err(t->m_awaddr), 0});
        }
        if (t->m_wvalid && wready) {
            if (wq.empty()) {
                violation("W beat before its AW", 0);
            } else {
                Burst &b = wq.front();
                const bool last = b.beat + 1 == b.len;
                if (bool(t->m_wlast) != last) violation("WLAST on the wrong beat", b.addr);
                uint64_t a = (b.addr & ~uint64_t(bytes - 1)) + uint64_t(b.beat) * bytes;
                for (unsigned i = 0; i < bytes; ++i) {
                    if (!((uint64_t(t->m_wstrb) >> i) & 1)) continue;
                    uint8_t v = bytes == 4 ? uint8_t(uint32_t(t->m_wdata) >> (8 * i))
                                           : uint8_t(uint64_t(t->m_wdata) >> (8 * i));
                    if (!b.err) byte(a + i) = v;
                }
                if (last) {
                    bq.push_back({b.err, 4});
                    wq.pop_front();
                } else {
                    ++b.beat;
                }
            }
        }
        if (bvalid && t->m_bready)
            bq.pop_front();
    }
    template <class T> void apply(T *t) {
        arready = rnd() && rq.size() < 2;
        awready = rnd() && wq.size() < 2;
        wready = rnd();
        t->m_arready = arready;
        t->m_awready = awready;
        t->m_wready = wready;
        rvalid = false;
        if (!rq.empty()) {
            Burst &b = rq.front();
            if (b.delay) {
                --b.delay;
            } else if (rnd() || t->m_rvalid) { // once valid, stay valid until taken
                rvalid = true;
                uint64_t a = (b.addr & ~uint64_t(bytes - 1)) + uint64_t(b.beat) * bytes;
                uint64_t d = 0;
                for (unsigned i = 0; i < bytes; ++i) d |= uint64_t(byte(a + i)) << (8 * i);
                t->m_rdata = bytes == 4 ? uint32_t(d) : d;
                t->m_rresp = b.err ? 2 : 0;
                t->m_rlast = b.beat + 1 == b.len;
            }
        }
        t->m_rvalid = rvalid;
        bvalid = false;
        if (!bq.empty()) {
            if (bq.front().second) {
                --bq.front().second;
            } else {
                bvalid = true;
                t->m_bresp = bq.front().first ? 2 : 0;
            }
        }
        t->m_bvalid = bvalid;
    }
};

// ---- scripted SATA device ------------------------------------------------------------
uint32_t fis_dw(uint8_t b0, uint8_t b1, uint8_t b2, uint8_t b3) {
    return uint32_t(b0) | uint32_t(b1) << 8 | uint32_t(b2) << 16 | uint32_t(b3) << 24;
}

// The device-side link transport pins of one port in the verilated top.
struct DevPins {
    CData *rx_verdict, *rx_accept, *rx_sof, *rx_valid, *rx_end, *rx_crc_ok;
    IData *rx_data;
    CData *tx_req, *tx_valid, *tx_last, *tx_pop, *tx_done, *tx_status;
    IData *tx_data;
};
DevPins pins0(Vahci_tb_top *t) {
    return {&t->d_rx_verdict, &t->d_rx_accept, &t->d_rx_sof, &t->d_rx_valid, &t->d_rx_end,
            &t->d_rx_crc_ok, &t->d_rx_data, &t->d_tx_req, &t->d_tx_valid, &t->d_tx_last,
            &t->d_tx_pop, &t->d_tx_done, &t->d_tx_status, &t->d_tx_data};
}
DevPins pins1(Vahci_tb_top *t) {
    return {&t->d1_rx_verdict, &t->d1_rx_accept, &t->d1_rx_sof, &t->d1_rx_valid, &t->d1_rx_end,
            &t->d1_rx_crc_ok, &t->d1_rx_data, &t->d1_tx_req, &t->d1_tx_valid, &t->d1_tx_last,
            &t->d1_tx_pop, &t->d1_tx_done, &t->d1_tx_status, &t->d1_tx_data};
}

struct Device {
    std::vector<uint8_t> disk = std::vector<uint8_t>(1 << 21); // 4096 sectors
    std::deque<std::vector<uint32_t>> txq;    // frames to send, in order
    std::deque<std::function<bool()>> steps;  // gate before each next frame (true: go)
    size_t tx_idx = 0;
    bool tx_busy = false;
    // Idle cycles between frames. sata_link leaves IDLE for X_RDY in the cycle after a
    // frame when its request is already up; if that one SYNC slot is an ALIGN slot the
    // peer (still sending R_OK, waiting for SYNC) never sees SYNC and both wait forever.
    // A real transport layer has a few cycles of turnaround; so does this device.
    unsigned tx_gap = 0;
    std::vector<uint32_t> rx;
    bool rx_open = false, verdict = false;
    std::vector<std::vector<uint32_t>> received; // every FIS from the host
    unsigned tx_errors = 0;
    bool srst = false;
    // pending writes: bytes expected from the host
    struct Wr { uint64_t off; uint32_t left; int tag; bool ncq; };
    std::deque<Wr> wr;
    uint32_t err_cmd = 0xF0; // a command the device rejects with ABRT
    struct Ncq { int tag; bool write; uint64_t lba; uint32_t count; };
    std::vector<Ncq> ncq;    // accepted, not yet completed
    unsigned ncq_writes_queued = 0, ncq_writes_done = 0;

    void send(std::vector<uint32_t> f) { txq.push_back(std::move(f)); steps.push_back([] { return true; }); }
    void send_after(std::function<bool()> gate, std::vector<uint32_t> f) {
        txq.push_back(std::move(f));
        steps.push_back(std::move(gate));
    }
    void d2h(uint8_t status, uint8_t error, bool irq, uint32_t lba = 0, uint16_t count = 0) {
        send({fis_dw(0x34, irq ? 0x40 : 0, status, error),
              fis_dw(lba & 0xFF, (lba >> 8) & 0xFF, (lba >> 16) & 0xFF, 0xE0), 0,
              fis_dw(count & 0xFF, count >> 8, 0, 0), 0});
    }
    void signature() { d2h(0x50, 0x01, false, 0x000001, 1); } // ATA: PxSIG 0x00000101
    void data_frames(uint64_t off, uint32_t n) {
        for (uint32_t done = 0; done < n;) {
            uint32_t c = std::min<uint32_t>(8192, n - done);
            std::vector<uint32_t> f{0x46};
            for (uint32_t i = 0; i < c; i += 4) {
                uint32_t v;
                std::memcpy(&v, &disk[off + done + i], 4);
                f.push_back(v);
            }
            send(std::move(f));
            done += c;
        }
    }
    // NCQ completion of one tag's data phase (DMA Setup + data), then nothing else.
    void ncq_data(const Ncq &c) {
        const uint32_t n = c.count * 512;
        // DMA Setup: D (bit 5) for reads, A (bit 7, auto-activate) for writes, I = 0. It
        // goes out once the host has sent every earlier write's data.
        const unsigned before = ncq_writes_queued;
        send_after([this, before] { return ncq_writes_done >= before; },
                   {fis_dw(0x41, c.write ? 0x80 : 0x20, 0, 0), uint32_t(c.tag), 0, 0, 0, n, 0});
        if (c.write) {
            ++ncq_writes_queued;
            wr.push_back({c.lba * 512, n, c.tag, true});
            // the next frame waits for the data
        } else {
            data_frames(c.lba * 512, n);
        }
    }
    void sdb(uint32_t tags, uint8_t status = 0x40, uint8_t error = 0) {
        const unsigned before = ncq_writes_queued;
        send_after([this, before] { return ncq_writes_done >= before; },
                   {fis_dw(0xA1, 0x40, status, error), tags});
    }

    void on_fis(const std::vector<uint32_t> &f) {
        received.push_back(f);
        const uint8_t type = f[0] & 0xFF;
        if (type == 0x46) {
            if (wr.empty()) { std::printf("device: unexpected Data FIS\n"); ++failures; return; }
            Wr &w = wr.front();
            uint32_t n = uint32_t(f.size() - 1) * 4;
            if (n > w.left) { std::printf("device: Data FIS too long\n"); ++failures; n = w.left; }
            std::memcpy(&disk[w.off], &f[1], n);
            w.off += n;
            w.left -= n;
            if (w.left == 0) {
                const bool ncq_w = w.ncq;
                wr.pop_front();
                if (ncq_w)
                    ++ncq_writes_done;
                else
                    d2h(0x50, 0, true);
            } else if (!w.ncq) {
                send({0x39}); // DMA Activate for the next 8 KiB
            }
            return;
        }
        if (type != 0x27 || f.size() < 5) return;
        const bool c = (f[0] >> 15) & 1;
        if (!c) {
            const bool s = (f[3] >> 26) & 1;
            if (srst && !s) signature(); // SRST released: run diagnostics, signature
            srst = s;
            return;
        }
        const uint8_t cmd = (f[0] >> 16) & 0xFF;
        const uint64_t lba = (f[1] & 0xFFFFFF) | uint64_t(f[2] & 0xFFFFFF) << 24;
        const uint32_t count = (f[3] & 0xFFFF) ? (f[3] & 0xFFFF) : 65536;
        switch (cmd) {
        case 0xEC: { // IDENTIFY DEVICE: PIO Setup (D, I, status 58h, E_Status 50h, 512 B)
            send({fis_dw(0x5F, 0x60, 0x58, 0), 0, 0, fis_dw(0, 0, 0, 0x50), 512});
            std::vector<uint32_t> d{0x46};
            for (uint32_t i = 0; i < 128; ++i) d.push_back(0x1D000000u + i);
            send(std::move(d));
            break;
        }
        case 0x25: // READ DMA EXT
            data_frames(lba * 512, count * 512);
            d2h(0x50, 0, true);
            break;
        case 0x35: // WRITE DMA EXT
            wr.push_back({lba * 512, count * 512, -1, false});
            send({0x39});
            break;
        case 0x60:
        case 0x61: { // READ / WRITE FPDMA QUEUED: accept (BSY clear, no interrupt)
            const uint32_t feat = ((f[0] >> 24) & 0xFF) | ((f[2] >> 24) & 0xFF) << 8;
            ncq.push_back({int((f[3] & 0xFF) >> 3), cmd == 0x61, lba, feat ? feat : 65536});
            d2h(0x40, 0, false);
            break;
        }
        default:
            if (cmd == err_cmd)
                d2h(0x51, 0x04, true); // ERR, ABRT
            else
                d2h(0x50, 0, true);
        }
    }

    void post_edge(const DevPins &t) {
        // receive
        *t.rx_verdict = 0;
        if (*t.rx_sof) { rx.clear(); rx_open = true; }
        if (*t.rx_valid && rx_open) rx.push_back(*t.rx_data);
        if (*t.rx_end && rx_open) {
            rx_open = false;
            if (*t.rx_crc_ok) {
                *t.rx_verdict = 1;
                *t.rx_accept = 1;
                on_fis(rx);
            } else {
                std::printf("device: bad CRC from the host\n");
                ++failures;
            }
        }
        // transmit
        if (tx_busy && *t.tx_pop) ++tx_idx;
        if (tx_busy && *t.tx_done) {
            if (*t.tx_status != 0) ++tx_errors;
            txq.pop_front();
            steps.pop_front();
            tx_busy = false;
            tx_idx = 0;
            tx_gap = 4;
        }
        if (tx_gap) {
            --tx_gap;
        } else if (!tx_busy && !txq.empty() && steps.front()()) {
            tx_busy = true;
            tx_idx = 0;
        }
        *t.tx_req = tx_busy;
        if (tx_busy && tx_idx < txq.front().size()) {
            *t.tx_data = txq.front()[tx_idx];
            *t.tx_valid = 1;
            *t.tx_last = tx_idx + 1 == txq.front().size();
        } else {
            *t.tx_valid = 0;
            *t.tx_last = 0;
        }
    }
};

// ---- the bench ------------------------------------------------------------------------
struct Bench {
    std::unique_ptr<VerilatedContext> ctx = std::make_unique<VerilatedContext>();
    std::unique_ptr<Vahci_tb_top> t = std::make_unique<Vahci_tb_top>(ctx.get());
    AxiMem mem;
    Device dev, dev1; // port 0, port 1
    uint64_t cycle = 0;
    // PHY / OOB model: COMRESET released -> presence after 20 cycles, PhyRdy (Gen3) after
    // 60, then the device sends its signature.
    struct Phy { bool comreset_seen = true; uint64_t oob_at = 0; };
    Phy phy[2];
    bool auto_signature = true;

    Bench() {
        t->rst = 1;
        t->clk = 0;
        t->s_wstrb = 0xF;
        t->phy_rx_codeerr = 0;
        t->phy_rx_disperr = 0;
        t->eval();
        for (int i = 0; i < 4; ++i) tick();
        t->rst = 0;
    }
    void tick() {
        mem.pre_edge(t.get());
        t->clk = 1;
        t->eval();
        mem.apply(t.get());
        dev.post_edge(pins0(t.get()));
        dev1.post_edge(pins1(t.get()));
        phy_model(phy[0], t->phy_comreset, t->phy_offline, t->phy_ready, t->phy_gen,
                  t->phy_dev_present, dev);
        phy_model(phy[1], t->phy1_comreset, t->phy1_offline, t->phy1_ready, t->phy1_gen,
                  t->phy1_dev_present, dev1);
        t->clk = 0;
        t->eval();
        ++cycle;
    }
    void phy_model(Phy &p, bool comreset, bool offline, CData &ready, CData &gen,
                   CData &present, Device &d) {
        if (comreset || offline) {
            p.comreset_seen = true;
            ready = 0;
            present = offline ? 0 : present;
            p.oob_at = 0;
            return;
        }
        if (p.comreset_seen) {
            p.comreset_seen = false;
            p.oob_at = cycle;
        }
        if (p.oob_at && cycle == p.oob_at + 20) present = 1;
        if (p.oob_at && cycle == p.oob_at + 60) {
            ready = 1;
            gen = 3;
            if (auto_signature) d.signature();
        }
    }
    void run(unsigned n) { for (unsigned i = 0; i < n; ++i) tick(); }
    bool wait_for(const std::function<bool()> &cond, unsigned limit = 200000) {
        for (unsigned i = 0; i < limit; ++i) {
            if (cond()) return true;
            tick();
        }
        return false;
    }

    // AXI4-Lite master
    void wr(uint32_t a, uint32_t v, uint8_t strb = 0xF) {
        t->s_awaddr = a; t->s_awvalid = 1; t->s_wdata = v; t->s_wstrb = strb; t->s_wvalid = 1;
        bool aw = false, w = false;
        for (int i = 0; i < 100 && !(aw && w); ++i) {
            bool awr = t->s_awready, wrr = t->s_wready;
            tick();
            if (awr && t->s_awvalid) { aw = true; t->s_awvalid = 0; }
            if (wrr && t->s_wvalid) { w = true; t->s_wvalid = 0; }
        }
        t->s_bready = 1;
        for (int i = 0; i < 100 && !t->s_bvalid; ++i) tick();
        CHECK(t->s_bvalid);
        tick();
        t->s_bready = 0;
        t->s_wstrb = 0xF;
    }
    uint32_t rd(uint32_t a) {
        t->s_araddr = a; t->s_arvalid = 1;
        for (int i = 0; i < 100; ++i) {
            bool r = t->s_arready;
            tick();
            if (r) break;
        }
        t->s_arvalid = 0;
        t->s_rready = 1;
        for (int i = 0; i < 100 && !t->s_rvalid; ++i) tick();
        uint32_t v = t->s_rdata;
        tick();
        t->s_rready = 0;
        return v;
    }

    // Bring the port to running: link up, signature in, FIS receive on, engine started.
    // Port n's registers are 0x80 * n above port 0's; its structures 0x100000 * n above.
    void start_port(unsigned n = 0) {
        const uint32_t o = 0x80 * n;
        CHECK(wait_for([&] { return (rd(PxSSTS + o) & 0xF) == 3 && (rd(PxTFD + o) & 0x88) == 0; }));
        wr(PxCLB + o, uint32_t(kClb + 0x100000 * n)); wr(PxCLBU + o, 0);
        wr(PxFB + o, uint32_t(kFb + 0x100000 * n)); wr(PxFBU + o, 0);
        wr(PxSERR + o, 0xFFFFFFFF);
        wr(PxIS + o, 0xFFFFFFFF);
        wr(PxCMD + o, CMD_FRE);
        CHECK(wait_for([&] { return (rd(PxCMD + o) & CMD_FR) != 0; }));
        wr(PxCMD + o, CMD_FRE | CMD_ST);
        CHECK((rd(PxCMD + o) & CMD_CR) != 0);
    }
    // Command header + table for slot: CFIS (5 dwords), PRDT of (addr, bytes) pieces.
    void build(unsigned slot, const std::vector<uint32_t> &cfis, bool write,
               const std::vector<std::pair<uint64_t, uint32_t>> &prds, uint32_t extra = 0,
               unsigned port = 0) {
        const uint64_t clb = ahci_rtl_clb(port);
        const uint64_t ct = kCtba + 0x100000 * uint64_t(port) + 0x1000 * uint64_t(slot);
        const uint32_t dw0 = uint32_t(cfis.size()) | (write ? 1u << 6 : 0) | extra |
                             uint32_t(prds.size()) << 16;
        mem.w32(clb + 32 * slot + 0, dw0);
        mem.w32(clb + 32 * slot + 4, 0xDEADBEEF); // PRDBC: the HBA must overwrite it
        mem.w32(clb + 32 * slot + 8, uint32_t(ct));
        mem.w32(clb + 32 * slot + 12, uint32_t(ct >> 32));
        for (size_t i = 0; i < cfis.size(); ++i) mem.w32(ct + 4 * i, cfis[i]);
        for (size_t i = 0; i < prds.size(); ++i) {
            mem.w32(ct + 0x80 + 16 * i + 0, uint32_t(prds[i].first));
            mem.w32(ct + 0x80 + 16 * i + 4, uint32_t(prds[i].first >> 32));
            mem.w32(ct + 0x80 + 16 * i + 8, 0);
            mem.w32(ct + 0x80 + 16 * i + 12, prds[i].second - 1);
        }
    }
    static std::vector<uint32_t> h2d(uint8_t cmd, uint64_t lba, uint16_t count, uint16_t feat = 0,
                                     uint8_t dev = 0x40) {
        return {fis_dw(0x27, 0x80, cmd, feat & 0xFF),
                fis_dw(lba & 0xFF, (lba >> 8) & 0xFF, (lba >> 16) & 0xFF, dev),
                fis_dw((lba >> 24) & 0xFF, (lba >> 32) & 0xFF, (lba >> 40) & 0xFF, feat >> 8),
                fis_dw(count & 0xFF, count >> 8, 0, 0), 0};
    }
    uint32_t prdbc(unsigned slot, unsigned port = 0) {
        return mem.r32(ahci_rtl_clb(port) + 32 * slot + 4);
    }
    void issue(uint32_t slots) { wr(PxCI, slots); }
    bool wait_ci_clear(uint32_t mask, unsigned limit = 400000) {
        return wait_for([&] { return (rd(PxCI) & mask) == 0; }, limit);
    }
};

// Equal, or report the first differing byte.
bool same(const uint8_t *a, const uint8_t *e, size_t n, const char *what) {
    for (size_t i = 0; i < n; ++i)
        if (a[i] != e[i]) {
            std::printf("%s: first difference at byte 0x%zx: 0x%02x, expected 0x%02x\n", what, i,
                        a[i], e[i]);
            return false;
        }
    return true;
}

void fill(std::vector<uint8_t> &v, uint32_t seed) {
    for (auto &b : v) { seed = seed * 1664525u + 1013904223u; b = uint8_t(seed >> 24); }
}

// ---- cases ---------------------------------------------------------------------------

// Power-on values (AHCI 1.3.1 3.1, 3.3; docs/hardware.md 5.1, 5.2), write masks, and the
// port coming up (SStatus, signature, PhyRdy change in PxSERR mirrored as PxIS.PRCS).
void case_reset_values() {
    Bench b;
    const uint32_t cap = b.rd(CAP);
    CHECK_EQ(cap & 0x1F, kPorts - 1);     // NP
    CHECK_EQ((cap >> 8) & 0x1F, 31);      // NCS: 32 slots
    CHECK_EQ((cap >> 20) & 0xF, 3);       // ISS Gen3
    CHECK(cap & (1u << 30));              // SNCQ
    CHECK_EQ(cap >> 31, kAw == 64 ? 1 : 0); // S64A
    CHECK(cap & (1u << 24));              // SCLO
    CHECK(cap & (1u << 18));              // SAM
    CHECK(cap & (1u << 29));              // SSNTF
    CHECK_EQ(cap & ((1u << 27) | (1u << 17) | (1u << 16)), 0); // no SSS, SPM, FBSS
    CHECK_EQ(b.rd(GHC), 0x80000000u);     // AE, no HR, no IE
    CHECK_EQ(b.rd(IS), 0);
    CHECK_EQ(b.rd(PI), (1u << kPorts) - 1);
    CHECK_EQ(b.rd(VS), 0x00010301u);
    CHECK_EQ(b.rd(CAP2), 0);
    CHECK_EQ(b.rd(PxCLB), 0);
    CHECK_EQ(b.rd(PxFB), 0);
    CHECK_EQ(b.rd(PxIS), 0);
    CHECK_EQ(b.rd(PxIE), 0);
    CHECK_EQ(b.rd(PxCMD), 0x6);           // SUD, POD
    CHECK_EQ(b.rd(PxTFD), 0x7F);
    CHECK_EQ(b.rd(PxSIG), 0xFFFFFFFFu);
    CHECK_EQ(b.rd(PxSCTL), 0);
    CHECK_EQ(b.rd(PxSACT), 0);
    CHECK_EQ(b.rd(PxCI), 0);
    CHECK_EQ(b.rd(PxSNTF), 0);
    // write masks
    b.wr(PxIE, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxIE), 0xFDC000FFu);
    b.wr(PxCLB, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxCLB), 0xFFFFFC00u);
    b.wr(PxFB, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxFB), 0xFFFFFF00u);
    b.wr(PxCLBU, 0x12345678);
    CHECK_EQ(b.rd(PxCLBU), kAw == 64 ? 0x12345678u : 0); // RO 0 without S64A
    b.wr(PxCLB, 0xABCDEF00, 0x2);         // WSTRB: byte 1 only
    CHECK_EQ(b.rd(PxCLB), 0xFFFFEC00u);
    b.wr(PxIE, 0);
    b.wr(PxCI, 1);                        // ST clear: PxCI writes are lost
    CHECK_EQ(b.rd(PxCI), 0);
    b.wr(CAP, 0);                         // read-only
    CHECK_EQ(b.rd(CAP), cap);
    // link up: SStatus DET 3, SPD Gen3, IPM active; signature from the device
    CHECK(b.wait_for([&] { return b.rd(PxSSTS) == 0x133; }));
    CHECK(b.wait_for([&] { return b.rd(PxTFD) == 0x0150; }));
    CHECK_EQ(b.rd(PxSIG), 0x00000101u);
    CHECK(b.rd(PxSERR) & (1u << 16));     // DIAG.N
    CHECK(b.rd(PxIS) & IS_PRCS);          // mirrors it
    b.wr(PxIS, IS_PRCS);                  // RW1C does not clear a mirrored bit
    CHECK(b.rd(PxIS) & IS_PRCS);
    b.wr(PxSERR, 1u << 16);
    CHECK_EQ(b.rd(PxIS) & IS_PRCS, 0);
    CHECK_EQ(b.rd(PxSERR), 0);
    CHECK_EQ(b.mem.violations, 0);
}

// GHC.HR: registers back to reset values, HR self-clears, the port re-initializes.
void case_hba_reset() {
    Bench b;
    b.start_port();
    const uint32_t clb = b.rd(PxCLB), fb = b.rd(PxFB);
    CHECK(clb != 0 && fb != 0);
    b.wr(PxIE, 0xFFFFFFFF);
    b.wr(GHC, 0x2);
    CHECK_EQ(b.rd(GHC), 0x80000002u);
    b.wr(GHC, 0x1);
    CHECK_EQ(b.rd(GHC) & 1, 1);           // HR reads 1 until done
    CHECK(b.wait_for([&] { return (b.rd(GHC) & 1) == 0; }, 5000));
    CHECK_EQ(b.rd(GHC), 0x80000000u);     // IE cleared
    CHECK_EQ(b.rd(PxCLB), clb);           // kept: "except PxFB/PxFBU/PxCLB/PxCLBU" (AHCI 1.3.1 10.4.3)
    CHECK_EQ(b.rd(PxFB), fb);
    CHECK_EQ(b.rd(PxIE), 0);
    CHECK_EQ(b.rd(PxCMD), 0x6);
    CHECK_EQ(b.rd(PxSIG), 0xFFFFFFFFu);
    // COMRESET, then the device's signature again
    CHECK(b.wait_for([&] { return b.rd(PxSSTS) == 0x133 && b.rd(PxTFD) == 0x0150; }));
    CHECK_EQ(b.rd(PxSIG), 0x00000101u);
}

// PxCMD.FRE/FR and ST/CR handshakes (AHCI 1.3.1 10.3.1, 10.3.2).
void case_start_stop() {
    Bench b;
    b.start_port();
    CHECK_EQ(b.rd(PxCMD) & (CMD_ST | CMD_CR | CMD_FRE | CMD_FR),
             CMD_ST | CMD_CR | CMD_FRE | CMD_FR);
    b.wr(PxCMD, CMD_FRE);                 // ST 1->0
    CHECK((b.rd(PxCMD) & CMD_CR) != 0);   // CR still 1 right after
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    b.wr(PxCMD, 0);                       // FRE 1->0
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_FR) == 0; }, 2000));
    CHECK_EQ(b.rd(PxCMD) & 0xFFFF, 0x6);
    // and again
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_FR) != 0; }, 2000));
    b.wr(PxCMD, CMD_FRE | CMD_ST);
    CHECK_EQ(b.rd(PxCMD) & (CMD_ST | CMD_CR), CMD_ST | CMD_CR);
}

// IDENTIFY DEVICE: PIO data-in (PIO Setup with E_Status, one Data FIS).
void case_identify() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    b.wr(GHC, 0x2);
    b.build(0, Bench::h2d(0xEC, 0, 0, 0, 0), false, {{kBuf, 512}});
    b.issue(1);
    CHECK(b.wait_ci_clear(1));
    CHECK(b.rd(PxIS) & IS_PSS);
    CHECK(b.t->irq);
    CHECK_EQ(b.t->irq_port, 1); // port 0's own line: PxIS & PxIE, GHC.IE set
    CHECK(b.rd(IS) & 1);
    CHECK_EQ(b.rd(PxTFD), 0x50);
    CHECK_EQ(b.prdbc(0), 512);
    for (uint32_t i = 0; i < 128; ++i)
        if (b.mem.r32(kBuf + 4 * i) != 0x1D000000u + i) {
            CHECK_EQ(b.mem.r32(kBuf + 4 * i), 0x1D000000u + i);
            break;
        }
    CHECK_EQ(b.mem.r32(kFb + 0x20) & 0xFF, 0x5F); // PSFIS
    CHECK_EQ(b.mem.r32(kFb + 0x2C) >> 24, 0x50);  // its E_Status
    // interrupt acknowledge: PxIS then IS
    b.wr(PxIS, 0xFFFFFFFF);
    b.wr(IS, 1);
    CHECK_EQ(b.rd(IS), 0);
    CHECK(!b.t->irq);
    CHECK_EQ(b.mem.violations, 0);
}

// WRITE DMA EXT then READ DMA EXT of 24 KiB over a PRDT whose pieces straddle 4 KiB
// boundaries (bursts must split) and need several Data FISes (8 KiB each).
void case_dma_write_read() {
    Bench b;
    b.start_port();
    std::vector<uint8_t> data(24576);
    fill(data, 7);
    const std::vector<std::pair<uint64_t, uint32_t>> wprd{
        {kBuf + 0x0F00, 0x1200}, {kBuf + 0x4F80, 0x2E00}, {kBuf + 0x9000, 0x2000}};
    uint32_t pos = 0;
    for (auto &p : wprd) { b.mem.write(p.first, &data[pos], p.second); pos += p.second; }
    CHECK_EQ(pos, data.size());
    b.build(3, Bench::h2d(0x35, 100, 48), true, wprd);
    b.issue(1u << 3);
    CHECK(b.wait_ci_clear(1u << 3));
    CHECK(b.rd(PxIS) & IS_DHRS);
    CHECK_EQ(b.prdbc(3), data.size());
    CHECK(same(&b.dev.disk[100 * 512], data.data(), data.size(), "disk after WRITE DMA"));
    std::printf("received %zu FISes, last type 0x%x size %zu\n", b.dev.received.size(),
                b.dev.received.back()[0] & 0xFF, b.dev.received.back().size());
    CHECK_EQ(b.mem.r32(kFb + 0x40) & 0xFF, 0x34); // RFIS
    // read it back into a different PRDT layout
    // with 64-bit addressing the second piece lies above 4 GiB
    const uint64_t high = kAw == 64 ? 0x123400000ull : kBuf + 0x30000;
    const std::vector<std::pair<uint64_t, uint32_t>> rprd{{kBuf + 0x20010, 0x3000},
                                                          {high + 0xFF8, 0x3000}};
    b.build(4, Bench::h2d(0x25, 100, 48), false, rprd);
    b.issue(1u << 4);
    CHECK(b.wait_ci_clear(1u << 4));
    CHECK_EQ(b.prdbc(4), data.size());
    std::vector<uint8_t> back(data.size());
    b.mem.read(rprd[0].first, &back[0], 0x3000);
    b.mem.read(rprd[1].first, &back[0x3000], 0x3000);
    CHECK(back == data);
    CHECK_EQ(b.rd(PxTFD), 0x50);
    CHECK_EQ(b.mem.violations, 0);
    std::printf("dma_write_read (AXI %u-bit data, %u-bit addresses): %llu cycles, %u bursts\n",
                kDw, kAw, (unsigned long long)b.cycle, b.mem.bursts);
}

// 32 NCQ writes then 32 NCQ reads, each completed out of order, several tags per SDB.
void case_ncq32() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    std::vector<uint8_t> data(32 * 4096);
    fill(data, 99);
    for (int pass = 0; pass < 2; ++pass) {
        const bool write = pass == 0;
        for (unsigned tag = 0; tag < 32; ++tag) {
            const uint64_t buf = kBuf + 0x40000 * pass + 0x1000 * tag;
            if (write) b.mem.write(buf, &data[tag * 4096], 4096);
            // FPDMA: count in Features, tag in Count bits 7:3, lba 8 sectors per tag
            b.build(tag, Bench::h2d(write ? 0x61 : 0x60, 1000 + 8 * tag, uint16_t(tag << 3), 8),
                    write, {{buf, 2048}, {buf + 2048, 2048}});
        }
        b.wr(PxSACT, 0xFFFFFFFF);
        b.issue(0xFFFFFFFF);
        CHECK(b.wait_for([&] { return b.dev.ncq.size() == 32; }));
        CHECK(b.wait_ci_clear(0xFFFFFFFF));
        CHECK_EQ(b.rd(PxSACT), 0xFFFFFFFFu);
        // complete in a scrambled order: groups of 1..5 tags per SDB
        std::vector<Device::Ncq> order = b.dev.ncq;
        b.dev.ncq.clear();
        for (size_t i = 0; i < order.size(); ++i) std::swap(order[i], order[(i * 7 + 3) % order.size()]);
        size_t i = 0, g = 1;
        while (i < order.size()) {
            uint32_t mask = 0;
            for (size_t k = 0; k < g && i < order.size(); ++k, ++i) {
                b.dev.ncq_data(order[i]);
                mask |= 1u << order[i].tag;
            }
            b.dev.sdb(mask);
            g = g % 5 + 1;
        }
        if (!b.wait_for([&] { return b.rd(PxSACT) == 0; }, 2000000)) {
            std::printf("ncq32 pass %d stuck: PxSACT 0x%x PxIS 0x%x PxTFD 0x%x PxSERR 0x%x, "
                        "device: %zu frames queued, %u/%u writes done\n", pass, b.rd(PxSACT),
                        b.rd(PxIS), b.rd(PxTFD), b.rd(PxSERR), b.dev.txq.size(),
                        b.dev.ncq_writes_done, b.dev.ncq_writes_queued);
            std::printf("engine state %u, rx FIFO %u, link states host %u device %u, dev tx busy %d idx %zu\n",
                        b.t->dbg_e_state, b.t->dbg_rxf_count, b.t->dbg_h_link, b.t->dbg_d_link,
                        b.dev.tx_busy, b.dev.tx_idx);
            CHECK(false);
        }
        CHECK(b.rd(PxIS) & IS_SDBS);
        CHECK_EQ(b.rd(PxIS) & (IS_TFES | IS_IFS | IS_HBFS), 0);
        for (unsigned tag = 0; tag < 32; ++tag) CHECK_EQ(b.prdbc(tag), 4096);
        b.wr(PxIS, 0xFFFFFFFF);
    }
    CHECK(std::memcmp(&b.dev.disk[1000 * 512], data.data(), data.size()) == 0);
    std::vector<uint8_t> back(data.size());
    b.mem.read(kBuf + 0x40000, back.data(), back.size());
    CHECK(back == data);
    CHECK_EQ(b.mem.r32(kFb + 0x58) & 0xFF, 0xA1); // SDBFIS
    CHECK_EQ(b.mem.r32(kFb + 0x00) & 0xFF, 0x41); // DSFIS
    CHECK_EQ(b.mem.violations, 0);
    std::printf("ncq32: %llu cycles\n", (unsigned long long)b.cycle);
}

// A command the device fails (ERR in the D2H FIS): TFES, the engine stops with PxCI left
// set and CCS at the slot; clearing ST is the recovery (docs/hardware.md 5.9).
void case_tfes() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    b.build(5, Bench::h2d(0xF0, 0, 0), false, {});
    b.build(6, Bench::h2d(0xE7, 0, 0), false, {}); // FLUSH CACHE, queued behind it
    b.issue((1u << 5) | (1u << 6));
    CHECK(b.wait_for([&] { return (b.rd(PxIS) & IS_TFES) != 0; }));
    b.run(2000);
    CHECK_EQ(b.rd(PxTFD), 0x0451);
    CHECK_EQ(b.rd(PxCI), (1u << 5) | (1u << 6)); // slot 5 failed, slot 6 not issued
    CHECK_EQ((b.rd(PxCMD) >> 8) & 0x1F, 5);       // CCS
    CHECK(b.rd(PxIS) & IS_DHRS);
    b.wr(PxCMD, CMD_FRE);                          // recovery: ST 1->0
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    CHECK_EQ(b.rd(PxCI), 0);
    b.wr(PxIS, 0xFFFFFFFF);
    b.wr(PxCMD, CMD_FRE | CMD_ST);
    b.build(6, Bench::h2d(0xE7, 0, 0), false, {});
    b.issue(1u << 6);
    CHECK(b.wait_ci_clear(1u << 6));
    CHECK_EQ(b.rd(PxIS) & IS_TFES, 0);
    CHECK_EQ(b.rd(PxTFD), 0x50);
}

// AXI SLVERR on the data buffer of a DMA read: HBFS, the engine stops with PxCI set;
// then a header fetch from an erroring command list.
void case_hbfs() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    b.build(2, Bench::h2d(0x25, 0, 8), false, {{kErrLo + 0x1000, 4096}});
    b.issue(1u << 2);
    CHECK(b.wait_for([&] { return (b.rd(PxIS) & IS_HBFS) != 0; }));
    CHECK_EQ(b.rd(PxCI), 1u << 2);
    CHECK_EQ((b.rd(PxCMD) >> 8) & 0x1F, 2);
    // the device still completes on the wire; nothing else breaks
    b.run(5000);
    CHECK_EQ(b.rd(PxCI), 1u << 2);
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    b.wr(PxIS, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxIS) & IS_HBFS, 0);
    // command list in the error window: the header fetch fails
    b.wr(PxCLB, uint32_t(kErrLo));
    b.wr(PxCMD, CMD_FRE | CMD_ST);
    b.issue(1);
    CHECK(b.wait_for([&] { return (b.rd(PxIS) & IS_HBFS) != 0; }));
    CHECK_EQ(b.rd(PxCI), 1);
    CHECK_EQ(b.mem.violations, 0);
}

// AXI SLVERR on the data buffer of a PIO data-in (IDENTIFY DEVICE): HBFS with the device's
// Data FIS still arriving. The port stops; once software clears ST, CR must clear within
// 500 ms (AHCI 1.3.1 3.3.7, 10.3.2) although the device sent the whole frame; the
// conformance suite's hbfs.cr-clears found it still set on the reference.
void case_hbfs_pio() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    b.build(0, Bench::h2d(0xEC, 0, 0, 0, 0), false, {{kErrLo + 0x2000, 512}});
    b.issue(1);
    CHECK(b.wait_for([&] { return (b.rd(PxIS) & IS_HBFS) != 0; }));
    CHECK_EQ(b.rd(PxCI), 1);
    CHECK(b.rd(PxCMD) & CMD_CR);
    b.run(5000); // the rest of the Data FIS arrives
    CHECK_EQ(b.rd(PxCI), 1);
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    CHECK_EQ(b.rd(PxCI), 0);
    CHECK_EQ(b.mem.violations, 0);
}

// PhyRdy lost while the port transmits a Data FIS (a WRITE DMA's 8 KiB frame, the device
// 64 dwords into it): the link ends the frame as aborted and stops draining the transmit
// FIFO. The engine must stop feeding it and report the loss (PxIS.IFS, PxSERR.ERR.C), and
// ST 1->0 must clear CR; the engine that waited for FIFO room forever never cleared CR
// (found by fault-phy-flap on profile-dmaclk.yaml with a 200 MHz DMA clock, where a flap
// lands in such a frame). After a COMRESET the same write goes through.
void case_tx_link_loss() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    std::vector<uint8_t> data(8192);
    fill(data, 11);
    b.mem.write(kBuf, data.data(), data.size());
    b.build(1, Bench::h2d(0x35, 200, 16), true, {{kBuf, 8192}});
    b.issue(1u << 1);
    CHECK(b.wait_for([&] { return b.dev.rx_open && b.dev.rx.size() > 64; }));
    b.t->phy_ready = 0; // PhyRdy lost (the PHY model restores it only after a COMRESET)
    CHECK(b.wait_for([&] { return (b.rd(PxIS) & IS_IFS) != 0; }, 20000));
    CHECK(b.rd(PxSERR) & (1u << 9)); // ERR.C: the link lost under the frame
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    // recovery: COMRESET, clear the errors, restart and send the write again
    b.wr(PxSCTL, 0x301);
    b.run(20);
    b.wr(PxSCTL, 0x300);
    CHECK(b.wait_for([&] { return b.rd(PxSSTS) == 0x133 && b.rd(PxTFD) == 0x0150; }));
    b.wr(PxSERR, 0xFFFFFFFF);
    b.wr(PxIS, 0xFFFFFFFF);
    b.wr(PxCMD, CMD_FRE | CMD_ST);
    b.dev.wr.clear();
    b.build(1, Bench::h2d(0x35, 200, 16), true, {{kBuf, 8192}});
    b.issue(1u << 1);
    CHECK(b.wait_ci_clear(1u << 1));
    CHECK_EQ(b.rd(PxIS) & (IS_IFS | IS_HBFS), 0);
    CHECK(same(&b.dev.disk[200 * 512], data.data(), data.size(), "disk after the retried WRITE DMA"));
    CHECK_EQ(b.mem.violations, 0);
}

// SRST through the two-FIS sequence (header R and C bits, Device Control FISes with the C
// bit clear) after CLO; the device's new signature loads PxSIG (docs/hardware.md 5.7).
void case_srst() {
    Bench b;
    b.start_port();
    // make the port look busy, then CLO clears BSY and DRQ
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    b.wr(PxCMD, CMD_FRE | CMD_CLO);
    CHECK_EQ(b.rd(PxCMD) & CMD_CLO, 0);
    b.wr(PxCMD, CMD_FRE | CMD_ST);
    const std::vector<uint32_t> srst_on{fis_dw(0x27, 0, 0, 0), 0, 0, fis_dw(0, 0, 0, 0x0C), 0};
    const std::vector<uint32_t> srst_off{fis_dw(0x27, 0, 0, 0), 0, 0, fis_dw(0, 0, 0, 0x08), 0};
    b.build(0, srst_on, false, {}, (1u << 8) | (1u << 10)); // R, C
    b.issue(1);
    CHECK(b.wait_ci_clear(1));                   // C: completes on R_OK
    b.auto_signature = false;
    b.mem.w32(kFb + 0x40, 0x80);                 // stale RFIS marker
    b.build(0, srst_off, false, {});
    b.issue(1);
    CHECK(b.wait_ci_clear(1));                   // the signature D2H releases BSY
    CHECK_EQ(b.rd(PxSIG), 0x00000101u);
    CHECK_EQ(b.rd(PxTFD), 0x0150);
    CHECK_EQ(b.mem.r32(kFb + 0x40) & 0xFF, 0x34);
    CHECK_EQ(b.dev.received.size(), 2u);
}

// COMRESET through PxSCTL.DET: 1 holds COMRESET (TFD 7Fh, link down), 0 releases it; the
// link comes back with the signature.
void case_comreset() {
    Bench b;
    b.start_port();
    b.wr(PxCMD, CMD_FRE);
    CHECK(b.wait_for([&] { return (b.rd(PxCMD) & CMD_CR) == 0; }, 2000));
    b.wr(PxSCTL, 0x301);
    b.run(20);
    CHECK(b.t->phy_comreset);
    CHECK_EQ(b.rd(PxTFD), 0x7F);
    CHECK_EQ(b.rd(PxSSTS) & 0xF, 1);             // presence, no communication
    CHECK_EQ(b.rd(PxSCTL), 0x301);
    b.wr(PxSCTL, 0x300);
    CHECK(b.wait_for([&] { return b.rd(PxSSTS) == 0x133 && b.rd(PxTFD) == 0x0150; }));
    CHECK(b.rd(PxSERR) & (1u << 16));
    // SPD limit reaches the PHY
    b.wr(PxSCTL, 0x311);
    CHECK_EQ(b.t->phy_spd_limit, 1);
    b.wr(PxSCTL, 0x310);
}

// Receive symbol errors from the PHY's 8b/10b decoder (phy_rx_codeerr / phy_rx_disperr, a
// flag per byte): PxSERR (AHCI 1.3.1 3.3.12) gets DIAG.B (bit 19, 10B to 8B decode error)
// with ERR.T (bit 8) for either; DIAG.D (bit 20, disparity error) is "not used by AHCI"
// and stays 0. Neither raises an interrupt or stops the engine, and a command still
// completes after them.
void case_rx_symbol_err() {
    Bench b;
    b.start_port();
    b.wr(PxIE, 0xFFFFFFFF);
    b.wr(GHC, 0x2);
    constexpr uint32_t kErrT = 1u << 8, kDiagB = 1u << 19, kDiagD = 1u << 20;
    auto pulse = [&](uint8_t code, uint8_t disp) { // one receive dword with these flags
        b.t->phy_rx_codeerr = code;
        b.t->phy_rx_disperr = disp;
        b.tick();
        b.t->phy_rx_codeerr = 0;
        b.t->phy_rx_disperr = 0;
        b.run(4);
    };
    CHECK_EQ(b.rd(PxSERR), 0);
    pulse(0x4, 0); // code error on byte 2
    CHECK_EQ(b.rd(PxSERR), kDiagB | kErrT);
    CHECK_EQ(b.rd(PxIS), 0);
    CHECK(!b.t->irq);
    b.wr(PxSERR, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxSERR), 0);
    pulse(0, 0x8); // disparity error on byte 3: a decode error too, not DIAG.D
    CHECK_EQ(b.rd(PxSERR), kDiagB | kErrT);
    CHECK_EQ(b.rd(PxSERR) & kDiagD, 0);
    b.wr(PxSERR, 0xFFFFFFFF);
    pulse(0x1, 0x2); // both, on bytes 0 and 1 of one dword
    CHECK_EQ(b.rd(PxSERR), kDiagB | kErrT);
    b.wr(PxSERR, kDiagB); // RW1C: DIAG.B alone
    CHECK_EQ(b.rd(PxSERR), kErrT);
    b.wr(PxSERR, 0xFFFFFFFF);
    CHECK_EQ(b.rd(PxSERR), 0);
    CHECK_EQ(b.rd(PxIS), 0);
    CHECK(!b.t->irq);
    CHECK_EQ(b.rd(PxCMD) & (CMD_ST | CMD_CR), CMD_ST | CMD_CR);
    // the engine still runs: IDENTIFY DEVICE completes
    b.build(0, Bench::h2d(0xEC, 0, 0, 0, 0), false, {{kBuf, 512}});
    b.issue(1);
    CHECK(b.wait_ci_clear(1));
    CHECK(b.rd(PxIS) & IS_PSS);
    CHECK_EQ(b.rd(PxSERR), 0);
    CHECK_EQ(b.mem.r32(kBuf), 0x1D000000u);
    CHECK_EQ(b.mem.violations, 0);
}

// Two ports at once (2-port build): each port runs a WRITE DMA and a READ DMA against its
// own device, sharing the AXI master through the arbiter; IS shows both ports.
void case_two_ports() {
    Bench b;
    b.start_port(0);
    b.start_port(1);
    b.wr(PxIE, 0xFFFFFFFF);
    b.wr(PxIE + 0x80, 0xFFFFFFFF);
    std::vector<uint8_t> d0(16384), d1(16384);
    fill(d0, 1);
    fill(d1, 2);
    b.mem.write(kBuf, d0.data(), d0.size());
    b.mem.write(kBuf + 0x10000, d1.data(), d1.size());
    b.build(0, Bench::h2d(0x35, 10, 32), true, {{kBuf, 16384}}, 0, 0);
    b.build(7, Bench::h2d(0x35, 20, 32), true, {{kBuf + 0x10000, 8192}, {kBuf + 0x12000, 8192}},
            0, 1);
    b.wr(PxCI + 0x80, 1u << 7);
    b.wr(PxCI, 1);
    CHECK(b.wait_for([&] { return b.rd(PxCI) == 0 && b.rd(PxCI + 0x80) == 0; }));
    CHECK_EQ(b.rd(IS), 3);
    CHECK(b.t->irq == 0); // GHC.IE still clear
    CHECK_EQ(b.t->irq_port, 0);
    // Per-port lines: each follows its port's PxIS & PxIE under GHC.IE; IS (and irq)
    // stay set until written, a port's line drops with its PxIS.
    b.wr(GHC, 0x2);
    CHECK(b.t->irq);
    CHECK_EQ(b.t->irq_port, 3);
    b.wr(PxIS, 0xFFFFFFFF);
    CHECK_EQ(b.t->irq_port, 2);
    b.wr(PxIE + 0x80, 0);
    CHECK_EQ(b.t->irq_port, 0);
    CHECK(b.t->irq); // IS bits 0 and 1 are latched until the host writes them
    b.wr(PxIE + 0x80, 0xFFFFFFFF);
    CHECK_EQ(b.t->irq_port, 2);
    b.wr(GHC, 0);
    CHECK_EQ(b.t->irq_port, 0);
    CHECK(!b.t->irq);
    b.wr(PxIS + 0x80, 0xFFFFFFFF);
    b.wr(IS, 3);
    CHECK_EQ(b.rd(IS), 0);
    CHECK(same(&b.dev.disk[10 * 512], d0.data(), d0.size(), "port 0 disk"));
    CHECK(same(&b.dev1.disk[20 * 512], d1.data(), d1.size(), "port 1 disk"));
    CHECK_EQ(b.prdbc(0, 0), 16384);
    CHECK_EQ(b.prdbc(7, 1), 16384);
    b.build(1, Bench::h2d(0x25, 10, 32), false, {{kBuf + 0x40000, 16384}}, 0, 0);
    b.build(2, Bench::h2d(0x25, 20, 32), false, {{kBuf + 0x50000, 16384}}, 0, 1);
    b.wr(PxCI, 1u << 1);
    b.wr(PxCI + 0x80, 1u << 2);
    CHECK(b.wait_for([&] { return b.rd(PxCI) == 0 && b.rd(PxCI + 0x80) == 0; }));
    std::vector<uint8_t> back(16384);
    b.mem.read(kBuf + 0x40000, back.data(), back.size());
    CHECK(back == d0);
    b.mem.read(kBuf + 0x50000, back.data(), back.size());
    CHECK(back == d1);
    CHECK_EQ(b.mem.r32(kFb + 0x40) & 0xFF, 0x34);
    CHECK_EQ(b.mem.r32(kFb + 0x100000 + 0x40) & 0xFF, 0x34);
    b.wr(PxIS + 0x80, 0xFFFFFFFF);
    b.wr(IS, 2);
    CHECK_EQ(b.rd(IS), 1);               // port 0 still asks
    CHECK_EQ(b.mem.violations, 0);
}

const std::map<std::string, void (*)()> kCases{
    {"two_ports", case_two_ports},
    {"reset_values", case_reset_values}, {"hba_reset", case_hba_reset},
    {"start_stop", case_start_stop},     {"identify", case_identify},
    {"dma_write_read", case_dma_write_read}, {"ncq32", case_ncq32},
    {"tfes", case_tfes},                 {"hbfs", case_hbfs},     {"hbfs_pio", case_hbfs_pio},
    {"srst", case_srst},                 {"comreset", case_comreset},
    {"tx_link_loss", case_tx_link_loss}, {"rx_symbol_err", case_rx_symbol_err},
};

} // namespace

int main(int argc, char **argv) {
    if (argc < 2 || std::string(argv[1]) == "list") {
        for (auto &c : kCases) std::printf("%s\n", c.first.c_str());
        return argc < 2 ? 2 : 0;
    }
    int bad = 0;
    for (int i = 1; i < argc; ++i) {
        auto it = kCases.find(argv[i]);
        if (it == kCases.end()) {
            std::fprintf(stderr, "ahci_rtl_test: unknown case '%s' (try 'list')\n", argv[i]);
            return 2;
        }
        failures = 0;
        it->second();
        std::printf("%s: %s\n", argv[i], failures ? "FAILED" : "passed");
        bad += failures != 0;
    }
    return bad ? 1 : 0;
}
