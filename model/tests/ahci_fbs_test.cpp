// AHCI FIS-based switching (AHCI 1.3.1 3.3.16 and 9.3, docs/hardware.md 5.2/5.5/5.9): PxFBS
// reset value and field semantics (EN only while stopped, DEC self-clears, SDE/ADO/DWE
// read-only), the 16 x 256 B received-FIS area (one per PM port), commands to two drives
// behind an FBS-capable port multiplier in flight at the same time with their data intact,
// and a single device error that stops one drive while the other completes, cleared by DEC.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/tests/ahci_pmp_driver.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using namespace satasim::test::ahci_tb;
using sc_core::SC_US;

namespace {

// HBA port 0 (CAP.SPM, CAP.FBSS) -> link0 -> pmp0 (SiI4726-like, FBS-capable, 3 ports),
// a drive on each fan-out port.
struct Bench : test::RecordingTraceHolder {
    bus::HostMemory mem;
    bus::IrqLine irq;
    AhciHba hba;
    test::PmpFanout fan;
    static AhciConfig cfg() {
        AhciConfig c = one_port_cfg<AhciConfig>();
        c.spm = true;
        c.fbss = true;
        return c;
    }
    Bench()
        : hba("ahci0", cfg(), mem, irq, &tr), fan(hba, link::Gen::Gen3, pmp::sii4726(3), "FBSDISK") {}
};

Bench *B;

sata::Fis ncq(uint8_t pmp, bool write, uint64_t lba, unsigned tag, uint16_t sectors) {
    return cmd(pmp, write ? 0x61 : 0x60, lba, uint16_t(tag << 3), sectors);
}

} // namespace

MODEL_TEST(fbs_capability_and_reset_value) {
    EXPECT_TRUE(B->hba.mmio_read32(CAP) & CAP_FBSS);
    EXPECT_TRUE(prd(PxCMD) & CMD_FBSCP);
    // EN, DEC, SDE, DEV and DWE are 0 after reset; ADO is the configured hint (2).
    EXPECT_EQ(prd(PxFBS) & ~FBS_ADO_MASK, 0u);
    EXPECT_EQ((prd(PxFBS) & FBS_ADO_MASK) >> FBS_ADO_SHIFT, 2u);
    // FBSCP is read-only.
    pwr(PxCMD, prd(PxCMD) & ~CMD_FBSCP);
    EXPECT_TRUE(prd(PxCMD) & CMD_FBSCP);
}

MODEL_TEST(fbs_enable_rules_and_field_semantics) {
    // Command list and command tables from the bench; a 4 KiB-aligned 4 KiB FIS area.
    alloc_port_memory();
    fb = ctx.mem->alloc(kRxFisSizeFbs, 4096, &fb_p);
    std::memset(fb_p, 0, kRxFisSizeFbs);
    pwr(PxFB, uint32_t(fb));
    pwr(PxFBU, uint32_t(fb >> 32));

    // EN while PxCMD.PMA is clear: software must say a PMP is attached first.
    pwr(PxFBS, FBS_EN);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_en_without_pma"), 1u);
    pwr(PxFBS, 0);
    EXPECT_EQ(prd(PxFBS) & FBS_EN, 0u);

    pwr(PxCMD, CMD_PMA);
    pwr(PxFBS, FBS_EN);
    EXPECT_TRUE(prd(PxFBS) & FBS_EN);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_en_without_pma"), 1u);
    EXPECT_EQ(B->tr.count("ahci.fbs_enable"), 2u);

    pwr(PxCMD, CMD_FRE | CMD_PMA);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    sc_core::wait(5000, SC_US);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);

    // EN cannot change while ST is set: ignored, and a violation.
    pwr(PxFBS, 0);
    EXPECT_TRUE(prd(PxFBS) & FBS_EN);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_en_while_running"), 1u);
    // DEC without a single device error: a violation; DEC reads 0 at once.
    pwr(PxFBS, FBS_EN | FBS_DEC);
    EXPECT_EQ(prd(PxFBS) & FBS_DEC, 0u);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_dec_without_sde"), 1u);
    // SDE, ADO and DWE are read-only; DEV is software's and reads back.
    pwr(PxFBS, FBS_EN | FBS_SDE | FBS_ADO_MASK | FBS_DWE_MASK | 3u << FBS_DEV_SHIFT);
    EXPECT_EQ(prd(PxFBS), FBS_EN | 2u << FBS_ADO_SHIFT | 3u << FBS_DEV_SHIFT);
    // Writing the same EN while running is fine.
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_en_while_running"), 1u);
}

MODEL_TEST(pmp_signature_lands_in_area_15) {
    EXPECT_TRUE(softreset(15));
    EXPECT_EQ(prd(PxSIG), pmp::kSignature);
    EXPECT_EQ(area(15)[RX_RFIS] , 0x34);
    EXPECT_EQ(area(15)[RX_RFIS + 1] & 0xF, 15);
    EXPECT_EQ(area(15)[RX_RFIS + 5] | area(15)[RX_RFIS + 6] << 8, 0x9669);
    EXPECT_EQ(area(0)[RX_RFIS], 0); // port 0's area untouched
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(15, pmp::gscr::PRODUCT, v));
    EXPECT_EQ(v, 0x47261095u);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(each_device_reports_into_its_own_area) {
    const char *serial[] = {"FBSDISK0", "FBSDISK1", "FBSDISK2"};
    for (unsigned p = 0; p < 3; ++p) {
        fanout_reset(p);
        EXPECT_TRUE(softreset(uint8_t(p)));
        EXPECT_EQ(area(p)[RX_RFIS + 1] & 0xFu, p);
        EXPECT_EQ(area(p)[RX_RFIS + 5] | area(p)[RX_RFIS + 6] << 8, 0); // ATA signature
        Buf id = buf(512);
        build(2, uint8_t(p), cmd(uint8_t(p), 0xEC, 0, 0), id);
        EXPECT_TRUE(run_on(2, uint8_t(p)));
        EXPECT_TRUE(ata_string(id.cpu, 10, 10) == serial[p]);
        // IDENTIFY ends with PIO Setup (E_Status) in the device's own area.
        EXPECT_EQ(area(p)[RX_PSFIS], 0x5F);
        EXPECT_EQ(area(p)[RX_PSFIS + 1] & 0xFu, p);
    }
    // Nothing from the drives in the PMP's area: it still holds the last GSCR/PSCR answer.
    EXPECT_EQ(area(15)[RX_RFIS + 1] & 0xF, 15);
    EXPECT_EQ(area(15)[RX_PSFIS], 0);
    pwr(PxIS, 0xFFFFFFFF);
}

// Commands to drives 0 and 1 issued back to back: with FBS the HBA sends the second while
// the first drive still works on its own (its command still in PxCI), so two reads take
// about as long as one. Then NCQ reads with tags of both drives in the shared PxSACT.
MODEL_TEST(commands_to_two_devices_run_concurrently) {
    const uint32_t n = 16; // 8 KiB each: the drives' read latency, not the wire, dominates
    Buf w0 = buf(n * 512), w1 = buf(n * 512), r0 = buf(n * 512), r1 = buf(n * 512);
    Buf q0 = buf(n * 512), q1 = buf(n * 512), r2 = buf(n * 512);
    fill(w0, 3);
    fill(w1, 200);
    // Writes (write cache on: done when the data is in), both drives at once.
    build(4, 0, cmd(0, 0x35, 5000, uint16_t(n)), w0, HDR_W);
    build(5, 1, cmd(1, 0x35, 5000, uint16_t(n)), w1, HDR_W);
    issue(4, 0);
    issue(5, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxCI) & 0x30) == 0 || (prd(PxIS) & IS_TFES); }, 50000, 5));
    EXPECT_EQ(get32(clb_p + 4 * 32 + 4), n * 512);
    EXPECT_EQ(get32(clb_p + 5 * 32 + 4), n * 512);

    // One read alone (drive 2): the time a command takes.
    build(4, 2, cmd(2, 0x25, 5000, uint16_t(n)), r2);
    sc_core::sc_time t0 = sc_core::sc_time_stamp();
    EXPECT_TRUE(run_on(4, 2, 50000));
    const double one_us = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e6;
    EXPECT_TRUE(one_us >= test::kFanoutLatencyUs);

    bool d0_busy_when_d1_started = false, d1_started = false;
    B->fan.d1.set_command_observer([&](const device::CommandInfo &) {
        d1_started = true;
        d0_busy_when_d1_started = (prd(PxCI) & (1u << 4)) != 0;
    });
    build(4, 0, cmd(0, 0x25, 5000, uint16_t(n)), r0);
    build(5, 1, cmd(1, 0x25, 5000, uint16_t(n)), r1);
    t0 = sc_core::sc_time_stamp();
    issue(4, 0);
    issue(5, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxCI) & 0x30) == 0 || (prd(PxIS) & IS_TFES); }, 50000, 10));
    const double us = (sc_core::sc_time_stamp() - t0).to_seconds() * 1e6;
    EXPECT_TRUE(d1_started);
    EXPECT_TRUE(d0_busy_when_d1_started);
    // Overlapped: two reads in well under twice the time of one.
    EXPECT_TRUE(us < 1.3 * one_us);
    EXPECT_EQ(diff(w0, r0), 0u);
    EXPECT_EQ(diff(w1, r1), 0u);
    B->fan.d1.set_command_observer(nullptr);

    // NCQ reads: tags 6 (drive 0) and 7 (drive 1) in the shared PxSACT.
    bool both_queued = false;
    B->fan.d1.set_command_observer([&](const device::CommandInfo &ci) {
        both_queued = ci.ncq && (prd(PxSACT) & 0xC0) == 0xC0;
    });
    build(6, 0, ncq(0, false, 5000, 6, uint16_t(n)), q0);
    build(7, 1, ncq(1, false, 5000, 7, uint16_t(n)), q1);
    t0 = sc_core::sc_time_stamp();
    issue_ncq(6, 0);
    issue_ncq(7, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxSACT) & 0xC0) == 0 || (prd(PxIS) & IS_TFES); }, 50000, 10));
    EXPECT_TRUE((sc_core::sc_time_stamp() - t0).to_seconds() * 1e6 < 1.3 * one_us);
    EXPECT_TRUE(both_queued);
    EXPECT_EQ(prd(PxSACT), 0u);
    EXPECT_EQ(diff(w0, q0), 0u);
    EXPECT_EQ(diff(w1, q1), 0u);
    EXPECT_TRUE(diff(w0, q1) > 0);
    // The SDB FISes went to each drive's own area.
    EXPECT_EQ(area(0)[RX_SDBFIS], 0xA1);
    EXPECT_EQ(area(1)[RX_SDBFIS], 0xA1);
    EXPECT_EQ(area(0)[RX_SDBFIS + 1] & 0xF, 0);
    EXPECT_EQ(area(1)[RX_SDBFIS + 1] & 0xF, 1);
    B->fan.d1.set_command_observer(nullptr);
    EXPECT_TRUE(!(prd(PxIS) & (IS_TFES | IS_IFS | IS_HBFS | IS_IPMS)));
    pwr(PxIS, 0xFFFFFFFF);
}

// Drive 0 fails a read (ABRT) while drive 1 reads: SDE with DWE = 0, PxIS.TFES, only the
// failing command stays in PxCI, drive 1's read completes with its data; DEC clears the
// error and drive 0 takes commands again.
MODEL_TEST(single_device_error_other_device_completes) {
    const uint32_t n = 256;
    Buf w1 = buf(n * 512), r1 = buf(n * 512), r0 = buf(4096);
    fill(w1, 99);
    build(10, 1, cmd(1, 0x35, 9000, uint16_t(n)), w1, HDR_W);
    EXPECT_TRUE(run_on(10, 1));
    B->fan.d0.inject_media_error(
        media_error(fault::MediaParams::Error::Abrt, fault::CommandMatch::Op::Any, 777, 777, 1),
        "fbs-err");
    build(8, 0, cmd(0, 0x25, 777, 8), r0);
    build(9, 1, cmd(1, 0x25, 9000, uint16_t(n)), r1);
    issue(8, 0);
    issue(9, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_TFES) != 0; }, 50000, 5));
    EXPECT_TRUE(prd(PxFBS) & FBS_SDE);
    EXPECT_EQ((prd(PxFBS) & FBS_DWE_MASK) >> FBS_DWE_SHIFT, 0u);
    EXPECT_TRUE(prd(PxCI) & (1u << 8));
    EXPECT_EQ(area(0)[RX_RFIS + 2] & sata::kAtaErr, sata::kAtaErr);
    EXPECT_EQ(area(0)[RX_RFIS + 3], sata::kAtaAbrt);
    // The other drive keeps running.
    EXPECT_TRUE(wait_until([] { return !(prd(PxCI) & (1u << 9)); }, 50000, 5));
    EXPECT_EQ(prd(PxCI), 1u << 8);
    EXPECT_EQ(diff(w1, r1), 0u);
    // A command to the failed drive before DEC is a violation; it is not sent.
    build(11, 0, cmd(0, 0x25, 100, 8), r0);
    issue(11, 0);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_issue_to_failed_device"), 1u);
    sc_core::wait(500, SC_US);
    EXPECT_EQ(prd(PxCI), (1u << 8) | (1u << 11));
    // DEC: drive 0's commands leave PxCI, SDE and DWE clear, DEC reads 0.
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxFBS, prd(PxFBS) | FBS_DEC);
    EXPECT_EQ(prd(PxFBS) & (FBS_DEC | FBS_SDE | FBS_DWE_MASK), 0u);
    EXPECT_EQ(prd(PxCI), 0u);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_dec_without_sde"), 1u);
    // Drive 0 works again.
    build(8, 0, cmd(0, 0x25, 100, 8), r0);
    EXPECT_TRUE(run_on(8, 0));
    EXPECT_EQ(get32(clb_p + 8 * 32 + 4), 4096u);
}

// NCQ error on drive 2 (SDB with ERR) while drive 1 has NCQ reads queued: drive 2's tag
// stays in PxSACT until DEC, drive 1's tags complete.
MODEL_TEST(ncq_single_device_error) {
    const uint32_t n = 256;
    Buf r1 = buf(n * 512), r2 = buf(4096);
    B->fan.d2.inject_media_error(
        media_error(fault::MediaParams::Error::Unc, fault::CommandMatch::Op::Any, 4242, 4242, 1),
        "fbs-ncq");
    build(12, 2, ncq(2, false, 4240, 12, 8), r2);
    build(13, 1, ncq(1, false, 9000, 13, uint16_t(n)), r1);
    issue_ncq(12, 2);
    issue_ncq(13, 1);
    EXPECT_TRUE(wait_until([] { return (prd(PxIS) & IS_TFES) != 0; }, 50000, 5));
    EXPECT_TRUE(prd(PxFBS) & FBS_SDE);
    EXPECT_EQ((prd(PxFBS) & FBS_DWE_MASK) >> FBS_DWE_SHIFT, 2u);
    EXPECT_TRUE(wait_until([] { return !(prd(PxSACT) & (1u << 13)); }, 50000, 5));
    EXPECT_EQ(prd(PxSACT), 1u << 12);
    Buf w1 = buf(n * 512);
    fill(w1, 99);
    EXPECT_EQ(diff(w1, r1), 0u);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxFBS, prd(PxFBS) | FBS_DEC);
    EXPECT_EQ(prd(PxSACT), 0u);
    EXPECT_EQ(prd(PxFBS) & FBS_SDE, 0u);
    // READ LOG EXT 10h clears the drive's NCQ error state; then it reads again.
    Buf log = buf(512);
    build(14, 2, cmd(2, 0x2F, 0x10, 1), log);
    EXPECT_TRUE(run_on(14, 2));
    EXPECT_EQ(log.cpu[0] & 0x1F, 12); // the failed tag
    build(12, 2, ncq(2, false, 4240, 12, 8), r2);
    issue_ncq(12, 2);
    EXPECT_TRUE(wait_until([] { return !(prd(PxSACT) & (1u << 12)) || (prd(PxIS) & IS_TFES); }, 50000, 5));
    EXPECT_EQ(prd(PxSACT), 0u);
    EXPECT_TRUE(!(prd(PxIS) & IS_TFES));
}

// PxFBS.DEV must name the PM port of the command header (one device per PxCI write): a
// mismatch is a violation; the FIS still goes where the header says.
MODEL_TEST(dev_must_match_the_command_header) {
    Buf r = buf(4096);
    build(3, 1, cmd(1, 0x25, 100, 8), r);
    set_dev(0);
    pwr(PxCI, 1u << 3);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCI) & (1u << 3)); }, 20000));
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_dev_mismatch"), 1u);
    EXPECT_EQ(get32(clb_p + 3 * 32 + 4), 4096u);
    EXPECT_EQ(area(1)[RX_RFIS + 1] & 0xF, 1);
}

// Clearing ST forgets every command; EN clears while stopped, and the port is back to
// command-based switching with one 256 B area.
MODEL_TEST(stop_clears_and_fbs_disable_while_stopped) {
    stop_engine();
    EXPECT_EQ(prd(PxCI), 0u);
    pwr(PxFBS, 0);
    EXPECT_EQ(prd(PxFBS) & FBS_EN, 0u);
    EXPECT_EQ(B->tr.count("ahci.fbs_disable"), 2u);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_en_while_running"), 1u);
    EXPECT_EQ(B->tr.count("ahci.violation", "fbs_fb_misaligned"), 0u);
    // Back to command-based switching: the FIS area is the first 256 B again.
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    std::memset(fb_p, 0, kRxFisSizeFbs);
    Buf r = buf(4096);
    build(3, 1, cmd(1, 0x25, 100, 8), r);
    EXPECT_TRUE(run(3));
    EXPECT_EQ(area(0)[RX_RFIS + 1] & 0xF, 1); // PM port 1's FIS at offset 0
    EXPECT_EQ(area(1)[RX_RFIS], 0);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    ctx.run_err = IS_TFES | IS_IFS | IS_IPMS | IS_HBFS;
    ctx.stop_cmd = CMD_FRE | CMD_PMA;
    fbs_issue = true;
    return satasim::test::run_all();
}
