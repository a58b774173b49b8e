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
    set_serr(SERR_DIAG_N);
    if (s == PowerState::Active) {
        wake_.notify(sc_core::SC_ZERO_TIME);
        pm_idle_check();
    }
}

} // namespace satasim::ahci
