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

} // namespace

PhyPort::PhyPort(unsigned index, unsigned phy_width, bool elastic, std::function<void()> wake, PhyPins pins)
    : n_(index), wake_(std::move(wake)), side_(dev_.side()), from_dut_(phy_width), to_dut_(phy_width),
      elastic_(elastic), pins_(std::move(pins)), tx_ev_(sc_core::sc_gen_unique_name("rtl_port_tx")) {
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
        p.phy_rx_elecidle[n_] = pins_.rx_elecidle();
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
    }
    if ((edges & link::kEdgePhyTx) && pins_.any())
        pins_.phy_tx_edge();
    link::LaneDword d;
    if ((edges & link::kEdgePhyTx) && from_dut_.take(p.phy_tx_data[n_], p.phy_tx_isk[n_], d)) {
        host_dword(d, p);
        attention |= dev_symbols_.any();
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
    return dev_.state() == link::RtlState::Idle && !tx_busy_ && !(side_.rx_end && !judged_) &&
           !cominit_ && !drop_why_ && !dev_symbols_.any() && (!pins_.any() || pins_.idle());
}

void PhyPort::phy_changed(bool ready, link::Gen gen) {
    phy_ready_ = ready;
    gen_ = uint8_t(gen);
    pins_.phy_changed();
    pins_.device_transmitting(ready);
    wake_();
}

void PhyPort::oob_reset() {
    cominit_ = true;
    pins_.device_transmitting(false); // COMINIT: the device (re)starts OOB from idle
    wake_();
}

// The device's COMWAKE: a pulse on phy_comwake_det, and the device transmits from now on.
// Nothing changes for a top without the PHY pins (its clock is not even woken).
void PhyPort::oob_comwake() {
    if (!pins_.any())
        return;
    pins_.comwake_detected();
    wake_();
}

void PhyPort::phy_reset() {
    pins_.device_transmitting(false);
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
