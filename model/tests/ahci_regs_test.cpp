// AHCI HBA register level: reset values of every generic and port register, CAP built from
// AhciConfig, read-only / RW1C / RW1-set masks, alignment masks, PxCMD side effects,
// GHC.HR, IS / interrupt aggregation, PxSCTL-driven link control, power_on_reset.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <string>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/ahci/ahci_regs.h"
#include "model/link/sata_link.h"
#include "model/tests/hba_test_common.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using sc_core::SC_US;

namespace {

using Sink = test::RecordingTrace;

// A device that only takes part in OOB; the tests send its FISes from the test thread.
struct QuietDevice : link::LinkEndpoint {
    std::vector<sata::Fis> rx;
    bool receive_fis(const sata::Fis &f) override {
        rx.push_back(f);
        return true;
    }
    void phy_changed(bool, link::Gen) override {}
};

struct Bench {
    Sink sink;
    bus::HostMemory mem;
    bus::IrqLine irq, irq2;
    AhciConfig cfg;   // defaults: 4 ports, 32 slots, Gen3, NCQ, S64A, SCLO, SSNTF
    AhciConfig cfg2;  // a smaller, different HBA
    AhciHba hba;
    AhciHba hba2;
    link::SataLink link;
    QuietDevice dev;
    static AhciConfig small() {
        AhciConfig c;
        c.n_ports = 2;
        c.n_slots = 8;
        c.iss = link::Gen::Gen2;
        c.ncq = false;
        c.s64a = false;
        c.sclo = false;
        c.ssntf = false;
        c.spm = true;
        c.fbss = true;
        c.sss = true;
        c.version = 0x00010300;
        return c;
    }
    Bench()
        : cfg2(small()), hba("ahci0", cfg, mem, irq, &sink), hba2("ahci1", cfg2, mem, irq2),
          link("link0", link::SataLink::Config{}) {
        bus::pci_enable_for_test(hba.pci());
        bus::pci_enable_for_test(hba2.pci());
        link.attach(hba.port_endpoint(1), &dev);
        hba.connect_port(1, &link);
    }
};

Bench *B;

uint32_t rd(uint32_t off) { return B->hba.mmio_read32(off); }
void wr(uint32_t off, uint32_t v) { B->hba.mmio_write32(off, v); }
uint32_t prd(unsigned p, uint32_t off) { return rd(port_base(p) + off); }
void pwr(unsigned p, uint32_t off, uint32_t v) { wr(port_base(p) + off, v); }
uint32_t rd2(uint32_t off) { return B->hba2.mmio_read32(off); }
void wr2(uint32_t off, uint32_t v) { B->hba2.mmio_write32(off, v); }

// Polls every 1 us (hba_test_common.h).
template <class F> bool wait_until(F cond, double max_us) {
    return test::hba_common::wait_until(cond, max_us, 1);
}

// The four memory-base registers of a port (PxCLB, PxCLBU, PxFB, PxFBU).
struct Bases {
    uint32_t clb = 0, clbu = 0, fb = 0, fbu = 0;
};

// Every port register at its reset value. fbs: 0, or PxFBS's reset value on an
// FBS-capable port (ADO, read-only, is not 0). bases: what PxCLB/PxFB must hold, which
// GHC.HR leaves alone (AHCI 1.3.1 10.4.3) and power-on clears.
void expect_port_reset_values(AhciHba &h, unsigned p, uint32_t cmd, uint32_t fbs = 0, Bases bases = {}) {
    auto r = [&](uint32_t off) { return h.mmio_read32(port_base(p) + off); };
    EXPECT_EQ(r(PxCLB), bases.clb);
    EXPECT_EQ(r(PxCLBU), bases.clbu);
    EXPECT_EQ(r(PxFB), bases.fb);
    EXPECT_EQ(r(PxFBU), bases.fbu);
    EXPECT_EQ(r(PxIS), 0u);
    EXPECT_EQ(r(PxIE), 0u);
    EXPECT_EQ(r(PxCMD), cmd);
    EXPECT_EQ(r(0x1C), 0u);
    EXPECT_EQ(r(PxTFD), 0x7Fu);
    EXPECT_EQ(r(PxSIG), 0xFFFFFFFFu);
    EXPECT_EQ(r(PxSCTL), 0u);
    EXPECT_EQ(r(PxSERR), 0u);
    EXPECT_EQ(r(PxSACT), 0u);
    EXPECT_EQ(r(PxCI), 0u);
    EXPECT_EQ(r(PxSNTF), 0u);
    EXPECT_EQ(r(PxFBS), fbs);
    EXPECT_EQ(r(PxDEVSLP), 0u);
    for (uint32_t off = 0x48; off < 0x80; off += 4)
        EXPECT_EQ(r(off), 0u);
}

} // namespace

MODEL_TEST(cap_is_built_from_config) {
    const uint32_t cap = rd(CAP);
    EXPECT_EQ(cap & CAP_NP_MASK, 3u);
    EXPECT_EQ((cap & CAP_NCS_MASK) >> CAP_NCS_SHIFT, 31u);
    EXPECT_EQ((cap & CAP_ISS_MASK) >> CAP_ISS_SHIFT, 3u);
    EXPECT_TRUE(cap & CAP_SNCQ);
    EXPECT_TRUE(cap & CAP_S64A);
    EXPECT_TRUE(cap & CAP_SCLO);
    EXPECT_TRUE(cap & CAP_SSNTF);
    EXPECT_TRUE(cap & (1u << 18)); // SAM at bit 18 (docs/hardware.md 5.1 discrepancy note)
    EXPECT_TRUE(!(cap & (1u << 19)));
    EXPECT_TRUE(!(cap & (CAP_SPM | CAP_FBSS | CAP_SSS | CAP_CCCS | CAP_EMS | CAP_SXS)));
    EXPECT_EQ(cap, 0xE1340000u | CAP_PMD | 31u << 8 | 3u);

    const uint32_t cap2 = rd2(CAP);
    EXPECT_EQ(cap2 & CAP_NP_MASK, 1u);
    EXPECT_EQ((cap2 & CAP_NCS_MASK) >> CAP_NCS_SHIFT, 7u);
    EXPECT_EQ((cap2 & CAP_ISS_MASK) >> CAP_ISS_SHIFT, 2u);
    EXPECT_TRUE(!(cap2 & (CAP_SNCQ | CAP_S64A | CAP_SCLO | CAP_SSNTF)));
    EXPECT_TRUE(cap2 & CAP_SPM);
    EXPECT_TRUE(cap2 & CAP_FBSS);
    EXPECT_TRUE(cap2 & CAP_SSS);
    EXPECT_TRUE(cap2 & CAP_SAM);
}

MODEL_TEST(generic_reset_values) {
    EXPECT_EQ(rd(GHC), GHC_AE);
    EXPECT_EQ(rd(IS), 0u);
    EXPECT_EQ(rd(PI), 0xFu);
    EXPECT_EQ(rd(VS), 0x00010301u);
    EXPECT_EQ(rd(CCC_CTL), 0u);
    EXPECT_EQ(rd(CCC_PORTS), 0u);
    EXPECT_EQ(rd(EM_LOC), 0u);
    EXPECT_EQ(rd(EM_CTL), 0u);
    EXPECT_EQ(rd(CAP2), 0u);
    EXPECT_EQ(rd(BOHC), 0u);
    EXPECT_EQ(rd2(PI), 0x3u);
    EXPECT_EQ(rd2(VS), 0x00010300u);
    EXPECT_EQ(B->irq.level(), false);
}

MODEL_TEST(port_reset_values) {
    for (unsigned p = 0; p < 4; ++p)
        expect_port_reset_values(B->hba, p, CMD_SUD | CMD_POD);
    for (unsigned p = 0; p < 2; ++p)
        // SUD is RW and 0 with CAP.SSS; CAP.FBSS: FBS-capable port (FBSCP), PxFBS.ADO = 2
        expect_port_reset_values(B->hba2, p, CMD_POD | CMD_FBSCP, 2u << FBS_ADO_SHIFT);
    // Unimplemented ports and offsets past the BAR read 0.
    EXPECT_EQ(rd(port_base(4) + PxTFD), 0u);
    EXPECT_EQ(rd(port_base(31) + PxSIG), 0u);
    EXPECT_EQ(rd(AhciHba::kBarSize), 0u);
    EXPECT_EQ(rd(0x2C), 0u);
    EXPECT_EQ(rd(0xA0), 0u);
}

MODEL_TEST(port_without_link_shows_no_device) {
    EXPECT_EQ(prd(0, PxSSTS), 0u);
    EXPECT_EQ(prd(2, PxSSTS) & 0xF, 0u);
    EXPECT_EQ(prd(1, PxSSTS) & 0xF, 1u); // cable present, PHY not up yet at time 0
}

MODEL_TEST(read_only_registers_ignore_writes) {
    const uint32_t cap = rd(CAP);
    wr(CAP, 0);
    wr(PI, 0);
    wr(VS, 0);
    wr(CAP2, 0xFFFFFFFF);
    wr(CCC_CTL, 0xFFFFFFFF);
    wr(BOHC, 0xFFFFFFFF);
    EXPECT_EQ(rd(CAP), cap);
    EXPECT_EQ(rd(PI), 0xFu);
    EXPECT_EQ(rd(VS), 0x00010301u);
    EXPECT_EQ(rd(CAP2), 0u);
    EXPECT_EQ(rd(CCC_CTL), 0u);
    EXPECT_EQ(rd(BOHC), 0u);
    pwr(0, PxTFD, 0);
    pwr(0, PxSIG, 0);
    pwr(0, PxSSTS, 0x123);
    EXPECT_EQ(prd(0, PxTFD), 0x7Fu);
    EXPECT_EQ(prd(0, PxSIG), 0xFFFFFFFFu);
    EXPECT_EQ(prd(0, PxSSTS), 0u);
    // PxCMD: only ST, FRE, ATAPI, DLAE are writable here (no SSS, SPM, SALP); CCS, FR,
    // CR and the capability bits are read-only; ICC returns to 0.
    pwr(0, PxCMD, 0xFFFFFFFF & ~(CMD_ST | CMD_FRE | CMD_CLO));
    EXPECT_EQ(prd(0, PxCMD), CMD_SUD | CMD_POD | CMD_ATAPI | CMD_DLAE);
    pwr(0, PxCMD, 0);
    EXPECT_EQ(prd(0, PxCMD), CMD_SUD | CMD_POD);
    // With staggered spin-up and PMP support, SUD and PMA are writable.
    wr2(port_base(0) + PxCMD, CMD_PMA);
    EXPECT_EQ(rd2(port_base(0) + PxCMD), CMD_POD | CMD_PMA | CMD_FBSCP);
    wr2(port_base(0) + PxCMD, 0);
    // PxSCTL: DET/SPD/IPM writable, SPM/PMP and reserved read 0.
    pwr(0, PxSCTL, 0xFFFFF300);
    EXPECT_EQ(prd(0, PxSCTL), 0x300u);
    pwr(0, PxSCTL, 0);
}

MODEL_TEST(ghc_ie_writable_ae_fixed) {
    wr(GHC, 0);
    EXPECT_EQ(rd(GHC), GHC_AE); // CAP.SAM: AE read-only 1
    wr(GHC, GHC_IE | GHC_MRSM | 0x7FFFFFF8);
    EXPECT_EQ(rd(GHC), GHC_AE | GHC_IE);
    wr(GHC, GHC_AE);
    EXPECT_EQ(rd(GHC), GHC_AE);
}

MODEL_TEST(pxie_mask_and_alignment_masks) {
    pwr(0, PxIE, 0xFFFFFFFF);
    EXPECT_EQ(prd(0, PxIE), 0xFDC000FFu);
    pwr(0, PxIE, 0);
    pwr(0, PxCLB, 0xFFFFFFFF);
    EXPECT_EQ(prd(0, PxCLB), 0xFFFFFC00u);
    pwr(0, PxFB, 0xFFFFFFFF);
    EXPECT_EQ(prd(0, PxFB), 0xFFFFFF00u);
    pwr(0, PxCLBU, 0xFFFFFFFF);
    pwr(0, PxFBU, 0x12345678);
    EXPECT_EQ(prd(0, PxCLBU), 0xFFFFFFFFu);
    EXPECT_EQ(prd(0, PxFBU), 0x12345678u);
    // Without CAP.S64A the upper halves are read-only 0.
    wr2(port_base(1) + PxCLBU, 0xFFFFFFFF);
    wr2(port_base(1) + PxFBU, 0xFFFFFFFF);
    EXPECT_EQ(rd2(port_base(1) + PxCLBU), 0u);
    EXPECT_EQ(rd2(port_base(1) + PxFBU), 0u);
    for (uint32_t off : {PxCLB, PxCLBU, PxFB, PxFBU})
        pwr(0, off, 0);
}

MODEL_TEST(ci_sact_rw1_set_and_cleared_by_stop) {
    pwr(0, PxCI, 1); // ST = 0: nothing to hold
    EXPECT_EQ(prd(0, PxCI), 0u);
    pwr(0, PxCMD, CMD_FRE | CMD_ST);
    EXPECT_TRUE(prd(0, PxCMD) & CMD_CR);
    pwr(0, PxSACT, 0x1);
    pwr(0, PxSACT, 0x4);
    pwr(0, PxSACT, 0);
    EXPECT_EQ(prd(0, PxSACT), 0x5u);
    pwr(0, PxCI, 0x1);
    pwr(0, PxCI, 0x80000000);
    pwr(0, PxCI, 0);
    EXPECT_EQ(prd(0, PxCI), 0x80000001u); // no link: nothing is issued, bits stay
    sc_core::wait(1, SC_US);
    EXPECT_EQ(prd(0, PxCI), 0x80000001u);
    EXPECT_TRUE(prd(0, PxCMD) & CMD_FR);
    pwr(0, PxCMD, CMD_FRE); // ST 1->0
    EXPECT_EQ(prd(0, PxCI), 0u);
    EXPECT_EQ(prd(0, PxSACT), 0u);
    EXPECT_EQ(prd(0, PxCMD) & CMD_CCS_MASK, 0u);
    EXPECT_TRUE(prd(0, PxCMD) & CMD_CR); // still stopping
    EXPECT_TRUE(wait_until([] { return !(prd(0, PxCMD) & CMD_CR); }, 10));
    pwr(0, PxCMD, 0);
    EXPECT_TRUE(wait_until([] { return !(prd(0, PxCMD) & CMD_FR); }, 10));
    // Only implemented slots hold bits.
    wr2(port_base(0) + PxCMD, CMD_FRE | CMD_ST);
    wr2(port_base(0) + PxCI, 0xFFFFFFFF);
    EXPECT_EQ(rd2(port_base(0) + PxCI), 0xFFu);
    wr2(port_base(0) + PxCMD, 0);
    EXPECT_EQ(rd2(port_base(0) + PxCI), 0u);
}

MODEL_TEST(fre_sets_fr_after_a_delay) {
    pwr(2, PxCMD, CMD_FRE);
    EXPECT_TRUE(!(prd(2, PxCMD) & CMD_FR));
    EXPECT_TRUE(wait_until([] { return (prd(2, PxCMD) & CMD_FR) != 0; }, 5));
    pwr(2, PxCMD, 0);
    EXPECT_TRUE(prd(2, PxCMD) & CMD_FR);
    EXPECT_TRUE(wait_until([] { return !(prd(2, PxCMD) & CMD_FR); }, 5));
}

MODEL_TEST(clo_clears_bsy_drq_and_self_clears) {
    // Reset PxTFD is 7Fh: DRQ (bit 3) is set, BSY clear.
    pwr(3, PxCMD, CMD_CLO);
    EXPECT_EQ(prd(3, PxTFD), 0x77u);
    EXPECT_TRUE(!(prd(3, PxCMD) & CMD_CLO));
    // Without CAP.SCLO, CLO is read-only 0 and does nothing.
    wr2(port_base(0) + PxCMD, CMD_CLO);
    EXPECT_EQ(rd2(port_base(0) + PxTFD), 0x7Fu);
}

MODEL_TEST(link_comes_up_at_power_on_and_sets_prcs) {
    EXPECT_TRUE(wait_until([] { return (prd(1, PxSSTS) & 0xF) == 3; }, 500));
    EXPECT_EQ(prd(1, PxSSTS), 0x133u); // DET 3, Gen3, IPM active
    EXPECT_TRUE(prd(1, PxSERR) & SERR_DIAG_N);
    EXPECT_TRUE(prd(1, PxIS) & IS_PRCS);
    EXPECT_EQ(prd(1, PxTFD), 0x80u); // device answered OOB: busy until its signature
    // PRCS is not RW1C: it mirrors DIAG.N.
    pwr(1, PxIS, 0xFFFFFFFF);
    EXPECT_TRUE(prd(1, PxIS) & IS_PRCS);
    pwr(1, PxSERR, SERR_DIAG_N);
    EXPECT_EQ(prd(1, PxIS), 0u);
    // The OOB's COMWAKE latched DIAG.W too (AHCI 1.3.1 3.3.12: "Comm Wake ... detected by
    // the Phy"), independent of PRCS; it is RW1C like every SError bit.
    EXPECT_EQ(prd(1, PxSERR), SERR_DIAG_W);
    pwr(1, PxSERR, SERR_DIAG_W);
    EXPECT_EQ(prd(1, PxSERR), 0u);
}

MODEL_TEST(signature_and_rw1c_pxis_and_irq_aggregation) {
    // The signature D2H arrives with FRE = 0: PxTFD and PxSIG still update.
    sata::Fis sig = sata::make_reg_d2h(0x50, 0x01, 0x000001, 0xA0, 1, true);
    EXPECT_TRUE(B->link.send_from_device(sig) == link::FrameStatus::Ok);
    EXPECT_TRUE(wait_until([] { return prd(1, PxSIG) != 0xFFFFFFFFu; }, 10));
    EXPECT_EQ(prd(1, PxSIG), 0x00000101u);
    EXPECT_EQ(prd(1, PxTFD), 0x0150u);
    // DHRS latched regardless of PxIE; no IS bit, no interrupt while PxIE = 0.
    EXPECT_TRUE(prd(1, PxIS) & IS_DHRS);
    EXPECT_EQ(rd(IS), 0u);
    EXPECT_TRUE(!B->irq.level());
    pwr(1, PxIE, IS_DHRS);
    EXPECT_EQ(rd(IS), 0x2u); // latched, but GHC.IE = 0
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level());
    wr(GHC, GHC_IE);
    EXPECT_TRUE(B->irq.level());
    // IS bit written while PxIS & PxIE still pending: it latches again.
    wr(IS, 0x2);
    EXPECT_EQ(rd(IS), 0x2u);
    // Clear PxIS (RW1C), then IS.
    pwr(1, PxIS, IS_DHRS);
    EXPECT_EQ(prd(1, PxIS), 0u);
    EXPECT_EQ(rd(IS), 0x2u);
    EXPECT_TRUE(B->irq.level());
    wr(IS, 0x2);
    EXPECT_EQ(rd(IS), 0u);
    EXPECT_TRUE(!B->irq.level());
    wr(GHC, 0);
    pwr(1, PxIE, 0);
}

MODEL_TEST(sctl_det_drives_comreset_and_speed_limit) {
    size_t before = B->sink.count("ahci.port_comreset");
    pwr(1, PxSCTL, 0x301 | 0x10); // DET 1, SPD limit Gen1, IPM 3
    EXPECT_EQ(prd(1, PxSSTS) & 0xF, 1u);
    EXPECT_EQ(prd(1, PxTFD), 0x7Fu);
    sc_core::wait(1000, SC_US);
    pwr(1, PxSCTL, 0x300 | 0x10); // DET 0
    EXPECT_TRUE(wait_until([] { return (prd(1, PxSSTS) & 0xF) == 3; }, 500));
    EXPECT_EQ(prd(1, PxSSTS), 0x113u); // negotiated Gen1
    EXPECT_EQ(B->sink.count("ahci.port_comreset"), before + 2);
    // PxSCTL.SPD beyond CAP.ISS is limited by CAP.ISS: ahci1 is a Gen2 HBA (no link here).
    pwr(1, PxSCTL, 0x4); // DET 4: offline
    EXPECT_EQ(prd(1, PxSSTS) & 0xF, 4u);
    pwr(1, PxSCTL, 0x0);
    EXPECT_TRUE(wait_until([] { return (prd(1, PxSSTS) & 0xF) == 3; }, 500));
    EXPECT_EQ(prd(1, PxSSTS), 0x133u);
    pwr(1, PxSERR, 0xFFFFFFFF);
}

// GHC.HR, AHCI 1.3.1 10.4.3: "When GHC.HR is set to '1', GHC.AE, GHC.IE, the IS register,
// and all port register fields (except PxFB/PxFBU/PxCLB/PxCLBU) that are not HwInit in the
// HBA's register memory space are reset." "The port specific registers PxFB, PxFBU, PxCLB,
// and PxCLBU are not affected by setting GHC.HR to '1'." "The HBA's configuration space
// and all other global registers/bits are not affected" (CAP, PI: HwInit). "A software
// write of '0' to GHC.HR shall have no effect." GHC.AE (3.1.2): "If CAP.SAM is '1', then
// AE shall be read-only and shall have a reset value of '1'."
MODEL_TEST(ghc_hr_resets_ports_and_self_clears) {
    const Bases p0{0x4000, 0x1, 0x8100, 0x2}, p1{0x10000, 0, 0x20000, 0};
    pwr(0, PxCLB, p0.clb);
    pwr(0, PxCLBU, p0.clbu);
    pwr(0, PxFB, p0.fb);
    pwr(0, PxFBU, p0.fbu);
    pwr(1, PxCLB, p1.clb);
    pwr(1, PxFB, p1.fb);
    pwr(0, PxIE, 0xFF);
    pwr(0, PxCMD, CMD_FRE);
    pwr(2, PxSCTL, 0x300);
    pwr(3, PxSERR, 0); // (nothing latched there)
    wr(GHC, GHC_IE);
    size_t hr = B->sink.count("ahci.hba_reset");
    wr(GHC, GHC_HR | GHC_IE);
    EXPECT_EQ(rd(GHC), GHC_AE | GHC_HR);
    EXPECT_EQ(B->sink.count("ahci.hba_reset"), hr + 1);
    wr(GHC, GHC_IE); // a write of 0 to HR while the reset runs changes nothing
    EXPECT_EQ(rd(GHC) & GHC_HR, GHC_HR);
    EXPECT_TRUE(wait_until([] { return !(rd(GHC) & GHC_HR); }, 100));
    EXPECT_EQ(rd(GHC) & (GHC_AE | GHC_HR), GHC_AE);
    wr(GHC, 0);
    EXPECT_EQ(rd(GHC), GHC_AE); // AE read-only 1 (CAP.SAM)
    EXPECT_EQ(rd(IS), 0u);
    EXPECT_EQ(rd(CAP), 0xE1340000u | CAP_PMD | 31u << 8 | 3u);
    EXPECT_EQ(rd(PI), 0xFu);
    // The driver writes CAP/CAP2/PI back after a reset (write-once registers the firmware
    // may have programmed): the model's are set at power-on, so the writes change nothing.
    wr(CAP, 0);
    wr(CAP2, 0xFFFFFFFF);
    wr(PI, 0x1);
    EXPECT_EQ(rd(CAP), 0xE1340000u | CAP_PMD | 31u << 8 | 3u);
    EXPECT_EQ(rd(CAP2), 0u);
    EXPECT_EQ(rd(PI), 0xFu);
    // Every other port field is back at its reset value; the memory bases are kept.
    expect_port_reset_values(B->hba, 0, CMD_SUD | CMD_POD, 0, p0);
    for (unsigned p : {2u, 3u})
        expect_port_reset_values(B->hba, p, CMD_SUD | CMD_POD);
    // 10.4.3: "If the HBA does not support staggered spin-up, the HBA reset shall cause a
    // COMRESET to be sent on the port": port 1 comes back up, its bases still in place.
    EXPECT_TRUE(wait_until([] { return (prd(1, PxSSTS) & 0xF) == 3; }, 500));
    EXPECT_EQ(prd(1, PxSIG), 0xFFFFFFFFu);
    EXPECT_EQ(prd(1, PxTFD), 0x80u);
    EXPECT_EQ(prd(1, PxCLB), p1.clb);
    EXPECT_EQ(prd(1, PxFB), p1.fb);
    pwr(1, PxSERR, 0xFFFFFFFF);
}

// 10.4.3 with staggered spin-up (ahci1 has CAP.SSS): "the PxCMD.SUD bit will be reset to
// '0'; software is responsible for setting the PxCMD.SUD and PxSCTL.DET fields". PxFBS
// (not HwInit, apart from the read-only ADO) is reset; the bases are kept.
MODEL_TEST(ghc_hr_with_staggered_spin_up_clears_sud) {
    wr2(port_base(0) + PxCLB, 0x3000);
    wr2(port_base(0) + PxFB, 0x5000);
    wr2(port_base(0) + PxCMD, CMD_SUD | CMD_PMA);
    wr2(port_base(0) + PxFBS, FBS_EN);
    EXPECT_TRUE(rd2(port_base(0) + PxFBS) & FBS_EN);
    wr2(GHC, GHC_HR);
    EXPECT_TRUE(wait_until([] { return !(rd2(GHC) & GHC_HR); }, 100));
    // SUD and PMA clear; POD read-only 1; FBSCP is HwInit and stays.
    expect_port_reset_values(B->hba2, 0, CMD_POD | CMD_FBSCP, 2u << FBS_ADO_SHIFT, Bases{0x3000, 0, 0x5000, 0});
}

// Power-on reset (unlike GHC.HR) clears the memory bases too: the model's power-on value
// of PxCLB/PxFB is 0.
MODEL_TEST(power_on_reset_restores_everything) {
    pwr(3, PxFB, 0x8000);
    pwr(0, PxCLB, 0x4000);
    pwr(3, PxCMD, CMD_FRE | CMD_ST);
    pwr(3, PxCI, 0x3);
    pwr(3, PxIE, 0x1);
    wr(GHC, GHC_IE);
    B->hba.power_on_reset();
    EXPECT_EQ(rd(GHC), GHC_AE);
    EXPECT_EQ(rd(IS), 0u);
    for (unsigned p : {0u, 2u, 3u})
        expect_port_reset_values(B->hba, p, CMD_SUD | CMD_POD);
    sc_core::wait(1, SC_US);
    EXPECT_EQ(prd(3, PxCMD), CMD_SUD | CMD_POD); // no delayed CR/FR left over
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
