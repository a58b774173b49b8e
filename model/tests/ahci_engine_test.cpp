// AHCI port engine against a scripted device through a real SataLink: signature, RX FIS
// area, PxTFD/PxSIG, PxCI completion, interrupts, PRDT scatter/gather with PRDBC and DPS,
// PIO in/out, DMA in/out, NCQ (DMA Setup, auto-activate, SDB), SRST with the R/C bits,
// COMRESET, and the error stops (TFES, OFS, HBFS, IFS, UFS).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/ahci/ahci_regs.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/tests/hba_test_common.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using sata::Fis;
using sc_core::SC_US;

namespace {

using Sink = test::RecordingTrace;

// A device whose behaviour each test scripts: on_fis runs in the device's own thread for
// every FIS the host sends and may send FISes back or pull the next host FIS.
struct ScriptDev : sc_core::sc_module, link::LinkEndpoint {
    SC_HAS_PROCESS(ScriptDev);
    link::SataLink *link = nullptr;
    std::deque<Fis> q;
    std::vector<Fis> got;
    sc_core::sc_event ev;
    std::function<void(const Fis &)> on_fis;
    std::function<bool(const Fis &)> accept; // false: answer R_ERR
    Fis signature = sata::make_reg_d2h(0x50, 0x01, 0x000001, 0x00, 1, false);
    bool sig_due = false;

    explicit ScriptDev(sc_core::sc_module_name n) : sc_module(n) { SC_THREAD(run); }
    bool receive_fis(const Fis &f) override {
        if (accept && !accept(f))
            return false;
        got.push_back(f);
        q.push_back(f);
        ev.notify(sc_core::SC_ZERO_TIME);
        return true;
    }
    void phy_changed(bool up, link::Gen) override {
        if (up) {
            sig_due = true;
            ev.notify(sc_core::SC_ZERO_TIME);
        }
    }
    link::FrameStatus send(const Fis &f) { return link->send_from_device(f); }
    Fis next_fis() {
        while (q.empty())
            wait(ev);
        Fis f = q.front();
        q.pop_front();
        return f;
    }
    void run() {
        for (;;) {
            if (sig_due) {
                sig_due = false;
                wait(2, SC_US); // reset_ready
                send(signature);
                continue;
            }
            if (q.empty()) {
                wait(ev);
                continue;
            }
            Fis f = q.front();
            q.pop_front();
            if (on_fis)
                on_fis(f);
        }
    }
    void clear() {
        q.clear();
        got.clear();
        on_fis = nullptr;
        accept = nullptr;
    }
};

struct Bench {
    Sink sink;
    bus::HostMemory mem;
    bus::IrqLine irq;
    AhciConfig cfg;
    AhciHba hba;
    link::SataLink link;
    ScriptDev dev;
    static AhciConfig one_port() {
        AhciConfig c;
        c.n_ports = 1;
        return c;
    }
    Bench() : cfg(one_port()), hba("ahci0", cfg, mem, irq, &sink), link("link0", {}), dev("dev0") {
        bus::pci_enable_for_test(hba.pci());
        link.attach(hba.port_endpoint(0), &dev);
        hba.connect_port(0, &link);
        dev.link = &link;
    }
};

Bench *B;
uint64_t clb, fb, ct[32];
uint8_t *clb_p, *fb_p, *ct_p[32];
constexpr unsigned kMaxPrds = 8;

uint32_t prd(uint32_t off) { return B->hba.mmio_read32(port_base(0) + off); }
void pwr(uint32_t off, uint32_t v) { B->hba.mmio_write32(port_base(0) + off, v); }
uint32_t rd(uint32_t off) { return B->hba.mmio_read32(off); }
void wr(uint32_t off, uint32_t v) { B->hba.mmio_write32(off, v); }

// Polls every 1 us (hba_test_common.h).
template <class F> bool wait_until(F cond, double max_us) {
    return test::hba_common::wait_until(cond, max_us, 1);
}

uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | uint32_t(p[3]) << 24; }
using test::hba_common::put32;

struct Buf {
    uint64_t bus = 0;
    uint8_t *cpu = nullptr;
    uint32_t len = 0;
    bool irq = false;
};
Buf buf(uint32_t len, bool irq = false) {
    Buf b;
    b.len = len;
    b.irq = irq;
    b.bus = B->mem.alloc(len, 2, &b.cpu);
    return b;
}

uint8_t pattern(size_t i, uint8_t seed) { return uint8_t(i * 7 + seed + (i >> 9)); }

Fis h2d(uint8_t cmd, uint64_t lba = 0, uint16_t count = 0, uint8_t feature = 0) {
    sata::Taskfile tf;
    tf.command = cmd;
    tf.lba = lba;
    tf.count = count;
    tf.feature = feature;
    tf.device = 0x40;
    return sata::make_reg_h2d(tf, true);
}

// Command header + table for a slot.
void build(unsigned slot, const Fis &cfis, const std::vector<Buf> &prds, uint32_t flags = 0) {
    uint8_t *h = clb_p + 32 * slot;
    std::memset(h, 0, 32);
    put32(h, uint32_t(cfis.bytes.size() / 4) | flags | uint32_t(prds.size()) << 16);
    put32(h + 8, uint32_t(ct[slot]));
    put32(h + 12, uint32_t(ct[slot] >> 32));
    std::memset(ct_p[slot], 0, 0x80 + 16 * kMaxPrds);
    std::memcpy(ct_p[slot], cfis.bytes.data(), cfis.bytes.size());
    for (size_t i = 0; i < prds.size(); ++i) {
        uint8_t *e = ct_p[slot] + 0x80 + 16 * i;
        put32(e, uint32_t(prds[i].bus));
        put32(e + 4, uint32_t(prds[i].bus >> 32));
        put32(e + 12, (prds[i].len - 1) | (prds[i].irq ? PRD_I : 0));
    }
}
uint32_t prdbc(unsigned slot) { return le32(clb_p + 32 * slot + 4); }

bool link_up_and_ready() {
    return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
}

// Stop the engine, clear every status, make the device idle, restart.
void recover() {
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 10));
    sc_core::wait(20, SC_US); // let in-flight device scripts run out
    B->dev.clear();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    wr(IS, 0xFFFFFFFF);
    if (prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq))
        pwr(PxCMD, CMD_FRE | CMD_CLO);
    pwr(PxCMD, CMD_FRE | CMD_ST);
}

void answer_ok(const Fis &f) {
    if (f.type() == sata::FisType::RegH2D)
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
}

} // namespace

MODEL_TEST(signature_lands_in_rfis_tfd_and_sig) {
    clb = B->mem.alloc(1024, 1024, &clb_p);
    fb = B->mem.alloc(256, 256, &fb_p);
    for (unsigned i = 0; i < 32; ++i)
        ct[i] = B->mem.alloc(0x80 + 16 * kMaxPrds, 128, &ct_p[i]);
    pwr(PxCLB, uint32_t(clb));
    pwr(PxCLBU, uint32_t(clb >> 32));
    pwr(PxFB, uint32_t(fb));
    pwr(PxFBU, uint32_t(fb >> 32));
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_FR) != 0; }, 5));
    EXPECT_TRUE(wait_until(link_up_and_ready, 1000));
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    EXPECT_EQ(prd(PxSIG), 0x00000101u);
    EXPECT_EQ(prd(PxTFD), 0x0150u);
    EXPECT_EQ(fb_p[RX_RFIS], 0x34);
    EXPECT_EQ(fb_p[RX_RFIS + 2], 0x50);
    EXPECT_EQ(fb_p[RX_RFIS + 12], 0x01);
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_N);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_ST);
    EXPECT_TRUE(prd(PxCMD) & CMD_CR);
}

MODEL_TEST(non_data_command_completes_with_interrupt) {
    B->dev.on_fis = answer_ok;
    pwr(PxIE, IS_DHRS);
    wr(GHC, GHC_IE);
    build(0, h2d(0xE7), {});
    std::memset(fb_p + RX_RFIS, 0, 20);
    pwr(PxCI, 1);
    EXPECT_EQ(prd(PxCI), 1u);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 100));
    EXPECT_EQ(B->dev.got.size(), 1u);
    EXPECT_EQ(B->dev.got[0].at(2), 0xE7);
    EXPECT_EQ(B->dev.got[0].at(1) & 0x80, 0x80);
    EXPECT_TRUE(prd(PxIS) & IS_DHRS);
    EXPECT_EQ(rd(IS), 1u);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(B->irq.level());
    EXPECT_EQ(prd(PxTFD), 0x50u);
    EXPECT_EQ(fb_p[RX_RFIS], 0x34);
    EXPECT_EQ(fb_p[RX_RFIS + 2], 0x50);
    EXPECT_EQ(prd(PxCMD) & CMD_CCS_MASK, 0u);
    pwr(PxIS, IS_DHRS);
    wr(IS, 1);
    EXPECT_TRUE(!B->irq.level());
    // The next slot is taken round-robin: slot 1 and slot 0 again.
    build(1, h2d(0xE7), {});
    pwr(PxCI, 0x3);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 100));
    EXPECT_EQ(B->dev.got.size(), 3u);
    pwr(PxIS, 0xFFFFFFFF);
    wr(IS, 1);
    wr(GHC, 0);
    pwr(PxIE, 0);
    B->dev.clear();
}

MODEL_TEST(dma_read_scatters_into_prds) {
    const uint32_t total = 12288;
    std::vector<Buf> bufs = {buf(4096), buf(2048, true), buf(6144)};
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x25)
            return;
        std::vector<uint8_t> d(total);
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = pattern(i, 3);
        B->dev.send(sata::make_data(d.data(), 8192));
        B->dev.send(sata::make_data(d.data() + 8192, total - 8192));
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
    };
    build(2, h2d(0x25, 100, 24), bufs);
    const sc_core::sc_time t0 = sc_core::sc_time_stamp();
    pwr(PxCI, 1u << 2);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 200));
    // 12 KiB at Gen3 (600 MB/s) is 20.5 us of wire time, plus the last FIS's DMA burst.
    EXPECT_TRUE(sc_core::sc_time_stamp() - t0 < sc_core::sc_time(40, SC_US));
    size_t pos = 0, bad = 0;
    for (auto &b : bufs)
        for (uint32_t i = 0; i < b.len; ++i, ++pos)
            bad += b.cpu[i] != pattern(pos, 3);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(prdbc(2), total);
    EXPECT_TRUE(prd(PxIS) & IS_DPS);
    EXPECT_TRUE(prd(PxIS) & IS_DHRS);
    EXPECT_EQ(prd(PxCMD) & CMD_CCS_MASK, 2u << CMD_CCS_SHIFT);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(dma_write_sends_data_on_each_dma_activate) {
    const uint32_t total = 12288;
    std::vector<Buf> bufs = {buf(1024), buf(9216), buf(2048)};
    size_t pos = 0;
    for (auto &b : bufs)
        for (uint32_t i = 0; i < b.len; ++i, ++pos)
            b.cpu[i] = pattern(pos, 9);
    static std::vector<uint8_t> rx;
    static std::vector<size_t> sizes;
    rx.clear();
    sizes.clear();
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x35)
            return;
        while (rx.size() < total) {
            B->dev.send(sata::make_dma_activate());
            Fis d = B->dev.next_fis();
            sizes.push_back(d.payload_size());
            rx.insert(rx.end(), d.payload(), d.payload() + d.payload_size());
        }
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
    };
    build(0, h2d(0x35, 7, 24), bufs, HDR_W);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 200));
    EXPECT_EQ(rx.size(), size_t(total));
    EXPECT_EQ(sizes.size(), 2u);
    EXPECT_EQ(sizes[0], 8192u);
    size_t bad = 0;
    for (size_t i = 0; i < rx.size(); ++i)
        bad += rx[i] != pattern(i, 9);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(prdbc(0), total);
    EXPECT_TRUE(!(prd(PxIS) & IS_DPS)); // no PRD asked for it
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(pio_in_two_blocks_completes_on_e_status) {
    std::vector<Buf> bufs = {buf(1024)};
    static bool first_block_seen_ci = false;
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x20)
            return;
        sata::Taskfile tf;
        std::vector<uint8_t> d(512);
        for (int blk = 0; blk < 2; ++blk) {
            for (size_t i = 0; i < d.size(); ++i)
                d[i] = pattern(512 * blk + i, 1);
            B->dev.send(sata::make_pio_setup(true, true, 0x58, 0, blk ? 0x50 : 0x58, 512, tf));
            B->dev.send(sata::make_data(d.data(), d.size()));
            if (blk == 0) {
                sc_core::wait(5, SC_US);
                first_block_seen_ci = prd(PxCI) == (1u << 4) && (prd(PxTFD) & 0xFF) == 0x58 &&
                                      (prd(PxIS) & IS_PSS);
            }
        }
    };
    build(4, h2d(0x20, 0, 2), bufs);
    pwr(PxCI, 1u << 4);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 200));
    EXPECT_TRUE(first_block_seen_ci);
    size_t bad = 0;
    for (uint32_t i = 0; i < 1024; ++i)
        bad += bufs[0].cpu[i] != pattern(i, 1);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(prdbc(4), 1024u);
    EXPECT_EQ(prd(PxTFD), 0x50u);
    EXPECT_TRUE(prd(PxIS) & IS_PSS);
    EXPECT_EQ(fb_p[RX_PSFIS], 0x5F);
    EXPECT_EQ(fb_p[RX_PSFIS + 15], 0x50);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(pio_out_sends_data_after_pio_setup) {
    std::vector<Buf> bufs = {buf(512), buf(512)};
    for (int b = 0; b < 2; ++b)
        for (uint32_t i = 0; i < 512; ++i)
            bufs[b].cpu[i] = pattern(512 * b + i, 5);
    static std::vector<uint8_t> rx;
    rx.clear();
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x30)
            return;
        sata::Taskfile tf;
        for (int blk = 0; blk < 2; ++blk) {
            B->dev.send(sata::make_pio_setup(false, false, 0x58, 0, blk ? 0x80 : 0x58, 512, tf));
            Fis d = B->dev.next_fis();
            rx.insert(rx.end(), d.payload(), d.payload() + d.payload_size());
        }
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
    };
    build(0, h2d(0x30, 0, 2), bufs, HDR_W);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 200));
    EXPECT_EQ(rx.size(), 1024u);
    size_t bad = 0;
    for (size_t i = 0; i < rx.size(); ++i)
        bad += rx[i] != pattern(i, 5);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(prdbc(0), 1024u);
    EXPECT_EQ(prd(PxTFD), 0x50u);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(ncq_reads_outstanding_together_sdb_clears_sact) {
    static Buf b3, b5;
    b3 = buf(4096);
    b5 = buf(4096);
    static std::vector<unsigned> tags;
    tags.clear();
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x60)
            return;
        tags.push_back(f.at(12) >> 3);
        B->dev.send(sata::make_reg_d2h(0x40, 0, 0, 0x40, 0, false)); // accepted, BSY = 0
        if (tags.size() < 2)
            return;
        sc_core::wait(20, SC_US);
        std::vector<uint8_t> d(4096);
        for (unsigned t : {5u, 3u}) {
            for (size_t i = 0; i < d.size(); ++i)
                d[i] = pattern(i, uint8_t(t));
            B->dev.send(sata::make_dma_setup(true, false, false, uint8_t(t), 0, 4096));
            B->dev.send(sata::make_data(d.data(), 2048));
            B->dev.send(sata::make_data(d.data() + 2048, 2048));
        }
        B->dev.send(sata::make_sdb(0x40, 0, (1u << 3) | (1u << 5), true, false));
    };
    build(3, h2d(0x60, 1000, 3u << 3, 8), {b3});
    build(5, h2d(0x60, 2000, 5u << 3, 8), {b5});
    pwr(PxSACT, (1u << 3) | (1u << 5));
    pwr(PxCI, (1u << 3) | (1u << 5));
    // Both commands go out before any data moves; PxCI clears on acceptance.
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 100));
    EXPECT_EQ(prd(PxSACT), (1u << 3) | (1u << 5));
    EXPECT_EQ(tags.size(), 2u);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0; }, 200));
    size_t bad = 0;
    for (uint32_t i = 0; i < 4096; ++i)
        bad += (b3.cpu[i] != pattern(i, 3)) + (b5.cpu[i] != pattern(i, 5));
    EXPECT_EQ(bad, 0u);
    EXPECT_TRUE(prd(PxIS) & IS_SDBS);
    EXPECT_TRUE(!(prd(PxIS) & IS_DHRS));
    EXPECT_EQ(fb_p[RX_SDBFIS], 0xA1);
    EXPECT_EQ(le32(fb_p + RX_SDBFIS + 4), (1u << 3) | (1u << 5));
    EXPECT_EQ(fb_p[RX_DSFIS], 0x41);
    EXPECT_EQ(fb_p[RX_DSFIS + 4], 3); // last DMA Setup was for tag 3
    EXPECT_EQ(prd(PxTFD), 0x40u);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(ncq_write_with_auto_activate) {
    static Buf b;
    b = buf(12288);
    for (uint32_t i = 0; i < b.len; ++i)
        b.cpu[i] = pattern(i, 11);
    static std::vector<uint8_t> rx;
    rx.clear();
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x61)
            return;
        B->dev.send(sata::make_reg_d2h(0x40, 0, 0, 0x40, 0, false));
        // First part at offset 4096 (auto-activate), then the first 4096 bytes.
        B->dev.send(sata::make_dma_setup(false, false, true, 7, 4096, 8192));
        Fis d = B->dev.next_fis();
        rx.insert(rx.end(), d.payload(), d.payload() + d.payload_size());
        B->dev.send(sata::make_dma_setup(false, false, false, 7, 0, 4096));
        B->dev.send(sata::make_dma_activate());
        d = B->dev.next_fis();
        rx.insert(rx.end(), d.payload(), d.payload() + d.payload_size());
        B->dev.send(sata::make_sdb(0x40, 0, 1u << 7, true, false));
    };
    build(7, h2d(0x61, 0, 7u << 3, 24), {b}, HDR_W);
    pwr(PxSACT, 1u << 7);
    pwr(PxCI, 1u << 7);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0; }, 200));
    EXPECT_EQ(prd(PxCI), 0u);
    EXPECT_EQ(rx.size(), 12288u);
    size_t bad = 0;
    for (uint32_t i = 0; i < 8192 && i < rx.size(); ++i)
        bad += rx[i] != pattern(4096 + i, 11);
    for (uint32_t i = 0; i < 4096 && 8192 + i < rx.size(); ++i)
        bad += rx[8192 + i] != pattern(i, 11);
    EXPECT_EQ(bad, 0u);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(sdb_notification_sets_sntf) {
    B->dev.send(sata::make_sdb(0x50, 0, 0, true, true, 0));
    EXPECT_TRUE(wait_until([] { return prd(PxSNTF) != 0; }, 20));
    EXPECT_EQ(prd(PxSNTF), 1u);
    EXPECT_TRUE(prd(PxIS) & IS_SDBS);
    pwr(PxSNTF, 1);
    EXPECT_EQ(prd(PxSNTF), 0u);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(task_file_error_stops_the_engine) {
    static int cmds = 0;
    cmds = 0;
    B->dev.on_fis = [](const Fis &f) {
        if (f.type() != sata::FisType::RegH2D)
            return;
        ++cmds;
        B->dev.send(sata::make_reg_d2h(0x51, 0x04, 0, 0x40, 0, true));
    };
    build(0, h2d(0xEF, 0, 0, 0x99), {});
    build(1, h2d(0xE7), {});
    pwr(PxIE, IS_TFES | IS_DHRS);
    wr(GHC, GHC_IE);
    pwr(PxCI, 0x3);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_TFES) != 0; }, 100));
    sc_core::wait(50, SC_US);
    EXPECT_EQ(cmds, 1);              // slot 1 was not issued
    EXPECT_EQ(prd(PxCI), 0x3u);      // failing slot stays set
    EXPECT_EQ(prd(PxCMD) & CMD_CCS_MASK, 0u);
    EXPECT_EQ(prd(PxTFD), 0x0451u);
    EXPECT_TRUE(B->irq.level());
    // Software recovery: clear ST (PxCI clears, CR drops), clear status, restart.
    recover();
    wr(GHC, 0);
    pwr(PxIE, 0);
    EXPECT_EQ(prd(PxCI), 0u);
    B->dev.on_fis = answer_ok;
    build(1, h2d(0xE7), {});
    pwr(PxCI, 0x2);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 100));
    EXPECT_EQ(prd(PxTFD), 0x50u);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(overflow_when_device_sends_more_than_prdt) {
    static Buf b;
    b = buf(512);
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x25)
            return;
        std::vector<uint8_t> d(1024);
        for (size_t i = 0; i < d.size(); ++i)
            d[i] = pattern(i, 2);
        B->dev.send(sata::make_data(d.data(), d.size()));
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
    };
    build(0, h2d(0x25, 0, 2), {b});
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_OFS) != 0; }, 100));
    sc_core::wait(20, SC_US);
    EXPECT_EQ(prd(PxCI), 1u); // stopped: the D2H does not complete it
    EXPECT_EQ(prdbc(0), 512u);
    size_t bad = 0;
    for (uint32_t i = 0; i < 512; ++i)
        bad += b.cpu[i] != pattern(i, 2);
    EXPECT_EQ(bad, 0u);
    recover();
}

MODEL_TEST(host_bus_error_on_unmapped_prd) {
    Buf bogus;
    bogus.bus = 0x1000; // below every region
    bogus.len = 512;
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x25)
            return;
        std::vector<uint8_t> d(512, 0xEE);
        B->dev.send(sata::make_data(d.data(), d.size()));
        B->dev.send(sata::make_reg_d2h(0x50, 0, 0, 0x40, 0, true));
    };
    build(0, h2d(0x25, 0, 1), {bogus});
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_HBFS) != 0; }, 100));
    sc_core::wait(20, SC_US);
    EXPECT_EQ(prd(PxCI), 1u);
    recover();
    // A command list in unmapped memory faults on the header fetch.
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 10));
    pwr(PxCLB, 0x2000);
    pwr(PxCLBU, 0);
    pwr(PxCMD, CMD_FRE | CMD_ST);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_HBFS) != 0; }, 100));
    EXPECT_EQ(prd(PxCI), 1u);
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 10));
    pwr(PxCLB, uint32_t(clb));
    pwr(PxCLBU, uint32_t(clb >> 32));
    recover();
}

MODEL_TEST(r_err_on_data_fis_is_interface_fatal) {
    static Buf b;
    b = buf(512);
    B->dev.accept = [](const Fis &f) { return f.type() != sata::FisType::Data; };
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) == 0x35)
            B->dev.send(sata::make_dma_activate());
    };
    build(0, h2d(0x35, 0, 1), {b}, HDR_W);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_IFS) != 0; }, 100));
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_H);
    EXPECT_EQ(prd(PxCI), 1u);
    recover();
}

MODEL_TEST(crc_error_on_read_data_is_interface_fatal) {
    static Buf b;
    b = buf(4096);
    B->dev.on_fis = [](const Fis &f) {
        if (f.at(2) != 0x25)
            return;
        std::vector<uint8_t> d(4096, 0x5A);
        // A flipped payload dword: the host's link answers R_ERR and drops the frame.
        EXPECT_TRUE(B->dev.send(sata::make_data(d.data(), d.size())) == link::FrameStatus::Error);
    };
    B->link.inject_dword_fault(link::SataLink::DwordFault::data_fis(false, 7, 0x00010000));
    build(0, h2d(0x25, 0, 8), {b});
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_IFS) != 0; }, 100));
    EXPECT_EQ(prd(PxSERR) & (SERR_DIAG_C | SERR_ERR_T), SERR_DIAG_C | SERR_ERR_T);
    EXPECT_EQ(prd(PxCI), 1u); // the command cannot complete: its data is gone
    EXPECT_EQ(b.cpu[0], 0u);  // nothing of the corrupted frame reached memory
    B->link.clear_faults();
    recover();
}

MODEL_TEST(unknown_fis_goes_to_ufis) {
    Fis odd;
    odd.bytes = {0xC7, 0x00, 0x12, 0x34, 0xDE, 0xAD, 0xBE, 0xEF};
    EXPECT_TRUE(B->dev.send(odd) == link::FrameStatus::Ok);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_UFS) != 0; }, 20));
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_F);
    EXPECT_EQ(fb_p[RX_UFIS], 0xC7);
    EXPECT_EQ(le32(fb_p + RX_UFIS + 4), 0xEFBEADDEu);
    pwr(PxIS, IS_UFS); // not RW1C: mirrors DIAG.F
    EXPECT_TRUE(prd(PxIS) & IS_UFS);
    pwr(PxSERR, SERR_DIAG_F);
    EXPECT_TRUE(!(prd(PxIS) & IS_UFS));
}

MODEL_TEST(srst_uses_c_and_r_bits_and_reloads_sig) {
    B->dev.on_fis = [](const Fis &f) {
        if (f.type() != sata::FisType::RegH2D || (f.at(1) & 0x80))
            return;
        if (!(f.at(15) & sata::kAtaSrst)) {
            sc_core::wait(5, SC_US);
            B->dev.send(sata::make_reg_d2h(0x00, 0x01, 0xEB1401, 0x00, 1, false));
        }
    };
    sata::Taskfile tf;
    tf.control = sata::kAtaSrst | 0x08;
    build(0, sata::make_reg_h2d(tf, false), {}, HDR_R | HDR_C);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 50)); // cleared on R_OK
    EXPECT_EQ(B->dev.got.size(), 1u);
    EXPECT_TRUE(!(prd(PxTFD) & sata::kAtaBsy));
    sc_core::wait(5, SC_US);
    tf.control = 0x08;
    build(0, sata::make_reg_h2d(tf, false), {});
    pwr(PxCI, 1);
    EXPECT_TRUE(prd(PxCI) == 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 100));
    EXPECT_EQ(prd(PxSIG), 0xEB140101u);
    EXPECT_EQ(prd(PxTFD), 0x0100u);
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.clear();
}

MODEL_TEST(comreset_via_sctl_relinks_and_reloads_signature) {
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 10));
    std::memset(fb_p + RX_RFIS, 0, 20);
    pwr(PxSCTL, 0x301);
    EXPECT_EQ(prd(PxSSTS) & 0xF, 1u);
    EXPECT_EQ(prd(PxTFD), 0x7Fu);
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until(link_up_and_ready, 1000));
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_N);
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
    EXPECT_EQ(prd(PxSIG), 0x00000101u);
    EXPECT_EQ(prd(PxTFD), 0x0150u);
    EXPECT_EQ(fb_p[RX_RFIS], 0x34);
    int resets = 0;
    for (auto &r : B->sink.recs)
        resets += r.name == "ahci.port_comreset" && r.src == "ahci0" && r.port == 0;
    EXPECT_EQ(resets, 2);
    recover();
}

MODEL_TEST(idle_time_is_cheap_and_reset_in_place_works) {
    // A simulated second with nothing to do must not tick.
    sc_core::wait(1, sc_core::SC_SEC);
    EXPECT_EQ(prd(PxCI), 0u);
    B->hba.power_on_reset();
    EXPECT_EQ(prd(PxCMD), CMD_SUD | CMD_POD);
    EXPECT_EQ(prd(PxTFD), 0x7Fu);
    // The port spins up again by itself; the device answers with its signature.
    EXPECT_TRUE(wait_until([] { return prd(PxSIG) == 0x101u; }, 1000));
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
