// Port multiplier behind an AHCI HBA (CAP.SPM, command-based switching), driven the way a
// libata-style driver does it: SRST to the control port for the PMP signature, READ/WRITE
// PORT MULTIPLIER for GSCR and PSCR, a fan-out COMRESET through PSCR SControl, IDENTIFY
// and DMA to the drives behind it, a FIS for a port that does not exist, hotplug on a
// fan-out port with asynchronous notification, and a hung control port.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "model/tests/ahci_pmp_driver.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using namespace satasim::test::ahci_tb;
using sc_core::SC_US;

namespace {

// HBA port 0 -> link0 -> pmp0 (SiI3726-like, 5 ports, Gen2 PHYs). Fan-out: port 0 a
// Gen3 disk (runs at Gen2), port 2 a Gen1 disk, port 4 an empty cable (hotplug), ports
// 1 and 3 without a cable.
struct Bench {
    bus::HostMemory mem;
    bus::IrqLine irq;
    AhciHba hba;
    link::SataLink link;
    pmp::PortMultiplier pm;
    link::SataLink l0, l2, l4;
    device::SataDisk d0, d2, d4;
    // a 6-port SiI3726 on no host link: its port 5 is the part's enclosure bridge
    std::unique_ptr<pmp::PortMultiplier> pm6 =
        std::make_unique<pmp::PortMultiplier>("pmp6", pmp::sii3726(6), nullptr, 1);
    static AhciConfig cfg() {
        AhciConfig c = one_port_cfg<AhciConfig>();
        c.spm = true;
        return c;
    }
    Bench()
        : hba("ahci0", cfg(), mem, irq),
          link("link0", test::fanout_link_cfg(link::Gen::Gen3, link::Gen::Gen2)),
          pm("pmp0", pmp::sii3726(5), nullptr, 0),
          l0("link0_0", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen3)),
          l2("link0_2", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen1)),
          l4("link0_4", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen3, false)),
          d0("disk0_0", test::fanout_ssd_cfg("PMPDISK0", link::Gen::Gen3)),
          d2("disk0_2", test::fanout_ssd_cfg("PMPDISK2", link::Gen::Gen1)),
          d4("disk0_4", test::fanout_ssd_cfg("PMPDISK4", link::Gen::Gen3)) {
        test::connect_pmp(hba, link, pm);
        test::connect_fanout_port(pm, 0, l0, d0);
        test::connect_fanout_port(pm, 2, l2, d2);
        test::connect_fanout_port(pm, 4, l4, d4);
    }
};

Bench *B;

} // namespace

MODEL_TEST(cap_and_port_start) {
    EXPECT_TRUE(B->hba.mmio_read32(CAP) & CAP_SPM);
    alloc_port_memory();
    pwr(PxCMD, CMD_FRE | CMD_PMA);
    EXPECT_TRUE(prd(PxCMD) & CMD_PMA);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSSTS), 0x123u); // the PMP's host PHY is Gen2
    sc_core::wait(5000, SC_US);     // the fan-out drives' power-on signatures pass by
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
}

MODEL_TEST(softreset_port15_gives_pmp_signature) {
    EXPECT_TRUE(softreset(15));
    EXPECT_EQ(prd(PxSIG), pmp::kSignature);
    EXPECT_EQ(fb_p[RX_RFIS + 1] & 0xF, 15);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(gscr_reads) {
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(15, pmp::gscr::PRODUCT, v));
    EXPECT_EQ(v, 0x37261095u);
    EXPECT_TRUE(pm_read(15, pmp::gscr::PORT_INFO, v));
    EXPECT_EQ(v, 5u);
    EXPECT_TRUE(pm_read(15, pmp::gscr::REVISION, v));
    EXPECT_EQ(v & 0xE, 0x6u); // PMP 1.0 and 1.1
    EXPECT_TRUE(pm_read(15, pmp::gscr::FEAT, v));
    EXPECT_EQ(v, pmp::gscr::FEAT_AN);
    // Linux: error-info enable = DIAG.N; features enabled read back.
    EXPECT_TRUE(pm_write(15, pmp::gscr::ERROR_EN, 0x00010000));
    EXPECT_TRUE(pm_read(15, pmp::gscr::ERROR_EN, v));
    EXPECT_EQ(v, 0x00010000u);
    // An undefined register is aborted.
    EXPECT_TRUE(!pm_read(15, 7, v));
    EXPECT_TRUE(prd(PxIS) & IS_TFES);
    EXPECT_EQ((prd(PxTFD) >> 8) & 0xFF, uint32_t(sata::kAtaAbrt));
    stop_engine();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
}

MODEL_TEST(pscr_comreset_on_port2) {
    const uint32_t ss = fanout_reset(2);
    EXPECT_EQ(ss, 0x113u); // DET 3, Gen1 (the drive's speed), IPM active
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(2, pmp::pscr::SCONTROL, v));
    EXPECT_EQ(v, 0x300u);
    EXPECT_TRUE(pm_read(2, pmp::pscr::SERROR, v));
    EXPECT_EQ(v, 0u);
    EXPECT_TRUE(pm_read(0, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0x123u); // Gen3 drive behind Gen2 PHYs
    EXPECT_TRUE(pm_read(1, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0u);     // no cable
    EXPECT_TRUE(softreset(2));
    EXPECT_EQ(fb_p[RX_RFIS + 1] & 0xF, 2);
    EXPECT_EQ(fb_p[RX_RFIS + 5] | fb_p[RX_RFIS + 6] << 8, 0); // ATA signature
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(identify_behind_port2) {
    Buf id = buf(512);
    build(2, 2, cmd(2, 0xEC, 0, 0), id);
    EXPECT_TRUE(run(2));
    EXPECT_EQ(get32(clb_p + 2 * 32 + 4), 512u);
    EXPECT_TRUE(ata_string(id.cpu, 10, 10) == "PMPDISK2");
    Buf id0 = buf(512);
    fanout_reset(0);
    EXPECT_TRUE(softreset(0)); // the drive is ready (its signature) before a command
    build(3, 0, cmd(0, 0xEC, 0, 0), id0);
    EXPECT_TRUE(run(3));
    EXPECT_TRUE(ata_string(id0.cpu, 10, 10) == "PMPDISK0");
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(dma_through_the_pmp) {
    Buf w2 = buf(64 * 512), w0 = buf(64 * 512), r2 = buf(64 * 512), r0 = buf(64 * 512);
    fill(w2, 2);
    fill(w0, 9);
    build(4, 2, cmd(2, 0x35, 1000, 64), w2, HDR_W);
    EXPECT_TRUE(run(4));
    build(5, 0, cmd(0, 0x35, 1000, 64), w0, HDR_W);
    EXPECT_TRUE(run(5));
    build(6, 2, cmd(2, 0x25, 1000, 64), r2);
    EXPECT_TRUE(run(6));
    EXPECT_EQ(get32(clb_p + 6 * 32 + 4), 64u * 512);
    build(7, 0, cmd(0, 0x25, 1000, 64), r0);
    EXPECT_TRUE(run(7));
    EXPECT_EQ(diff(w2, r2), 0u);
    EXPECT_EQ(diff(w0, r0), 0u);
    EXPECT_TRUE(diff(w0, r2) > 0);
    // The data really went to two different drives.
    std::vector<uint8_t> m(512);
    B->d2.media().read(1000, 1, m.data());
    EXPECT_EQ(std::memcmp(m.data(), w2.cpu, 512), 0);
    B->d0.media().read(1000, 1, m.data());
    EXPECT_EQ(std::memcmp(m.data(), w0.cpu, 512), 0);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(fis_for_missing_port_is_refused) {
    Buf r = buf(512);
    build(8, 7, cmd(7, 0x25, 0, 1), r); // port 7 of a 5-port PMP
    EXPECT_TRUE(!run(8, 2000));
    EXPECT_TRUE(prd(PxIS) & IS_IFS);
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_H);
    stop_engine();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    build(8, 3, cmd(3, 0x25, 0, 1), r); // port 3: no cable
    EXPECT_TRUE(!run(8, 2000));
    EXPECT_TRUE(prd(PxIS) & IS_IFS);
    stop_engine();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
}

// Command-based switching: while a command to port 2 is outstanding, the drive on port 0
// answers an earlier SRST (issued with C=1 headers, so nothing waits for it). The HBA
// drops that FIS with PxIS.IPMS; the command to port 2 still completes with its data.
MODEL_TEST(fis_from_another_port_sets_ipms) {
    const uint32_t n = 2048; // 1 MiB at Gen1: about 7 ms on the wire
    Buf w = buf(n * 512), r = buf(n * 512);
    fill(w, 77);
    build(9, 2, cmd(2, 0x35, 50000, uint16_t(n)), w, HDR_W, 16384);
    EXPECT_TRUE(run(9, 100000));
    pwr(PxIS, 0xFFFFFFFF);
    sata::Taskfile tf;
    tf.control = sata::kAtaSrst | 0x08;
    build(0, 0, sata::make_reg_h2d(tf, false, 0), kNoData, HDR_R | HDR_C);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 1000, 1));
    tf.control = 0x08;
    build(0, 0, sata::make_reg_h2d(tf, false, 0), kNoData, HDR_C);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 1000, 1));
    build(9, 2, cmd(2, 0x25, 50000, uint16_t(n)), r, 0, 16384);
    pwr(PxCI, 1u << 9);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCI) & (1u << 9)) || (prd(PxIS) & IS_TFES); }, 100000));
    EXPECT_TRUE(prd(PxIS) & IS_IPMS);
    EXPECT_TRUE(!(prd(PxIS) & (IS_TFES | IS_IFS)));
    EXPECT_EQ(get32(clb_p + 9 * 32 + 4), n * 512);
    EXPECT_EQ(diff(w, r), 0u);
    EXPECT_EQ(fb_p[RX_RFIS + 1] & 0xF, 2); // the dropped FIS was not posted
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(hotplug_sets_serror_and_notifies) {
    uint32_t v = 0;
    EXPECT_TRUE(pm_write(15, pmp::gscr::FEAT_EN, pmp::gscr::FEAT_AN));
    EXPECT_TRUE(pm_read(15, pmp::gscr::FEAT_EN, v));
    EXPECT_EQ(v, pmp::gscr::FEAT_AN);
    EXPECT_TRUE(pm_write(4, pmp::pscr::SERROR, 0xFFFFFFFF));
    EXPECT_TRUE(pm_read(15, pmp::gscr::ERROR, v));
    EXPECT_EQ(v & (1u << 4), 0u);
    pwr(PxSNTF, 0xFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    B->l4.set_device_present(true);
    EXPECT_TRUE(wait_until([] { return (prd(PxSNTF) & 0x8000) != 0; }, 20000));
    EXPECT_TRUE(prd(PxIS) & IS_SDBS);
    EXPECT_EQ(fb_p[RX_SDBFIS + 1] & 0x8F, 0x8F); // N bit, PM port 15
    sc_core::wait(2000, SC_US);
    EXPECT_TRUE(pm_read(15, pmp::gscr::ERROR, v));
    EXPECT_TRUE(v & (1u << 4));
    EXPECT_TRUE(pm_read(4, pmp::pscr::SERROR, v));
    EXPECT_TRUE(v & (1u << 26)); // DIAG.X
    EXPECT_TRUE(v & (1u << 16)); // DIAG.N
    EXPECT_TRUE(pm_read(4, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0x123u);
    EXPECT_TRUE(pm_write(4, pmp::pscr::SERROR, 0xFFFFFFFF));
    pwr(PxSNTF, 0xFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    // Unplugged again: PhyRdy change (N) only.
    B->l4.set_device_present(false);
    EXPECT_TRUE(wait_until([] { return (prd(PxSNTF) & 0x8000) != 0; }, 20000));
    EXPECT_TRUE(pm_read(4, pmp::pscr::SERROR, v));
    EXPECT_EQ(v & ((1u << 26) | (1u << 16)), 1u << 16);
    EXPECT_TRUE(pm_read(4, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v & 0xF, 0u);
    EXPECT_TRUE(pm_write(4, pmp::pscr::SERROR, 0xFFFFFFFF));
    pwr(PxSNTF, 0xFFFF);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(hung_control_port_until_comreset) {
    B->pm.hang("test");
    build(1, 15, cmd(15, pmp::kReadPm, 0, 0, pmp::gscr::PRODUCT, 15), kNoData);
    EXPECT_TRUE(!run(1, 2000)); // no answer
    EXPECT_EQ(prd(PxCI), 2u);
    stop_engine();
    pwr(PxSCTL, 0x301);
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSIG), pmp::kSignature);
    EXPECT_TRUE(!B->pm.hung());
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(15, pmp::gscr::PRODUCT, v));
    EXPECT_EQ(v, 0x37261095u);
    EXPECT_TRUE(pm_read(15, pmp::gscr::FEAT_EN, v));
    EXPECT_EQ(v, 0u); // features back to their reset state
    Buf r = buf(4096);
    build(2, 2, cmd(2, 0x25, 1000, 8), r);
    EXPECT_TRUE(run(2));
}

// The pmp_reg_abort fault: one fan-out port's PSCR read is aborted (ERR, ABRT) from then on,
// through a COMRESET of the host link; its other registers and writes still work (dmesg
// corpus 51: a SiI3726 whose config port fails every SError read).
MODEL_TEST(pscr_read_aborted_through_comreset) {
    B->pm.abort_pscr_read(2, pmp::pscr::SERROR, "test");
    uint32_t v = 0;
    EXPECT_TRUE(!pm_read(2, pmp::pscr::SERROR, v));
    EXPECT_EQ((prd(PxTFD) >> 8) & 0xFF, uint32_t(sata::kAtaAbrt));
    stop_engine();
    pwr(PxSCTL, 0x301);
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    EXPECT_TRUE(pm_read(2, pmp::pscr::SCONTROL, v));
    EXPECT_TRUE(pm_write(2, pmp::pscr::SERROR, 0xFFFFFFFF));
    EXPECT_TRUE(pm_read(0, pmp::pscr::SERROR, v));
    EXPECT_TRUE(!pm_read(2, pmp::pscr::SERROR, v)); // still broken after the COMRESET
    stop_engine();
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    B->pm.clear_faults();
    EXPECT_TRUE(pm_read(2, pmp::pscr::SERROR, v));
}

// The SiI3726 after a PMP reset (dmesg corpus 51 and 52): the first fan-out COMRESET on a
// port other than 0 brings the link up with PSCR SControl.SPD reading 0 although the host
// wrote SPD 2 (libata's "SControl 300" on ports 1-3, "320" on port 0); the link still comes
// up, and the port's next COMRESET keeps what is written (52's later reset of port 1: 320).
static uint32_t fanout_reset_spd2(unsigned port) {
    EXPECT_TRUE(pm_write(port, pmp::pscr::SCONTROL, 0x321));
    sc_core::wait(1000, SC_US);
    EXPECT_TRUE(pm_write(port, pmp::pscr::SCONTROL, 0x320));
    uint32_t v = 0;
    EXPECT_TRUE(wait_until([&] { return pm_read(port, pmp::pscr::SSTATUS, v) && (v & 0xF) == 3; }, 100000, 100));
    EXPECT_TRUE(pm_write(port, pmp::pscr::SERROR, 0xFFFFFFFF));
    EXPECT_TRUE(pm_read(port, pmp::pscr::SCONTROL, v));
    return v;
}

MODEL_TEST(sii3726_first_fanout_reset_after_pmp_reset_reads_spd_0) {
    stop_engine();
    pwr(PxSCTL, 0x301); // COMRESET of the host link: the PMP's reset
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_PMA | CMD_ST);
    EXPECT_EQ(fanout_reset_spd2(0), 0x320u); // port 0 keeps what was written
    EXPECT_EQ(fanout_reset_spd2(2), 0x300u); // port 2: SPD reads 0 ...
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(2, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0x113u);                    // ... and the link is up all the same
    EXPECT_EQ(fanout_reset_spd2(2), 0x320u); // the next COMRESET keeps SPD 2
    EXPECT_EQ(fanout_reset_spd2(0), 0x320u);
}

// The SiI3726's port 5 of 6 is its enclosure bridge: no cable, an internal link up at
// 1.5 Gbps after power-on and after a COMRESET through PSCR SControl, down while DET is 1.
MODEL_TEST(sii3726_config_port_is_an_internal_1_5_gbps_link) {
    pmp::PortMultiplier &pm6 = *B->pm6;
    uint64_t v = 0;
    EXPECT_TRUE(pm6.read_pscr(5, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0x113u);
    EXPECT_TRUE(pm6.read_pscr(4, pmp::pscr::SSTATUS, v));
    EXPECT_EQ(v, 0u); // a port with no cable
    EXPECT_TRUE(!B->pm.read_pscr(5, pmp::pscr::SSTATUS, v)); // the 5-port part has no port 5
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    ctx.run_err = IS_TFES | IS_IFS | IS_IPMS;
    ctx.stop_cmd = CMD_FRE | CMD_PMA;
    return satasim::test::run_all();
}
