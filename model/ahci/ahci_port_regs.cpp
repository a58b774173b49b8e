// AHCI 1.3.1 chapter 3.3: port registers. Reset values, read-only / RW1C / RW1-set masks,
// and the side effects of register writes (PxCMD.ST/FRE/CLO, PxSCTL.DET, PxCI), plus the
// PHY-level callbacks of the port's link endpoint (PhyRdy change, COMINIT), which land in
// PxSERR / PxIS / PxTFD.
#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;
using sata::kAtaBsy;
using sata::kAtaDrq;

namespace {
uint32_t slot_mask(unsigned n_slots) { return n_slots >= 32 ? 0xFFFFFFFFu : (1u << n_slots) - 1; }
} // namespace

AhciHba::Port::Port(sc_core::sc_module_name name, AhciHba &hba, unsigned index)
    : sc_module(name), hba_(hba), idx_(index), period_(hba.period_) {
    SC_THREAD(engine_thread);
    SC_METHOD(cr_off_method);
    sensitive << cr_off_ev_;
    dont_initialize();
    SC_METHOD(fr_method);
    sensitive << fr_ev_;
    dont_initialize();
    SC_METHOD(spinup_method);
    sensitive << spinup_ev_;
    dont_initialize();
    SC_THREAD(pm_thread);
    SC_METHOD(devslp_method);
    sensitive << devslp_ev_;
    dont_initialize();
    // Power-on PxCMD: SUD is read-only 1 without staggered spin-up, POD is read-only 1
    // without cold presence detection (PxCMD.CPD = 0).
    // PxCMD.FBSCP: every port of an HBA with CAP.FBSS can do FIS-based switching.
    cmd_ = (hba_.cfg_.sss ? 0 : CMD_SUD) | CMD_POD | (fbs_capable() ? CMD_FBSCP : 0);
    last_slot_ = hba_.cfg_.n_slots - 1;
}

void AhciHba::Port::connect(link::SataLink *link) { link_ = link; }

// Power-on (hba_reset false) or GHC.HR (true). AHCI 1.3.1 10.4.3: an HBA reset resets
// every port field that is not HwInit "except PxFB/PxFBU/PxCLB/PxCLBU", which it leaves
// alone; the model's power-on value of those four is 0. HwInit fields (PxCMD.FBSCP, and
// SUD/POD where they are read-only 1) keep their values; with CAP.SSS "the PxCMD.SUD bit
// will be reset to '0'".
void AhciHba::Port::reset(bool hba_reset) {
    ++epoch_;
    ++cmd_epoch_;
    cr_off_ev_.cancel();
    fr_ev_.cancel();
    spinup_ev_.cancel();
    if (!hba_reset)
        clb_ = clbu_ = fb_ = fbu_ = 0;
    is_ = ie_ = 0;
    cmd_ = (hba_.cfg_.sss ? 0 : CMD_SUD) | CMD_POD | (fbs_capable() ? CMD_FBSCP : 0);
    tfd_ = TFD_RESET;
    sig_ = 0xFFFFFFFF;
    sctl_ = serr_ = sact_ = ci_ = sntf_ = fbs_ = 0;
    icc_req_ = ICC_IDLE;
    devslp_ = 0;
    devslp_ev_.cancel();
    sig_pending_ = true;
    cominit_oob_ = false;
    halted_ = false;
    issued_ = 0;
    last_slot_ = hba_.cfg_.n_slots - 1;
    for (auto &s : slots_)
        s = Slot{};
    for (auto &d : dev_)
        d = DevCtx{};
    cur_ = 0;
    slot_dev_ = {};
    rxq_.clear();
    if (link_ && hba_reset) {
        // GHC.HR re-initializes every port with a COMRESET, held until HR self-clears
        // (10.4.3: without staggered spin-up "the HBA reset shall cause a COMRESET to be
        // sent on the port").
        trace("ahci.port_comreset", {{"assert", TraceValue::boolean(true)}}, "GHC.HR");
        link_->host_comreset(true);
    }
    if (elaborating())
        return; // start_of_simulation() schedules the power-on spin-up
    if (link_ && !hba_.cfg_.sss)
        spinup_ev_.notify(period_ * double(hba_reset ? cycles::kHbaReset : cycles::kSpinUp));
    wake_.notify(sc_core::SC_ZERO_TIME);
}

bool AhciHba::Port::elaborating() {
    return sc_core::sc_get_status() &
           (sc_core::SC_ELABORATION | sc_core::SC_BEFORE_END_OF_ELABORATION |
            sc_core::SC_END_OF_ELABORATION);
}

void AhciHba::Port::start_of_simulation() {
    // Power-on: without staggered spin-up the port starts OOB on its own.
    if (link_ && !hba_.cfg_.sss)
        spinup_ev_.notify(period_ * double(cycles::kSpinUp));
}

uint32_t AhciHba::Port::is_value() const {
    uint32_t v = is_;
    if (serr_ & SERR_DIAG_N)
        v |= IS_PRCS;
    if (serr_ & SERR_DIAG_X)
        v |= IS_PCS;
    if (serr_ & SERR_DIAG_F)
        v |= IS_UFS;
    return v;
}

uint32_t AhciHba::Port::read(uint32_t off) {
    const AhciConfig &cfg = hba_.cfg_;
    switch (off) {
    case PxCLB:
        return clb_;
    case PxCLBU:
        return clbu_;
    case PxFB:
        return fb_;
    case PxFBU:
        return fbu_;
    case PxIS:
        if (all_ones_reads_) { // hba_error irq all_ones (ahci_faults.cpp)
            --all_ones_reads_;
            return 0xffffffffu;
        }
        return is_value();
    case PxIE:
        return ie_;
    case PxCMD:
        return cmd_ | icc_req_ << CMD_ICC_SHIFT;
    case PxTFD:
        return tfd_;
    case PxSIG:
        return sig_;
    case PxSSTS:
        return link_ ? link_->sstatus() : 0; // no cable: DET=0
    case PxSCTL:
        return sctl_;
    case PxSERR:
        return serr_;
    case PxSACT:
        return sact_;
    case PxCI:
        return ci_;
    case PxSNTF:
        return cfg.ssntf ? sntf_ : 0;
    case PxFBS:
        // ADO is read-only (the configured hint); DEC always reads 0 (see fbs_dec()).
        return fbs_capable() ? fbs_ | cfg.fbs_ado << FBS_ADO_SHIFT : 0;
    case PxDEVSLP:
        // reserved without CAP2.SDS; DSP and DM are the part's
        return cfg.sds ? devslp_ | DEVSLP_DSP | (cfg.devslp_dm & 0xFu) << DEVSLP_DM_SHIFT : 0;
    default:
        return 0; // reserved and vendor-specific space
    }
}

void AhciHba::Port::write(uint32_t off, uint32_t val) {
    const AhciConfig &cfg = hba_.cfg_;
    switch (off) {
    case PxCLB:
    case PxCLBU:
        // AHCI 3.3.1/3.3.2: not to be changed while the command list runs (ST or CR).
        if (cmd_ & (CMD_ST | CMD_CR))
            violation("clb_write_while_running", "PxCLB written while PxCMD.ST or CR is set");
        if (off == PxCLB)
            clb_ = val & kClbAlignMask;
        else
            clbu_ = cfg.s64a ? val : 0;
        break;
    case PxFB:
    case PxFBU:
        // AHCI 3.3.3/3.3.4: not to be changed while FIS receive runs (FRE or FR).
        if (cmd_ & (CMD_FRE | CMD_FR))
            violation("fb_write_while_fis_rx", "PxFB written while PxCMD.FRE or FR is set");
        if (off == PxFB)
            fb_ = val & ((fbs_ & FBS_EN) ? kFbAlignMaskFbs : kFbAlignMask);
        else
            fbu_ = cfg.s64a ? val : 0;
        break;
    case PxIS:
        is_ &= ~(val & ~IS_MIRRORED);
        irq_update();
        break;
    case PxIE:
        ie_ = val & IE_WRITABLE;
        irq_update();
        break;
    case PxCMD:
        write_cmd(val);
        break;
    case PxSCTL:
        write_sctl(val);
        break;
    case PxSERR:
        serr_ &= ~val; // RW1C; also clears the mirrored PxIS.PRCS/PCS/UFS
        irq_update();
        break;
    case PxSACT:
        // RW1-set; the register only holds bits while the engine runs (cleared by ST=0).
        if (cmd_ & CMD_ST)
            sact_ |= val & slot_mask(cfg.n_slots);
        else if (val)
            violation("sact_while_stopped", "PxSACT written while PxCMD.ST is clear");
        break;
    case PxCI:
        // AHCI 3.3.14: software sets PxCI only while ST is set; otherwise the write is lost.
        if (cmd_ & CMD_ST) {
            const uint32_t added = val & slot_mask(cfg.n_slots) & ~ci_;
            if (fbs_on() && added) {
                // AHCI 1.3.1 3.3.16: the new commands go to PM port PxFBS.DEV (software
                // issues to one device per PxCI write).
                const uint8_t dev = uint8_t((fbs_ & FBS_DEV_MASK) >> FBS_DEV_SHIFT);
                for (unsigned t = 0; t < 32; ++t)
                    if (added & (1u << t))
                        slot_dev_[t] = dev;
                if (dev_[dev].error)
                    violation("fbs_issue_to_failed_device",
                              "PxCI written for PM port " + std::to_string(dev) +
                                  " while it has a single device error (PxFBS.DEC not set yet)");
            }
            ci_ |= val & slot_mask(cfg.n_slots);
            wake_.notify(sc_core::SC_ZERO_TIME);
        } else if (val) {
            violation("ci_while_stopped", "PxCI written while PxCMD.ST is clear");
        }
        break;
    case PxSNTF:
        if (cfg.ssntf)
            sntf_ &= ~(val & 0xFFFF);
        break;
    case PxFBS:
        if (fbs_capable())
            write_fbs(val); // without CAP.FBSS / PxCMD.FBSCP the register is reserved
        break;
    case PxDEVSLP:
        if (cfg.sds)
            write_devslp(val);
        break;
    default:
        break; // read-only: PxTFD, PxSIG, PxSSTS; reserved space
    }
}

void AhciHba::Port::write_cmd(uint32_t val) {
    const AhciConfig &cfg = hba_.cfg_;
    uint32_t w = CMD_ST | CMD_FRE | CMD_ATAPI | CMD_DLAE;
    if (cfg.sss)
        w |= CMD_SUD;
    if (cfg.spm)
        w |= CMD_PMA;
    // ALPE and ASP are writable with CAP.SALP, read-only 0 without (AHCI 1.3.1 3.3.7);
    // CAP2.APST = 0: APSTE is read-only 0.
    if (cfg.salp)
        w |= CMD_ALPE | CMD_ASP;
    uint32_t old = cmd_;
    // AHCI 3.3.7 / 10.3: ST is set only with FRE set and after CR has cleared; FRE is
    // cleared only after ST (and CR) have.
    if (!(old & CMD_ST) && (val & CMD_ST)) {
        if (!(val & CMD_FRE))
            violation("st_without_fre", "PxCMD.ST set while PxCMD.FRE is clear");
        if (old & CMD_CR)
            violation("st_while_cr", "PxCMD.ST set before PxCMD.CR cleared");
    }
    if ((old & CMD_FRE) && !(val & CMD_FRE) && ((val & CMD_ST) || (old & CMD_CR)))
        violation("fre_clear_while_st", "PxCMD.FRE cleared while PxCMD.ST is set");
    cmd_ = (old & ~w) | (val & w);

    if ((val & CMD_CLO) && cfg.sclo) {
        // Command list override: BSY and DRQ of PxTFD.STS clear; CLO self-clears when done.
        tfd_ &= ~uint32_t(kAtaBsy | kAtaDrq);
        for (auto &d : dev_)
            d.sts &= uint8_t(~(kAtaBsy | kAtaDrq));
        trace("ahci.clo", {{"tfd", TraceValue::hex(tfd_)}});
        wake_.notify(sc_core::SC_ZERO_TIME);
    }
    if (!(old & CMD_ST) && (cmd_ & CMD_ST))
        start_engine();
    else if ((old & CMD_ST) && !(cmd_ & CMD_ST))
        stop_engine();
    if ((old ^ cmd_) & CMD_FRE) {
        trace(cmd_ & CMD_FRE ? "ahci.fis_rx_enable" : "ahci.fis_rx_disable");
        fr_ev_.notify(period_ * double((cmd_ & CMD_FRE) ? cycles::kFreOn : cycles::kFreOff));
    }
    if (cfg.sss && !(old & CMD_SUD) && (cmd_ & CMD_SUD))
        spinup_ev_.notify(period_ * double(cycles::kSpinUp));
    // PxCMD.ICC (3.3.7): a request to the interface. One to the state the link is already
    // in, or to one this HBA does not take (DevSleep without CAP2.SDS; reserved values), is no
    // action: ICC reads Idle at once. Otherwise the power thread acts and then clears it.
    const uint32_t icc = (val & CMD_ICC_MASK) >> CMD_ICC_SHIFT;
    const bool to_active = icc == ICC_ACTIVE && link_ && link_->power_state() != link::PowerState::Active;
    const bool to_low = (icc == ICC_PARTIAL && cfg.psc) || (icc == ICC_SLUMBER && cfg.ssc) ||
                        (icc == ICC_DEVSLEEP && cfg.sds);
    if (to_active || (to_low && link_)) {
        icc_req_ = icc;
        pm_ev_.notify(sc_core::SC_ZERO_TIME);
    }
    if (!(old & CMD_ALPE) && (cmd_ & CMD_ALPE))
        pm_idle_check();
}

void AhciHba::Port::start_engine() {
    cr_off_ev_.cancel();
    cmd_ |= CMD_CR;
    halted_ = false;
    last_slot_ = hba_.cfg_.n_slots - 1; // the first command issued is the lowest slot
    trace("ahci.engine_start", {{"tfd", TraceValue::hex(tfd_)}});
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// ST 1->0 (AHCI 1.3.1 3.3.7 / 10.3.2): PxCI and PxSACT clear, CCS resets, every
// outstanding command is forgotten; CR clears once the engine has stopped.
void AhciHba::Port::stop_engine() {
    trace("ahci.engine_stop", {{"ci", TraceValue::hex(ci_)},
                               {"sact", TraceValue::hex(sact_)},
                               {"halted", TraceValue::boolean(halted_)}});
    ++cmd_epoch_;
    ci_ = sact_ = issued_ = 0;
    cmd_ &= ~CMD_CCS_MASK;
    halted_ = false;
    for (auto &s : slots_)
        s = Slot{};
    // Every device context goes idle; a single device error is forgotten with the
    // commands (AHCI 1.3.1 9.3.6: clearing ST is the port-wide recovery).
    for (auto &d : dev_)
        d = DevCtx{};
    fbs_ &= ~(FBS_SDE | FBS_DWE_MASK);
    cr_off_ev_.notify(period_ * double(cycles::kStop));
}

void AhciHba::Port::cr_off_method() {
    if (!(cmd_ & CMD_ST) && (cmd_ & CMD_CR)) {
        cmd_ &= ~CMD_CR;
        trace("ahci.engine_stopped");
    }
}

void AhciHba::Port::fr_method() {
    bool want = cmd_ & CMD_FRE;
    bool have = cmd_ & CMD_FR;
    if (want == have)
        return;
    if (want)
        cmd_ |= CMD_FR;
    else
        cmd_ &= ~CMD_FR;
    if (want && link_)
        link_->receiver_ready_changed();
}

// Release the PHY so that OOB and speed negotiation run: at power-on (no staggered
// spin-up), after an HBA reset, or on PxCMD.SUD 0->1 with staggered spin-up.
void AhciHba::Port::spinup_method() {
    if (!link_ || (sctl_ & SCTL_DET_MASK) != 0)
        return;
    if (hba_.cfg_.sss && !(cmd_ & CMD_SUD))
        return;
    trace("ahci.port_spinup", {{"spd_limit", TraceValue::integer(int(speed_limit()))}});
    link_->host_comreset(false, speed_limit());
}

link::Gen AhciHba::Port::speed_limit() const {
    unsigned iss = unsigned(hba_.cfg_.iss);
    unsigned spd = (sctl_ & SCTL_SPD_MASK) >> SCTL_SPD_SHIFT;
    if (spd == 0 || spd > iss)
        spd = iss;
    return link::Gen(spd);
}

// PxSCTL.DET (AHCI 1.3.1 3.3.11): 1 = COMRESET held on the wire; 1->0 = release, OOB and
// negotiation up to min(SPD, CAP.ISS); 4 = PHY offline. Software must have cleared ST.
void AhciHba::Port::write_sctl(uint32_t val) {
    uint32_t old_det = sctl_ & SCTL_DET_MASK;
    sctl_ = val & 0xFFF; // SPM and PMP are not used by AHCI: read-only 0
    uint32_t det = sctl_ & SCTL_DET_MASK;
    if (det == old_det)
        return;
    if (det == 1) {
        spinup_ev_.cancel();
        // Shadow status while COMRESET is sent: 7Fh (docs/hardware.md 2.5). The next D2H FIS
        // is the device's signature; anything still queued predates the reset.
        tfd_ = TFD_RESET;
        sig_pending_ = true;
        cominit_oob_ = false;
        rxq_.clear();
        reset_data_phases();
        trace("ahci.port_comreset", {{"assert", TraceValue::boolean(true)}});
        if (link_)
            link_->host_comreset(true);
    } else if (det == 4) {
        spinup_ev_.cancel();
        trace("ahci.port_offline");
        if (link_)
            link_->host_offline();
    } else if (det == 0 && (old_det == 1 || old_det == 4)) {
        trace("ahci.port_comreset", {{"assert", TraceValue::boolean(false)},
                                     {"spd_limit", TraceValue::integer(int(speed_limit()))}});
        if (link_)
            link_->host_comreset(false, speed_limit());
    }
}

void AhciHba::Port::reset_data_phases() {
    for (auto &d : dev_) {
        d.pio = Pio{};
        d.dma = DmaCtx{};
    }
}

// PxFBS (AHCI 1.3.1 3.3.16, 9.3). EN may only change while PxCMD.ST is clear (software
// stops the engine first); DEV names the PM port of the commands the next PxCI write
// issues; DEC clears a single device error; SDE, ADO and DWE are read-only.
void AhciHba::Port::write_fbs(uint32_t val) {
    const bool en = val & FBS_EN;
    if (en != fbs_on()) {
        if (cmd_ & CMD_ST) {
            violation("fbs_en_while_running", std::string("PxFBS.EN ") +
                                                  (en ? "set" : "cleared") +
                                                  " while PxCMD.ST is set (ignored)");
        } else {
            if (en && !(cmd_ & CMD_PMA))
                violation("fbs_en_without_pma", "PxFBS.EN set while PxCMD.PMA is clear");
            if (en && (fb_ & ~kFbAlignMaskFbs))
                violation("fbs_fb_misaligned",
                          "PxFBS.EN set with PxFB not 4 KiB aligned (the area is 16 x 256 B)");
            fbs_ = (fbs_ & ~(FBS_EN | FBS_SDE | FBS_DWE_MASK)) | (en ? FBS_EN : 0);
            for (auto &d : dev_)
                d = DevCtx{};
            cur_ = 0;
            trace(en ? "ahci.fbs_enable" : "ahci.fbs_disable", {{"fb", TraceValue::hex(fb_)}});
        }
    }
    fbs_ = (fbs_ & ~FBS_DEV_MASK) | (val & FBS_DEV_MASK);
    if (val & FBS_DEC)
        fbs_dec();
}

// PxFBS.DEC (AHCI 1.3.1 9.3.6): the HBA clears the PxCI and PxSACT bits of every command
// to the device named by DWE, forgets that device's state and lets it take commands
// again; SDE and DWE clear. The model does it within the register write, so DEC reads
// back 0 at once (software polls it a few microseconds at most, libahci 3 x 1 us).
void AhciHba::Port::fbs_dec() {
    if (!fbs_on() || !(fbs_ & FBS_SDE)) {
        violation("fbs_dec_without_sde",
                  "PxFBS.DEC set while there is no single device error (PxFBS.SDE clear)");
        return;
    }
    const unsigned p = (fbs_ & FBS_DWE_MASK) >> FBS_DWE_SHIFT;
    uint32_t mask = 0;
    for (unsigned t = 0; t < 32; ++t)
        if (((ci_ | sact_) & (1u << t)) && slot_dev_[t] == p)
            mask |= 1u << t;
    ci_ &= ~mask;
    sact_ &= ~mask;
    issued_ &= ~mask;
    for (unsigned t = 0; t < 32; ++t)
        if (mask & (1u << t))
            slots_[t] = Slot{};
    dev_[p] = DevCtx{};
    fbs_ &= ~(FBS_SDE | FBS_DWE_MASK);
    trace("ahci.fbs_dec", {{"pm_port", TraceValue::integer(p)}, {"cleared", TraceValue::hex(mask)},
                           {"ci", TraceValue::hex(ci_)}, {"sact", TraceValue::hex(sact_)}},
          "device error cleared");
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void AhciHba::Port::set_is(uint32_t bits) {
    is_ |= bits;
    irq_update();
}

void AhciHba::Port::set_serr(uint32_t bits) {
    serr_ |= bits;
    irq_update();
}

void AhciHba::Port::irq_update() { hba_.update_irq(); }

void AhciHba::Port::trace(const char *event,
                          std::vector<std::pair<std::string, TraceValue>> fields,
                          std::string msg) {
    hba_.emit(event, int(idx_), std::move(fields), std::move(msg));
}

// ---- PHY-level link endpoint callbacks ----------------------------------------------

void AhciHba::Port::phy_changed(bool ready, link::Gen gen) {
    trace("ahci.phyrdy_change", {{"ready", TraceValue::boolean(ready)},
                                 {"gen", TraceValue::integer(int(gen))}});
    if (ready && sig_pending_ && (tfd_ & TFD_STS_MASK) == TFD_RESET) {
        // A device answered OOB: busy until its signature FIS arrives.
        tfd_ = kAtaBsy;
    }
    // Communication re-established with no COMRESET (the PHY answered the device's
    // COMINIT): ERR.M, "recovered communications error" (SATA 3.x SError; the hot-plug
    // logs' "SErr 0x4050002": RecovComm PHYRdyChg CommWake DevExch).
    const uint32_t recovered = ready && cominit_oob_ ? SERR_ERR_M : 0u;
    if (ready)
        cominit_oob_ = false;
    set_serr(SERR_DIAG_N | recovered); // PxIS.PRCS mirrors DIAG.N
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void AhciHba::Port::oob_reset() {
    // COMINIT from the device (power-on, hotplug, device-initiated reset): the device may
    // have changed. Status becomes 80h until the signature FIS (docs/hardware.md 2.5).
    trace("ahci.cominit");
    sig_pending_ = true;
    cominit_oob_ = true;
    tfd_ = kAtaBsy;
    reset_data_phases();
    set_serr(SERR_DIAG_X); // PxIS.PCS mirrors DIAG.X
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// The device's COMWAKE recognised by the PHY (every OOB, the COMRESET's too): DIAG.W.
void AhciHba::Port::oob_comwake() { set_serr(SERR_DIAG_W); }

// A port whose PHY listens (PxSCTL.DET 0, spun up) answers a COMINIT by itself.
bool AhciHba::Port::answers_cominit() const {
    return (sctl_ & SCTL_DET_MASK) == 0 && (!hba_.cfg_.sss || (cmd_ & CMD_SUD));
}

// Noise on the wire outside any frame (docs/hardware.md 2.7): a COMINIT burst is an OOB
// reset signal (DIAG.X, PxIS.PCS); decode errors set DIAG.B alone, since no frame was lost
// (ERR.T marks a frame's data, AHCI 1.3.1 3.3.12); `internal` is ERR.E, the HBA's receive
// path losing the signal mid-primitive, which Intel's PCH AHCI reports with a cable pull
// (kernel logs: "SError: { HostInt PHYRdyChg 10B8B DevExch }", Emask 0x50).
void AhciHba::Port::line_noise(const Noise &n) {
    if (n.cominit)
        oob_reset();
    const uint32_t bits = (n.decode ? SERR_DIAG_B : 0u) | (n.internal ? SERR_ERR_E : 0u) |
                          (n.phy ? SERR_DIAG_I | SERR_ERR_T : 0u) | (n.comwake ? SERR_DIAG_W : 0u);
    if (bits) {
        trace("ahci.line_noise", {{"serror", TraceValue::hex(bits)}});
        set_serr(bits);
    }
}

// Flow control toward the device. With FIS receive running everything is accepted (the
// engine drains the queue at least as fast as the link fills it). MEM-flagged area
// (docs/hardware.md 5.6): with PxCMD.FR = 0 we still accept frames while a signature is
// pending, because the first D2H FIS after COMRESET/COMINIT/power-on must update PxTFD
// and PxSIG even before software enables FIS receive (it is not posted to memory then);
// otherwise the device is held off (X_RDY without R_RDY) until FRE is set.
bool AhciHba::Port::ready_to_receive() const { return (cmd_ & CMD_FR) || sig_pending_; }

} // namespace satasim::ahci
