// The drive's side of interface power management (docs/device.md 6; SATA 3.x 8.4): the
// host's PMREQ_P / PMREQ_S answered PMACK when the drive supports them (HIPM, IDENTIFY word
// 76 bit 9) and is idle, device-initiated Slumber requests (DIPM, word 78 bit 3, enabled by
// SET FEATURES 10h/03h) after an idle time, and the lpm_fail fault (a PHY that never answers
// a wake-up COMWAKE, a link layer that PMNAKs everything). The exchange and the wake-up are
// the link's; a frame the drive sends in Partial/Slumber wakes the link first.
#include "model/device/disk_impl.h"

namespace satasim::device {

using sc_core::SC_ZERO_TIME;
using sc_core::sc_time;
using sc_core::sc_time_stamp;

bool SataDisk::Impl::interface_idle() const {
    return phy_up && !hung && reset_state == ResetState::None && !pending_cmd && !ncq_outstanding() &&
           rxq.empty() && data_in.empty() && pending_accepts.empty() && !sdb_pending;
}

void SataDisk::Impl::activity() {
    last_activity = sc_time_stamp();
    if (dipm_enabled) {
        dipm_event.cancel(); // (a pending earlier notification would win over a later one)
        dipm_event.notify(sc_time(cfg.dipm_idle_us, sc_core::SC_US));
    }
}

// DIPM: after dipm_idle_us with nothing in or out, ask for Slumber (once per idle period:
// a PMNAK leaves the link Active until the next activity starts the timer again).
void SataDisk::Impl::dipm_thread() {
    const sc_time idle(cfg.dipm_idle_us, sc_core::SC_US);
    for (;;) {
        sc_core::wait(dipm_event);
        if (!dipm_enabled || !link || !interface_idle() || power != link::PowerState::Active ||
            sc_time_stamp() - last_activity < idle || !link->phy_ready())
            continue;
        const link::PmResult r = link->request_power(false, link::PowerState::Slumber);
        trace("disk.dipm", {{"result", TraceValue::str(link::to_string(r))}}, "device-initiated Slumber request");
    }
}

bool SataDisk::pm_accept(link::PowerState s) {
    Impl &m = *impl_;
    const bool ok = cfg_.hipm && !m.pmnak && m.interface_idle();
    if (m.pmnak && !m.pmnak_told) { // (once: the fault's effect, not every refusal)
        m.pmnak_told = true;
        m.fault_effect(m.lpm_fail_id, {{"state", TraceValue::str(link::to_string(s))}},
                       "PMNAK: the link layer refuses every request from now on");
    }
    return ok;
}

void SataDisk::power_changed(link::PowerState s) {
    Impl &m = *impl_;
    m.power = s;
    m.trace("disk.power", {{"state", TraceValue::str(link::to_string(s))}});
    if (s == link::PowerState::Active)
        m.activity();
}

bool SataDisk::answers_comwake() {
    Impl &m = *impl_;
    if (!m.no_comwake)
        return true;
    m.fault_effect(m.lpm_fail_id, {{"left", TraceValue::integer(m.no_comwake_left ? m.no_comwake_left - 1 : 0)}},
                   "the PHY does not answer the wake-up COMWAKE");
    if (m.no_comwake_left && --m.no_comwake_left == 0)
        m.no_comwake = false;
    return false;
}

// DEVSLP asserted: a drive with DevSleep enabled enters it; otherwise it ignores the signal.
bool SataDisk::takes_devsleep() { return cfg_.devsleep && impl_->devslp_enabled; }

sc_time SataDisk::devsleep_exit_time() { return sc_time(cfg_.devsleep_exit_ms, sc_core::SC_MS); }

link::LinkEndpoint::Noise SataDisk::failed_wake_noise() { return impl_->wake_noise; }

void SataDisk::inject_lpm_fail(LpmFail how, unsigned wakes, const Noise &noise, const std::string &id) {
    Impl &m = *impl_;
    m.lpm_fail_id = id;
    if (how == LpmFail::NoComwake) {
        m.no_comwake = true;
        m.no_comwake_left = wakes;
        m.wake_noise = noise;
    } else {
        m.pmnak = true;
    }
}

} // namespace satasim::device
