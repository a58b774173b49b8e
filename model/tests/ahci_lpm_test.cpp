// AHCI link power management at the register level (AHCI 1.3.1 3.1.1 CAP.SALP/PSC/SSC,
// 3.3.7 PxCMD.ICC/ALPE/ASP, 3.3.10 PxSSTS.IPM, 3.3.11 PxSCTL.IPM, 3.3.12 DIAG.N/W;
// docs/hardware.md 5.10): software-requested transitions through ICC, aggressive entry when
// the port goes idle, IPM reporting, PhyRdy changes, the device's requests, and an HBA
// without the capabilities behaving as before. DevSleep (3.1.10 CAP2.SDS/SADM/DESO, 3.3.17
// PxDEVSLP, 8.5; docs/hardware.md 5.11): the registers, aggressive entry DITO after Slumber,
// the exit held until MDAT plus the drive's exit time, a drive that ignores DEVSLP.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/ahci/ahci_regs.h"
#include "model/link/sata_link.h"
#include "model/tests/hba_test_common.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using link::PmResult;
using link::PowerState;

namespace {

struct Device : link::LinkEndpoint {
    bool accept = true;
    bool devsleep = false; // enters DevSleep on DEVSLP
    bool comwake = true;   // answers the host's wake-up COMWAKE
    Noise wake_noise;      // what a wake-up it does not answer garbles on the line
    std::vector<PowerState> power;
    bool receive_fis(const sata::Fis &) override { return true; }
    void phy_changed(bool, link::Gen) override {}
    bool pm_accept(PowerState) override { return accept; }
    void power_changed(PowerState s) override { power.push_back(s); }
    bool takes_devsleep() override { return devsleep; }
    bool answers_comwake() override { return comwake; }
    Noise failed_wake_noise() override { return wake_noise; }
    sc_core::sc_time devsleep_exit_time() override { return sc_core::sc_time(3, sc_core::SC_MS); }
};

AhciConfig lpm_cfg() {
    AhciConfig c;
    c.n_ports = 1;
    c.salp = c.psc = c.ssc = true;
    return c;
}

AhciConfig devslp_cfg() {
    AhciConfig c = lpm_cfg();
    c.sds = true;
    return c;
}

struct Bench {
    bus::HostMemory mem;
    bus::IrqLine irq, irq_plain, irq_ds;
    AhciHba hba;       // CAP.SALP, PSC, SSC
    AhciHba plain;     // none of them (every other test's HBA)
    AhciHba ds;        // and CAP2.SDS/SADM/DESO
    link::SataLink link, link_plain, link_ds;
    Device dev, dev_plain, dev_ds;
    Bench()
        : hba("ahci_lpm", lpm_cfg(), mem, irq), plain("ahci_plain", AhciConfig{}, mem, irq_plain),
          ds("ahci_ds", devslp_cfg(), mem, irq_ds), link("lpm_link", link::SataLink::Config{}),
          link_plain("plain_link", link::SataLink::Config{}), link_ds("ds_link", link::SataLink::Config{}) {
        link.attach(hba.port_endpoint(0), &dev);
        hba.connect_port(0, &link);
        link_plain.attach(plain.port_endpoint(0), &dev_plain);
        plain.connect_port(0, &link_plain);
        link_ds.attach(ds.port_endpoint(0), &dev_ds);
        ds.connect_port(0, &link_ds);
    }
};

Bench *B;

uint32_t prd(uint32_t off) { return B->hba.mmio_read32(port_base(0) + off); }
void pwr(uint32_t off, uint32_t v) { B->hba.mmio_write32(port_base(0) + off, v); }
uint32_t cmd_with(uint32_t bits) { return (prd(PxCMD) & ~CMD_ICC_MASK) | bits; }

template <class F> bool wait_until(F cond, double max_us) {
    return test::hba_common::wait_until(cond, max_us, 1);
}

void clear_serr() { pwr(PxSERR, 0xFFFFFFFF); }

// The link up (power-on spin-up), Active, SError clear.
void active() {
    EXPECT_TRUE(wait_until([] { return (prd(PxSSTS) & 0xF) == 3; }, 500));
    if (B->link.power_state() != PowerState::Active) {
        pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT));
        EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x133u; }, 1000));
    }
    pwr(PxSCTL, 0);
    clear_serr();
}

} // namespace

MODEL_TEST(cap_bits_and_alpe_writable_only_with_salp) {
    const uint32_t cap = B->hba.mmio_read32(CAP);
    EXPECT_EQ(cap & (CAP_SALP | CAP_PSC | CAP_SSC), CAP_SALP | CAP_PSC | CAP_SSC);
    EXPECT_EQ(cap & (CAP_SALP | CAP_PSC | CAP_SSC), (1u << 26) | (1u << 13) | (1u << 14));
    EXPECT_EQ(B->plain.mmio_read32(CAP) & (CAP_SALP | CAP_PSC | CAP_SSC), 0u);
    EXPECT_EQ(B->hba.mmio_read32(CAP2), 0u); // no APST, SDS, SADM: no DevSleep
    // ALPE (bit 26) and ASP (bit 27) are RW with CAP.SALP, read-only 0 without.
    pwr(PxCMD, prd(PxCMD) | CMD_ALPE | CMD_ASP);
    EXPECT_EQ(prd(PxCMD) & (CMD_ALPE | CMD_ASP), CMD_ALPE | CMD_ASP);
    pwr(PxCMD, prd(PxCMD) & ~(CMD_ALPE | CMD_ASP));
    EXPECT_EQ(prd(PxCMD) & (CMD_ALPE | CMD_ASP), 0u);
    const uint32_t pb = port_base(0) + PxCMD;
    B->plain.mmio_write32(pb, B->plain.mmio_read32(pb) | CMD_ALPE | CMD_ASP);
    EXPECT_EQ(B->plain.mmio_read32(pb) & (CMD_ALPE | CMD_ASP), 0u);
    EXPECT_EQ(B->hba.mmio_read32(port_base(0) + PxDEVSLP), 0u);
}

// ICC Slumber: ICC reads 6 until the HBA has acted, then 0; PxSSTS 633h (DET 3, Gen3,
// IPM 6); PhyRdy went down: DIAG.N and PxIS.PRCS. ICC Active wakes it: IPM 1 again, DIAG.N
// (PhyRdy back) and DIAG.W (the device's COMWAKE).
MODEL_TEST(icc_slumber_and_active) {
    active();
    pwr(PxCMD, cmd_with(ICC_SLUMBER << CMD_ICC_SHIFT));
    EXPECT_EQ(prd(PxCMD) >> CMD_ICC_SHIFT, ICC_SLUMBER);
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(prd(PxSSTS), 0x633u);
    EXPECT_EQ(prd(PxSERR), SERR_DIAG_N);
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
    EXPECT_TRUE(!B->dev.power.empty() && B->dev.power.back() == PowerState::Slumber);
    clear_serr();
    pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT));
    EXPECT_EQ(prd(PxCMD) >> CMD_ICC_SHIFT, ICC_ACTIVE);
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x133u; }, 1000));
    EXPECT_EQ(prd(PxCMD) & CMD_ICC_MASK, 0u);
    EXPECT_EQ(prd(PxSERR), SERR_DIAG_N | SERR_DIAG_W);
    // ICC Active on an Active link: no action, ICC reads Idle at once
    pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT));
    EXPECT_EQ(prd(PxCMD) & CMD_ICC_MASK, 0u);
    // ICC Partial
    clear_serr();
    pwr(PxCMD, cmd_with(ICC_PARTIAL << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(prd(PxSSTS), 0x233u);
    // ICC DevSleep (CAP2.SDS = 0) and a reserved value: no action
    pwr(PxCMD, cmd_with(ICC_DEVSLEEP << CMD_ICC_SHIFT));
    EXPECT_EQ(prd(PxCMD) & CMD_ICC_MASK, 0u);
    pwr(PxCMD, cmd_with(3u << CMD_ICC_SHIFT));
    EXPECT_EQ(prd(PxCMD) & CMD_ICC_MASK, 0u);
    EXPECT_EQ(prd(PxSSTS), 0x233u);
}

// PxSCTL.IPM forbids: no request (the device never sees one), ICC back to Idle.
MODEL_TEST(sctl_ipm_forbids_transitions) {
    active();
    pwr(PxSCTL, SCTL_IPM_NO_SLUMBER);
    const size_t seen = B->dev.power.size();
    pwr(PxCMD, cmd_with(ICC_SLUMBER << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    EXPECT_EQ(B->dev.power.size(), seen);
    // Partial still allowed
    pwr(PxCMD, cmd_with(ICC_PARTIAL << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(prd(PxSSTS), 0x233u);
    active();
    // the device's requests: IPM 3 (libata's resume value) refuses both
    pwr(PxSCTL, SCTL_IPM_NO_PARTIAL | SCTL_IPM_NO_SLUMBER);
    EXPECT_TRUE(B->link.request_power(false, PowerState::Partial) == PmResult::Denied);
    EXPECT_TRUE(B->link.request_power(false, PowerState::Slumber) == PmResult::Denied);
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    pwr(PxSCTL, 0);
    EXPECT_TRUE(B->link.request_power(false, PowerState::Slumber) == PmResult::Entered);
    EXPECT_EQ(prd(PxSSTS), 0x633u);
    EXPECT_TRUE(prd(PxSERR) & SERR_DIAG_N);
}

// Aggressive LPM: with ALPE the HBA enters the state ASP names as soon as the port is idle
// (ST set, PxCI and PxSACT clear), and again after each wake-up; a device PMNAK leaves it
// Active.
MODEL_TEST(alpe_enters_when_idle) {
    active();
    pwr(PxCLB, 0x10000);
    pwr(PxFB, 0x20000);
    pwr(PxCMD, cmd_with(CMD_FRE));
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_FR) != 0; }, 10));
    pwr(PxCMD, cmd_with(CMD_FRE | CMD_ST));
    sc_core::wait(5, sc_core::SC_US);
    EXPECT_EQ(prd(PxSSTS), 0x133u); // ALPE clear: stays Active
    pwr(PxCMD, cmd_with(CMD_ALPE | CMD_ASP));
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x633u; }, 10));
    pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT) & ~(CMD_ALPE | CMD_ASP));
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x133u; }, 1000));
    sc_core::wait(5, sc_core::SC_US);
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    pwr(PxCMD, cmd_with(CMD_ALPE)); // ASP clear: Partial
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x233u; }, 10));
    pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT) & ~CMD_ALPE);
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x133u; }, 100));
    B->dev.accept = false;
    pwr(PxCMD, cmd_with(CMD_ALPE | CMD_ASP));
    sc_core::wait(5, sc_core::SC_US);
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    B->dev.accept = true;
    pwr(PxCMD, cmd_with(0) & ~(CMD_ALPE | CMD_ASP | CMD_ST));
    EXPECT_TRUE(wait_until([] { return (prd(PxCMD) & CMD_CR) == 0; }, 10));
}

// Without CAP.SALP/PSC/SSC an ICC request completes at once with no action (the behaviour
// every other scenario's HBA keeps) and the link stays Active.
MODEL_TEST(plain_hba_takes_no_power_state) {
    AhciHba &h = B->plain;
    const uint32_t pb = port_base(0);
    EXPECT_TRUE(wait_until([&] { return (h.mmio_read32(pb + PxSSTS) & 0xF) == 3; }, 500));
    for (uint32_t icc : {ICC_PARTIAL, ICC_SLUMBER, ICC_ACTIVE}) {
        h.mmio_write32(pb + PxCMD, (h.mmio_read32(pb + PxCMD) & ~CMD_ICC_MASK) | icc << CMD_ICC_SHIFT);
        EXPECT_EQ(h.mmio_read32(pb + PxCMD) & CMD_ICC_MASK, 0u);
        sc_core::wait(5, sc_core::SC_US);
        EXPECT_EQ(h.mmio_read32(pb + PxSSTS), 0x133u);
    }
    EXPECT_TRUE(B->link_plain.request_power(false, PowerState::Partial) == PmResult::Denied);
    EXPECT_TRUE(B->dev_plain.power.empty());
}

namespace {
uint32_t dsr(uint32_t off) { return B->ds.mmio_read32(port_base(0) + off); }
void dsw(uint32_t off, uint32_t v) { B->ds.mmio_write32(port_base(0) + off, v); }
uint32_t ds_cmd(uint32_t bits) { return (dsr(PxCMD) & ~CMD_ICC_MASK) | bits; }
uint32_t devslp(unsigned dito, unsigned mdat, unsigned deto) {
    return dito << DEVSLP_DITO_SHIFT | mdat << DEVSLP_MDAT_SHIFT | deto << DEVSLP_DETO_SHIFT;
}
} // namespace

// CAP2 SDS (bit 3), SADM (4), DESO (5); PxDEVSLP: DSP (bit 1) read-only 1, DM 0, ADSE and the
// timing fields read back what was written while the engine is stopped.
MODEL_TEST(devsleep_cap2_and_pxdevslp) {
    EXPECT_EQ(B->ds.mmio_read32(CAP2), CAP2_SDS | CAP2_SADM | CAP2_DESO);
    EXPECT_EQ(B->ds.mmio_read32(CAP2), 0x38u);
    EXPECT_EQ(dsr(PxDEVSLP), DEVSLP_DSP);
    dsw(PxDEVSLP, devslp(1000, 10, 20) | DEVSLP_ADSE | DEVSLP_DM_MASK);
    EXPECT_EQ(dsr(PxDEVSLP), devslp(1000, 10, 20) | DEVSLP_ADSE | DEVSLP_DSP); // DM stays the part's
    EXPECT_EQ((dsr(PxDEVSLP) >> DEVSLP_DITO_SHIFT) & 0x3FF, 1000u);
    dsw(PxDEVSLP, 0);
    EXPECT_EQ(dsr(PxDEVSLP), DEVSLP_DSP);
}

// Aggressive DevSleep: ALPE/ASP put the idle port in Slumber; DITO (2 ms) later the HBA
// asserts DEVSLP and the drive enters DevSleep: PxSSTS.IPM 8 (833h), no PhyRdy change
// reported. The wake-up (ICC Active) holds DEVSLP until MDAT (5 ms after its assertion),
// then the drive's 3 ms exit, then the COMWAKE exchange: IPM 1 again.
MODEL_TEST(devsleep_aggressive_entry_and_exit) {
    B->dev_ds.devsleep = true;
    EXPECT_TRUE(wait_until([] { return (dsr(PxSSTS) & 0xF) == 3; }, 500));
    dsw(PxSCTL, 0);
    dsw(PxCLB, 0x30000);
    dsw(PxFB, 0x40000);
    dsw(PxDEVSLP, devslp(2, 5, 20) | DEVSLP_ADSE);
    dsw(PxCMD, ds_cmd(CMD_FRE));
    EXPECT_TRUE(wait_until([] { return (dsr(PxCMD) & CMD_FR) != 0; }, 10));
    dsw(PxCMD, ds_cmd(CMD_FRE | CMD_ST | CMD_ALPE | CMD_ASP));
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x633u; }, 10));
    dsw(PxSERR, 0xFFFFFFFF);
    sc_core::wait(1900, sc_core::SC_US);
    EXPECT_EQ(dsr(PxSSTS), 0x633u); // not before DITO
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x833u; }, 200));
    EXPECT_TRUE(B->dev_ds.power.back() == PowerState::DevSleep);
    EXPECT_EQ(dsr(PxSERR), 0u);
    const sc_core::sc_time asserted = sc_core::sc_time_stamp();
    dsw(PxCMD, ds_cmd(ICC_ACTIVE << CMD_ICC_SHIFT) & ~(CMD_ALPE | CMD_ASP));
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x133u; }, 20000));
    const double took_us = (sc_core::sc_time_stamp() - asserted).to_seconds() * 1e6;
    EXPECT_TRUE(took_us >= 8000 && took_us < 8500); // MDAT 5 ms + exit 3 ms + the Slumber wake-up
    EXPECT_TRUE(B->dev_ds.power.back() == PowerState::Active);
    // ICC DevSleep from Slumber; a drive that ignores DEVSLP stays in Slumber
    B->dev_ds.devsleep = false;
    dsw(PxCMD, ds_cmd(ICC_SLUMBER << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x633u; }, 10));
    dsw(PxCMD, ds_cmd(ICC_DEVSLEEP << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (dsr(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(dsr(PxSSTS), 0x633u);
    B->dev_ds.devsleep = true;
    dsw(PxCMD, ds_cmd(ICC_DEVSLEEP << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (dsr(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(dsr(PxSSTS), 0x833u);
    // PxSCTL.IPM bit 10 forbids it: ICC DevSleep does nothing
    dsw(PxCMD, ds_cmd(ICC_ACTIVE << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x133u; }, 20000));
    dsw(PxSCTL, SCTL_IPM_NO_DEVSLP);
    dsw(PxCMD, ds_cmd(ICC_SLUMBER << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return dsr(PxSSTS) == 0x633u; }, 10));
    dsw(PxCMD, ds_cmd(ICC_DEVSLEEP << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (dsr(PxCMD) & CMD_ICC_MASK) == 0; }, 10));
    EXPECT_EQ(dsr(PxSSTS), 0x633u);
}

// A wake-up the drive's PHY does not answer (the lpm_fail fault): the HBA's wake-up out of
// Slumber times out and PhyRdy is lost (DIAG.N, PxIS.PRCS, DET no longer 3); what the
// half-woken PHY garbled is latched with it: 10b/8b decode errors (DIAG.B), the host PHY's
// internal error (DIAG.I) and the data it spoiled (ERR.T) -- the "UnrecovData PHYRdyChg
// PHYInt CommWake 10B8B" of a real LPM wake-up failure (dmesg corpus 35, Linux 6.11+
// med_power_with_dipm). Last: the link stays lost.
MODEL_TEST(failed_wake_up_latches_its_line_noise) {
    active();
    pwr(PxCMD, cmd_with(ICC_SLUMBER << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return prd(PxSSTS) == 0x633u; }, 10));
    clear_serr();
    pwr(PxIS, 0xFFFFFFFF);
    B->dev.comwake = false;
    B->dev.wake_noise.decode = true;
    B->dev.wake_noise.phy = true;
    pwr(PxCMD, cmd_with(ICC_ACTIVE << CMD_ICC_SHIFT));
    EXPECT_TRUE(wait_until([] { return (prd(PxSSTS) & 0xF) != 3; }, 20000));
    const uint32_t serr = prd(PxSERR);
    EXPECT_EQ(serr & (SERR_DIAG_N | SERR_DIAG_I | SERR_DIAG_B | SERR_ERR_T),
              SERR_DIAG_N | SERR_DIAG_I | SERR_DIAG_B | SERR_ERR_T);
    EXPECT_EQ(serr & SERR_ERR_E, 0u); // no HostInt: the HBA itself is fine
    EXPECT_TRUE(prd(PxIS) & IS_PRCS);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
