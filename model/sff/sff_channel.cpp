// SFF channel, host side (sff_channel.h): the Command and Control Block registers, the Data
// register's PIO blocks, the interrupt, the SCRs and the fault hooks.
#include "model/sff/sff_channel.h"

namespace satasim::sff {

using namespace reg;

namespace {
constexpr uint32_t SERR_ERR_T = 1u << 8, SERR_ERR_E = 1u << 11, SERR_DIAG_N = 1u << 16, SERR_DIAG_I = 1u << 17,
                   SERR_DIAG_W = 1u << 18, SERR_DIAG_B = 1u << 19, SERR_DIAG_X = 1u << 26;
constexpr uint32_t SCTL_DET_MASK = 0xf;

link::Gen spd_limit(uint32_t sctl) {
    switch ((sctl >> 4) & 0xf) {
    case 1: return link::Gen::Gen1;
    case 2: return link::Gen::Gen2;
    case 3: return link::Gen::Gen3;
    default: return link::Gen::None;
    }
}
} // namespace

SffChannel::SffChannel(sc_core::sc_module_name name, const SffChannelConfig &cfg, bus::HostMemory &mem,
                       ModelTrace *trace, std::string trace_src, int port)
    : sc_core::sc_module(name), cfg_(cfg), mem_(mem), trace_(trace), src_(std::move(trace_src)), port_(port),
      own_dma_(mem, [this](const char *ev, const std::string &why) { this->trace(ev, {}, why); }), dma_(&own_dma_) {
    SC_THREAD(engine_thread);
    SC_THREAD(cominit_thread);
    own_dma_.add_start_listener([this] { wake_.notify(sc_core::SC_ZERO_TIME); });
}

void SffChannel::trace(const char *event, std::vector<std::pair<std::string, TraceValue>> fields,
                       std::string msg) {
    emit_port_event(trace_, src_, event, port_, std::move(fields), std::move(msg));
}

void SffChannel::reset() {
    ++epoch_;
    status_ = link_ && link_->phy_ready() ? ST_BSY : ST_NO_PHY;
    error_ = device_ = devctl_ = 0;
    feature_ = nsect_ = lbal_ = lbam_ = lbah_ = Shadow{};
    sctl_ = serr_ = 0;
    reset_transport();
    srst_flush_ = false;
    dma_->reset();
    cmd_dma_starts_ = dma_->starts();
    clear_faults();
    pending_ = false;
    set_pending(false);
}

// What SRST and a power-on reset discard of the bridge's transport: the frames received and
// not yet taken (a DMA Data FIS held for Start, whatever queued behind it), the frames not
// yet sent, the PIO block, a DMA Activate waiting for Start.
void SffChannel::reset_transport() {
    pio_ = Pio::None;
    pio_buf_.clear();
    rxq_.clear();
    txq_.clear();
    dma_activate_ = false;
}

void SffChannel::clear_faults() {
    lost_irqs_ = 0;
    line_stuck_ = drq_stuck_ = bsy_stuck_ = bsy_survives_srst_ = spurious_ = false;
    set_pending(pending_);
}

// ---- interrupt ----

bool SffChannel::intrq() const {
    return (pending_ || spurious_) && !(devctl_ & CTL_NIEN) && selected_;
}

// The bus-master Interrupt bit follows the channel's INTRQ pin (a pair's: the selected
// device drives it); the owner's line follows both.
void SffChannel::set_pending(bool p) {
    pending_ = p;
    dma_->device_irq(intrq() || (peer_ && peer_->intrq()));
    if (irq_changed_)
        irq_changed_();
}

// ---- master/slave pair ----

void SffChannel::pair_as_slave_of(SffChannel &master) {
    peer_ = &master;
    master.peer_ = this;
    devno_ = 1;
    dma_ = &master.own_dma_;
    master.own_dma_.add_start_listener([this] { wake_.notify(sc_core::SC_ZERO_TIME); });
    selected_ = false; // power-on: device 0 selected (nothing is pending yet)
}

void SffChannel::set_selected(bool s) {
    if (s == selected_)
        return;
    selected_ = s;
    set_pending(pending_);
}

void SffChannel::raise_irq() {
    if (lost_irqs_) {
        --lost_irqs_;
        trace("sff.irq_lost", {{"left", TraceValue::integer(lost_irqs_)}}, "fault: interrupt not raised");
        return;
    }
    set_pending(true);
}

void SffChannel::stick_line(bool on) {
    line_stuck_ = on;
    trace("sff.line_stuck", {{"on", TraceValue::boolean(on)}},
          on ? "fault: interrupt output stuck asserted, nothing pending" : "");
    if (irq_changed_)
        irq_changed_();
}

void SffChannel::spurious_irq() {
    spurious_ = true;
    set_pending(pending_);
}

// ---- registers ----

uint8_t SffChannel::read_altstatus() const {
    uint8_t s = status_;
    if (bsy_stuck_)
        s |= ST_BSY;
    return s;
}

uint8_t SffChannel::read_cmd(unsigned r) {
    const uint8_t st = read_altstatus();
    if (r == kStatus) {
        spurious_ = false;
        set_pending(false); // the interrupt acknowledge
        return st;
    }
    if (st & ST_BSY)
        return st; // the device owns the registers: every read returns Status
    const bool hob = devctl_ & CTL_HOB;
    auto pick = [hob](const Shadow &s) { return hob ? s.prev : s.cur; };
    switch (r) {
    case kError: return error_;
    case kNsect: return pick(nsect_);
    case kLbal: return pick(lbal_);
    case kLbam: return pick(lbam_);
    case kLbah: return pick(lbah_);
    case kDevice: return device_;
    default: return 0xff;
    }
}

void SffChannel::write_cmd(unsigned r, uint8_t v) {
    if (read_altstatus() & (ST_BSY | ST_DRQ)) {
        trace("sff.write_ignored", {{"reg", TraceValue::integer(r)}, {"val", TraceValue::hex(v)},
                                    {"status", TraceValue::hex(read_altstatus())}},
              "Command Block write while BSY or DRQ");
        return;
    }
    devctl_ &= uint8_t(~CTL_HOB);
    switch (r) {
    case kFeature: feature_.write(v); return;
    case kNsect: nsect_.write(v); return;
    case kLbal: lbal_.write(v); return;
    case kLbam: lbam_.write(v); return;
    case kLbah: lbah_.write(v); return;
    case kDevice: device_ = v; return;
    case kCommand: break;
    default: return;
    }
    sata::Taskfile tf = taskfile();
    tf.command = v;
    cmd_dma_starts_ = dma_->starts(); // this command's data waits for the next Start
    status_ = uint8_t(ST_BSY | (status_ & (ST_DRDY | ST_DSC)));
    error_ = 0;
    spurious_ = false;
    set_pending(false); // writing Command clears a pending interrupt
    send(sata::make_reg_h2d(tf, true));
}

sata::Taskfile SffChannel::taskfile() const {
    sata::Taskfile tf;
    tf.feature = feature_.cur;
    tf.feature_hi = feature_.prev;
    tf.count = uint16_t(nsect_.cur | nsect_.prev << 8);
    tf.lba = uint64_t(lbal_.cur) | uint64_t(lbam_.cur) << 8 | uint64_t(lbah_.cur) << 16 |
             uint64_t(lbal_.prev) << 24 | uint64_t(lbam_.prev) << 32 | uint64_t(lbah_.prev) << 40;
    tf.device = device_;
    tf.control = devctl_;
    return tf;
}

void SffChannel::write_devctl(uint8_t v) {
    const uint8_t old = devctl_;
    devctl_ = v;
    if ((old ^ v) & CTL_SRST) {
        // Only the SRST edge concerns the device; nIEN and HOB are the host adapter's.
        trace("sff.srst", {{"assert", TraceValue::boolean(v & CTL_SRST)}});
        sata::Taskfile tf;
        tf.control = uint8_t(v & ~CTL_HOB);
        tf.device = device_;
        if (v & CTL_SRST) {
            if (!bsy_survives_srst_)
                bsy_stuck_ = false; // the reset the stuck device needed
            else if (bsy_stuck_)
                trace("sff.bsy_stuck", {{"reset", TraceValue::str("srst")}}, "fault: BSY survives the SRST");
            if (link_ && link_->phy_ready())
                status_ = ST_BSY; // no PHY: nobody to reset, Status stays 7Fh
            reset_transport();
            srst_flush_ = true;
            spurious_ = false;
            pending_ = false;
            if (link_)
                link_->receiver_ready_changed(); // the device's frames may go now (and are dropped)
        }
        send(sata::make_reg_h2d(tf, false));
    }
    set_pending(pending_); // nIEN may have changed
}

uint16_t SffChannel::read_data() {
    if (pio_ != Pio::In || pio_pos_ >= pio_count_)
        return 0xffff; // no DRQ block: the bus floats
    uint16_t w = uint16_t(pio_buf_[pio_pos_] | pio_buf_[pio_pos_ + 1] << 8);
    pio_pos_ += 2;
    if (pio_pos_ >= pio_count_)
        end_pio_block();
    return w;
}

void SffChannel::write_data(uint16_t v) {
    if (pio_ != Pio::Out || pio_pos_ >= pio_count_)
        return;
    pio_buf_[pio_pos_] = uint8_t(v);
    pio_buf_[pio_pos_ + 1] = uint8_t(v >> 8);
    pio_pos_ += 2;
    if (pio_pos_ >= pio_count_) {
        send(sata::make_data(pio_buf_.data(), pio_count_));
        end_pio_block();
    }
}

// The DRQ block has been moved through the Data register: Status takes E_Status.
void SffChannel::end_pio_block() {
    pio_ = Pio::None;
    status_ = pio_e_status_;
    if (drq_stuck_ && !(status_ & ST_BSY)) { // the block that ends a data-in command; once
        drq_stuck_ = false;
        status_ |= ST_DRQ;
        trace("sff.drq_stuck", {{"status", TraceValue::hex(status_)}}, "fault: DRQ stays set after the block");
    }
    if (link_)
        link_->receiver_ready_changed();
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// ---- SCRs ----

void SffChannel::write_scontrol(uint32_t v) {
    const uint32_t old_det = sctl_ & SCTL_DET_MASK;
    sctl_ = v & 0x000fffff;
    const uint32_t det = sctl_ & SCTL_DET_MASK;
    if (det == old_det || !link_)
        return;
    if (det == 1) {
        trace("sff.comreset", {{"assert", TraceValue::boolean(true)}});
        link_->host_comreset(true);
    } else if (det == 4) {
        trace("sff.offline");
        link_->host_offline();
    } else if (det == 0) {
        trace("sff.comreset", {{"assert", TraceValue::boolean(false)},
                               {"spd_limit", TraceValue::integer(int(spd_limit(sctl_)))}});
        link_->host_comreset(false, spd_limit(sctl_));
    }
}

// ---- PHY events ----

void SffChannel::phy_changed(bool ready, link::Gen gen) {
    trace("sff.phyrdy_change", {{"ready", TraceValue::boolean(ready)}, {"gen", TraceValue::integer(int(gen))}});
    ++epoch_;
    pio_ = Pio::None;
    rxq_.clear();
    dma_activate_ = false;
    srst_flush_ = false; // the device restarts: what it sends now is new
    bsy_stuck_ = bsy_survives_srst_ = false;
    // Down: nobody owns the shadow registers. Up: BSY until the device's first D2H FIS
    // (its signature) loads them.
    status_ = ready ? ST_BSY : ST_NO_PHY;
    serr_ |= SERR_DIAG_N;
    if (link_)
        link_->receiver_ready_changed();
    set_pending(pending_);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// COMINIT from the device (a drive plugged in, or its own reset). SError.X records it. With
// the link down and the PHY not held (SControl DET 0), the host PHY answers it: the SATA host
// PHY state machine waits for COMINIT after a COMRESET nobody answered and then runs OOB and
// speed negotiation on its own, so a drive plugged into an empty connector comes up without
// software (PhyRdy rises: SError.N, the SiI3112's SATA interrupt, libata's hotplug). The link
// model starts negotiation with a COMRESET, so the answer is modelled as a COMRESET pulse of
// kCominitAnswerUs (model choice, unconfirmed: docs/hardware.md 9.11).
void SffChannel::oob_reset() {
    trace("sff.cominit");
    serr_ |= SERR_DIAG_X;
    set_pending(pending_);
    if (link_ && !link_->phy_ready() && (sctl_ & SCTL_DET_MASK) == 0)
        cominit_ev_.notify(sc_core::SC_ZERO_TIME);
}

// Noise on the wire outside any frame (docs/hardware.md 2.7), as the AHCI model's port takes
// it: COMINIT bursts are an OOB reset signal (DIAG.X, above); decode errors set DIAG.B alone
// (no frame was lost), `internal` ERR.E (the receive path losing the signal mid-primitive),
// `phy` DIAG.I with the frame data it spoiled (ERR.T), `comwake` DIAG.W. SError only: none of
// these bits interrupts on a taskfile channel (the SiI3112 raises its SATA interrupt for
// DIAG.N alone, ata_piix has no SError interrupt), so the next EH run finds them (dmesg
// corpus 25: an ICH8 SIDPR port's "SErr 0x80800", "SError: { HostInt 10B8B }").
void SffChannel::line_noise(const Noise &n) {
    if (n.cominit)
        oob_reset();
    const uint32_t bits = (n.decode ? SERR_DIAG_B : 0u) | (n.internal ? SERR_ERR_E : 0u) |
                          (n.phy ? SERR_DIAG_I | SERR_ERR_T : 0u) | (n.comwake ? SERR_DIAG_W : 0u);
    if (bits) {
        trace("sff.line_noise", {{"serror", TraceValue::hex(bits)}});
        serr_ |= bits;
    }
}

void SffChannel::cominit_thread() {
    constexpr unsigned kCominitAnswerUs = 10;
    for (;;) {
        sc_core::wait(cominit_ev_);
        if (!link_ || link_->phy_ready() || (sctl_ & SCTL_DET_MASK) != 0)
            continue;
        trace("sff.cominit_answer", {{"spd_limit", TraceValue::integer(int(spd_limit(sctl_)))}},
              "PHY answers COMINIT: OOB and speed negotiation");
        link_->host_comreset(true);
        sc_core::wait(kCominitAnswerUs, sc_core::SC_US);
        if ((sctl_ & SCTL_DET_MASK) == 0) // software took over meanwhile: leave it to SControl
            link_->host_comreset(false, spd_limit(sctl_));
    }
}

} // namespace satasim::sff
