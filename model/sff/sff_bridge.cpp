// SFF channel, device side (sff_channel.h): the SATA bridge. Frames to the device go out in
// register-write order from one engine thread; frames from the device are decoded there
// against the shadow registers, the PIO block and the bus-master engine.
#include <algorithm>

#include "model/sff/sff_channel.h"

namespace satasim::sff {

using namespace reg;
using sata::FisType;

bool SffChannel::receive_fis(const sata::Fis &fis) {
    if (!sata::fis_well_formed(fis)) {
        // A malformed frame (a fixed-length type of the wrong length): refused, and SError
        // records a transport error as the AHCI and SiI3124 models do: ERR.T (bit 8, data
        // integrity; bit 11, which this set before, is ERR.E, an internal error) and DIAG.T.
        serr_ |= 1u << 8 | 1u << 24;
        return false; // R_ERR
    }
    rxq_.push_back(fis);
    wake_.notify(sc_core::SC_ZERO_TIME);
    return true;
}

// DMA data for a command whose engine has not been started yet: it waits for Start (the
// device may send before the driver sets it). Once the engine has run for the command it
// is taken whether the engine still runs or not (on_data drops it then).
bool SffChannel::dma_data_waits(const sata::Fis &f) const {
    return f.type() == FisType::Data && pio_ != Pio::InWait && !srst_flush_ && !dma_->active() &&
           dma_->starts() == cmd_dma_starts_;
}

// Not while a data-in block waits for the host, nor while DMA data waits for Start.
bool SffChannel::ready_to_receive() const {
    if (pio_ == Pio::In)
        return false;
    return rxq_.empty();
}

void SffChannel::send(sata::Fis fis) {
    txq_.push_back(std::move(fis));
    wake_.notify(sc_core::SC_ZERO_TIME);
}

void SffChannel::burst_wait(size_t bytes) {
    const double ns_per_clock = 1000.0 / cfg_.pci_clock_mhz;
    // One arbitration + address phase per burst, then the data phases.
    const uint64_t bursts = (bytes + cfg_.burst_bytes - 1) / cfg_.burst_bytes;
    const uint64_t clocks = bursts * cfg_.pci_burst_latency_clocks +
                            (bytes + cfg_.pci_bytes_per_clock - 1) / cfg_.pci_bytes_per_clock;
    // On a parallel ATA cable the words' bus cycles bound the burst as well.
    const double cable_ns = double((bytes + 1) / 2) * bus_word_ns_;
    sc_core::wait(sc_core::sc_time(std::max(double(clocks) * ns_per_clock, cable_ns), sc_core::SC_NS));
}

void SffChannel::engine_thread() {
    for (;;) {
        bool progress = false;
        if (!txq_.empty()) {
            sata::Fis f = std::move(txq_.front());
            txq_.pop_front();
            const uint64_t e = epoch_;
            if (!link_ || link_->send_from_host(f) != link::FrameStatus::Ok) {
                if (e == epoch_)
                    trace("sff.tx_failed", {{"type", TraceValue::hex(f.bytes[0])}});
            }
            progress = true;
        } else if (!rxq_.empty()) {
            if (!dma_data_waits(rxq_.front())) {
                sata::Fis fis = std::move(rxq_.front());
                rxq_.pop_front();
                process(fis);
                if (link_ && rxq_.empty())
                    link_->receiver_ready_changed();
                progress = true;
            }
        }
        if (!progress && dma_activate_ && dma_->active()) {
            dma_activate_ = false;
            dma_out();
            progress = true;
        }
        if (!progress)
            sc_core::wait(wake_);
    }
}

void SffChannel::load_regs(const sata::Fis &fis) {
    const sata::Taskfile t = sata::parse_taskfile(fis);
    error_ = fis.at(3);
    lbal_.load(uint8_t(t.lba), uint8_t(t.lba >> 24));
    lbam_.load(uint8_t(t.lba >> 8), uint8_t(t.lba >> 32));
    lbah_.load(uint8_t(t.lba >> 16), uint8_t(t.lba >> 40));
    nsect_.load(uint8_t(t.count), uint8_t(t.count >> 8));
    // A SATA device is always device 0 on its own link: as device 1 of a pair, the host
    // adapter keeps DEV at 1 in what the host reads back.
    device_ = peer_ ? uint8_t((t.device & ~DEV_DEV1) | (devno_ ? DEV_DEV1 : 0)) : t.device;
}

void SffChannel::process(const sata::Fis &fis) {
    if (srst_flush_ && fis.type() != FisType::RegD2H) {
        trace("sff.rx_discarded", {{"type", TraceValue::hex(fis.bytes[0])}},
              "a frame of the command SRST aborted: dropped");
        return;
    }
    switch (fis.type()) {
    case FisType::RegD2H: return on_d2h(fis);
    case FisType::PioSetup: return on_pio_setup(fis);
    case FisType::Data: return on_data(fis);
    case FisType::DmaActivate:
        dma_activate_ = true;
        wake_.notify(sc_core::SC_ZERO_TIME);
        return;
    default:
        // DMA Setup, Set Device Bits, BIST: no first-party DMA or NCQ behind a taskfile.
        trace("sff.fis_ignored", {{"type", TraceValue::hex(fis.bytes[0])}});
        return;
    }
}

void SffChannel::on_d2h(const sata::Fis &fis) {
    if (devctl_ & CTL_SRST)
        return; // SRST held: the device's registers are not valid yet
    srst_flush_ = false; // the device's first frame after the reset (its signature)
    load_regs(fis);
    status_ = fis.at(2);
    pio_ = Pio::None;
    if (fis.at(1) & sata::kFisInterrupt)
        raise_irq();
}

void SffChannel::on_pio_setup(const sata::Fis &fis) {
    load_regs(fis);
    pio_setup_ = fis;
    pio_status_ = fis.at(2);
    pio_e_status_ = fis.at(15);
    pio_count_ = size_t(fis.at(16) | fis.at(17) << 8);
    pio_irq_ = fis.at(1) & sata::kFisInterrupt;
    pio_pos_ = 0;
    if (fis.at(1) & sata::kFisDirD2H) {
        pio_ = Pio::InWait; // Status changes when the data is here
        return;
    }
    pio_ = Pio::Out;
    pio_buf_.assign(pio_count_, 0);
    status_ = pio_status_;
    if (pio_irq_)
        raise_irq();
}

void SffChannel::on_data(const sata::Fis &fis) {
    if (pio_ == Pio::InWait) {
        const size_t n = std::min(pio_count_, fis.payload_size());
        pio_buf_.assign(fis.payload(), fis.payload() + n);
        pio_buf_.resize(pio_count_ + (pio_count_ & 1), 0);
        pio_ = Pio::In;
        status_ = pio_status_;
        if (pio_irq_)
            raise_irq();
        return;
    }
    // DMA data into memory (the engine thread held it until Start), or nowhere: the engine
    // ran for this command and stopped (Error, or software's Stop).
    if (!dma_->active()) {
        trace("sff.dma_dropped", {{"bytes", TraceValue::integer(int64_t(fis.payload_size()))}},
              "DMA data while the bus master is stopped: dropped");
        return;
    }
    const size_t moved = dma_->write_memory(fis.payload(), fis.payload_size());
    burst_wait(moved);
    if (moved < fis.payload_size())
        trace("sff.dma_short", {{"bytes", TraceValue::integer(int64_t(fis.payload_size()))},
                                {"moved", TraceValue::integer(int64_t(moved))}},
              "device data beyond the PRDs (or a bus error): the rest is dropped");
}

// DMA Activate: the next Data FIS, as much as the PRDs still describe (at most 8 KiB).
void SffChannel::dma_out() {
    const size_t n = dma_->room(sata::kMaxDataFisPayload);
    sata::Fis f = sata::make_data_zeroed(std::max<size_t>(n, 4));
    const size_t got = dma_->read_memory(f.payload(), n);
    burst_wait(got);
    if (got == 0) {
        trace("sff.dma_stalled", {}, "DMA Activate with no PRD bytes left (or a bus error)");
        return;
    }
    if (got < n)
        f = sata::make_data(f.payload(), got);
    send(std::move(f));
}

} // namespace satasim::sff
