// Fault hooks and protocol-violation records through SiI3124 + SataLink + SataDisk:
// lost completion interrupts (the slot completes, PORT_IRQ_COMPLETE is not raised), an
// NCQ media error (CMD_ERR SDB), unplug with NCQ commands outstanding and replug of a new
// drive (PHYRDY_CHG, DEV_XCHG, DEV_RST, IDENTIFY), and activation of a busy slot.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/device/sata_disk.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/sil24/sil24_hba.h"
#include "model/sil24/sil24_regs.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using sc_core::SC_US;

namespace {

struct Recorder : ModelTrace {
    std::vector<TraceRecord> recs;
    void emit(const TraceRecord &r) override { recs.push_back(r); }
    size_t count(const std::string &name, const std::string &rule = {}) const {
        size_t n = 0;
        for (const auto &r : recs) {
            if (r.name != name)
                continue;
            bool hit = rule.empty();
            for (const auto &f : r.fields)
                hit = hit || (f.first == "rule" && f.second.s == rule);
            n += hit;
        }
        return n;
    }
};

struct Bench {
    Recorder tr;
    bus::HostMemory mem;
    bus::IrqLine irq;
    Sil24Hba hba;
    link::SataLink link;
    device::SataDisk disk;
    static Sil24Config cfg() {
        Sil24Config c;
        c.n_ports = 1;
        return c;
    }
    static device::DiskConfig disk_cfg() {
        device::DiskConfig c;
        c.sectors = 1u << 20;
        c.timing.ssd = true;
        return c;
    }
    Bench()
        : hba("sil0", cfg(), mem, irq, &tr), link("link0", {}, &tr),
          disk("disk0", disk_cfg(), &tr) {
        link.attach(hba.port_endpoint(0), &disk);
        hba.connect_port(0, &link);
        disk.connect(&link);
    }
};

Bench *B;
uint64_t prb_bus[31];
uint8_t *prb_cpu[31];
constexpr uint32_t kBlock = 0x800;
constexpr uint16_t kRead = PRB_PROT_READ, kWrite = PRB_PROT_WRITE;

uint32_t prd(uint32_t off) { return B->hba.mmio_read32(port_window(0) + off); }
void pwr(uint32_t off, uint32_t v) { B->hba.mmio_write32(port_window(0) + off, v); }

template <class F> bool wait_until(F cond, double max_us, double step_us = 10) {
    for (double t = 0; t < max_us; t += step_us) {
        if (cond())
            return true;
        sc_core::wait(step_us, SC_US);
    }
    return cond();
}
void put16(uint8_t *p, uint16_t v) { std::memcpy(p, &v, 2); }
void put32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }

struct Buf {
    uint64_t bus;
    uint8_t *cpu;
    uint32_t len;
};
Buf buf(uint32_t len) {
    Buf b{0, nullptr, len};
    b.bus = B->mem.alloc(len, 4096, &b.cpu);
    return b;
}

sata::Fis cmd(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0) {
    sata::Taskfile tf;
    tf.command = op;
    tf.lba = lba;
    tf.count = count;
    tf.feature = uint8_t(feature);
    tf.feature_hi = uint8_t(feature >> 8);
    tf.device = 0x40;
    return sata::make_reg_h2d(tf, true);
}

void build(unsigned slot, const sata::Fis &fis, const Buf &b, uint16_t ctrl, uint16_t prot) {
    uint8_t *p = prb_cpu[slot];
    std::memset(p, 0, kBlock);
    put16(p + PRB_CTRL, ctrl);
    put16(p + PRB_PROT, prot);
    std::memcpy(p + PRB_FIS, fis.bytes.data(), fis.bytes.size());
    unsigned n = 0;
    for (uint32_t off = 0; off < b.len; off += 4096, ++n) {
        uint8_t *e = p + PRB_SGE0 + 16 * n;
        put32(e, uint32_t(b.bus + off));
        put32(e + 4, uint32_t((b.bus + off) >> 32));
        put32(e + 8, std::min<uint32_t>(4096, b.len - off));
        put32(e + 12, off + 4096 >= b.len ? SGE_TRM : 0);
    }
    if (n == 0)
        put32(p + PRB_SGE0 + 12, SGE_TRM);
}

void activate(unsigned slot) {
    pwr(activate_reg(slot), uint32_t(prb_bus[slot]));
    pwr(activate_reg(slot) + 4, uint32_t(prb_bus[slot] >> 32));
}

bool run(unsigned slot, double max_us = 20000) {
    activate(slot);
    bool ok = wait_until([slot] {
        uint32_t ss = prd(PORT_SLOT_STAT);
        return !(ss & (1u << slot)) || (ss & SLOT_STAT_ATTN);
    }, max_us, 1);
    return ok && !(prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN);
}

void init_port() {
    pwr(PORT_CTRL_STAT, CS_INIT);
    EXPECT_TRUE(wait_until([] { return (prd(PORT_CTRL_STAT) & (CS_INIT | CS_RDY)) == CS_RDY; },
                           1000, 1));
}
uint8_t lram_byte(unsigned slot, unsigned off) {
    uint32_t v = prd(lram_slot(slot) + (off & ~3u));
    return uint8_t(v >> (8 * (off & 3)));
}
void fill(Buf &b, uint8_t seed) {
    for (uint32_t i = 0; i < b.len; ++i)
        b.cpu[i] = uint8_t(i * 7 + seed + (i >> 9));
}
// Soft reset PRB (slot 0), polled: the signature lands in LRAM slot 0.
void softreset() {
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, PRB_CTRL_SRST, 0);
    EXPECT_TRUE(run(0, 100000));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 2), 0x50);
}
std::string identify_serial(const Buf &id) {
    std::string s;
    for (unsigned w = 10; w < 20; ++w) {
        s += char(id.cpu[2 * w + 1]);
        s += char(id.cpu[2 * w]);
    }
    while (!s.empty() && s.back() == ' ')
        s.pop_back();
    return s;
}

} // namespace

MODEL_TEST(bring_up) {
    for (unsigned i = 0; i < 31; ++i)
        prb_bus[i] = B->mem.alloc(kBlock, 8, &prb_cpu[i]);
    EXPECT_TRUE(wait_until([] { return (prd(PORT_SSTATUS) & 0xF) == 3; }, 100000));
    pwr(PORT_CTRL_CLR, CS_PORT_RST);
    EXPECT_TRUE(wait_until([] { return prd(PORT_CTRL_STAT) & CS_RDY; }, 1000, 1));
    pwr(PORT_CTRL_CLR, CS_32BIT_ACTV | CS_PMP_EN | CS_PMP_RESUME);
    pwr(PORT_CTRL_STAT, CS_IRQ_WOC); // reads of the slot status do not acknowledge
    init_port();
    softreset();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_SERROR, 0xFFFFFFFF);
    pwr(PORT_IRQ_ENABLE_SET, IRQ_COMPLETE | IRQ_ERROR | IRQ_PHYRDY_CHG | IRQ_DEV_XCHG);
    B->hba.mmio_write32(HOST_CTRL, 1);
    EXPECT_TRUE(!B->irq.level());
}

MODEL_TEST(lost_irq_completes_slot_without_complete) {
    Buf r = buf(4096);
    B->hba.inject_lost_irq(0, 1, 0, "lost0");
    build(1, cmd(0x25, 10, 8), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(1));
    sc_core::wait(50, SC_US);
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u);
    EXPECT_EQ(prd(PORT_IRQ_STAT) & (IRQ_COMPLETE | IRQ_COMPLETE << 16), 0u);
    EXPECT_TRUE(!B->irq.level());
    EXPECT_EQ(lram_byte(1, PRB_FIS + 0), 0x34); // the result FIS is there
    EXPECT_EQ(lram_byte(1, PRB_FIS + 2), 0x50);
    EXPECT_EQ(B->tr.count("fault.effect"), 1u);
    // the next completion interrupts
    EXPECT_TRUE(run(1));
    EXPECT_TRUE(wait_until([] { return B->irq.level(); }, 100, 1));
    pwr(PORT_IRQ_STAT, IRQ_COMPLETE);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level());
    // a window swallows every completion, not an error
    B->hba.inject_lost_irq(0, 0, 1000000, "lost1");
    for (unsigned s = 1; s < 4; ++s) {
        build(s, cmd(0x25, 10 * s, 8), r, PRB_CTRL_PROTOCOL, kRead);
        EXPECT_TRUE(run(s));
    }
    EXPECT_TRUE(!B->irq.level());
    build(5, cmd(0x25, (1u << 20) + 1, 1), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(!run(5));
    EXPECT_TRUE(B->irq.level());
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_DEV));
    B->hba.clear_faults();
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level());
}

MODEL_TEST(ncq_media_error_is_an_sdb_error) {
    std::vector<Buf> r;
    const uint64_t bad = 9000 + 16 * 2 + 3;
    fault::MediaParams p;
    p.match.lba_first = bad;
    p.match.lba_last = bad;
    B->disk.inject_media_error(p, "unc0");
    for (unsigned t = 0; t < 4; ++t) {
        r.push_back(buf(16 * 512));
        build(t, cmd(0x60, 9000 + 16 * t, 0, 16), r[t], PRB_CTRL_PROTOCOL, PRB_PROT_NCQ | kRead);
        activate(t);
    }
    EXPECT_TRUE(wait_until([] { return prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN; }, 100000, 1));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_SDB));
    EXPECT_EQ(prd(PORT_SLOT_STAT) & 0x3u, 0u); // tags 0 and 1 finished first
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    Buf log = buf(512);
    build(4, cmd(0x2F, 0x10, 1), log, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(4));
    EXPECT_EQ(log.cpu[0], 2);
    EXPECT_EQ(log.cpu[3], 0x40);
    EXPECT_EQ(log.cpu[4], uint8_t(bad));
    B->disk.clear_faults();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(activate_busy_slot_is_a_violation) {
    Buf r = buf(256 * 512);
    build(6, cmd(0x25, 0, 256), r, PRB_CTRL_PROTOCOL, kRead);
    activate(6);
    activate(6);
    EXPECT_EQ(B->tr.count("sil24.violation", "activate_busy_slot"), 1u);
    EXPECT_TRUE(wait_until([] { return prd(PORT_SLOT_STAT) == 0; }, 100000));
    EXPECT_EQ(B->tr.count("sil24.violation"), 1u); // nothing else in this run
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(unplug_with_ncq_outstanding_then_new_drive) {
    std::vector<Buf> w;
    for (unsigned t = 0; t < 6; ++t) {
        w.push_back(buf(64 * 512));
        fill(w.back(), uint8_t(t));
        build(t, cmd(0x61, 70000 + 128 * t, 0, 64), w[t], PRB_CTRL_PROTOCOL, PRB_PROT_NCQ | kWrite);
        activate(t);
    }
    sc_core::wait(40, SC_US);
    EXPECT_TRUE(prd(PORT_SACTIVE) != 0);
    B->link.set_device_present(false);
    sc_core::wait(1000, SC_US);
    EXPECT_EQ(prd(PORT_SSTATUS), 0u);
    EXPECT_TRUE(prd(PORT_SERROR) & SERR_DIAG_N);
    EXPECT_TRUE(prd(PORT_IRQ_STAT) & IRQ_PHYRDY_CHG);
    EXPECT_TRUE(B->irq.level());
    fault::PlugParams pp;
    pp.serial = "SIL24NEW07";
    B->disk.replace_identity(pp);
    B->link.set_device_present(true);
    EXPECT_TRUE(wait_until([] { return prd(PORT_IRQ_STAT) & IRQ_DEV_XCHG; }, 1000, 1));
    // EH: DEV_RST (COMRESET), INIT, soft reset, IDENTIFY
    pwr(PORT_CTRL_STAT, CS_DEV_RST);
    EXPECT_TRUE(wait_until([] { return !(prd(PORT_CTRL_STAT) & CS_DEV_RST); }, 10000, 1));
    EXPECT_EQ(prd(PORT_SSTATUS), 0x123u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_SERROR, 0xFFFFFFFF);
    init_port();
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u);
    sc_core::wait(5000, SC_US); // the drive's reset time
    softreset();
    Buf id = buf(512);
    build(1, cmd(0xEC, 0, 0), id, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(1));
    EXPECT_TRUE(identify_serial(id) == "SIL24NEW07");
    // the port works again
    Buf r = buf(64 * 512);
    build(2, cmd(0x25, 70000, 64), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(2));
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
