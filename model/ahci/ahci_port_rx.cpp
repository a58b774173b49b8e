// AHCI 1.3.1 chapters 4.2.1 and 5.3 (receive side): FISes from the device. The link
// callback only validates and queues; the engine thread posts each FIS to the received-FIS
// area at PxFB (DSFIS 00h, PSFIS 20h, RFIS 40h, SDBFIS 58h, UFIS 60h) when FIS receive
// runs, updates PxTFD / PxSIG / PxSACT / PxSNTF, moves Data FIS payloads into PRD buffers,
// and raises the PxIS bit the FIS's I bit asks for. With FIS-based switching (PxFBS.EN)
// the FIS's PM Port field selects the device context it belongs to and its 256-byte area
// (PxFB + 256 * PM port); a device's error status stops only that device (SDE/DWE).
#include <algorithm>

#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;
using sata::FisType;
using sata::kAtaBsy;
using sata::kAtaDrq;
using sata::kAtaErr;
using sata::kFisDirD2H;
using sata::kFisInterrupt;

namespace {
// Length in bytes of the fixed-size FIS types a device may send, 0 otherwise (a Register
// H2D FIS from the device is as unknown to the host as an undefined type).
size_t d2h_fis_length(uint8_t type) {
    const FisType t = FisType(type);
    return t == FisType::RegH2D ? 0 : sata::fis_fixed_length(t);
}
} // namespace

bool AhciHba::Port::receive_fis(const sata::Fis &fis) {
    const auto &b = fis.bytes;
    bool ok = b.size() >= 4 && b.size() % 4 == 0;
    if (ok) {
        const uint8_t type = b[0];
        if (type == uint8_t(FisType::Data))
            ok = b.size() >= 8 && b.size() <= 4 + sata::kMaxDataFisPayload;
        else if (size_t len = d2h_fis_length(type))
            ok = b.size() == len;
        // other types are "unknown" and end up in UFIS
    }
    if (!ok) {
        // Malformed frame: refused with R_ERR; the device may retry it.
        set_serr(SERR_ERR_T | SERR_DIAG_T);
        set_is(IS_INFS);
        return false;
    }
    if (!(cmd_ & CMD_FR) && b[0] != uint8_t(FisType::RegD2H))
        return false; // nowhere to post it (see ready_to_receive)
    rxq_.push_back(fis);
    wake_.notify(sc_core::SC_ZERO_TIME);
    return true;
}

// Command-based switching with a port multiplier attached (CAP.SPM, PxCMD.PMA, FBS off):
// the outstanding commands all address one PM port (the header PMP field); a FIS from
// any other port is unexpected. -1: nothing outstanding, any port may talk.
int AhciHba::Port::expected_pmp() const {
    if (!hba_.cfg_.spm || !(cmd_ & CMD_PMA) || (fbs_ & FBS_EN))
        return -1;
    const DevCtx &d = dev_[0];
    if (d.busy_slot >= 0)
        return slot_pmp(slots_[d.busy_slot]);
    if (d.dma.active)
        return slot_pmp(slots_[d.dma.slot]);
    for (unsigned t = 0; t < 32; ++t)
        if ((sact_ & (1u << t)) && slots_[t].valid)
            return slot_pmp(slots_[t]);
    return -1;
}

void AhciHba::Port::process_fis(const sata::Fis &fis) {
    if (!sleep(cycles::kFisDecode, false))
        return;
    // FIS-based switching: the PM Port field picks the device context (AHCI 1.3.1 9.3.2).
    select_dev(fis.pm_port());
    const int want = expected_pmp();
    // An asynchronous notification (SDB with N = 1 from the PMP control port) may come
    // at any time.
    const bool notify = fis.bytes[0] == uint8_t(FisType::SetDeviceBits) &&
                        (fis.bytes[1] & sata::kFisCommand) && fis.pm_port() == 15;
    if (want >= 0 && fis.pm_port() != want && !notify) {
        // AHCI 1.3.1 3.3.5 / 9.3: incorrect port multiplier status; the FIS is dropped.
        trace("ahci.error", {{"kind", TraceValue::str("IPMS")},
                             {"pm_port", TraceValue::integer(fis.pm_port())},
                             {"expected", TraceValue::integer(want)}},
              "FIS from an unexpected port-multiplier port");
        set_is(IS_IPMS);
        return;
    }
    switch (fis.bytes[0]) {
    case uint8_t(FisType::RegD2H):
        return on_d2h(fis);
    case uint8_t(FisType::PioSetup):
        return on_pio_setup(fis);
    case uint8_t(FisType::DmaSetup):
        return on_dma_setup(fis);
    case uint8_t(FisType::SetDeviceBits):
        return on_sdb(fis);
    case uint8_t(FisType::DmaActivate):
        return send_data_out();
    case uint8_t(FisType::Data):
        return on_data(fis);
    case uint8_t(FisType::Bist):
        // BIST Activate from the device: loopback test modes are not modelled.
        trace("ahci.bist_ignored");
        return;
    default:
        return on_unknown(fis);
    }
}

// Copy a FIS into its slot of the received-FIS area (only while PxCMD.FR = 1). False if
// the engine was reset meanwhile or the area is not in host memory (HBFS).
bool AhciHba::Port::post_fis(uint32_t area_off, const sata::Fis &fis, size_t len) {
    if (!(cmd_ & CMD_FR))
        return true;
    len = std::min(len, fis.bytes.size());
    const uint64_t addr = fb_addr(fis.pm_port()) + area_off;
    Dma r = dma_write(bus::BusAccess::Fis, "received FIS area", addr, fis.bytes.data(), len, false);
    if (r == Dma::Fault)
        host_bus_error("received FIS area", addr, -1);
    return r == Dma::Ok;
}

// Register D2H: the device's status. Loads PxTFD (and PxSIG for the first one after a
// reset); BSY = DRQ = 0 releases the slot that set BSY: a non-queued command completes,
// an NCQ command is accepted. ERR stops the engine (TFES) with PxCI left set.
void AhciHba::Port::on_d2h(const sata::Fis &fis) {
    if (!post_fis(RX_RFIS, fis, 20))
        return;
    const uint8_t status = fis.at(2), error = fis.at(3);
    if (sig_pending_) {
        sig_pending_ = false;
        sig_ = uint32_t(fis.at(12)) | uint32_t(fis.at(4)) << 8 | uint32_t(fis.at(5)) << 16 |
               uint32_t(fis.at(6)) << 24;
        trace("ahci.signature", {{"sig", TraceValue::hex(sig_)},
                                 {"status", TraceValue::hex(status)}});
    }
    tfd_ = status | uint32_t(error) << TFD_ERR_SHIFT;
    dc().sts = status;
    dc().pio = Pio{};
    if (status & kAtaErr)
        device_error("error status in D2H FIS", dc().busy_slot);
    else if (!(status & (kAtaBsy | kAtaDrq)) && dc().busy_slot >= 0)
        complete_slot(unsigned(dc().busy_slot));
    if (fis.at(1) & kFisInterrupt)
        set_completion_is(IS_DHRS, status & kAtaErr);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// PIO Setup: PxTFD takes the initial status; the data phase follows. Data-in waits for
// the device's Data FIS; data-out sends one Data FIS of the transfer count at once (the
// CDB from ACMD first for an ATAPI command). E_Status is applied after the data.
void AhciHba::Port::on_pio_setup(const sata::Fis &fis) {
    if (!post_fis(RX_PSFIS, fis, 20))
        return;
    const uint8_t status = fis.at(2), error = fis.at(3);
    tfd_ = status | uint32_t(error) << TFD_ERR_SHIFT;
    dc().sts = status;
    if (status & kAtaErr)
        return device_error("error status in PIO Setup FIS", dc().busy_slot);
    if (dc().busy_slot < 0 || slots_[dc().busy_slot].queued)
        return protocol_error("PIO Setup without a non-queued command");
    dc().pio.active = true;
    dc().pio.d2h = fis.at(1) & kFisDirD2H;
    dc().pio.irq = fis.at(1) & kFisInterrupt;
    dc().pio.e_status = fis.at(15);
    dc().pio.count = uint32_t(fis.at(16)) | uint32_t(fis.at(17)) << 8;
    if (dc().pio.d2h)
        return;
    const unsigned slot = unsigned(dc().busy_slot);
    Slot &s = slots_[slot];
    const bool acmd = (s.flags & HDR_A) && !s.acmd_sent;
    if (dc().pio.count == 0) {
        set_serr(SERR_ERR_P);
        return halt(IS_IFS, "PIO data-out with zero transfer count", int(slot));
    }
    if (transmit_data(slot, s.done, dc().pio.count, acmd))
        finish_pio();
}

// End of a PIO data block: PxTFD.STS = E_Status; BSY = DRQ = 0 completes the command
// (PIO data-in has no closing D2H FIS); PSS is raised only now, after the data moved.
void AhciHba::Port::finish_pio() {
    const uint8_t e = dc().pio.e_status;
    const bool irq = dc().pio.irq;
    dc().pio = Pio{};
    tfd_ = (tfd_ & TFD_ERR_MASK) | e;
    dc().sts = e;
    if (e & kAtaErr)
        device_error("error in PIO E_Status", dc().busy_slot);
    else if (!(e & (kAtaBsy | kAtaDrq)) && dc().busy_slot >= 0)
        complete_slot(unsigned(dc().busy_slot));
    if (irq)
        set_completion_is(IS_PSS, e & kAtaErr);
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// DMA Setup (first-party DMA, NCQ): the DMA buffer identifier's bits 4:0 select the
// command slot; offset and count delimit the transfer in that slot's PRDT.
void AhciHba::Port::on_dma_setup(const sata::Fis &fis) {
    if (!post_fis(RX_DSFIS, fis, 28))
        return;
    const unsigned tag = fis.dword(1) & 0x1F;
    if (tag >= hba_.cfg_.n_slots || !slots_[tag].valid)
        return protocol_error("DMA Setup for a slot with no command");
    if (fbs_on() && slot_dev_[tag] != cur_)
        return protocol_error("DMA Setup for a slot of another device");
    dc().dma.active = true;
    dc().dma.d2h = fis.at(1) & kFisDirD2H;
    dc().dma.slot = tag;
    dc().dma.offset = fis.dword(4) & ~3u;
    dc().dma.count = fis.dword(5);
    dc().dma.done = 0;
    if (dc().dma.count == 0)
        dc().dma = DmaCtx{};
    if (fis.at(1) & kFisInterrupt)
        set_is(IS_DSS);
    if (dc().dma.active && !dc().dma.d2h && (fis.at(1) & sata::kFisCommand))
        send_data_out(); // auto-activate: no DMA Activate for the first Data FIS
}

// Set Device Bits: status-high/low bits and error into PxTFD (BSY and DRQ untouched),
// completed NCQ tags out of PxSACT, N bit into PxSNTF.
void AhciHba::Port::on_sdb(const sata::Fis &fis) {
    if (!post_fis(RX_SDBFIS, fis, 8))
        return;
    const uint8_t status = fis.at(2), error = fis.at(3);
    const uint32_t sactive = fis.dword(1);
    tfd_ = (tfd_ & (kAtaBsy | kAtaDrq)) | (status & 0x77) | uint32_t(error) << TFD_ERR_SHIFT;
    uint32_t mine = sact_;
    if (fbs_on()) {
        // Shared PxSACT: a device completes only tags it was issued.
        mine = 0;
        for (unsigned t = 0; t < 32; ++t)
            if (slot_dev_[t] == cur_)
                mine |= 1u << t;
        mine &= sact_;
    }
    const uint32_t done = sactive & mine;
    sact_ &= ~done;
    if (done)
        pm_idle_check();
    if (hba_.wave_)
        wave_sample();
    for (unsigned t = 0; t < 32; ++t) {
        if (!(done & (1u << t)))
            continue;
        if (dc().dma.active && dc().dma.slot == t)
            dc().dma = DmaCtx{};
        if (!(ci_ & (1u << t)))
            slots_[t] = Slot{};
    }
    if ((fis.at(1) & sata::kFisCommand) && hba_.cfg_.ssntf)
        sntf_ |= 1u << fis.pm_port();
    if (status & kAtaErr)
        device_error("error status in Set Device Bits FIS", -1);
    if (fis.at(1) & kFisInterrupt)
        set_completion_is(IS_SDBS, (status & kAtaErr) || !done); // no tag: a notification
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// Data FIS from the device: into the PRDT of the first-party DMA slot (at the DMA Setup
// offset), of the PIO data-in command (transfer count from PIO Setup) or of the
// non-queued DMA read. Bytes beyond the PRDT are an overflow (OFS, engine stops).
void AhciHba::Port::on_data(const sata::Fis &fis) {
    enum class Kind { Fpdma, Pio, Dma } kind;
    unsigned slot;
    uint64_t pos, room;
    if (dc().dma.active && dc().dma.d2h) {
        kind = Kind::Fpdma;
        slot = dc().dma.slot;
        pos = uint64_t(dc().dma.offset) + dc().dma.done;
        room = dc().dma.count - dc().dma.done;
    } else if (dc().pio.active && dc().pio.d2h && dc().busy_slot >= 0) {
        kind = Kind::Pio;
        slot = unsigned(dc().busy_slot);
        pos = slots_[slot].done;
        room = dc().pio.count;
    } else if (dc().busy_slot >= 0 && !slots_[dc().busy_slot].queued && !dc().pio.active) {
        kind = Kind::Dma;
        slot = unsigned(dc().busy_slot);
        pos = slots_[slot].done;
        room = ~0ull;
    } else {
        return protocol_error("Data FIS with no receiving command");
    }
    Slot &s = slots_[slot];
    // Anything past the transfer count is dword padding of an odd-sized transfer.
    const size_t take = size_t(std::min<uint64_t>(fis.payload_size(), room));
    size_t moved = 0;
    Dma r = prd_move(s, pos, const_cast<uint8_t *>(fis.payload()), take, true, &moved);
    if (r == Dma::Aborted)
        return;
    s.done += uint32_t(moved);
    if (r == Dma::Fault)
        return;
    if (!write_prdbc(s))
        return;
    if (kind == Kind::Fpdma) {
        dc().dma.done += uint32_t(take);
        if (dc().dma.done >= dc().dma.count)
            dc().dma = DmaCtx{};
    }
    if (moved < take) {
        dc().pio = Pio{};
        return halt(IS_OFS, "device sent more data than the PRDT describes", int(slot));
    }
    if (kind == Kind::Pio)
        finish_pio();
}

// Unknown FIS type: posted to UFIS (up to 64 bytes), SError.DIAG.F (PxIS.UFS mirrors it).
void AhciHba::Port::on_unknown(const sata::Fis &fis) {
    if (!post_fis(RX_UFIS, fis, kUfisMax))
        return;
    trace("ahci.error", {{"kind", TraceValue::str("UFS")},
                         {"type", TraceValue::hex(fis.bytes[0])}},
          "unknown FIS type");
    set_serr(SERR_DIAG_F);
}

// A frame from the device failed on the wire (docs/hardware.md 2.6, 3.2): the HBA answered
// R_ERR and the FIS is gone. SError records why; with commands outstanding the lost FIS
// (data or status) leaves the transfer unrecoverable, so it is an interface fatal error.
// Errors on our own transmissions reach the engine as FrameStatus::Error from send.
void AhciHba::Port::receive_error(link::LinkError err) {
    // PxSERR.DIAG.D is "not used by AHCI" (AHCI 1.3.1 3.3.12): a disparity error is one of
    // the decoder's errors, DIAG.B.
    const uint32_t bits =
        link::serror_bits(err == link::LinkError::RxDisparity ? link::LinkError::RxDecode : err);
    if (!bits)
        return;
    set_serr(bits);
    trace("ahci.rx_error", {{"error", TraceValue::str(link::to_string(err))}}, "frame from device lost");
    if (!link::symbol_error(err) && (cmd_ & CMD_ST) && (ci_ | sact_))
        halt(IS_IFS, "frame from device failed on the wire", fbs_on() ? -1 : dev_[0].busy_slot);
}

} // namespace satasim::ahci
