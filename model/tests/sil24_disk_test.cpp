// SiI3124 + SataLink + SataDisk end to end, driven the way a sil24 driver does it: port
// bring-up (PORT_RST clear, config, INIT), SRST PRB and signature in LRAM, IDENTIFY (PIO
// in), DMA write/read back through SGE chains (flat and LNK-ed), NCQ with several slots
// outstanding, DEV_RST, PORT_CMD_ERR codes (device error, overrun, direction, PRB
// boundary, PRB master abort, SGT boundary) with INIT recovery, IRQ_WOC semantics and the
// PCI-X completion-interrupt-loss erratum.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <vector>

#include "model/tests/sil24_test_bench.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using namespace satasim::test::sil24_tb;
using sc_core::SC_US;

namespace {

struct Bench : Sil24DiskBench {
    static Sil24Config cfg() {
        Sil24Config c = Sil24DiskBench::cfg();
        c.pcix_irq_loss = true;
        c.pcix_ack_window_ns = 200000; // wide, so the tests can hit it on purpose
        return c;
    }
    Bench() : Sil24DiskBench(cfg()) {}
};

Bench *B;

sata::Fis cmd(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0) {
    return h2d(op, lba, count, feature);
}


} // namespace

MODEL_TEST(bring_up_like_a_driver) {
    alloc_prbs();
    // the PHY came up on its own at power-on
    EXPECT_TRUE(wait_until([] { return (prd(PORT_SSTATUS) & 0xF) == 3; }, 100000));
    EXPECT_EQ(prd(PORT_SSTATUS), 0x123u); // 3 Gb/s: the 3124 stops at Gen2
    pwr(PORT_CTRL_CLR, CS_PORT_RST);
    EXPECT_TRUE(wait_until([] { return prd(PORT_CTRL_STAT) & CS_RDY; }, 1000, 1));
    pwr(PORT_CTRL_CLR, CS_IRQ_WOC | CS_32BIT_ACTV | CS_PMP_EN | CS_PMP_RESUME);
    pwr(PORT_PHY_CFG, 0x20C);
    EXPECT_EQ(prd(PORT_PHY_CFG), 0x20Cu);
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_SERROR, 0xFFFFFFFF);
    EXPECT_EQ(prd(PORT_SERROR), 0u);
}

MODEL_TEST(softreset_prb_stores_signature) {
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, PRB_CTRL_SRST, 0);
    activate(0, prb_bus[0]);
    // raw COMPLETE, watched without reading the slot status (which acknowledges it)
    EXPECT_TRUE(wait_until([] { return prd(PORT_IRQ_STAT) & (1u << 16); }, 100000, 1));
    EXPECT_EQ(prd(PORT_SLOT_STAT) & (1u | SLOT_STAT_ATTN), 0u);
    EXPECT_EQ(lram_byte(0, PRB_FIS + 0), 0x34); // D2H
    EXPECT_EQ(lram_byte(0, PRB_FIS + 2), 0x50); // status
    EXPECT_EQ(lram_byte(0, PRB_FIS + 4), 0x01); // LBA low
    EXPECT_EQ(lram_byte(0, PRB_FIS + 5), 0x00); // LBA mid  } ATA signature
    EXPECT_EQ(lram_byte(0, PRB_FIS + 6), 0x00); // LBA high }
    pwr(PORT_IRQ_STAT, IRQ_COMPLETE);
}

MODEL_TEST(identify_pio_in) {
    Buf id = buf(512);
    build(1, cmd(0xEC, 0, 0), id, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(1));
    EXPECT_EQ(prd(lram_slot(1) + PRB_XFER_CNT), 512u);
    EXPECT_EQ(identify_byte_sum(id.cpu), 0); // word 255 checksum
    EXPECT_EQ(id.cpu[510], 0xA5);
    EXPECT_EQ(lram_byte(1, PRB_FIS + 2), 0x50); // E_Status of the PIO Setup FIS
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(dma_write_then_read_back) {
    Buf w = buf(64 * 512), r = buf(64 * 512);
    fill(w, 1);
    build(2, cmd(0x35, 1000, 64), w, PRB_CTRL_PROTOCOL, kWrite);
    EXPECT_TRUE(run(2));
    EXPECT_EQ(prd(lram_slot(2) + PRB_XFER_CNT), 64u * 512);
    build(3, cmd(0x25, 1000, 64), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(3));
    EXPECT_EQ(diff(w, r), 0u);
    EXPECT_EQ(lram_byte(3, PRB_FIS + 0), 0x34);
    EXPECT_EQ(lram_byte(3, PRB_FIS + 2), 0x50);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(sge_chain_with_link_and_discard) {
    Buf w = buf(16 * 512), r = buf(16 * 512);
    fill(w, 9);
    build(4, cmd(0x35, 3000, 16), w, PRB_CTRL_PROTOCOL, kWrite);
    EXPECT_TRUE(run(4));
    // read back: SGE0 = first 1 KiB discarded (DRD), SGE1 = LNK to an SGT elsewhere
    uint8_t *sgt;
    uint64_t sgt_bus = B->mem.alloc(64, 64, &sgt);
    std::memset(sgt, 0, 64);
    build(5, cmd(0x25, 3000, 16), Buf{0, nullptr, 0}, PRB_CTRL_PROTOCOL, kRead);
    sge(prb_cpu[5] + PRB_SGE0, 0, 1024, SGE_DRD);
    sge(prb_cpu[5] + PRB_SGE1, sgt_bus, 0, SGE_LNK);
    sge(sgt, r.bus + 1024, 4096, 0);
    sge(sgt + 16, r.bus + 5120, 3072, SGE_TRM);
    std::memset(r.cpu, 0xEE, r.len);
    EXPECT_TRUE(run(5));
    EXPECT_EQ(r.cpu[0], 0xEE);
    EXPECT_EQ(r.cpu[1023], 0xEE);
    EXPECT_EQ(std::memcmp(r.cpu + 1024, w.cpu + 1024, 8192 - 1024), 0);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(ncq_several_outstanding) {
    std::vector<Buf> w, r;
    for (unsigned t = 0; t < 8; ++t) {
        w.push_back(buf(16 * 512));
        r.push_back(buf(16 * 512));
        fill(w.back(), uint8_t(t * 31));
    }
    for (unsigned t = 0; t < 8; ++t) {
        // the tag in Count 7:3 is deliberately wrong: the chip puts the slot there
        build(t, cmd(0x61, 20000 + 64 * t, 0, 16), w[t], PRB_CTRL_PROTOCOL,
              PRB_PROT_NCQ | kWrite);
        activate(t, prb_bus[t]);
    }
    unsigned max_outstanding = 0;
    EXPECT_TRUE(wait_until([&] {
        max_outstanding = std::max(max_outstanding, unsigned(__builtin_popcount(prd(PORT_SACTIVE))));
        return (prd(PORT_SLOT_STAT) & 0xFF) == 0 || (prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN);
    }, 100000, 1));
    EXPECT_TRUE(!(prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN));
    EXPECT_TRUE(max_outstanding > 1);
    for (unsigned t = 0; t < 8; ++t) {
        build(t + 8, cmd(0x60, 20000 + 64 * t, 0, 16), r[t], PRB_CTRL_PROTOCOL,
              PRB_PROT_NCQ | kRead);
        activate(t + 8, prb_bus[t + 8]);
    }
    EXPECT_TRUE(wait_until([] { return prd(PORT_SLOT_STAT) == 0; }, 100000));
    EXPECT_EQ(prd(PORT_SACTIVE), 0u);
    size_t bad = 0;
    for (unsigned t = 0; t < 8; ++t)
        bad += diff(w[t], r[t]);
    EXPECT_EQ(bad, 0u);
    EXPECT_EQ(lram_byte(8, PRB_FIS + 0), 0xA1); // NCQ result: the SDB FIS
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(device_error_stops_port_until_init) {
    Buf r = buf(512);
    build(6, cmd(0x25, (1u << 20) + 10, 1), r, PRB_CTRL_PROTOCOL, kRead); // beyond the end
    EXPECT_TRUE(!run(6));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_DEV));
    EXPECT_EQ(prd(PORT_CONTEXT) & CTX_SLOT_MASK, 6u);
    EXPECT_EQ(prd(PORT_SLOT_STAT), SLOT_STAT_ATTN | 1u << 6);
    EXPECT_TRUE(prd(PORT_IRQ_STAT) & (IRQ_ERROR << 16));
    EXPECT_TRUE(lram_byte(6, PRB_FIS + 2) & sata::kAtaErr);
    EXPECT_TRUE(lram_byte(6, PRB_FIS + 3) & sata::kAtaIdnf);
    // a second command waits behind the error
    build(7, cmd(0x25, 100, 1), r, PRB_CTRL_PROTOCOL, kRead);
    activate(7, prb_bus[7]);
    sc_core::wait(200, SC_US);
    EXPECT_EQ(prd(PORT_SLOT_STAT) & (1u << 7), 1u << 7);
    init_port();
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u);
    EXPECT_EQ(prd(PORT_CMD_ERR), 0u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    EXPECT_TRUE(run(7));
}

MODEL_TEST(overrun_direction_and_boundary_codes) {
    Buf r = buf(8 * 512);
    // 8 sectors read into 4 sectors' worth of SGEs: overrun
    build(9, cmd(0x25, 100, 8), Buf{r.bus, r.cpu, 2048}, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(!run(9));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_OVERRUN));
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    // read command whose PRB says write: direction
    build(10, cmd(0x25, 100, 8), r, PRB_CTRL_PROTOCOL, kWrite);
    EXPECT_TRUE(!run(10));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_DIRECTION));
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    // PRB not 8-byte aligned
    build(11, cmd(0x25, 100, 8), r, PRB_CTRL_PROTOCOL, kRead);
    activate(11, prb_bus[11] + 4);
    EXPECT_TRUE(wait_until([] { return prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN; }, 1000, 1));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_CMD_BOUNDARY));
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    // PRB address outside host memory: master abort
    activate(12, 0x8000000000ull);
    EXPECT_TRUE(wait_until([] { return prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN; }, 1000, 1));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_CMD_MSTABRT));
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    // LNK to a misaligned SGT
    build(13, cmd(0x25, 100, 8), r, PRB_CTRL_PROTOCOL, kRead);
    sge(prb_cpu[13] + PRB_SGE0, r.bus + 3, 0, SGE_LNK);
    EXPECT_TRUE(!run(13));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_SGT_BOUNDARY));
    // the device still sends its data for the dead command: INIT, SRST, then go on
    init_port();
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, PRB_CTRL_SRST, 0);
    EXPECT_TRUE(run(0, 100000));
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    build(14, cmd(0x25, 100, 8), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(14));
}

MODEL_TEST(dev_reset_relinks) {
    pwr(PORT_CTRL_STAT, CS_DEV_RST);
    EXPECT_TRUE(prd(PORT_CTRL_STAT) & CS_DEV_RST);
    EXPECT_TRUE(wait_until([] { return !(prd(PORT_CTRL_STAT) & CS_DEV_RST); }, 10000, 1));
    EXPECT_EQ(prd(PORT_SSTATUS) & 0xF, 3u);
    EXPECT_TRUE(prd(PORT_SERROR) & SERR_DIAG_N);
    EXPECT_TRUE(prd(PORT_IRQ_STAT) & (IRQ_PHYRDY_CHG << 16));
    pwr(PORT_SERROR, 0xFFFFFFFF);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    sc_core::wait(5000, SC_US); // the disk's reset_ready time
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, PRB_CTRL_SRST, 0);
    EXPECT_TRUE(run(0, 100000));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 4), 0x01);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// Without IRQ_WOC reading the slot status acknowledges COMPLETE; with the PCI-X erratum
// that acknowledge lands late and swallows a completion that happened in between.
MODEL_TEST(pcix_erratum_loses_a_completion_without_woc) {
    Buf a = buf(512), b = buf(512);
    sc_core::wait(300, SC_US); // the earlier tests' slot-status polls: let their acks land
    pwr(PORT_IRQ_ENABLE_SET, IRQ_COMPLETE | IRQ_ERROR);
    B->hba.mmio_write32(HOST_CTRL, 1);
    build(1, cmd(0x25, 10, 1), a, PRB_CTRL_PROTOCOL, kRead);
    build(2, cmd(0x25, 20, 1), b, PRB_CTRL_PROTOCOL, kRead);
    activate(1, prb_bus[1]);
    EXPECT_TRUE(wait_until([] { return B->irq.level(); }, 10000, 1));
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u); // the "handler" reads slot status: ack in flight
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level());        // what it read is acknowledged: no re-raise (storm)
    activate(2, prb_bus[2]);             // completes inside the ack window
    EXPECT_TRUE(wait_until([] { return !(prd(PORT_SLOT_STAT) & 4); }, 150, 1));
    sc_core::wait(300, SC_US);
    EXPECT_TRUE(!B->irq.level());        // slot 2 finished, no interrupt pending: lost
    EXPECT_EQ(prd(PORT_IRQ_STAT), 0u);

    // the workaround: IRQ_WOC, and clear COMPLETE before reading the slot status
    pwr(PORT_CTRL_STAT, CS_IRQ_WOC);
    activate(1, prb_bus[1]);
    EXPECT_TRUE(wait_until([] { return B->irq.level(); }, 10000, 1));
    pwr(PORT_IRQ_STAT, IRQ_COMPLETE);
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u);
    activate(2, prb_bus[2]);
    EXPECT_TRUE(wait_until([] { return B->irq.level(); }, 10000, 1));
    EXPECT_EQ(prd(PORT_SLOT_STAT), 0u);
    EXPECT_TRUE(B->irq.level()); // reading does not acknowledge under WOC
    pwr(PORT_IRQ_STAT, IRQ_COMPLETE);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level());
    pwr(PORT_CTRL_CLR, CS_IRQ_WOC);
    B->hba.mmio_write32(HOST_CTRL, 0);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    return satasim::test::run_all();
}
