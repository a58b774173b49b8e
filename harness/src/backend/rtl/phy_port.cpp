// The far side of one DUT port: cable, device-side link RTL, SataLink PHY (phy_port.h).
#include "backend/rtl/phy_port.h"


namespace satasim::harness::rtl {

namespace {
// The first dword of the SATA scrambler's sequence (LFSR x^16+x^15+x^13+x^4+1 from
// 0xFFFF, SATA 3.x 9.5): a frame's header dword crosses the wire XORed with it, which is
// how the cable reads the type of the DUT's FIS for a dword fault of that type.
constexpr uint32_t kScramble0 = 0xC2D2768Du;
// A device frame that neither ends nor aborts within this many dwords past its length is
// broken off, as SataLink's dword mode does (a transmitter's frame timer).
constexpr uint64_t kFrameSlack = 4096;
// OOB timing (SATA 3.x 8.4, OOB signalling): UIoob is Gen1's unit interval.
constexpr double kUiOobNs = 1.0 / 1.5;
constexpr unsigned kOobBursts = 6;

unsigned ns_cycles(double ns, double mhz) { return unsigned(ns * mhz / 1000.0 + 0.5); }

} // namespace

PhyPort::PhyPort(unsigned index, unsigned phy_width, bool elastic, std::function<void()> wake, PhyPins pins,
                 OobConfig oob)
    : n_(index), wake_(std::move(wake)), side_(dev_.side()), from_dut_(phy_width), to_dut_(phy_width),
      elastic_(elastic), pins_(std::move(pins)), tx_ev_(sc_core::sc_gen_unique_name("rtl_port_tx")), oob_(oob) {
    // burst 160 UIoob; gaps 480 (COMINIT) and 160 (COMWAKE) UIoob; an ALIGN attempt 2048
    // Gen1 dwords (54.6 us)
    burst_cycles_ = ns_cycles(160 * kUiOobNs, oob.clock_mhz);
    cominit_gap_ = ns_cycles(480 * kUiOobNs, oob.clock_mhz);
    comwake_gap_ = ns_cycles(160 * kUiOobNs, oob.clock_mhz);
    attempt_cycles_ = ns_cycles(2048 * 40 / 1.5, oob.clock_mhz);
    reset_device_link();
}

void PhyPort::connect(link::SataLink *lk) {
    link_ = lk;
    lk->attach_external_host(this);
}

void PhyPort::reset_device_link() {
    dev_.reset();
    const link::LaneDword sync{link::prim::kSync, true};
    h2d_.fill(sync);
    d2h_.fill(sync);
    h2d_out_ = sync;
    from_dut_.reset();
    to_dut_.reset();
    dev_rx_.reset();
    // The DUT's next receive word: the cable's (32 bits), or the high half of an ALIGN
    // (16 bits: the DUT must find the word alignment on the first primitive).
    if (to_dut_.needs_dword())
        to_dut_.load(d2h_.oldest());
    rx_ = to_dut_.next_word();
    judged_ = false;
    host_frame_pos_ = -1;
}

void PhyPort::drive(satasim_dut_pins &p, unsigned edges) {
    p.phy_rx_data[n_] = rx_.data;
    p.phy_rx_isk[n_] = rx_.isk;
    p.phy_rx_codeerr[n_] = rx_.code_err;
    p.phy_rx_disperr[n_] = rx_.disp_err;
    p.phy_ready[n_] = phy_ready_;
    p.phy_gen[n_] = gen_;
    const uint8_t det = link_ ? link_->det() : 0;
    p.phy_dev_present[n_] = det == 1 || det == 3;
    p.phy_cominit[n_] = cominit_;
    if (edges & link::kEdgeCore)
        cominit_ = false; // a one-cycle pulse
    if (pins_.any()) {
        p.phy_ready[n_] = pins_.phy_ready(phy_ready_);
        // signal-level OOB: the squelch detector follows the bursts and gaps
        p.phy_rx_elecidle[n_] = line_ == LineState::ComInit || line_ == LineState::ComWake ? !in_burst()
                                : line_ == LineState::Silent                               ? pins_.rx_elecidle()
                                                                                           : false;
        p.phy_comwake_det[n_] = pins_.comwake_det();
        p.phy_rate_ack[n_] = pins_.rate_ack();
        p.phy_reset_done[n_] = pins_.reset_done();
        p.phy_sb_status[n_] = pins_.sb_status();
    }
}

PhyPins::Out PhyPort::pins_out(const satasim_dut_pins &p) const {
    PhyPins::Out o;
    o.tx_elecidle = p.phy_tx_elecidle[n_];
    o.reset = p.phy_reset[n_];
    o.comreset = p.phy_comreset[n_];
    o.comwake = p.phy_comwake[n_];
    o.offline = p.phy_offline[n_];
    o.rate = p.phy_rate[n_];
    o.sb_ctrl = p.phy_sb_ctrl[n_];
    return o;
}

// The DUT's header dword after SOF, unscrambled: the FIS type a host dword fault waits for.
void PhyPort::watch_host_frame(uint32_t d, bool isk) {
    if (isk) {
        if (d == link::prim::kSof)
            host_frame_pos_ = 0;
        else if (d == link::prim::kEof)
            host_frame_pos_ = -1;
        return;
    }
    if (host_frame_pos_ != 0 || !link_)
        return;
    host_frame_pos_ = 1;
    link::SataLink::DwordFault df;
    if (link_->take_host_dword_fault(static_cast<sata::FisType>((d ^ kScramble0) & 0xFF), df))
        link_->arm_external_flip(true, df);
}

// A dword of the DUT's transmitter (its PHY words joined) onto the cable; the dword the
// cable delivers goes to the device's receiver (through its elastic buffer).
void PhyPort::host_dword(link::LaneDword d, const satasim_dut_pins &p) {
    bool carried = true;
    if (pins_.any()) {
        const PhyPins::Out o = pins_out(p);
        const bool sof = d.isk && d.data == link::prim::kSof;
        pins_.tx_dword(o, sof || host_frame_pos_ >= 0, sof, pins_.phy_ready(phy_ready_), gen_);
        carried = pins_.carried(o, phy_ready_);
    }
    watch_host_frame(d.data, d.isk);
    // signal-level OOB: the device, sending ALIGNs, locks to the host's first ALIGN (the
    // host sends D10.2 until it has locked itself) and answers with SYNC. A transmitter in
    // electrical idle sends nothing.
    if (line_ == LineState::Align && d.isk && d.data == link::prim::kAlign &&
        !(pins_.has(SATASIM_DUT_PHY_ELECIDLE) && p.phy_tx_elecidle[n_])) {
        line_start(LineState::Sync);
        tell_aligned_ = true;
    }
    // Transmit electrical idle under PhyRdy (outside OOB): the device's receiver hears no
    // dword; an ALIGN, which its link layer discards, holds the place on the cable.
    if (!carried)
        d = link::LaneDword{link::prim::kAlign, true};
    if (link::LinkRtlPair::WireHook *hook = link_ ? link_->external_wire_hook() : nullptr) {
        hook->on_dword(true, d.data, d.isk);
        // The device's decoder flags a corrupted symbol as it arrives (its endpoint is told
        // once simulated time has caught up).
        const link::SataLink::SymbolFlags f = link_->take_symbol_flags(true);
        dev_symbols_.code |= f.code;
        dev_symbols_.disparity |= f.disparity;
    }
    const link::LaneDword out = h2d_.push(d);
    if (elastic_)
        dev_rx_.push(out);
    else
        h2d_out_ = out;
}

// One dword clock of the device-side link: it takes the cable's dword, its own goes onto
// the cable toward the DUT. True: the SystemC side has work.
bool PhyPort::device_dword() {
    link::LinkEndpoint *dev = link_ ? link_->device_endpoint() : nullptr;
    // No R_RDY until the device can take a frame.
    side_.rx_full = dev_.state() == link::RtlState::Idle && dev && !dev->ready_to_receive();
    const link::LaneDword in = elastic_ ? dev_rx_.pop() : h2d_out_;
    link::LaneDword out;
    dev_.tick(phy_ready_, in.data, in.isk, out.data, out.isk);
    if (oob_.signal && !phy_ready_)
        out = line_dword(); // the device's link layer is held idle: its PHY's line
    if (link::LinkRtlPair::WireHook *hook = link_ ? link_->external_wire_hook() : nullptr) {
        hook->on_dword(false, out.data, out.isk);
        const link::SataLink::SymbolFlags f = link_->take_symbol_flags(false); // on the DUT's PHY pins
        out.code_err = f.code;
        out.disp_err = f.disparity;
    }
    d2h_.push(out);
    to_dut_.load(d2h_.oldest());

    // The verdict given and the frame over: ready for the next one.
    if (judged_ && dev_.state() == link::RtlState::Idle) {
        judged_ = false;
        side_.verdict = false;
        side_.rx_end = false;
        side_.rx.clear();
    }
    if (tx_busy_ && !side_.tx_done && ++tx_cycles_ > side_.tx.size() * 4 + kFrameSlack)
        tx_timeout_ = true;
    return (side_.rx_end && !judged_) || side_.rx_abort || (tx_busy_ && side_.tx_done) ||
           side_.bad_prims != bad_prims_told_ || (tx_busy_ && tx_timeout_);
}

bool PhyPort::edge(const satasim_dut_pins &p, unsigned edges) {
    bool attention = false;
    if (edges & link::kEdgeCore) {
        if (p.phy_comreset[n_] != comreset_seen_ || p.phy_offline[n_] != offline_seen_) {
            if (p.phy_comreset[n_] != comreset_seen_)
                ++comreset_changes_;
            comreset_seen_ = p.phy_comreset[n_];
            offline_seen_ = p.phy_offline[n_];
            attention = true;
        }
        spd_seen_ = p.phy_spd_limit[n_];
        if (pins_.any())
            pins_.core_edge(pins_out(p), p.rst, pins_.phy_ready(phy_ready_));
        if (oob_.signal) {
            // COMWAKE: a request starts at its rising edge
            if (p.phy_comwake[n_] && !comwake_seen_ && !p.rst) {
                tell_comwake_ = true;
                attention = true;
            }
            comwake_seen_ = p.phy_comwake[n_];
            attention |= line_cycle();
        }
    }
    if ((edges & link::kEdgePhyTx) && pins_.any())
        pins_.phy_tx_edge();
    link::LaneDword d;
    if ((edges & link::kEdgePhyTx) && from_dut_.take(p.phy_tx_data[n_], p.phy_tx_isk[n_], d)) {
        host_dword(d, p);
        attention |= dev_symbols_.any() || tell_aligned_;
    }
    if (edges & link::kEdgePhyRx) {
        if (to_dut_.needs_dword())
            attention |= device_dword();
        rx_ = to_dut_.next_word();
    }
    if (pins_.any()) {
        if (const char *why = pins_.link_drop()) {
            drop_why_ = why; // told the SataLink once simulated time has caught up
            attention = true;
        }
    }
    return attention;
}

void PhyPort::service() {
    link::LinkEndpoint *dev = link_ ? link_->device_endpoint() : nullptr;
    if (side_.rx_end && !judged_) {
        judged_ = true;
        if (side_.rx_crc_ok && !side_.rx_abort) {
            sata::Fis got;
            sata::fis_from_dwords(got, side_.rx.data(), side_.rx.size());
            side_.accept = dev && !got.bytes.empty() && dev->receive_fis(got);
            side_.verdict = true;
        } else if (dev) {
            dev->receive_error(link::LinkError::RxCrc);
        }
    }
    if (side_.rx_abort) {
        side_.rx_abort = false;
        if (dev)
            dev->receive_error(link::LinkError::RxSequence);
    }
    if (dev_symbols_.any()) {
        link::SataLink::report_symbols(dev, dev_symbols_);
        dev_symbols_ = {};
    }
    if (side_.bad_prims != bad_prims_told_) {
        bad_prims_told_ = side_.bad_prims;
        if (dev)
            dev->receive_error(link::LinkError::RxDecode);
    }
    if (tx_busy_ && (side_.tx_done || tx_timeout_))
        tx_ev_.notify(sc_core::SC_ZERO_TIME);
    // The DUT's PHY stopped (its PHY reset, or its transmitter silent past the device's
    // squelch time): the link goes down on both sides (a port without a cable: nothing to do).
    if (drop_why_) {
        const char *why = drop_why_;
        drop_why_ = nullptr;
        if (link_)
            link_->host_signal_lost(why);
    }
    // signal-level OOB: the DUT's steps of the negotiation
    if (link_ && tell_comwake_)
        link_->host_comwake();
    if (link_ && tell_aligned_)
        link_->host_aligned();
    if (link_ && tell_align_timeout_)
        link_->host_align_timeout();
    tell_comwake_ = tell_aligned_ = tell_align_timeout_ = false;
    // COMRESET as the DUT drove it since the last service. A pulse (an even number of
    // changes, back where it was told last) is told as its two edges.
    const unsigned changes = comreset_changes_;
    comreset_changes_ = 0;
    if (!link_)
        return;
    // The DUT's PHY requests (PxSCTL.DET through its PHY controls) to the SataLink.
    if (offline_seen_ && !offline_told_) {
        offline_told_ = true;
        comreset_told_ = false;
        link_->host_offline();
    } else if (!offline_seen_) {
        offline_told_ = false;
    }
    if (offline_seen_)
        return;
    const link::Gen spd = spd_seen_ >= 1 && spd_seen_ <= 3 ? link::Gen(spd_seen_) : link::Gen::None;
    if (comreset_seen_ == comreset_told_ && changes >= 2)
        link_->host_comreset(!comreset_told_, spd);
    if (comreset_seen_ != comreset_told_ || changes >= 2) {
        comreset_told_ = comreset_seen_;
        link_->host_comreset(comreset_seen_, spd);
    }
}

bool PhyPort::idle() const {
    const bool line_quiet = line_ == LineState::Silent || line_ == LineState::Sync;
    return dev_.state() == link::RtlState::Idle && !tx_busy_ && !(side_.rx_end && !judged_) &&
           !cominit_ && !drop_why_ && !dev_symbols_.any() && (!pins_.any() || pins_.idle()) && line_quiet &&
           !tell_comwake_ && !tell_aligned_ && !tell_align_timeout_;
}

void PhyPort::line_start(LineState s) {
    line_ = s;
    line_pos_ = 0;
}

bool PhyPort::in_burst() const {
    const unsigned gap = line_ == LineState::ComInit ? cominit_gap_ : comwake_gap_;
    return line_pos_ % (burst_cycles_ + gap) < burst_cycles_;
}

link::LaneDword PhyPort::line_dword() const {
    switch (line_) {
    case LineState::ComInit:
    case LineState::ComWake:
        // OOB bursts carry ALIGNs at Gen1; the gaps are electrical idle
        return in_burst() ? link::LaneDword{link::prim::kAlign, true} : link::LaneDword{0, false};
    case LineState::Unlockable:
        return link::LaneDword{0, false, 0xF, 0}; // no symbol decodes
    case LineState::Align:
        return link::LaneDword{link::prim::kAlign, true};
    case LineState::Sync:
        return link::LaneDword{link::prim::kSync, true};
    case LineState::Silent:
        break;
    }
    return link::LaneDword{0, false};
}

bool PhyPort::line_cycle() {
    ++line_pos_;
    switch (line_) {
    case LineState::ComInit:
    case LineState::ComWake: {
        const unsigned gap = line_ == LineState::ComInit ? cominit_gap_ : comwake_gap_;
        if (line_pos_ < kOobBursts * (burst_cycles_ + gap))
            return false;
        // the last gap ended: the host's detector recognises the signal
        if (line_ == LineState::ComInit) {
            cominit_ = true;
            line_start(LineState::Silent);
            return false;
        }
        pins_.comwake_detected();
        line_start(LineState::Silent);
        if (align_queued_) {
            align_queued_ = false;
            line_start(align_failed_ ? LineState::Unlockable
                                     : align_gen_ != link::Gen::None ? LineState::Align : LineState::Silent);
        }
        return false;
    }
    case LineState::Unlockable:
        if (line_pos_ >= attempt_cycles_)
            line_start(--align_failed_ ? LineState::Unlockable
                                       : align_gen_ != link::Gen::None ? LineState::Align : LineState::Silent);
        return false;
    case LineState::Align:
        if (line_pos_ < attempt_cycles_)
            return false;
        line_start(LineState::Silent);
        tell_align_timeout_ = true;
        return true;
    case LineState::Silent:
    case LineState::Sync:
        break;
    }
    return false;
}

void PhyPort::phy_changed(bool ready, link::Gen gen) {
    // signal-level OOB: the device's link layer, held idle under its PHY's line until now,
    // starts at PhyRdy from its reset state, so its idle SYNCs are a run of their own:
    // SYNC, SYNC, then CONT and scrambled junk (SATA's primitive suppression: a CONT only
    // after two copies of the primitive it continues). Its encoder ran on under the line;
    // without this the DUT got the line's SYNC and then the junk of a run whose CONT the
    // line had hidden.
    if (oob_.signal && ready && !phy_ready_)
        dev_.reset();
    phy_ready_ = ready;
    if (!ready && line_ == LineState::Sync)
        line_start(LineState::Silent);
    gen_ = uint8_t(gen);
    pins_.phy_changed();
    pins_.device_transmitting(ready);
    wake_();
}

void PhyPort::oob_reset() {
    pins_.device_transmitting(false); // COMINIT: the device (re)starts OOB from idle
    if (oob_.signal)
        line_start(LineState::ComInit); // its bursts; the detection pulse after the last gap
    else
        cominit_ = true;
    wake_();
}

// The device's COMWAKE: a pulse on phy_comwake_det, and the device transmits from now on.
// Nothing changes for a top without the PHY pins (its clock is not even woken).
void PhyPort::oob_comwake() {
    if (oob_.signal) {
        line_start(LineState::ComWake);
        align_queued_ = false;
        wake_();
        return;
    }
    if (!pins_.any())
        return;
    pins_.comwake_detected();
    wake_();
}

void PhyPort::oob_align(link::Gen common, unsigned failed) {
    align_gen_ = common;
    align_failed_ = failed;
    align_queued_ = true;
}

void PhyPort::phy_reset() {
    pins_.device_transmitting(false);
    line_start(LineState::Silent); // a PHY change ends any OOB signal under way
    align_queued_ = false;
    tell_aligned_ = tell_align_timeout_ = false;
    ++epoch_;
    reset_device_link();
    tx_ev_.notify(sc_core::SC_ZERO_TIME);
    wake_();
}

link::FrameStatus PhyPort::send_from_device(const sata::Fis &fis, bool fault, const link::SataLink::DwordFault &df) {
    while (tx_busy_)
        sc_core::wait(tx_ev_);
    if (!phy_ready_)
        return link::FrameStatus::NoLink;
    const uint64_t epoch = epoch_;
    tx_busy_ = true;
    tx_cycles_ = 0;
    tx_timeout_ = false;
    std::vector<uint32_t> dw(fis.dwords());
    sata::fis_to_dwords(fis, dw.data());
    side_.start_frame(dw.data(), dw.size());
    if (fault)
        link_->arm_external_flip(false, df);
    wake_();
    while (!side_.tx_done && !tx_timeout_ && epoch == epoch_)
        sc_core::wait(tx_ev_);
    tx_busy_ = false;
    tx_ev_.notify(sc_core::SC_ZERO_TIME); // another transmitter of this device may go
    link::LinkEndpoint *dev = link_->device_endpoint();
    if (epoch != epoch_)
        return link::FrameStatus::Error; // PHY lost mid-frame (the device link was reset with it)
    if (tx_timeout_) {
        reset_device_link();
        if (dev)
            dev->receive_error(link::LinkError::TxAborted);
        return link::FrameStatus::Error;
    }
    const unsigned status = side_.tx_status;
    side_.tx.clear();
    side_.tx_pos = 0;
    side_.tx_done = false;
    if (status == 0)
        return link::FrameStatus::Ok;
    if (dev)
        dev->receive_error(status == 1 ? link::LinkError::TxRErr : link::LinkError::TxAborted);
    return link::FrameStatus::Error;
}

} // namespace satasim::harness::rtl
