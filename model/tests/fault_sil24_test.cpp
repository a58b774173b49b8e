// Fault hooks and protocol-violation records through SiI3124 + SataLink + SataDisk:
// lost completion interrupts (the slot completes, PORT_IRQ_COMPLETE is not raised), an
// NCQ media error (CMD_ERR SDB), unplug with NCQ commands outstanding and replug of a new
// drive (PHYRDY_CHG, DEV_XCHG, DEV_RST, IDENTIFY), activation of a busy slot, and a
// device-to-host Data FIS lost to a bad CRC (SError, CRC counter, CMD_ERR 3).
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/tests/sil24_test_bench.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using namespace satasim::test::sil24_tb;
using sc_core::SC_US;

namespace {

struct Bench : test::RecordingTraceHolder, Sil24DiskBench {
    Bench() : Sil24DiskBench(cfg(), &tr) {}
};

Bench *B;

sata::Fis cmd(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0) {
    return h2d(op, lba, count, feature);
}
// Soft reset PRB (slot 0), polled: the signature lands in LRAM slot 0.
void softreset() {
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, PRB_CTRL_SRST, 0);
    EXPECT_TRUE(run(0, 100000));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 2), 0x50);
}

} // namespace

MODEL_TEST(bring_up) {
    alloc_prbs();
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
    B->disk.inject_media_error(
        media_error(fault::MediaParams::Error::Unc, fault::CommandMatch::Op::Any, bad, bad),
        "unc0");
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
        fill(w.back(), uint8_t(t), 7);
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
    EXPECT_TRUE(ata_string(id.cpu, 10, 10) == "SIL24NEW07");
    // the port works again
    Buf r = buf(64 * 512);
    build(2, cmd(0x25, 70000, 64), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(2));
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// docs/hardware.md 2.6: the host's link answers R_ERR to the drive's bad-CRC Data FIS; the
// port records SError.C + ERR.T, counts it in PORT_CRC_ERR_CNT and stops the read with
// CMD_ERR 3 (error in data FIS) at once, for PIO data-in and DMA reads alike.
MODEL_TEST(lost_d2h_data_fis_is_a_data_fis_error) {
    for (uint8_t op : {uint8_t(0x24), uint8_t(0x25)}) { // READ SECTORS EXT (PIO), READ DMA EXT
        pwr(PORT_SERROR, 0xFFFFFFFF);
        pwr(PORT_CRC_ERR_CNT, 0);
        B->link.inject_dword_fault(link::SataLink::DwordFault::data_fis(false, 3, 0x00010000));
        Buf r = buf(8 * 512);
        build(3, cmd(op, 4000, 8), r, PRB_CTRL_PROTOCOL, kRead);
        EXPECT_TRUE(!run(3));
        EXPECT_TRUE(prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN);
        EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_DATA));
        EXPECT_EQ(prd(PORT_SERROR) & (SERR_DIAG_C | SERR_ERR_T), SERR_DIAG_C | SERR_ERR_T);
        EXPECT_EQ(prd(PORT_CRC_ERR_CNT) & 0xFFFF, 1u);
        EXPECT_EQ(B->tr.count("sil24.rx_error"), op == 0x24 ? 1u : 2u);
        init_port();
        pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
        pwr(PORT_SERROR, 0xFFFFFFFF);
        sc_core::wait(5000, SC_US); // the drive's own end of the failed command
        softreset();
        // the same read again, clean
        EXPECT_TRUE(run(3));
        pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    }
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    return satasim::test::run_all();
}
