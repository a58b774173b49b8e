// SiI3124 receive path: FISes from the device. The link callback validates and queues;
// the engine thread decodes each FIS against the slot it belongs to — the slot whose
// command FIS set BSY, the PIO or DMA data phase, or the NCQ tags of a DMA Setup / Set
// Device Bits FIS — completes slots, and turns protocol violations into PORT_CMD_ERR codes.
// While the port is stopped on an error, FISes are dropped until INIT. With PMP_EN every
// FIS is decoded against the device context its PM Port field (byte 1 bits 3:0) names;
// while the port is stopped, the other devices' FISes wait for PMP_RESUME.
#include <algorithm>

#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

using namespace reg;
using sata::FisType;
using sata::kAtaBsy;
using sata::kAtaDrq;
using sata::kAtaErr;
using sata::kFisDirD2H;

bool Sil24Hba::Port::receive_fis(const sata::Fis &fis) {
    if (!sata::fis_well_formed(fis)) {
        set_serr(SERR_ERR_T | SERR_DIAG_T);
        return false; // R_ERR; the device may retry
    }
    if (ctrl_ & CS_PORT_RST)
        return true; // accepted on the wire, dropped by the port held in reset
    rxq_.push_back(fis);
    wake_.notify(sc_core::SC_ZERO_TIME);
    return true;
}

// A frame from the device failed on the wire (docs/hardware.md 3.2): the link answered
// R_ERR and dropped it. SError and the error counters record it at once; what it means for
// the command is decided in order with the FISes received before it (an empty rx entry).
void Sil24Hba::Port::receive_error(link::LinkError err) {
    const uint32_t bits = link::serror_bits(err);
    if (!bits)
        return;
    set_serr(bits);
    // decode / CRC counter (the decode counter takes disparity errors too: one 8b/10b decoder)
    uint32_t &cnt = err_cnt_[link::symbol_error(err) ? 0 : 1];
    if ((cnt & 0xFFFF) != 0xFFFF)
        ++cnt;
    if (link::symbol_error(err) || (ctrl_ & CS_PORT_RST))
        return; // a decode error alone loses no frame
    trace("sil24.rx_error", {{"error", TraceValue::str(link::to_string(err))}}, "frame from device lost");
    rxq_.emplace_back();
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// The lost frame, after the FISes before it: in a device-to-host data phase it was a Data
// FIS whose data is gone, "error in Data FIS not detected by the device" (PORT_CMD_ERR 3,
// docs/hardware.md 6.5). Otherwise it was a status or setup FIS the device may send again:
// the command waits (and times out if it never comes).
void Sil24Hba::Port::on_lost_frame() {
    for (unsigned d = 0; d < (pmp_en() ? dev_.size() : 1u); ++d) {
        if (dev_err_ & (1u << d))
            continue;
        const DataSink k = d2h_data_sink(dev_[d]);
        if (k.kind == DataSink::Kind::None ||
            (k.kind == DataSink::Kind::Dma && !(direction_ok(slots_[k.slot], true) && slots_[k.slot].sent)))
            continue;
        cur_dev_ = d;
        return fail(CERR_DATA, int(k.slot), "Data FIS from the device failed on the wire");
    }
}

void Sil24Hba::Port::process_fis(const sata::Fis &fis) {
    if (!sleep(cycles::kFisDecode, false))
        return;
    if (fis.bytes.empty()) {
        if (!halted_)
            on_lost_frame();
        return;
    }
    const unsigned d = fis_dev(fis);
    if (halted_ || (dev_err_ & (1u << d))) {
        if (halted_ && pmp_en() && !(dev_err_ & (1u << d))) {
            held_.push_back(fis); // another device's: kept for PMP_RESUME
            return;
        }
        trace("sil24.fis_dropped", {{"type", TraceValue::hex(fis.bytes[0])}},
              "port stopped on a command error");
        return;
    }
    cur_dev_ = d;
    Dev &dv = dev_[d];
    switch (FisType(fis.bytes[0])) {
    case FisType::RegD2H:
        return on_d2h(fis, dv);
    case FisType::PioSetup:
        return on_pio_setup(fis, dv);
    case FisType::DmaSetup:
        return on_dma_setup(fis, dv);
    case FisType::SetDeviceBits:
        return on_sdb(fis, dv);
    case FisType::DmaActivate:
        return send_data_out(dv);
    case FisType::Data:
        return on_data(fis, dv);
    case FisType::Bist:
        trace("sil24.bist_ignored");
        return;
    default:
        trace("sil24.unknown_fis", {{"type", TraceValue::hex(fis.bytes[0])}});
        set_serr(SERR_DIAG_F);
        raise(IRQ_UNK_FIS);
        return;
    }
}

// Register D2H: releases the slot that set BSY. A non-queued command completes, an NCQ
// command is accepted (it completes with its SDB bit), an SRST request completes with the
// signature. ERR stops the port with CERR_DEV.
void Sil24Hba::Port::on_d2h(const sata::Fis &fis, Dev &dv) {
    const uint8_t status = fis.at(2);
    dv.pio = Pio{};
    if (dv.busy_slot < 0) {
        // The signature after COMRESET/COMINIT, or a FIS nobody asked for: not stored.
        trace("sil24.d2h_unclaimed", {{"status", TraceValue::hex(status)}});
        return;
    }
    const unsigned slot = unsigned(dv.busy_slot);
    Slot &s = slots_[slot];
    if (s.srst) {
        if (!(status & kAtaBsy))
            complete_slot(slot, &fis);
        return;
    }
    if (status & kAtaErr)
        return fail(CERR_DEV, int(slot), "error status in D2H FIS", &fis);
    if (status & (kAtaBsy | kAtaDrq))
        return;
    if (s.ncq) {
        dv.busy_slot = -1; // accepted; the device will come back with DMA Setup / SDB
        wake_.notify(sc_core::SC_ZERO_TIME);
    } else {
        complete_slot(slot, &fis);
    }
}

void Sil24Hba::Port::on_pio_setup(const sata::Fis &fis, Dev &dv) {
    const uint8_t status = fis.at(2);
    if (dv.busy_slot < 0 || slots_[dv.busy_slot].ncq || slots_[dv.busy_slot].srst)
        return fail(CERR_INCONSISTENT, dv.busy_slot, "PIO Setup without a non-queued command");
    const unsigned slot = unsigned(dv.busy_slot);
    Slot &s = slots_[slot];
    if (status & kAtaErr)
        return fail(CERR_DEV, int(slot), "error status in PIO Setup FIS", &fis);
    const bool d2h = fis.at(1) & kFisDirD2H;
    if (!direction_ok(s, d2h))
        return fail(CERR_DIRECTION, int(slot), "PIO data direction differs from the PRB");
    dv.pio.active = true;
    dv.pio.d2h = d2h;
    dv.pio.e_status = fis.at(15);
    dv.pio.count = uint32_t(fis.at(16)) | uint32_t(fis.at(17)) << 8;
    dv.pio.fis = fis;
    if (d2h)
        return;
    if (dv.pio.count == 0)
        return fail(CERR_INCONSISTENT, int(slot), "PIO data-out with zero transfer count");
    // PACKET: the device's first request for data-out is the CDB's (the command block's CDB
    // area, not the SGEs)
    if (s.chunk0[PRB_FIS + 2] == 0xA0 && !s.cdb_sent) {
        if (transmit_cdb(slot, dv.pio.count))
            finish_pio(dv);
        return;
    }
    if (transmit_data(slot, s.done, dv.pio.count))
        finish_pio(dv);
}

// End of a PIO data block: E_Status; BSY = DRQ = 0 completes the command (a PIO data-in
// command has no closing D2H FIS; the PIO Setup FIS with E_Status is its result).
void Sil24Hba::Port::finish_pio(Dev &dv) {
    sata::Fis result = dv.pio.fis;
    const uint8_t e = dv.pio.e_status;
    dv.pio = Pio{};
    if (dv.busy_slot < 0)
        return;
    const unsigned slot = unsigned(dv.busy_slot);
    if (result.bytes.size() > 2)
        result.bytes[2] = e;
    if (e & kAtaErr)
        return fail(CERR_DEV, int(slot), "error in PIO E_Status", &result);
    if (!(e & (kAtaBsy | kAtaDrq)))
        complete_slot(slot, &result);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// DMA Setup (first-party DMA): the buffer identifier's bits 4:0 name the slot (of the
// device the FIS comes from).
void Sil24Hba::Port::on_dma_setup(const sata::Fis &fis, Dev &dv) {
    const unsigned tag = fis.dword(1) & 0x1F;
    if (tag >= kLramSlots || !slots_[tag].active || !slots_[tag].ncq || !(dv.sact & (1u << tag)))
        return fail(CERR_INCONSISTENT, tag < kLramSlots ? int(tag) : -1,
                    "DMA Setup for a slot with no queued command");
    const bool d2h = fis.at(1) & kFisDirD2H;
    if (!direction_ok(slots_[tag], d2h))
        return fail(CERR_DIRECTION, int(tag), "DMA Setup direction differs from the PRB");
    dv.dma.active = true;
    dv.dma.d2h = d2h;
    dv.dma.slot = tag;
    dv.dma.offset = fis.dword(4) & ~3u;
    dv.dma.count = fis.dword(5);
    dv.dma.done = 0;
    if (dv.dma.count == 0)
        dv.dma = DmaCtx{};
    if (dv.dma.active && !dv.dma.d2h && (fis.at(1) & sata::kFisCommand))
        send_data_out(dv); // auto-activate
}

// Set Device Bits: the named NCQ slots complete; ERR stops the port with CERR_SDB (the
// device has aborted every outstanding queued command); N raises SDB_NOTIFY.
void Sil24Hba::Port::on_sdb(const sata::Fis &fis, Dev &dv) {
    const uint8_t status = fis.at(2);
    const uint32_t sactive = fis.dword(1);
    if (fis.at(1) & sata::kFisCommand)
        raise(IRQ_SDB_NOTIFY);
    if (status & kAtaErr) {
        const uint32_t out = dv.sact & SLOT_MASK;
        const int first = out ? __builtin_ctz(out) : -1;
        return fail(CERR_SDB, first, "error status in Set Device Bits FIS", &fis);
    }
    const uint32_t done = sactive & dv.sact;
    for (unsigned t = 0; t < kLramSlots; ++t)
        if (done & (1u << t))
            complete_slot(t, &fis);
}

// Data FIS from the device: into the SGEs of the first-party DMA slot (at the DMA Setup
// offset), of the PIO data-in command, or of the non-queued DMA read. Bytes beyond the
// chain are an overrun (CERR_OVERRUN).
// Where a Data FIS from the device belongs: the first-party DMA read in progress, the PIO
// data-in block, or the non-queued DMA command that set BSY (None: no command receives one).
Sil24Hba::Port::DataSink Sil24Hba::Port::d2h_data_sink(const Dev &dv) const {
    if (dv.dma.active && dv.dma.d2h)
        return {DataSink::Kind::Fpdma, dv.dma.slot};
    if (dv.pio.active && dv.pio.d2h && dv.busy_slot >= 0)
        return {DataSink::Kind::Pio, unsigned(dv.busy_slot)};
    if (dv.busy_slot >= 0 && !slots_[dv.busy_slot].ncq && !slots_[dv.busy_slot].srst && !dv.pio.active)
        return {DataSink::Kind::Dma, unsigned(dv.busy_slot)};
    return {};
}

void Sil24Hba::Port::on_data(const sata::Fis &fis, Dev &dv) {
    using Kind = DataSink::Kind;
    const DataSink sink = d2h_data_sink(dv);
    const Kind kind = sink.kind;
    const unsigned slot = sink.slot;
    uint64_t pos, room;
    if (kind == Kind::Fpdma) {
        pos = uint64_t(dv.dma.offset) + dv.dma.done;
        room = dv.dma.count - dv.dma.done;
    } else if (kind == Kind::Pio) {
        pos = slots_[slot].done;
        room = dv.pio.count;
    } else if (kind == Kind::Dma) {
        if (!direction_ok(slots_[slot], true))
            return fail(CERR_DIRECTION, int(slot), "Data FIS for a write command");
        pos = slots_[slot].done;
        room = ~0ull;
    } else {
        return fail(CERR_INCONSISTENT, dv.busy_slot, "Data FIS with no receiving command");
    }
    Slot &s = slots_[slot];
    const size_t take = size_t(std::min<uint64_t>(fis.payload_size(), room));
    size_t moved = 0;
    Dma r = sge_move(s, slot, pos, const_cast<uint8_t *>(fis.payload()), take, true, &moved);
    if (r != Dma::Ok)
        return;
    s.done += uint32_t(moved);
    if (kind == Kind::Fpdma) {
        dv.dma.done += uint32_t(take);
        if (dv.dma.done >= dv.dma.count)
            dv.dma = DmaCtx{};
    }
    if (moved < take)
        return fail(CERR_OVERRUN, int(slot), "device sent more data than the SGEs hold");
    if (kind == Kind::Pio)
        finish_pio(dv);
}

// PMP_RESUME while the port is stopped on a command error (docs/hardware.md 6.7): the port goes
// on with the devices that did not fail; their FISes held meanwhile are decoded first.
void Sil24Hba::Port::pmp_resume() {
    if (!halted_ || !pmp_en())
        return;
    halted_ = false;
    trace("sil24.pmp_resume", {{"stopped", TraceValue::hex(dev_err_)},
                               {"held", TraceValue::integer(int64_t(held_.size()))}});
    rxq_.insert(rxq_.begin(), held_.begin(), held_.end());
    held_.clear();
    wake_.notify(sc_core::SC_ZERO_TIME);
}

} // namespace satasim::sil24
