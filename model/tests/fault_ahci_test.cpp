// Fault hooks and protocol-violation records (model/fault/README.md), end to end through
// AHCI HBA + SataLink + SataDisk driven the way an AHCI driver does it: media errors on
// the non-queued and NCQ paths (status, error, LBA, log 10h, the other tags' data), UNC
// remapped by a write, a write fault that commits nothing, IDENTIFY failures, a firmware
// hang only a COMRESET clears, lost completion interrupts, unplug with NCQ outstanding and
// replug of a new drive, a PHY glitch, a degraded link, SDB coalescing, and one
// violation record per rule.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/tests/ahci_test_bench.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using namespace satasim::test::ahci_tb;
using sc_core::SC_US;

namespace {

struct Bench : test::RecordingTraceHolder, AhciDiskBench {
    static device::DiskConfig disk_cfg() {
        device::DiskConfig c = AhciDiskBench::disk_cfg();
        c.ncq_sdb_coalesce_ns = 100000; // 100 us
        return c;
    }
    Bench() : AhciDiskBench(disk_cfg(), &tr) {}
};

Bench *B;

sata::Fis cmd(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0) {
    return h2d(op, lba, count, feature);
}
sata::Fis ncq(bool write, uint64_t lba, unsigned tag, uint16_t sectors) {
    return cmd(write ? 0x61 : 0x60, lba, uint16_t(tag << 3), sectors);
}

// Error recovery as a driver does it: stop, clear SError/PxIS, start again.
void restart_engine() {
    stop_engine();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_ST);
}
void comreset() {
    stop_engine();
    pwr(PxSCTL, 0x301);
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSIG), 0x101u);
    restart_engine();
}
uint64_t rfis_lba() {
    const uint8_t *f = fb_p + RX_RFIS;
    return uint64_t(f[4]) | uint64_t(f[5]) << 8 | uint64_t(f[6]) << 16 | uint64_t(f[8]) << 24 |
           uint64_t(f[9]) << 32 | uint64_t(f[10]) << 40;
}
// READ LOG EXT page 10h (also clears the drive's NCQ error state).
std::vector<uint8_t> read_log_10h() {
    Buf log = buf(512);
    build(31, cmd(0x2F, 0x10, 1), log);
    EXPECT_TRUE(run(31));
    return std::vector<uint8_t>(log.cpu, log.cpu + 512);
}
using Err = fault::MediaParams::Error;
using Op = fault::CommandMatch::Op;

} // namespace

MODEL_TEST(port_start) {
    alloc_port_memory();
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxIE, 0x7DC0007F); // libata's default enables
    B->hba.mmio_write32(GHC, GHC_IE);
    pwr(PxCMD, CMD_FRE | CMD_ST);
}

MODEL_TEST(unc_on_non_queued_dma_and_pio_reads) {
    Buf w = buf(16 * 512), r = buf(16 * 512);
    fill(w, 3);
    build(0, cmd(0x35, 3000, 16), w, HDR_W);
    EXPECT_TRUE(run(0));
    B->disk.inject_media_error(media_error(Err::Unc, Op::Read, 3005, 3006), "unc0");
    build(1, cmd(0x25, 3000, 16), r); // READ DMA EXT
    EXPECT_TRUE(!run(1));
    EXPECT_TRUE(prd(PxIS) & IS_TFES);
    EXPECT_EQ(prd(PxTFD), 0x4051u); // error UNC, status DRDY|DSC|ERR
    EXPECT_EQ(rfis_lba(), 3005u);
    EXPECT_EQ(get32(clb_p + 32 + 4), 5u * 512); // the good sectors before the bad one
    EXPECT_EQ(diff(w.cpu, r.cpu, 5 * 512), 0u);
    EXPECT_EQ(prd(PxCI), 2u);
    restart_engine();
    build(2, cmd(0x24, 3006, 2), r); // READ SECTORS EXT (PIO)
    EXPECT_TRUE(!run(2));
    EXPECT_EQ(prd(PxTFD), 0x4051u);
    EXPECT_EQ(rfis_lba(), 3006u);
    restart_engine();
    // Around the bad sectors the data is what was written.
    std::memset(r.cpu, 0, r.len);
    build(3, cmd(0x25, 3007, 9), r);
    EXPECT_TRUE(run(3));
    EXPECT_EQ(diff(w.cpu + 7 * 512, r.cpu, 9 * 512), 0u);
    EXPECT_TRUE(B->tr.count("fault.effect") >= 2);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(write_remaps_unc_sectors) {
    Buf w = buf(512), r = buf(16 * 512);
    fill(w, 99);
    build(0, cmd(0x35, 3005, 1), w, HDR_W);
    EXPECT_TRUE(run(0));
    build(1, cmd(0x25, 3000, 16), r);
    EXPECT_TRUE(!run(1));
    EXPECT_EQ(rfis_lba(), 3006u); // 3005 was reallocated, 3006 is still bad
    restart_engine();
    build(0, cmd(0xCA, 3006, 1), w, HDR_W); // WRITE DMA (LBA28)
    EXPECT_TRUE(run(0));
    build(1, cmd(0x25, 3000, 16), r);
    EXPECT_TRUE(run(1));
    EXPECT_EQ(diff(w.cpu, r.cpu + 5 * 512, 512), 0u);
    EXPECT_EQ(diff(w.cpu, r.cpu + 6 * 512, 512), 0u);
    B->disk.clear_faults();
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(ncq_unc_error_state_and_log_10h) {
    std::vector<Buf> w, r;
    for (unsigned t = 0; t < 8; ++t) {
        w.push_back(buf(16 * 512));
        r.push_back(buf(16 * 512));
        fill(w.back(), uint8_t(t * 17 + 1));
        build(t, cmd(0x35, 40000 + 64 * t, 16), w[t], HDR_W);
        EXPECT_TRUE(run(t));
    }
    const uint64_t bad = 40000 + 64 * 3 + 5;
    B->disk.inject_media_error(media_error(Err::Unc, Op::Read, bad, bad), "unc1");
    for (unsigned t = 0; t < 8; ++t)
        build(t, ncq(false, 40000 + 64 * t, t, 16), r[t]);
    pwr(PxSACT, 0xFF);
    pwr(PxCI, 0xFF);
    EXPECT_TRUE(wait_until([] { return prd(PxIS) & IS_TFES; }, 100000, 1));
    EXPECT_EQ(prd(PxTFD) & 0xFF00, 0x4000u); // SDB error register UNC
    EXPECT_TRUE(prd(PxTFD) & sata::kAtaErr);
    const uint32_t sact = prd(PxSACT);
    EXPECT_EQ(sact & 0x7u, 0u);  // tags 0-2 finished before (in-order drive)
    EXPECT_TRUE(sact & (1u << 3)); // the failed tag is not completed
    EXPECT_EQ(fb_p[RX_SDBFIS + 3], 0x40);
    for (unsigned t = 0; t < 3; ++t)
        EXPECT_EQ(diff(w[t], r[t]), 0u);
    restart_engine();
    EXPECT_EQ(prd(PxSACT), 0u);
    std::vector<uint8_t> log = read_log_10h();
    EXPECT_EQ(log[0], 3); // NQ = 0, tag 3
    EXPECT_EQ(log[2], 0x41);
    EXPECT_EQ(log[3], 0x40);
    const uint64_t lba = uint64_t(log[4]) | uint64_t(log[5]) << 8 | uint64_t(log[6]) << 16 |
                         uint64_t(log[8]) << 24;
    EXPECT_EQ(lba, bad);
    // The aborted tags are re-issued and read correctly; the bad one still fails.
    B->disk.clear_faults();
    for (unsigned t = 3; t < 8; ++t)
        build(t, ncq(false, 40000 + 64 * t, t, 16), r[t]);
    pwr(PxSACT, 0xF8);
    pwr(PxCI, 0xF8);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0 || (prd(PxIS) & IS_TFES); }, 100000));
    EXPECT_TRUE(!(prd(PxIS) & IS_TFES));
    for (unsigned t = 3; t < 8; ++t)
        EXPECT_EQ(diff(w[t], r[t]), 0u);
    pwr(PxIS, 0xFFFFFFFF);
}

// What n never-written sectors from lba read as (model/device/media_store.h).
static std::vector<uint8_t> blank(uint64_t lba, uint32_t n, uint64_t seed) {
    std::vector<uint8_t> v(size_t(n) * 512);
    for (uint32_t i = 0; i < n; ++i)
        device::MediaStore::blank_sector(v.data() + size_t(i) * 512, lba + i, seed);
    return v;
}

MODEL_TEST(write_fault_commits_nothing) {
    Buf w = buf(8 * 512), r = buf(8 * 512);
    fill(w, 5);
    B->disk.inject_media_error(media_error(Err::WriteFault, Op::Write, 50000, 50007, 1), "wf0");
    build(0, cmd(0x35, 50000, 8), w, HDR_W);
    EXPECT_TRUE(!run(0));
    EXPECT_EQ(prd(PxTFD), 0x0461u); // DRDY|DF|ERR, ABRT
    restart_engine();
    std::memset(r.cpu, 0xEE, r.len);
    build(1, cmd(0x25, 50000, 8), r);
    EXPECT_TRUE(run(1));
    std::vector<uint8_t> unwritten = blank(50000, 8, B->disk.media().seed());
    EXPECT_EQ(diff(r.cpu, unwritten.data(), r.len), 0u);
    // count 1: the retry succeeds
    build(0, cmd(0x35, 50000, 8), w, HDR_W);
    EXPECT_TRUE(run(0));
    build(1, cmd(0x25, 50000, 8), r);
    EXPECT_TRUE(run(1));
    EXPECT_EQ(diff(w, r), 0u);
    // IDNF on an NCQ write: nothing moves, log 10h names it.
    B->disk.inject_media_error(media_error(Err::Idnf, Op::Ncq, 50004, 50004, 1), "idnf0");
    build(9, ncq(true, 50000, 9, 8), w, HDR_W);
    issue_ncq(9);
    EXPECT_TRUE(wait_until([] { return prd(PxIS) & IS_TFES; }, 100000, 1));
    restart_engine();
    std::vector<uint8_t> log = read_log_10h();
    EXPECT_EQ(log[0], 9);
    EXPECT_EQ(log[3], 0x10);
    EXPECT_EQ(log[4], uint8_t(50004 & 0xFF));
    // A write fault on an NCQ write: the data moves, the SDB reports DF, nothing commits.
    B->disk.inject_media_error(media_error(Err::WriteFault, Op::Ncq, 51000, 51007, 1), "wf1");
    build(10, ncq(true, 51000, 10, 8), w, HDR_W);
    issue_ncq(10);
    EXPECT_TRUE(wait_until([] { return prd(PxIS) & IS_TFES; }, 100000, 1));
    EXPECT_EQ(prd(PxTFD) & 0xFF7F, 0x0461u); // SDB: DF|ERR (DRDY), ABRT; BSY untouched
    EXPECT_EQ(get32(clb_p + 10 * 32 + 4), 8u * 512); // the data phase ran
    restart_engine();
    log = read_log_10h();
    EXPECT_EQ(log[0], 10);
    EXPECT_EQ(log[2], 0x61);
    EXPECT_EQ(log[3], 0x04);
    std::memset(r.cpu, 0xEE, r.len);
    build(1, cmd(0x25, 51000, 8), r);
    EXPECT_TRUE(run(1));
    unwritten = blank(51000, 8, B->disk.media().seed());
    EXPECT_EQ(diff(r.cpu, unwritten.data(), r.len), 0u);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(identify_failures_then_success) {
    Buf id = buf(512);
    B->disk.inject_identify_failures(2, "idf0");
    for (int i = 0; i < 2; ++i) {
        build(0, cmd(0xEC, 0, 0), id);
        EXPECT_TRUE(!run(0));
        EXPECT_EQ(prd(PxTFD), 0x0451u); // ABRT
        restart_engine();
    }
    build(0, cmd(0xEC, 0, 0), id);
    EXPECT_TRUE(run(0));
    EXPECT_TRUE(ata_string(id.cpu, 10, 10) == "SIM0000001");
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(hang_survives_srst_until_comreset) {
    std::vector<device::CommandInfo> seen;
    B->disk.set_command_observer([&](const device::CommandInfo &ci) {
        seen.push_back(ci);
        if (ci.lba == 7777)
            B->disk.inject_hang("hang0");
    });
    Buf r = buf(512);
    build(0, cmd(0x25, 7777, 1), r);
    EXPECT_TRUE(!run(0, 5000));
    EXPECT_EQ(prd(PxCI), 1u);
    EXPECT_TRUE(prd(PxTFD) & sata::kAtaBsy);
    EXPECT_EQ(seen.size(), 1u);
    EXPECT_EQ(seen.back().opcode, 0x25);
    EXPECT_EQ(seen.back().lba, 7777u);
    EXPECT_EQ(seen.back().sectors, 1u);
    EXPECT_EQ(seen.back().tag, -1);
    EXPECT_TRUE(!seen.back().ncq && !seen.back().write);
    // Software reset: CLO, SRST assert / release. The hung drive never answers.
    stop_engine();
    pwr(PxCMD, CMD_FRE | CMD_CLO);
    pwr(PxCMD, CMD_FRE | CMD_ST);
    sata::Taskfile tf;
    tf.control = sata::kAtaSrst | 0x08;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, HDR_R | HDR_C);
    EXPECT_TRUE(run(0, 1000));
    sc_core::wait(1000, SC_US);
    tf.control = 0x08;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0});
    pwr(PxCI, 1);
    sc_core::wait(20000, SC_US); // far past the drive's 2 ms reset time
    EXPECT_EQ(prd(PxCI), 1u);
    EXPECT_TRUE(prd(PxTFD) & sata::kAtaBsy);
    // COMRESET: signature after the normal reset time, commands work again.
    comreset();
    EXPECT_EQ(prd(PxTFD) & 0xFF, 0x50u);
    build(1, cmd(0x25, 7778, 1), r);
    EXPECT_TRUE(run(1));
    EXPECT_EQ(seen.back().lba, 7778u);
    EXPECT_TRUE(seen.back().seq > 1);
    B->disk.set_command_observer(nullptr);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(lost_irq_completes_without_interrupt) {
    Buf r = buf(4096);
    pwr(PxIS, 0xFFFFFFFF);
    B->hba.mmio_write32(IS, 1);
    EXPECT_TRUE(!B->irq.level());
    B->hba.inject_lost_irq(0, 1, 0, "lost0");
    build(0, cmd(0x25, 100, 8), r);
    EXPECT_TRUE(run(0));
    sc_core::wait(50, SC_US);
    EXPECT_EQ(prd(PxCI), 0u);
    EXPECT_EQ(prd(PxIS) & IS_DHRS, 0u);
    EXPECT_TRUE(!B->irq.level());
    EXPECT_EQ(fb_p[RX_RFIS], 0x34); // the D2H FIS was still posted
    // the next completion interrupts again
    build(1, cmd(0x25, 100, 8), r);
    EXPECT_TRUE(run(1));
    EXPECT_TRUE(prd(PxIS) & IS_DHRS);
    EXPECT_TRUE(B->irq.level());
    pwr(PxIS, 0xFFFFFFFF);
    B->hba.mmio_write32(IS, 1);
    EXPECT_TRUE(!B->irq.level());
    // A window: NCQ completions lose SDBS; an error interrupt still gets through.
    B->hba.inject_lost_irq(0, 0, 2000000, "lost1");
    std::vector<Buf> rs;
    for (unsigned t = 0; t < 4; ++t) {
        rs.push_back(buf(4096));
        build(t, ncq(false, 200 + 8 * t, t, 8), rs[t]);
    }
    pwr(PxSACT, 0xF);
    pwr(PxCI, 0xF);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0; }, 100000));
    sc_core::wait(10, SC_US);
    EXPECT_EQ(prd(PxIS) & IS_SDBS, 0u);
    EXPECT_TRUE(!B->irq.level());
    build(5, cmd(0x25, (1u << 20) + 5, 1), r); // past the end: IDNF
    EXPECT_TRUE(!run(5));
    EXPECT_TRUE(prd(PxIS) & IS_TFES);
    EXPECT_TRUE(B->irq.level());
    size_t effects = 0;
    for (const auto &rec : B->tr.recs)
        if (rec.name == "fault.effect" && rec.src == "ahci0")
            ++effects;
    EXPECT_TRUE(effects >= 2);
    B->hba.clear_faults();
    restart_engine();
    B->hba.mmio_write32(IS, 1);
}

MODEL_TEST(sdb_coalescing_reports_several_tags) {
    B->disk.set_fis_trace(true);
    const size_t from = B->tr.recs.size();
    std::vector<Buf> rs;
    for (unsigned t = 0; t < 8; ++t) {
        rs.push_back(buf(4096));
        build(t, ncq(false, 300 + 8 * t, t, 8), rs[t]);
    }
    pwr(PxSACT, 0xFF);
    pwr(PxCI, 0xFF);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0 || (prd(PxIS) & IS_TFES); }, 100000));
    B->disk.set_fis_trace(false);
    unsigned sdbs = 0, tags = 0, widest = 0;
    for (size_t i = from; i < B->tr.recs.size(); ++i) {
        const auto &rec = B->tr.recs[i];
        if (rec.name != "disk.fis_tx" || rec.msg.rfind("SDB", 0) != 0)
            continue;
        const auto p = rec.msg.find("sactive=0x");
        const unsigned bits = __builtin_popcount(unsigned(std::stoul(rec.msg.substr(p + 10, 8), nullptr, 16)));
        ++sdbs;
        tags += bits;
        widest = std::max(widest, bits);
    }
    EXPECT_EQ(tags, 8u);
    EXPECT_TRUE(sdbs < 8);
    EXPECT_TRUE(widest >= 2);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(normal_operation_has_no_violations) { EXPECT_EQ(B->tr.violations(), 0u); }

MODEL_TEST(unplug_with_ncq_outstanding_then_new_drive) {
    std::vector<Buf> w;
    for (unsigned t = 0; t < 8; ++t) {
        w.push_back(buf(64 * 512));
        fill(w.back(), uint8_t(t));
        build(t, ncq(true, 60000 + 128 * t, t, 64), w[t], HDR_W);
    }
    pwr(PxIS, 0xFFFFFFFF);
    B->hba.mmio_write32(IS, 1);
    pwr(PxSACT, 0xFF);
    pwr(PxCI, 0xFF);
    sc_core::wait(40, SC_US); // data frames on the wire
    EXPECT_TRUE(prd(PxSACT) != 0);
    B->link.set_device_present(false);
    sc_core::wait(1000, SC_US);
    EXPECT_EQ(prd(PxSSTS), 0u);
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_N);
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
    EXPECT_TRUE(B->irq.level());
    stop_engine();
    EXPECT_EQ(prd(PxSACT) | prd(PxCI), 0u);
    pwr(PxSERR, 0xFFFFFFFF);
    fault::PlugParams pp;
    pp.serial = "NEWDRIVE42";
    pp.model = "SATASIM SSD";
    pp.capacity = 1u << 21;
    pp.blank_media = true;
    const uint64_t old_seed = B->disk.media().seed();
    B->disk.replace_identity(pp);
    // A different drive: its own media seed, so its blank sectors differ from the old one's.
    EXPECT_TRUE(B->disk.media().seed() != old_seed);
    EXPECT_EQ(B->disk.media().sectors_stored(), 0u);
    B->link.set_device_present(true);
    EXPECT_TRUE(wait_until([] { return prd(PxSERR) & SERR_DIAG_X; }, 1000, 1)); // COMINIT
    EXPECT_TRUE(prd(PxIS) & IS_PCS);
    // The listening PHY (PxSCTL.DET 0) answers the COMINIT by itself: COMWAKE, speed
    // negotiation, PhyRdy, no COMRESET. SError as the hot-plug logs print it (SErr
    // 0x4050002: RecovComm PHYRdyChg CommWake DevExch), PxIS.PRCS with DIAG.N.
    EXPECT_TRUE(wait_until([] { return (prd(PxSSTS) & 0xF) == 3; }, 1000, 1));
    EXPECT_EQ(prd(PxSERR), SERR_ERR_M | SERR_DIAG_N | SERR_DIAG_W | SERR_DIAG_X);
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
    comreset();
    Buf id = buf(512);
    build(0, cmd(0xEC, 0, 0), id);
    EXPECT_TRUE(run(0));
    EXPECT_TRUE(ata_string(id.cpu, 10, 10) == "NEWDRIVE42");
    EXPECT_TRUE(ata_string(id.cpu, 27, 20) == "SATASIM SSD");
    EXPECT_EQ(identify_sectors(id.cpu), uint64_t(1) << 21);
    Buf r = buf(16 * 512); // blank media: what the old drive held is gone
    std::memset(r.cpu, 0xEE, r.len);
    build(1, cmd(0x25, 3000, 16), r);
    EXPECT_TRUE(run(1));
    std::vector<uint8_t> unwritten = blank(3000, 16, B->disk.media().seed());
    EXPECT_EQ(diff(r.cpu, unwritten.data(), r.len), 0u);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(phy_glitch_mid_transfer_and_renegotiation) {
    Buf r = buf(128 * 512);
    build(0, cmd(0x25, 0, 128), r);
    pwr(PxCI, 1);
    sc_core::wait(30, SC_US);
    B->link.phy_glitch(sc_core::sc_time(500, SC_US));
    sc_core::wait(10, SC_US);
    EXPECT_EQ(prd(PxSSTS) & 0xF, 1u); // presence, no communication
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
    EXPECT_TRUE(wait_until([] { return prd(PxSERR) & SERR_DIAG_X; }, 2000, 5)); // COMINIT
    comreset();
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    build(0, cmd(0x25, 0, 128), r);
    EXPECT_TRUE(run(0));
    EXPECT_EQ(get32(clb_p + 4), 128u * 512);
}

MODEL_TEST(limit_device_gen_slows_the_link) {
    B->link.limit_device_gen(link::Gen::Gen1);
    comreset();
    EXPECT_EQ(prd(PxSSTS), 0x113u);
    Buf r = buf(4096);
    build(0, cmd(0x25, 0, 8), r);
    EXPECT_TRUE(run(0));
    B->link.clear_faults();
    comreset();
    EXPECT_EQ(prd(PxSSTS), 0x133u);
}

MODEL_TEST(violation_records_per_rule) {
    test::RecordingTrace &t = B->tr;
    // PxCI / PxSACT written with the engine stopped.
    stop_engine();
    pwr(PxCI, 1);
    EXPECT_EQ(t.count("ahci.violation", "ci_while_stopped"), 1u);
    pwr(PxSACT, 1);
    EXPECT_EQ(t.count("ahci.violation", "sact_while_stopped"), 1u);
    // Command list moved while running; ST without FRE; FRE cleared under ST.
    pwr(PxCMD, CMD_FRE | CMD_ST);
    pwr(PxCLB, uint32_t(clb));
    EXPECT_EQ(t.count("ahci.violation", "clb_write_while_running"), 1u);
    pwr(PxFB, uint32_t(fb));
    EXPECT_EQ(t.count("ahci.violation", "fb_write_while_fis_rx"), 1u);
    pwr(PxCMD, CMD_ST);
    EXPECT_EQ(t.count("ahci.violation", "fre_clear_while_st"), 1u);
    pwr(PxCMD, 0);
    pwr(PxCMD, CMD_ST); // CR still set from the stop just before, and no FRE
    EXPECT_EQ(t.count("ahci.violation", "st_without_fre"), 1u);
    EXPECT_EQ(t.count("ahci.violation", "st_while_cr"), 1u);
    pwr(PxCMD, 0);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & (CMD_CR | CMD_FR)); }, 500, 1));
    restart_engine();
    // PxSACT set for a non-queued command; an FPDMA command without its PxSACT bit.
    Buf r = buf(4096);
    build(2, cmd(0x25, 0, 8), r);
    pwr(PxSACT, 1u << 2);
    pwr(PxCI, 1u << 2);
    EXPECT_TRUE(wait_until([&] { return t.count("ahci.violation", "sact_without_ncq_command") == 1; }, 1000, 1));
    sc_core::wait(200, SC_US);
    restart_engine();
    build(3, ncq(false, 0, 3, 8), r);
    pwr(PxCI, 1u << 3);
    EXPECT_TRUE(wait_until([&] { return t.count("ahci.violation", "ncq_command_without_sact") == 1; }, 1000, 1));
    sc_core::wait(200, SC_US);
    comreset(); // the drive still holds the queued command
    // A non-queued command while NCQ commands are outstanding: the drive aborts them all.
    Buf big = buf(256 * 512);
    build(4, ncq(false, 0, 4, 256), big);
    build(5, cmd(0x25, 0, 8), r);
    pwr(PxSACT, 1u << 4);
    pwr(PxCI, 1u << 4);
    sc_core::wait(5, SC_US);
    pwr(PxCI, 1u << 5);
    EXPECT_TRUE(wait_until([] { return prd(PxIS) & IS_TFES; }, 10000, 1));
    EXPECT_EQ(t.count("disk.violation", "nonqueued_while_ncq_outstanding"), 1u);
    restart_engine();
    EXPECT_EQ(read_log_10h()[0], 0x80); // NQ
    // DMA into the guard gap after an allocation: a host bus error and a violation.
    Buf small = buf(512);
    build(6, cmd(0x25, 0, 2), Buf{small.bus, small.cpu, 1024});
    EXPECT_TRUE(!run(6));
    EXPECT_TRUE(prd(PxIS) & IS_HBFS);
    EXPECT_TRUE(t.count("ahci.violation", "dma_past_allocation") >= 1);
    restart_engine();
    comreset(); // the drive still had data for the dead command
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    ctx.run_err = IS_TFES | IS_HBFS | IS_IFS;
    ctx.run_step_us = 1;
    return satasim::test::run_all();
}
