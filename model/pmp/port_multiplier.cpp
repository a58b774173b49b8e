// SATA Port Multiplier: routing by PM Port, the control port (SRST signature, READ/WRITE
// PORT MULTIPLIER, GSCR and PSCR) and the fan-out link state. See port_multiplier.h for
// the model choices; register layouts are docs/hardware.md 7.2-7.4, SCR bits docs/hardware.md 3.
#include "model/pmp/port_multiplier.h"

#include <algorithm>

namespace satasim::pmp {

using sata::FisType;
using sc_core::SC_US;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr uint32_t SERR_ERR_T = 1u << 8, SERR_DIAG_N = 1u << 16, SERR_DIAG_B = 1u << 19,
                   SERR_DIAG_D = 1u << 20, SERR_DIAG_C = 1u << 21, SERR_DIAG_H = 1u << 22, SERR_DIAG_S = 1u << 23,
                   SERR_DIAG_X = 1u << 26;
constexpr uint32_t kErrorEnReset = 0xFFFFFFFF; // GSCR[33] after reset (MEM): every bit
constexpr uint8_t kStatusOk = 0x50, kStatusErr = 0x51, kErrAbrt = 0x04;

bool elaborating() {
    return sc_core::sc_get_status() &
           (sc_core::SC_ELABORATION | sc_core::SC_BEFORE_END_OF_ELABORATION |
            sc_core::SC_END_OF_ELABORATION);
}
} // namespace

PmpConfig sii3726(unsigned n_ports) {
    PmpConfig c;
    c.n_ports = n_ports;
    c.device_id = 0x3726;
    c.spec_minor = 1;
    c.fbs = false;
    c.semb_port = n_ports == 6 ? 5 : -1;
    c.sctl_spd_cleared_after_reset = true;
    return c;
}

PmpConfig sii4726(unsigned n_ports) {
    PmpConfig c;
    c.n_ports = n_ports;
    c.device_id = 0x4726;
    c.spec_minor = 1;
    c.fbs = true;
    c.semb_port = n_ports == 7 ? 6 : -1;
    return c;
}

PmpConfig sii5744(unsigned n_ports) {
    PmpConfig c;
    c.n_ports = n_ports;
    c.device_id = 0x5744;
    c.revision = 33;
    c.feat_other = gscr::FEAT_BIST;
    c.feat_en_reset = gscr::FEAT_BIST;
    return c;
}

static PmpConfig jmicron(unsigned n_ports, uint16_t devid, link::Gen gen) {
    PmpConfig c;
    c.n_ports = n_ports;
    c.vendor_id = 0x197b;
    c.device_id = devid;
    c.revision = 0;
    c.spec_minor = 2;
    c.max_gen = gen;
    c.feat_other = gscr::FEAT_BIST | gscr::FEAT_PMREQ | gscr::FEAT_SSC;
    c.feat_en_reset = gscr::FEAT_BIST | gscr::FEAT_SSC;
    return c;
}

PmpConfig jmb394(unsigned n_ports) {
    PmpConfig c = jmicron(n_ports, 0x0325, link::Gen::Gen2);
    c.sctl_reads_zero_empty = true;
    return c;
}
PmpConfig jmb575(unsigned n_ports) { return jmicron(n_ports, 0x5755, link::Gen::Gen3); }

bool product_config(const std::string &name, unsigned n_ports, PmpConfig &out) {
    static const std::pair<const char *, PmpConfig (*)(unsigned)> parts[] = {
        {"sii3726", sii3726}, {"sii4726", sii4726}, {"sii5744", sii5744},
        {"jmb394", jmb394},   {"jmb575", jmb575},
    };
    for (const auto &[n, make] : parts)
        if (name == n) {
            out = make(n_ports);
            return true;
        }
    return false;
}

// One fan-out port: the host end of its SataLink plus its PSCR state.
class PortMultiplier::DevPort : public sc_core::sc_module, public link::LinkEndpoint {
  public:
    SC_HAS_PROCESS(DevPort);
    DevPort(sc_core::sc_module_name name, PortMultiplier &pm, unsigned index)
        : sc_module(name), pm_(pm), idx_(index) {
        SC_METHOD(cominit_method);
        sensitive << cominit_ev_;
        dont_initialize();
    }

    bool receive_fis(const sata::Fis &fis) override {
        if (fis.bytes.size() < 4 || fis.bytes.size() % 4)
            return false;
        if (sig_hold && fis.type() == FisType::RegD2H && fis.bytes.size() >= 20) {
            // The drive's signature after its link came up: kept by the PMP (the host asks
            // for it with an SRST to this port), not sent into a host command's way.
            sig_hold = false;
            const uint32_t sig = uint32_t(fis.at(12)) | uint32_t(fis.at(4)) << 8 |
                                 uint32_t(fis.at(5)) << 16 | uint32_t(fis.at(6)) << 24;
            pm_.trace("pmp.port_signature", int(idx_), {{"sig", TraceValue::hex(sig)}});
            return true;
        }
        sata::Fis f = fis;
        f.bytes[1] = uint8_t((f.bytes[1] & ~sata::kFisPmPortMask) | idx_);
        pm_.send_up(std::move(f));
        return true;
    }
    bool ready_to_receive() const override { return pm_.up_q_.empty() && !pm_.up_busy_; }
    void phy_changed(bool ready, link::Gen gen) override {
        pm_.trace("pmp.port_phy", int(idx_), {{"ready", TraceValue::boolean(ready)},
                                              {"gen", TraceValue::integer(int(gen))}});
        sig_hold = ready;
        if (ready && spd_clear_at_linkup) {
            spd_clear_at_linkup = false;
            sctl &= ~0xF0u;
            pm_.trace("pmp.sctl_spd_cleared", int(idx_), {{"value", TraceValue::hex(sctl)}},
                      "first link-up after the PMP's reset: SControl.SPD reads 0");
        }
#ifndef SATASIM_PLANT_PMP_PHY_CHANGE_NO_SERR_N
        pm_.serror_set(idx_, SERR_DIAG_N); // (planted: not latched, GSCR[32] never names the port)
#endif
    }
    void oob_reset() override {
        // COMINIT from the drive: it may have changed. Answered with a COMRESET.
        pm_.trace("pmp.port_cominit", int(idx_));
        pm_.serror_set(idx_, SERR_DIAG_X);
        if ((sctl & 0xF) == 0)
            cominit_ev_.notify(pm_.cfg_.cominit_answer_us, SC_US);
    }
    void receive_error(link::LinkError err) override {
        uint32_t bits = 0;
        switch (err) {
        case link::LinkError::RxCrc: bits = SERR_DIAG_C | SERR_ERR_T; break;
        case link::LinkError::RxSequence: bits = SERR_DIAG_S | SERR_ERR_T; break;
        case link::LinkError::RxDecode: bits = SERR_DIAG_B; break;
        case link::LinkError::RxDisparity: bits = SERR_DIAG_D; break;
        case link::LinkError::TxRErr: bits = SERR_DIAG_H | SERR_ERR_T; break;
        case link::LinkError::TxAborted: bits = SERR_ERR_T; break;
        }
        pm_.trace("pmp.port_link_error", int(idx_),
                  {{"error", TraceValue::str(link::to_string(err))}});
        pm_.serror_set(idx_, bits);
    }

    link::Gen spd_limit() const {
        unsigned max = unsigned(pm_.cfg_.max_gen);
        unsigned spd = (sctl >> 4) & 0xF;
        return link::Gen(spd == 0 || spd > max ? max : spd);
    }
    // Link initialisation as after power-on or a COMINIT (SControl.DET = 0).
    void init_link() {
        if (link && (sctl & 0xF) == 0)
            link->host_comreset(false, spd_limit());
        else if (!link && semb)
            semb_up = (sctl & 0xF) == 0;
    }
    // PSCR SStatus: the wire's, or the internal bridge's 1.5 Gbps link (DET 3, SPD 1, IPM 1).
    uint32_t sstatus() const {
        if (link)
            return link->sstatus();
        return semb && semb_up ? 0x113 : 0;
    }
    void cominit_method() { init_link(); }
    void cancel() { cominit_ev_.cancel(); }

    link::SataLink *link = nullptr;
    bool semb = false;    // the part's enclosure bridge (PmpConfig::semb_port)
    bool semb_up = false; // its internal link is up
    uint32_t sctl = 0, serr = 0;
    bool sig_hold = false; // link just came up, the host has sent nothing to this port yet
    // PmpConfig::sctl_spd_cleared_after_reset: armed by the PMP's reset, taken by the host's
    // next COMRESET of the port, applied when that link comes up
    bool spd_clear_armed = false, spd_clear_at_linkup = false;

  private:
    PortMultiplier &pm_;
    const unsigned idx_;
    sc_core::sc_event cominit_ev_;
};

PortMultiplier::PortMultiplier(sc_core::sc_module_name name, const PmpConfig &cfg,
                               ModelTrace *trace, int host_port)
    : sc_module(name), cfg_(cfg), trace_(trace), host_port_(host_port) {
    cfg_.n_ports = std::clamp(cfg_.n_ports, 1u, kMaxPorts);
    cfg_.spec_minor = std::clamp(cfg_.spec_minor, 1u, 2u);
    if (cfg_.max_gen == link::Gen::None)
        cfg_.max_gen = link::Gen::Gen1;
    for (unsigned p = 0; p < cfg_.n_ports; ++p)
        ports_.push_back(std::make_unique<DevPort>(("port" + std::to_string(p)).c_str(), *this, p));
    if (cfg_.semb_port >= 0 && unsigned(cfg_.semb_port) < ports_.size())
        ports_[unsigned(cfg_.semb_port)]->semb = true;
    SC_THREAD(down_thread);
    SC_THREAD(up_thread);
    SC_METHOD(power_on_method);
    sensitive << power_on_ev_;
    dont_initialize();
    power_on_reset();
}

PortMultiplier::~PortMultiplier() = default;

void PortMultiplier::connect_host(link::SataLink *link) { host_link_ = link; }

link::LinkEndpoint *PortMultiplier::port_endpoint(unsigned p) {
    return p < ports_.size() ? ports_[p].get() : nullptr;
}

void PortMultiplier::connect_port(unsigned p, link::SataLink *link) {
    if (p < ports_.size())
        ports_[p]->link = link;
}

void PortMultiplier::start_of_simulation() { power_on_ev_.notify(1, SC_US); }

// What a COMRESET on the host link and a power-on both do: the control port and the
// switch return to their reset state (queued FISes dropped, a hang cleared, the signature
// due again).
void PortMultiplier::reset_control_port() {
    ++epoch_;
    down_q_.clear();
    up_q_.clear();
    hung_ = false;
    srst_held_ = false;
    sig_due_ = true;
    error_en_ = kErrorEnReset;
    feat_en_ = cfg_.feat_en_reset;
    for (unsigned i = 1; i < ports_.size(); ++i)
        ports_[i]->spd_clear_armed = cfg_.sctl_spd_cleared_after_reset;
}

void PortMultiplier::power_on_reset() {
    reset_control_port();
    aborted_reads_.clear();
    error_info_ = 0;
    vendor129_ = 1; // SiI: early R_OK on at power-on (drivers clear it)
    for (auto &p : ports_) {
        p->cancel();
        p->sctl = 0;
        p->serr = 0;
        p->sig_hold = false;
        p->semb_up = false;
        p->spd_clear_at_linkup = false;
    }
    if (!elaborating()) {
        power_on_ev_.cancel();
        power_on_ev_.notify(1, SC_US);
        if (host_link_)
            host_link_->receiver_ready_changed();
    }
}

// Power-on: every fan-out PHY starts its OOB sequence.
void PortMultiplier::power_on_method() {
    trace("pmp.power_on", -1, {{"ports", TraceValue::integer(cfg_.n_ports)}});
    for (auto &p : ports_)
        p->init_link();
}

void PortMultiplier::hang(const std::string &id) {
    hung_ = true;
    trace("pmp.hang", -1, {{"id", TraceValue::str(id)}}, "control port stops answering");
}

void PortMultiplier::abort_pscr_read(unsigned port, unsigned reg, const std::string &id) {
    aborted_reads_.emplace_back(port, reg);
    trace("pmp.reg_abort", int(port), {{"reg", TraceValue::integer(reg)}, {"id", TraceValue::str(id)}},
          "PSCR read aborted from now on");
}

// ---- host side -------------------------------------------------------------------------

bool PortMultiplier::receive_fis(const sata::Fis &fis) {
    if (fis.bytes.size() < 4 || fis.bytes.size() % 4)
        return false;
    const uint8_t p = fis.pm_port();
    if (p != kCtrlPort) {
        if (p >= ports_.size()) {
            trace("pmp.refused", int(p), {{"fis", TraceValue::str(sata::describe(fis))}},
                  "no such fan-out port");
            return false;
        }
        const link::SataLink *lk = ports_[p]->link;
        if (!lk || !lk->phy_ready()) {
            trace("pmp.refused", int(p), {{"fis", TraceValue::str(sata::describe(fis))}},
                  "fan-out link not ready");
            return false;
        }
    }
    down_q_.push_back(fis);
    down_ev_.notify(SC_ZERO_TIME);
    return true;
}

bool PortMultiplier::ready_to_receive() const { return down_q_.empty() && !down_busy_; }

void PortMultiplier::phy_changed(bool ready, link::Gen gen) {
    trace("pmp.host_phy", -1, {{"ready", TraceValue::boolean(ready)},
                               {"gen", TraceValue::integer(int(gen))}});
    if (!ready) {
        // Host link lost (COMRESET, glitch, cable): what was in flight toward or from the
        // host is gone; the signature goes out again when the link is back.
        ++epoch_;
        down_q_.clear();
        up_q_.clear();
        srst_held_ = false;
        sig_due_ = true;
        return;
    }
    if (sig_due_) {
        sig_due_ = false;
        send_up(sata::make_reg_d2h(kStatusOk, 0x01, kSignature >> 8, 0, kSignature & 0xFF,
                                   false, kCtrlPort));
    }
}

// COMRESET on the host link: the control port returns to its reset state.
void PortMultiplier::oob_reset() {
    reset_control_port();
    trace("pmp.host_comreset", -1);
}

void PortMultiplier::receive_error(link::LinkError err) {
    trace("pmp.host_link_error", -1, {{"error", TraceValue::str(link::to_string(err))}});
}

void PortMultiplier::down_thread() {
    for (;;) {
        while (down_q_.empty())
            sc_core::wait(down_ev_);
        sata::Fis fis = std::move(down_q_.front());
        down_q_.pop_front();
        down_busy_ = true;
        const uint8_t p = fis.pm_port();
        if (p == kCtrlPort) {
            control_fis(fis);
        } else if (p < ports_.size() && ports_[p]->link) {
            ports_[p]->sig_hold = false; // answers to the host's FISes go to the host
            link::FrameStatus st = ports_[p]->link->send_from_host(fis);
            if (st != link::FrameStatus::Ok)
                trace("pmp.forward_failed", int(p),
                      {{"fis", TraceValue::str(sata::describe(fis))},
                       {"status", TraceValue::str(st == link::FrameStatus::NoLink ? "no_link"
                                                                               : "r_err")}});
        }
        down_busy_ = false;
        if (down_q_.empty() && host_link_)
            host_link_->receiver_ready_changed();
    }
}

void PortMultiplier::send_up(sata::Fis fis) {
    up_q_.push_back(std::move(fis));
    up_ev_.notify(SC_ZERO_TIME);
}

void PortMultiplier::up_thread() {
    for (;;) {
        while (up_q_.empty())
            sc_core::wait(up_ev_);
        sata::Fis fis = std::move(up_q_.front());
        up_q_.pop_front();
        up_busy_ = true;
        link::FrameStatus st =
            host_link_ ? host_link_->send_from_device(fis) : link::FrameStatus::NoLink;
        if (st != link::FrameStatus::Ok)
            trace("pmp.upstream_lost", int(fis.pm_port()),
                  {{"fis", TraceValue::str(sata::describe(fis))},
                   {"status", TraceValue::str(st == link::FrameStatus::NoLink ? "no_link"
                                                                           : "r_err")}});
        up_busy_ = false;
        if (up_q_.empty())
            for (auto &p : ports_)
                if (p->link)
                    p->link->receiver_ready_changed();
    }
}

// ---- control port ------------------------------------------------------------------------

void PortMultiplier::control_fis(const sata::Fis &fis) {
    if (hung_) {
        trace("pmp.ctrl_ignored", kCtrlPort, {{"fis", TraceValue::str(sata::describe(fis))}},
              "control port hung");
        return;
    }
    if (fis.type() != FisType::RegH2D || fis.bytes.size() < 20) {
        trace("pmp.ctrl_ignored", kCtrlPort, {{"fis", TraceValue::str(sata::describe(fis))}});
        return;
    }
    const sata::Taskfile tf = sata::parse_taskfile(fis);
    const uint64_t epoch = epoch_;
    if (!(fis.at(1) & sata::kFisCommand)) {
        // Device Control: SRST asserted, then released -> the PMP signature.
        if (tf.control & sata::kAtaSrst) {
            srst_held_ = true;
            return;
        }
        if (!srst_held_)
            return;
        srst_held_ = false;
        sc_core::wait(cfg_.srst_answer_us, SC_US);
        if (epoch != epoch_)
            return;
        trace("pmp.signature", kCtrlPort, {{"sig", TraceValue::hex(kSignature)}});
        send_up(sata::make_reg_d2h(kStatusOk, 0x01, kSignature >> 8, 0, kSignature & 0xFF,
                                   false, kCtrlPort));
        return;
    }
    sc_core::wait(cfg_.reg_access_us, SC_US);
    if (epoch != epoch_)
        return;
    if (tf.command == kReadPm || tf.command == kWritePm)
        return pm_command(tf);
    trace("pmp.ctrl_abort", kCtrlPort, {{"cmd", TraceValue::hex(tf.command)}});
    send_up(sata::make_reg_d2h(kStatusErr, kErrAbrt, 0, 0, 0, true, kCtrlPort));
}

// READ / WRITE PORT MULTIPLIER (docs/hardware.md 7.2): register number in Features (15:0),
// target port in Device 3:0, value in Count 7:0 | LBA 23:0 << 8 (| Count 15:8 << 32 |
// LBA 47:24 << 40 for the upper half).
void PortMultiplier::pm_command(const sata::Taskfile &tf) {
    const unsigned port = tf.device & 0xF;
    const uint32_t reg = uint32_t(tf.feature) | uint32_t(tf.feature_hi) << 8;
    const bool write = tf.command == kWritePm;
    uint64_t val = 0;
    bool ok;
    if (write) {
        val = uint64_t(tf.count & 0xFF) | (tf.lba & 0xFFFFFF) << 8 |
              uint64_t(tf.count >> 8) << 32 | ((tf.lba >> 24) & 0xFFFFFF) << 40;
        ok = port == kCtrlPort ? write_gscr(reg, val) : write_pscr(port, reg, val);
    } else if (port != kCtrlPort &&
               std::find(aborted_reads_.begin(), aborted_reads_.end(), std::make_pair(port, reg)) !=
                   aborted_reads_.end()) {
        ok = false; // the pmp_reg_abort fault: this register read fails
    } else {
        ok = port == kCtrlPort ? read_gscr(reg, val) : read_pscr(port, reg, val);
    }
    trace(write ? "pmp.write" : "pmp.read", int(port),
          {{"reg", TraceValue::integer(reg)}, {"value", TraceValue::hex(val)},
           {"ok", TraceValue::boolean(ok)}});
    if (!ok) {
        send_up(sata::make_reg_d2h(kStatusErr, kErrAbrt, 0, tf.device, 0, true, kCtrlPort));
        return;
    }
    if (write) {
        send_up(sata::make_reg_d2h(kStatusOk, 0, 0, tf.device, 0, true, kCtrlPort));
        return;
    }
    const uint16_t count = uint16_t((val & 0xFF) | ((val >> 32) & 0xFF) << 8);
    const uint64_t lba = ((val >> 8) & 0xFFFFFF) | ((val >> 40) & 0xFFFFFF) << 24;
    send_up(sata::make_reg_d2h(kStatusOk, 0, lba, tf.device, count, true, kCtrlPort));
}

bool PortMultiplier::read_gscr(uint32_t reg, uint64_t &val) const {
    switch (reg) {
    case gscr::PRODUCT:
        val = cfg_.vendor_id | uint32_t(cfg_.device_id) << 16;
        return true;
    case gscr::REVISION: {
        uint32_t spec = 0x2 | 0x4; // 1.0 and 1.1
        if (cfg_.spec_minor >= 2)
            spec |= 0x8;
        val = spec | uint32_t(cfg_.revision) << 8;
        return true;
    }
    case gscr::PORT_INFO:
        val = cfg_.n_ports;
        return true;
    case gscr::ERROR: {
        uint32_t e = 0;
        for (unsigned p = 0; p < ports_.size(); ++p)
            if (ports_[p]->serr & error_en_)
                e |= 1u << p;
        val = e;
        return true;
    }
    case gscr::ERROR_EN:
        val = error_en_;
        return true;
    case gscr::FEAT:
        val = cfg_.feat_other | (cfg_.async_notify ? gscr::FEAT_AN : 0);
        return true;
    case gscr::FEAT_EN:
        val = feat_en_;
        return true;
    case gscr::SII_EARLY_ROK:
        if (cfg_.vendor_id != 0x1095)
            return false;
        val = vendor129_;
        return true;
    default:
        return false;
    }
}

bool PortMultiplier::write_gscr(uint32_t reg, uint64_t val) {
    switch (reg) {
    case gscr::ERROR_EN:
        error_en_ = uint32_t(val);
        update_error_info();
        return true;
    case gscr::FEAT_EN: {
        uint64_t sup = 0;
        read_gscr(gscr::FEAT, sup);
        feat_en_ = uint32_t(val & sup); // unsupported feature bits stay 0
        return true;
    }
    case gscr::SII_EARLY_ROK:
        if (cfg_.vendor_id != 0x1095)
            return false;
        vendor129_ = uint32_t(val) & 1;
        return true;
    case gscr::PRODUCT:
    case gscr::REVISION:
    case gscr::PORT_INFO:
    case gscr::ERROR:
    case gscr::FEAT:
        return true; // read-only: the write is ignored
    default:
        return false;
    }
}

bool PortMultiplier::read_pscr(unsigned port, uint32_t reg, uint64_t &val) const {
    if (port >= ports_.size())
        return false;
    const DevPort &p = *ports_[port];
    switch (reg) {
    case pscr::SSTATUS:
        val = p.sstatus();
        return true;
    case pscr::SERROR:
        val = p.serr;
        return true;
    case pscr::SCONTROL:
        val = cfg_.sctl_reads_zero_empty && !(p.link && p.link->device_present()) ? 0 : p.sctl;
        return true;
    case pscr::SACTIVE:
    case pscr::SNOTIFICATION:
        val = 0;
        return true;
    default:
        return false;
    }
}

// PSCR writes: SError is RW1C; SControl.DET drives the fan-out PHY like an HBA's
// (1 = COMRESET held, 1 -> 0 = release and negotiate up to SPD, 4 = offline).
bool PortMultiplier::write_pscr(unsigned port, uint32_t reg, uint64_t val) {
    if (port >= ports_.size())
        return false;
    DevPort &p = *ports_[port];
    switch (reg) {
    case pscr::SSTATUS:
    case pscr::SACTIVE:
    case pscr::SNOTIFICATION:
        return true;
    case pscr::SERROR:
        p.serr &= ~uint32_t(val);
        update_error_info();
        return true;
    case pscr::SCONTROL: {
        const uint32_t old_det = p.sctl & 0xF;
        p.sctl = uint32_t(val) & 0xFFF;
        const uint32_t det = p.sctl & 0xF;
        if (!p.link) {
            // the enclosure bridge's internal link follows DET as a wire's PHY would
            if (p.semb && (det == 1 || det == 4))
                p.semb_up = false;
            else if (p.semb && det == 0 && old_det == 1)
                p.semb_up = true;
            return true;
        }
        if (det != 0)
            p.spd_clear_at_linkup = false;
        if (det == 1) {
            p.cancel();
            p.link->host_comreset(true);
        } else if (det == 4) {
            p.cancel();
            p.link->host_offline();
        } else if (det == 0 && old_det == 1) {
            p.spd_clear_at_linkup = p.spd_clear_armed;
            p.spd_clear_armed = false;
            p.link->host_comreset(false, p.spd_limit());
        }
        trace("pmp.sctl", int(port), {{"value", TraceValue::hex(p.sctl)}});
        return true;
    }
    default:
        return false;
    }
}

void PortMultiplier::serror_set(unsigned port, uint32_t bits) {
    if (port >= ports_.size())
        return;
    ports_[port]->serr |= bits;
    update_error_info();
}

// GSCR[32] re-evaluated; a newly set bit is announced by an SDB FIS with N=1 from the
// control port when asynchronous notification is enabled.
void PortMultiplier::update_error_info() {
    uint64_t e = 0;
    read_gscr(gscr::ERROR, e);
    const uint32_t rising = uint32_t(e) & ~error_info_;
    error_info_ = uint32_t(e);
    if (rising && (feat_en_ & gscr::FEAT_AN) && !hung_ && host_link_ && host_link_->phy_ready()) {
        trace("pmp.async_notify", kCtrlPort, {{"error_info", TraceValue::hex(e)}});
        send_up(sata::make_sdb(kStatusOk, 0, 0, true, true, kCtrlPort));
    }
}

void PortMultiplier::trace(const char *event, int fan_port,
                           std::vector<std::pair<std::string, TraceValue>> fields,
                           std::string msg) {
    if (!trace_)
        return;
    TraceRecord r;
    r.src = name();
    r.name = event;
    r.port = host_port_;
    r.link = fan_port;
    r.fields = std::move(fields);
    r.msg = std::move(msg);
    trace_->emit(r);
}

} // namespace satasim::pmp
