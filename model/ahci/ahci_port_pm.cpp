// AHCI 1.3.1 link power management of one port (docs/hardware.md 5.10): software's requests
// through PxCMD.ICC (3.3.7), aggressive entry when the port goes idle (PxCMD.ALPE / ASP,
// 8.3.1.3), the device's requests (accepted when CAP.PSC / CAP.SSC and PxSCTL.IPM allow,
// and nothing waits to be issued), and the PhyRdy change each transition makes (PxSERR.DIAG.N,
// mirrored in PxIS.PRCS: the interrupt libahci masks while LPM is on). The exchange itself
// and the wake-up are the link's (SataLink::request_power, wake); PxSSTS.IPM is the link's.
#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;
using link::PowerState;

namespace {
const char *icc_name(uint32_t icc) {
    switch (icc) {
    case ICC_ACTIVE:
        return "active";
    case ICC_PARTIAL:
        return "partial";
    case ICC_SLUMBER:
        return "slumber";
    case ICC_DEVSLEEP:
        return "devsleep";
    }
    return "reserved";
}
} // namespace

bool AhciHba::Port::pm_allowed(PowerState s) const {
    const AhciConfig &cfg = hba_.cfg_;
    if (s == PowerState::Partial)
        return cfg.psc && !(sctl_ & SCTL_IPM_NO_PARTIAL);
    if (s == PowerState::Slumber)
        return cfg.ssc && !(sctl_ & SCTL_IPM_NO_SLUMBER);
    return false;
}

// Idle as ALPE means it (AHCI 1.3.1 8.3.1.3): the engine runs, PxCI and PxSACT are clear,
// no FIS waits in the receive path and no data phase or command FIS is outstanding.
bool AhciHba::Port::port_idle() const {
    if (!(cmd_ & CMD_ST) || halted_ || ci_ || sact_ || !rxq_.empty())
        return false;
    for (const DevCtx &d : dev_)
        if (d.busy_slot >= 0 || d.pio.active || d.dma.active)
            return false;
    return true;
}

void AhciHba::Port::pm_idle_check() {
    if ((cmd_ & CMD_ALPE) && hba_.cfg_.salp && link_ && port_idle() && link_->phy_ready())
        pm_ev_.notify(sc_core::SC_ZERO_TIME);
}

// One process for the port's power requests: an ICC request first (software's), else the
// aggressive entry when the port is idle with ALPE set. ICC reads back the request until the
// HBA has acted on it (or decided it has nothing to do), then Idle (0h).
void AhciHba::Port::pm_thread() {
    for (;;) {
        sc_core::wait(pm_ev_);
        while (link_ && icc_req_) {
            const uint32_t icc = icc_req_;
            if (icc == ICC_ACTIVE && link_->power_state() != PowerState::Active) {
                trace("ahci.icc", {{"icc", TraceValue::str(icc_name(icc))}}, "wake-up requested");
                link_->wake(true);
            } else if (icc == ICC_DEVSLEEP) {
                // software's DevSleep request: from Partial/Slumber (CAP2.DESO), unless PxSCTL.IPM
                // forbids it
                const bool ok = !(sctl_ & SCTL_IPM_NO_DEVSLP) && link_->assert_devslp(devslp_mdat());
                trace("ahci.icc", {{"icc", TraceValue::str(icc_name(icc))}, {"entered", TraceValue::boolean(ok)}});
            } else if ((icc == ICC_PARTIAL || icc == ICC_SLUMBER) && link_->phy_ready()) {
                const PowerState s = icc == ICC_PARTIAL ? PowerState::Partial : PowerState::Slumber;
                if (pm_allowed(s)) {
                    const link::PmResult r = link_->request_power(true, s);
                    trace("ahci.icc", {{"icc", TraceValue::str(icc_name(icc))},
                                       {"result", TraceValue::str(link::to_string(r))}});
                } else {
                    trace("ahci.icc", {{"icc", TraceValue::str(icc_name(icc))},
                                       {"result", TraceValue::str("not allowed")}},
                          "CAP.PSC/SSC or PxSCTL.IPM forbid it");
                }
            }
            if (icc_req_ == icc)
                icc_req_ = ICC_IDLE;
        }
        if (!link_ || !(cmd_ & CMD_ALPE) || !port_idle() || !link_->phy_ready())
            continue;
        const PowerState s = (cmd_ & CMD_ASP) ? PowerState::Slumber : PowerState::Partial;
        if (!pm_allowed(s))
            continue;
        const link::PmResult r = link_->request_power(true, s);
        trace("ahci.alpm", {{"state", TraceValue::str(link::to_string(s))},
                            {"result", TraceValue::str(link::to_string(r))}});
    }
}

// The device's PMREQ_P / PMREQ_S: PMACK when the HBA takes that state (CAP.PSC / SSC,
// PxSCTL.IPM) and has no command waiting to go out, PMNAK otherwise.
bool AhciHba::Port::pm_accept(PowerState s) {
    const bool ok = pm_allowed(s) && !(ci_ & ~issued_) && rxq_.empty();
    trace("ahci.pm_request", {{"state", TraceValue::str(link::to_string(s))},
                              {"ack", TraceValue::boolean(ok)}},
          "device-initiated");
    return ok;
}

// PhyRdy goes down as the PHY enters Partial / Slumber and comes back with the wake-up:
// either way PxSERR.DIAG.N (PxIS.PRCS) is set, as for any PhyRdy change.
void AhciHba::Port::power_changed(PowerState s) {
    trace("ahci.power", {{"ipm", TraceValue::integer(int(s))}}, link::to_string(s));
    if (s == PowerState::DevSleep)
        return; // PhyRdy was already off (Slumber): no change to report
    set_serr(SERR_DIAG_N);
    if (s == PowerState::Active) {
        devslp_ev_.cancel();
        wake_.notify(sc_core::SC_ZERO_TIME);
        pm_idle_check();
    } else if (s == PowerState::Slumber) {
        devslp_arm();
    }
}

// ---- DevSleep (AHCI 1.3.1 8.5) ------------------------------------------------------------
// PxDEVSLP: ADSE is writable (CAP2.SADM); DETO, MDAT and DITO are software's to program while
// the port is stopped (libahci stops the engine around it). Aggressive DevSleep: with ADSE
// set, the HBA asserts DEVSLP once the port has been idle in Slumber for DITO x (DM + 1) ms
// (CAP2.DESO: not from Active or Partial), unless PxSCTL.IPM forbids DevSleep. A command
// issued then wakes the link: the HBA holds DEVSLP at least MDAT ms, negates it and waits
// for the drive (within DETO) before the COMWAKE (SataLink::wake).
void AhciHba::Port::write_devslp(uint32_t val) {
    const uint32_t timing = DEVSLP_DETO_MASK | DEVSLP_MDAT_MASK | DEVSLP_DITO_MASK;
    if (((val ^ devslp_) & timing) && (cmd_ & (CMD_ST | CMD_CR)))
        violation("devslp_timing_while_running", "PxDEVSLP DETO/MDAT/DITO changed while PxCMD.ST or CR is set");
    const uint32_t old = devslp_;
    devslp_ = val & (DEVSLP_ADSE | timing);
    if ((old ^ devslp_) & DEVSLP_ADSE)
        trace("ahci.devslp", {{"adse", TraceValue::boolean(devslp_ & DEVSLP_ADSE)},
                              {"dito_ms", TraceValue::integer(int64_t(devslp_dito().to_seconds() * 1000))},
                              {"mdat_ms", TraceValue::integer((devslp_ & DEVSLP_MDAT_MASK) >> DEVSLP_MDAT_SHIFT)},
                              {"deto_ms", TraceValue::integer((devslp_ & DEVSLP_DETO_MASK) >> DEVSLP_DETO_SHIFT)}});
    if (!(devslp_ & DEVSLP_ADSE))
        devslp_ev_.cancel();
    else if (link_ && link_->power_state() == PowerState::Slumber)
        devslp_arm();
}

sc_core::sc_time AhciHba::Port::devslp_dito() const {
    const uint32_t dito = (devslp_ & DEVSLP_DITO_MASK) >> DEVSLP_DITO_SHIFT;
    return sc_core::sc_time(double(dito) * double(hba_.cfg_.devslp_dm + 1), sc_core::SC_MS);
}

sc_core::sc_time AhciHba::Port::devslp_mdat() const {
    return sc_core::sc_time(double((devslp_ & DEVSLP_MDAT_MASK) >> DEVSLP_MDAT_SHIFT), sc_core::SC_MS);
}

void AhciHba::Port::devslp_arm() {
    slumber_since_ = sc_core::sc_time_stamp();
    if (!hba_.cfg_.sds || !(devslp_ & DEVSLP_ADSE))
        return;
    devslp_ev_.cancel(); // (a pending earlier notification would win over this one)
    devslp_ev_.notify(devslp_dito());
}

void AhciHba::Port::devslp_method() {
    if (!link_ || !(devslp_ & DEVSLP_ADSE) || (sctl_ & SCTL_IPM_NO_DEVSLP) ||
        link_->power_state() != PowerState::Slumber || ci_ || sact_ || !rxq_.empty() ||
        sc_core::sc_time_stamp() - slumber_since_ < devslp_dito())
        return;
    const bool entered = link_->assert_devslp(devslp_mdat());
    trace("ahci.devslp_assert", {{"entered", TraceValue::boolean(entered)}}, "aggressive DevSleep");
}

} // namespace satasim::ahci
