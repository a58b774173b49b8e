// SiI3124 port registers (docs/hardware.md 6.3) and the port-level resets (6.6): reset values
// and masks, PORT_CTRL_STAT set/clear with PORT_RST, DEV_RST and INIT and their timing,
// slot activation through PORT_CMD_ACTIVATE (64-bit or 32-bit mode) and PORT_EXEC_FIFO,
// LRAM and the PMP context area, SControl/SStatus/SError/SActive, and the PHY-level
// callbacks of the port's link endpoint.
#include "model/sil24/sil24_port.h"

#include <cstring>

namespace satasim::sil24 {

using namespace reg;

Sil24Hba::Port::Port(sc_core::sc_module_name name, Sil24Hba &hba, unsigned index)
    : sc_module(name), hba_(hba), idx_(index), period_(hba.period_) {
    SC_THREAD(engine_thread);
    SC_METHOD(init_done_method);
    sensitive << init_ev_;
    dont_initialize();
    SC_METHOD(port_rst_done_method);
    sensitive << port_rst_ev_;
    dont_initialize();
    SC_METHOD(dev_rst_release_method);
    sensitive << dev_rst_release_ev_;
    dont_initialize();
    SC_METHOD(dev_rst_timeout_method);
    sensitive << dev_rst_timeout_ev_;
    dont_initialize();
    SC_METHOD(ack_complete_method);
    sensitive << ack_ev_;
    dont_initialize();
    SC_METHOD(spinup_method);
    sensitive << spinup_ev_;
    dont_initialize();
}

void Sil24Hba::Port::connect(link::SataLink *link) { link_ = link; }

bool Sil24Hba::Port::elaborating() {
    return sc_core::sc_get_status() &
           (sc_core::SC_ELABORATION | sc_core::SC_BEFORE_END_OF_ELABORATION |
            sc_core::SC_END_OF_ELABORATION);
}

void Sil24Hba::Port::start_of_simulation() {
    // Power-on: the PHY starts OOB on its own; the port logic stays in PORT_RST.
    if (link_)
        spinup_ev_.notify(period_ * double(cycles::kSpinUp));
}

// Power-on / GLOBAL_RST state: PORT_RST set, RDY clear, every control bit, interrupt
// enable, error code and slot cleared. LRAM contents are undefined on real silicon; the
// model zeroes them. The PHY is left alone except at power-on, when it starts OOB.
void Sil24Hba::Port::reset(bool global) {
    ++epoch_;
    init_ev_.cancel();
    port_rst_ev_.cancel();
    dev_rst_release_ev_.cancel();
    dev_rst_timeout_ev_.cancel();
    ack_ev_.cancel();
    ack_until_ = sc_core::SC_ZERO_TIME;
    spinup_ev_.cancel();
    ctrl_ = CS_PORT_RST;
    irq_raw_ = irq_en_ = steer_ = 0;
    cmd_err_ = context_ = 0;
    act_upper_ = fis_cfg_ = fifo_thres_ = phy_cfg_ = 0;
    err_cnt_[0] = err_cnt_[1] = err_cnt_[2] = 0;
    sctl_ = serr_ = 0;
    act_lo_.fill(0);
    lram_.fill(0);
    pmp_.fill(0);
    exec_diag_.fill(0);
    psd_diag_.fill(0);
    dev_rst_waiting_ = false;
    flush_commands(global ? "global reset" : "power-on");
    if (elaborating())
        return;
    if (link_ && !global)
        spinup_ev_.notify(period_ * double(cycles::kSpinUp));
    irq_update();
}

// Everything in flight is forgotten (INIT, PORT_RST, DEV_RST): slots, queue, data phases.
void Sil24Hba::Port::flush_commands(const char *why) {
    uint32_t busy = slot_stat() & SLOT_MASK;
    ++epoch_;
    for (auto &s : slots_)
        s = Slot{};
    queue_.clear();
    sact_ = 0;
    dev_.fill(Dev{});
    halted_ = false;
    dev_err_ = 0;
    rxq_.clear();
    held_.clear();
    ctrl_ &= ~CS_ACT_MASK;
    if (busy && !elaborating())
        trace("sil24.flush", {{"slots", TraceValue::hex(busy)}}, why);
    if (!elaborating())
        wake_.notify(sc_core::SC_ZERO_TIME);
}

void Sil24Hba::Port::spinup_method() {
    if (!link_ || (sctl_ & SCTL_DET_MASK) != 0)
        return;
    trace("sil24.port_spinup", {{"spd_limit", TraceValue::integer(int(speed_limit()))}});
    link_->host_comreset(false, speed_limit());
}

link::Gen Sil24Hba::Port::speed_limit() const {
    unsigned max = unsigned(hba_.cfg_.max_gen);
    unsigned spd = (sctl_ & SCTL_SPD_MASK) >> SCTL_SPD_SHIFT;
    if (spd == 0 || spd > max)
        spd = max;
    return link::Gen(spd);
}

uint32_t Sil24Hba::Port::slot_stat() const {
    uint32_t v = 0;
    for (unsigned i = 0; i < kLramSlots; ++i)
        if (slots_[i].active)
            v |= 1u << i;
    if (halted_ || (irq_raw_ & irq_en_ & IRQ_ALL & ~IRQ_COMPLETE))
        v |= SLOT_STAT_ATTN;
    return v;
}

uint32_t Sil24Hba::Port::read(uint32_t off) {
    if (off < PORT_PMP) {
        if (off >= kLramSlots * kLramSlotSize)
            return 0;
        uint32_t v;
        std::memcpy(&v, &lram_[off], 4);
        return v;
    }
    if (off < PORT_CTRL_STAT)
        return pmp_[(off - PORT_PMP) / 4];
    if (off >= PORT_CMD_ACTIVATE && off < PORT_CMD_ACTIVATE + 8 * kLramSlots)
        return 0; // write-only doorbells
    if (off >= PORT_EXEC_DIAG && off < PORT_EXEC_DIAG + 64 && off != PORT_CONTEXT)
        return exec_diag_[(off - PORT_EXEC_DIAG) / 4];
    if (off >= PORT_PSD_DIAG && off < PORT_PSD_DIAG + 64)
        return psd_diag_[(off - PORT_PSD_DIAG) / 4];
    switch (off) {
    case PORT_CTRL_STAT:
        return ctrl_;
    case PORT_IRQ_STAT:
        return irq_stat_value();
    case PORT_IRQ_ENABLE_SET:
    case PORT_IRQ_ENABLE_CLR:
        return irq_en_ | steer_;
    case PORT_ACTIVATE_UPPER:
        return act_upper_;
    case PORT_CMD_ERR:
        return cmd_err_;
    case PORT_FIS_CFG:
        return fis_cfg_;
    case PORT_FIFO_THRES:
        return fifo_thres_;
    case PORT_DECODE_ERR_CNT:
        return err_cnt_[0];
    case PORT_CRC_ERR_CNT:
        return err_cnt_[1];
    case PORT_HSHK_ERR_CNT:
        return err_cnt_[2];
    case PORT_PHY_CFG:
        return phy_cfg_;
    case PORT_SLOT_STAT:
        return read_slot_stat();
    case PORT_CONTEXT:
        return context_;
    case PORT_SCONTROL:
        return sctl_;
    case PORT_SSTATUS:
        return link_ ? link_->sstatus() : 0; // no cable: DET=0
    case PORT_SERROR:
        return serr_;
    case PORT_SACTIVE:
        return sact_;
    default:
        return 0; // SNotification is not implemented on the 3124; reserved space
    }
}

void Sil24Hba::Port::write(uint32_t off, uint32_t val) {
    if (off < PORT_PMP) {
        // LRAM: a driver may build a PRB here and execute it through PORT_EXEC_FIFO.
        if (off < kLramSlots * kLramSlotSize)
            std::memcpy(&lram_[off], &val, 4);
        return;
    }
    if (off < PORT_CTRL_STAT) {
        pmp_[(off - PORT_PMP) / 4] = val;
        return;
    }
    if (off >= PORT_CMD_ACTIVATE && off < PORT_CMD_ACTIVATE + 8 * kLramSlots) {
        const unsigned slot = (off - PORT_CMD_ACTIVATE) / 8;
        if ((off & 4) == 0) {
            act_lo_[slot] = val;
            // 32-bit activation: the low dword is the doorbell, the high one is 0x101C.
            if (ctrl_ & CS_32BIT_ACTV)
                activate(slot, uint64_t(act_upper_) << 32 | val, false);
        } else if (!(ctrl_ & CS_32BIT_ACTV)) {
            activate(slot, uint64_t(val) << 32 | act_lo_[slot], false);
        }
        return;
    }
    if (off >= PORT_EXEC_DIAG && off < PORT_PSD_DIAG + 64)
        return; // diagnostics and PORT_CONTEXT are read-only
    switch (off) {
    case PORT_CTRL_STAT:
        write_ctrl_set(val);
        break;
    case PORT_CTRL_CLR:
        write_ctrl_clr(val);
        break;
    case PORT_IRQ_STAT:
        // Write one to clear; raw bits (27:16) written back clear the same sources.
        clear_irq((val | val >> IRQ_RAW_SHIFT) & IRQ_ALL);
        break;
    case PORT_IRQ_ENABLE_SET:
        irq_en_ |= val & IRQ_ALL;
        steer_ = val & IRQ_STEER_MASK;
        irq_update();
        break;
    case PORT_IRQ_ENABLE_CLR:
        irq_en_ &= ~(val & IRQ_ALL);
        irq_update();
        break;
    case PORT_ACTIVATE_UPPER:
        act_upper_ = val;
        break;
    case PORT_EXEC_FIFO:
        // MEM (docs/hardware.md 9.7): execute the PRB the driver wrote into LRAM slot val.
        if ((val & 0x1F) < kLramSlots)
            activate(val & 0x1F, 0, true);
        break;
    case PORT_FIS_CFG:
        fis_cfg_ = val;
        break;
    case PORT_FIFO_THRES:
        fifo_thres_ = val;
        break;
    case PORT_DECODE_ERR_CNT:
        err_cnt_[0] = val;
        break;
    case PORT_CRC_ERR_CNT:
        err_cnt_[1] = val;
        break;
    case PORT_HSHK_ERR_CNT:
        err_cnt_[2] = val;
        break;
    case PORT_PHY_CFG:
        phy_cfg_ = val;
        break;
    case PORT_SCONTROL:
        write_sctl(val);
        break;
    case PORT_SERROR:
        serr_ &= ~val;
        break;
    default:
        break; // PORT_CMD_ERR, PORT_SLOT_STAT, SStatus, SActive (chip-managed): read-only
    }
}

// Slot activation: the slot becomes busy in PORT_SLOT_STAT at once; the engine fetches
// the PRB when it gets to the slot. Activating a busy slot, or any slot while the port is
// held in reset or not ready, is ignored (MEM).
void Sil24Hba::Port::activate(unsigned slot, uint64_t prb, bool from_lram) {
    Slot &s = slots_[slot];
    if (s.active)
        violation("activate_busy_slot",
                  "slot " + std::to_string(slot) + " activated while still active");
    if (s.active || (ctrl_ & (CS_PORT_RST | CS_INIT)) || !(ctrl_ & CS_RDY)) {
        trace("sil24.activate_ignored", {{"slot", TraceValue::integer(slot)},
                                         {"ctrl", TraceValue::hex(ctrl_)}});
        return;
    }
    s = Slot{};
    s.active = true;
    s.from_lram = from_lram;
    s.prb = prb;
    queue_.push_back(slot);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void Sil24Hba::Port::write_ctrl_set(uint32_t val) {
    ctrl_ |= val & CS_CONTROL & ~(CS_PORT_RST | CS_DEV_RST | CS_INIT);
    if (val & CS_PMP_RESUME)
        pmp_resume(); // each write resumes a port stopped behind a PMP (docs/hardware.md 6.7)
    if (val & CS_PORT_RST) {
        // Port held in reset: engine, slots and interrupt state back to their reset values;
        // the control bits software programs return to 0 (port config must be redone).
        trace("sil24.port_reset", {{"assert", TraceValue::boolean(true)}});
        port_rst_ev_.cancel();
        init_ev_.cancel();
        dev_rst_release_ev_.cancel();
        dev_rst_timeout_ev_.cancel();
        dev_rst_waiting_ = false;
        ctrl_ = CS_PORT_RST;
        irq_raw_ = irq_en_ = steer_ = 0;
        cmd_err_ = context_ = 0;
        flush_commands("PORT_RST");
        irq_update();
        return;
    }
    if ((val & CS_DEV_RST) && !(ctrl_ & CS_DEV_RST)) {
        // COMRESET to the device: commands in flight die with the device's state.
        ctrl_ |= CS_DEV_RST;
        flush_commands("DEV_RST");
        trace("sil24.dev_reset", {{"spd_limit", TraceValue::integer(int(speed_limit()))}});
        if (link_) {
            link_->host_comreset(true);
            dev_rst_release_ev_.notify(link::SataLink::comreset_time());
        } else {
            dev_rst_timeout_ev_.notify(kDevRstNoDeviceUs, sc_core::SC_US);
        }
    }
    if ((val & CS_INIT) && !(ctrl_ & CS_INIT)) {
        ctrl_ |= CS_INIT;
        ctrl_ &= ~CS_RDY;
        cmd_err_ = 0;
        context_ = 0;
        flush_commands("INIT");
        trace("sil24.port_init");
        init_ev_.notify(period_ * double(cycles::kPortInit));
    }
    irq_update();
}

void Sil24Hba::Port::write_ctrl_clr(uint32_t val) {
    const uint32_t old = ctrl_;
    ctrl_ &= ~(val & CS_CONTROL & ~(CS_DEV_RST | CS_INIT));
    if ((old & CS_PORT_RST) && !(ctrl_ & CS_PORT_RST)) {
        trace("sil24.port_reset", {{"assert", TraceValue::boolean(false)}});
        port_rst_ev_.notify(period_ * double(cycles::kPortRstRelease));
    }
    if ((old & CS_PMP_RESUME) && !(ctrl_ & CS_PMP_RESUME))
        wake_.notify(sc_core::SC_ZERO_TIME);
    irq_update();
}

void Sil24Hba::Port::init_done_method() {
    ctrl_ &= ~CS_INIT;
    if (!(ctrl_ & CS_PORT_RST)) {
        ctrl_ |= CS_RDY;
        raise(IRQ_PORTRDY_CHG);
    }
    trace("sil24.port_ready", {{"ctrl", TraceValue::hex(ctrl_)}});
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void Sil24Hba::Port::port_rst_done_method() {
    if (ctrl_ & CS_PORT_RST)
        return;
    ctrl_ |= CS_RDY;
    raise(IRQ_PORTRDY_CHG);
    trace("sil24.port_ready", {{"ctrl", TraceValue::hex(ctrl_)}});
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// DEV_RST: COMRESET burst sequence, then OOB and speed negotiation (limited by
// SControl.SPD). DEV_RST reads 1 until the PHY is ready again, or until the no-device
// timeout. The device's signature FIS that follows is not stored (docs/hardware.md 6.6).
void Sil24Hba::Port::dev_rst_release_method() {
    if (!(ctrl_ & CS_DEV_RST) || !link_)
        return;
    dev_rst_waiting_ = true;
    link_->host_comreset(false, speed_limit());
    dev_rst_timeout_ev_.notify(kDevRstNoDeviceUs, sc_core::SC_US);
}

void Sil24Hba::Port::dev_rst_timeout_method() {
    if (ctrl_ & CS_DEV_RST)
        finish_dev_rst("no device");
}

void Sil24Hba::Port::finish_dev_rst(const char *how) {
    dev_rst_waiting_ = false;
    dev_rst_timeout_ev_.cancel();
    ctrl_ &= ~CS_DEV_RST;
    trace("sil24.dev_reset_done", {}, how);
}

// SControl.DET (docs/hardware.md 3.3), as on any SATA host: 1 = COMRESET held on the wire;
// 1->0 = release, OOB and negotiation up to min(SPD, 3 Gb/s); 4 = PHY offline.
void Sil24Hba::Port::write_sctl(uint32_t val) {
    const uint32_t old_det = sctl_ & SCTL_DET_MASK;
    sctl_ = val & 0x000FFFFF;
    const uint32_t det = sctl_ & SCTL_DET_MASK;
    if (det == old_det)
        return;
    if (det == 1) {
        spinup_ev_.cancel();
        flush_commands("SControl COMRESET");
        trace("sil24.port_comreset", {{"assert", TraceValue::boolean(true)}});
        if (link_)
            link_->host_comreset(true);
    } else if (det == 4) {
        spinup_ev_.cancel();
        trace("sil24.port_offline");
        if (link_)
            link_->host_offline();
    } else if (det == 0 && (old_det == 1 || old_det == 4)) {
        trace("sil24.port_comreset", {{"assert", TraceValue::boolean(false)},
                                      {"spd_limit", TraceValue::integer(int(speed_limit()))}});
        if (link_)
            link_->host_comreset(false, speed_limit());
    }
}

void Sil24Hba::Port::trace(const char *event,
                           std::vector<std::pair<std::string, TraceValue>> fields,
                           std::string msg) {
    hba_.emit(event, int(idx_), std::move(fields), std::move(msg));
}

// ---- PHY-level link endpoint callbacks ----------------------------------------------

void Sil24Hba::Port::phy_changed(bool ready, link::Gen gen) {
    trace("sil24.phyrdy_change", {{"ready", TraceValue::boolean(ready)},
                                  {"gen", TraceValue::integer(int(gen))}});
    set_serr(SERR_DIAG_N);
    raise(IRQ_PHYRDY_CHG);
    if (ready && dev_rst_waiting_ && (ctrl_ & CS_DEV_RST))
        finish_dev_rst("link up");
    if (!ready) {
        // The device (or PMP) is gone or resetting: a data phase cannot continue.
        for (Dev &dv : dev_) {
            dv.pio = Pio{};
            dv.dma = DmaCtx{};
        }
    }
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void Sil24Hba::Port::oob_reset() {
    // COMINIT from the device: it may have changed (hotplug, device-initiated reset).
    trace("sil24.cominit");
    for (Dev &dv : dev_) {
        dv.busy_slot = -1;
        dv.pio = Pio{};
        dv.dma = DmaCtx{};
    }
    set_serr(SERR_DIAG_X);
    raise(IRQ_DEV_XCHG);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

} // namespace satasim::sil24
