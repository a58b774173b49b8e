// AHCI 1.3.1 chapter 5: the port's DMA engine. One SC_THREAD per port that, while it has
// work, advances in core clock cycles: it drains the received-FIS queue (ahci_port_rx.cpp)
// and issues commands from the command list (header fetch, command table, PRDT), moves
// data between PRD buffers and the link, and waits on an event when idle.
#include <algorithm>

#include "model/ahci/ahci_port.h"

namespace satasim::ahci {

using namespace reg;
using sata::kAtaBsy;
using sata::kAtaDrq;

void AhciHba::Port::engine_thread() {
    for (;;) {
        if (!rxq_.empty()) {
            sata::Fis fis = std::move(rxq_.front());
            rxq_.pop_front();
            process_fis(fis);
            continue;
        }
        if (can_issue()) {
            issue_next();
            continue;
        }
        wait(wake_);
        bus::wait_for_clock_edge(period_); // work that arrives between edges starts on one
    }
}

// Time passes in core cycles. Returns false when a reset (or, for command work, a stop)
// happened meanwhile: the caller drops what it was doing.
bool AhciHba::Port::sleep(uint64_t n, bool cmd) {
    uint64_t e = epoch_, ce = cmd_epoch_;
    if (n)
        wait(period_ * double(n));
    return e == epoch_ && (!cmd || ce == cmd_epoch_);
}

bus::HostMemory &AhciHba::Port::dma_memory() { return hba_.mem_; }

uint64_t AhciHba::Port::clb_addr() const {
    return clb_ | (hba_.cfg_.s64a ? uint64_t(clbu_) << 32 : 0);
}

uint64_t AhciHba::Port::fb_addr(uint8_t pm_port) const {
    uint64_t base = fb_ | (hba_.cfg_.s64a ? uint64_t(fbu_) << 32 : 0);
    if (fbs_on()) // 16 areas of 256 B from a 4 KiB boundary, one per PM port
        base = (base & ~uint64_t(~kFbAlignMaskFbs)) + uint64_t(kRxFisSize) * (pm_port & 0xF);
    return base;
}

uint8_t AhciHba::Port::slot_pmp(const Slot &s) const {
    return hba_.cfg_.spm ? uint8_t((s.flags & HDR_PMP_MASK) >> HDR_PMP_SHIFT) : 0;
}

// FIS-based switching: a command may go to its device when that device is idle from the
// HBA's point of view (no command FIS waiting for its D2H, no data phase, BSY and DRQ
// clear as it last reported them) and has no single device error pending.
bool AhciHba::Port::slot_ready(unsigned slot) const {
    if (!fbs_on())
        return true;
    const DevCtx &d = dev_[slot_dev_[slot]];
    return !d.error && d.busy_slot < 0 && !d.pio.active && !d.dma.active &&
           !(d.sts & (kAtaBsy | kAtaDrq));
}

bool AhciHba::Port::can_issue() const {
    if (!link_ || !(cmd_ & CMD_ST) || !(cmd_ & CMD_CR) || halted_)
        return false;
    const uint32_t pending = ci_ & ~issued_;
    if (pending == 0)
        return false;
    if (fbs_on()) {
        // Commands to the other devices go out while one device is busy.
        bool any = false;
        for (unsigned t = 0; t < 32 && !any; ++t)
            any = (pending & (1u << t)) && slot_ready(t);
        return any && link_->established();
    }
    // The HBA only sends a command FIS while the device is idle from its point of view
    // (BSY and DRQ clear) and no data phase (PIO or first-party DMA) is in progress.
    const DevCtx &d = dev_[0];
    if ((tfd_ & (kAtaBsy | kAtaDrq)) || d.busy_slot >= 0 || d.pio.active || d.dma.active)
        return false;
    // Established, Active or in Partial/Slumber: the command FIS wakes the link.
    return link_->established();
}

// Command issue (AHCI 5.3.2, CFIS states): pick the next PxCI slot round-robin, fetch its
// header, command FIS and PRDT, and transmit the FIS. On R_OK the slot either completes at
// once (header C bit) or sets PxTFD.BSY until the device's D2H FIS releases it.
void AhciHba::Port::issue_next() {
    const AhciConfig &cfg = hba_.cfg_;
    const unsigned n = cfg.n_slots;
    const uint32_t pending = ci_ & ~issued_;
    unsigned slot = last_slot_;
    for (unsigned i = 0; i < n; ++i) {
        slot = (slot + 1) % n;
        if ((pending & (1u << slot)) && slot_ready(slot))
            break;
    }
    cur_ = fbs_on() ? slot_dev_[slot] : 0;
    const uint32_t bit = 1u << slot;
    last_slot_ = slot;
    issued_ |= bit;
    cmd_ = (cmd_ & ~CMD_CCS_MASK) | slot << CMD_CCS_SHIFT;
    Slot &s = slots_[slot];
    s = Slot{};
    s.hdr = clb_addr() + uint64_t(kCmdHeaderSize) * slot;
    if (!sleep(cycles::kIssueSetup, true))
        return;

    uint32_t hdr[4];
    Dma r = dma_read(bus::BusAccess::Command, "command header fetch", s.hdr, hdr, sizeof hdr, true);
    if (r == Dma::Aborted)
        return;
    if (r == Dma::Fault)
        return host_bus_error("command header fetch", s.hdr, int(slot));
    s.flags = hdr[0];
    s.ctba = (hdr[2] & kCtbaAlignMask) | (cfg.s64a ? uint64_t(hdr[3]) << 32 : 0);
    const unsigned cfl = hdr[0] & HDR_CFL_MASK;
    if (cfl < 2 || cfl > 16) {
        set_serr(SERR_ERR_E);
        return halt(IS_IFS, "invalid command FIS length", int(slot));
    }
    sata::Fis fis;
    fis.bytes.resize(cfl * 4);
    r = dma_read(bus::BusAccess::Command, "command FIS fetch", s.ctba + CT_CFIS, fis.bytes.data(), fis.bytes.size(),
                 true);
    if (r == Dma::Aborted)
        return;
    if (r == Dma::Fault)
        return host_bus_error("command FIS fetch", s.ctba, int(slot));

    // CAP.SPM: the header's PMP field addresses the FIS (docs/hardware.md 5.3); the same port
    // goes into the Data FISes of the command and is what its answers must come from.
    if (cfg.spm)
        fis.bytes[1] = uint8_t((fis.bytes[1] & ~sata::kFisPmPortMask) | slot_pmp(s));
    if (fbs_on() && slot_pmp(s) != slot_dev_[slot]) {
        violation("fbs_dev_mismatch", "slot " + std::to_string(slot) + " issued with PxFBS.DEV " +
                                          std::to_string(slot_dev_[slot]) +
                                          " but its command header names PM port " +
                                          std::to_string(slot_pmp(s)));
        slot_dev_[slot] = slot_pmp(s); // the header's port is where the FIS goes
        cur_ = slot_dev_[slot];
    }

    const unsigned prdtl = hdr[0] >> HDR_PRDTL_SHIFT;
    if (prdtl) {
        std::vector<uint32_t> raw(size_t(prdtl) * 4);
        r = dma_read(bus::BusAccess::Command, "PRDT fetch", s.ctba + CT_PRDT, raw.data(), raw.size() * 4, true);
        if (r == Dma::Aborted)
            return;
        if (r == Dma::Fault)
            return host_bus_error("PRDT fetch", s.ctba + CT_PRDT, int(slot));
        s.prds.resize(prdtl);
        uint64_t pos = 0;
        for (unsigned i = 0; i < prdtl; ++i) {
            Prd &p = s.prds[i];
            p.addr = (raw[4 * i] & ~1u) | (cfg.s64a ? uint64_t(raw[4 * i + 1]) << 32 : 0);
            p.len = (raw[4 * i + 3] & PRD_DBC_MASK) + 1;
#ifdef SATASIM_PLANT_AHCI_LAST_PRD_DBC
            if (i + 1 == prdtl && prdtl > 1)
                p.len -= 1; // planted: the last entry's 0-based DBC read as the length
#endif
            p.irq = raw[4 * i + 3] & PRD_I;
            p.start = pos;
            pos += p.len;
        }
        s.prd_total = pos;
    }
    s.queued = (sact_ & bit) != 0;
    s.valid = true;
    // AHCI 5.3.2 / SATA NCQ: PxSACT marks exactly the slots issued with a queued command.
    const bool fpdma = fis.bytes.size() >= 4 && fis.bytes[0] == uint8_t(sata::FisType::RegH2D) &&
                       (fis.bytes[1] & sata::kFisCommand) &&
                       (fis.bytes[2] == 0x60 || fis.bytes[2] == 0x61 || fis.bytes[2] == 0x63 ||
                        fis.bytes[2] == 0x64 || fis.bytes[2] == 0x65);
    if (s.queued && !fpdma)
        violation("sact_without_ncq_command",
                  "PxSACT bit of slot " + std::to_string(slot) + " set for a non-queued command");
    else if (!s.queued && fpdma)
        violation("ncq_command_without_sact",
                  "FPDMA command in slot " + std::to_string(slot) + " without its PxSACT bit");

    // A Device Control FIS asserting SRST starts a software reset: the device will
    // answer the SRST release with its signature, which loads PxSIG again (this is how
    // PxSIG also reports port-multiplier and fan-out signatures after SRST).
    const bool srst = fis.bytes.size() >= 16 && fis.bytes[0] == uint8_t(sata::FisType::RegH2D) &&
                      !(fis.bytes[1] & sata::kFisCommand) && (fis.bytes[15] & sata::kAtaSrst);
    if ((s.flags & HDR_R) || srst) {
        // Reset-sequence FIS: whatever data phase was pending is abandoned.
        dc().pio = Pio{};
        dc().dma = DmaCtx{};
    }
    if (srst)
        sig_pending_ = true;

    const uint64_t ce = cmd_epoch_;
    link::FrameStatus st = link_->send_from_host(fis);
    if (ce != cmd_epoch_)
        return; // stopped or reset while the frame was on the wire
    switch (st) {
    case link::FrameStatus::Ok:
        if (s.flags & HDR_C) {
            tfd_ &= ~uint32_t(kAtaBsy);
            dc().sts &= uint8_t(~kAtaBsy);
            complete_slot(slot);
        } else {
            tfd_ |= kAtaBsy;
            dc().sts |= kAtaBsy;
            dc().busy_slot = int(slot);
        }
        break;
    case link::FrameStatus::Error:
        set_serr(SERR_DIAG_H | SERR_ERR_T);
        halt(IS_IFS, "command FIS answered R_ERR", int(slot));
        break;
    case link::FrameStatus::NoLink:
        // PHY went down: the FIS never left. It is retried once the link is back.
        issued_ &= ~bit;
        s = Slot{};
        break;
    }
}

// PxCI clears: the slot's command is finished (non-queued) or accepted (NCQ, which stays
// tracked by PxSACT until a Set Device Bits FIS names its tag).
void AhciHba::Port::complete_slot(unsigned slot) {
    // After a fatal error the engine is stopped (ERR:Fatal): FISes are still received and
    // shadowed, but no PxCI bit clears until software has cleared PxCMD.ST.
    // With FBS a device in error keeps its commands in PxCI until PxFBS.DEC.
    DevCtx &d = slot_ctx(slot);
    if (halted_ || d.error)
        return;
    const uint32_t bit = 1u << slot;
    ci_ &= ~bit;
    issued_ &= ~bit;
    if (d.busy_slot == int(slot))
        d.busy_slot = -1;
    if (!slots_[slot].queued)
        slots_[slot] = Slot{};
    if (hba_.wave_)
        wave_sample();
    wake_.notify(sc_core::SC_ZERO_TIME);
    pm_idle_check();
}

// Scatter/gather through the slot's PRDT starting at byte position pos of the command's
// buffer. Moves min(len, bytes left in the PRDT); *moved says how many. DBC is a 0-based
// byte count; an entry with the I bit raises PxIS.DPS when its last byte moves. The cost
// is one bus latency plus one core cycle per dword, charged as one wait for the burst.
AhciHba::Port::Dma AhciHba::Port::prd_move(Slot &s, uint64_t pos, uint8_t *buf, size_t len,
                                           bool to_mem, size_t *moved) {
    *moved = 0;
    const int slot = int(&s - slots_.data());
    const uint64_t avail = pos < s.prd_total ? s.prd_total - pos : 0;
    const size_t n = size_t(std::min<uint64_t>(len, avail));
    if (!sleep(cycles::kDma.burst_cycles(to_mem, n), true))
        return Dma::Aborted;
    bool dps = false;
    *moved = bus::for_each_sg_piece(s.prds, pos, n, [&](const Prd &p, uint64_t in, size_t off, size_t c) {
        const bool injected = bus_error_injected(bus::BusAccess::Data, "PRD data", p.addr + in, c);
        const bool master = injected || bus_master_ok(p.addr + in, c);
        if (injected || !master ||
            !(to_mem ? hba_.mem_.write(p.addr + in, buf + off, c) : hba_.mem_.read(p.addr + in, buf + off, c))) {
            if (!injected && master)
                dma_violation(p.addr + in, c);
            if (dps)
                set_completion_is(IS_DPS, false);
            host_bus_error("PRD data", p.addr + in, slot);
            return false;
        }
        dps = dps || (in + c == p.len && p.irq);
        return true;
    });
    if (*moved < n)
        return Dma::Fault;
    if (dps)
        set_completion_is(IS_DPS, false);
    return Dma::Ok;
}

// PRDBC (command header dword 1) write-back.
bool AhciHba::Port::write_prdbc(Slot &s) {
    const uint32_t v = s.done;
    Dma r = dma_write(bus::BusAccess::Command, "PRDBC write-back", s.hdr + 4, &v, 4, true);
    if (r == Dma::Fault)
        host_bus_error("PRDBC write-back", s.hdr + 4, int(&s - slots_.data()));
    return r == Dma::Ok;
}

// One host-to-device Data FIS of n bytes: from the PRDT at pos, or (ATAPI) the ACMD area
// for the PACKET command's CDB. Updates PRDBC. False if the transfer failed or was aborted.
bool AhciHba::Port::transmit_data(unsigned slot, uint64_t pos, uint32_t n, bool acmd) {
    Slot &s = slots_[slot];
    std::vector<uint8_t> buf(n);
    if (acmd) {
        if (n > CT_PRDT - CT_ACMD) {
            protocol_error("CDB transfer longer than the ACMD area");
            return false;
        }
        Dma r = dma_read(bus::BusAccess::Command, "ACMD fetch", s.ctba + CT_ACMD, buf.data(), n, true);
        if (r == Dma::Fault)
            host_bus_error("ACMD fetch", s.ctba + CT_ACMD, int(slot));
        if (r != Dma::Ok)
            return false;
    } else {
        size_t moved = 0;
        if (prd_move(s, pos, buf.data(), n, false, &moved) != Dma::Ok)
            return false;
        if (moved < n) {
            set_serr(SERR_ERR_P);
            halt(IS_IFS, "device asked for more data than the PRDT holds", int(slot));
            return false;
        }
    }
    const uint64_t ce = cmd_epoch_;
    link::FrameStatus st = link_->send_from_host(sata::make_data(buf.data(), n, slot_pmp(s)));
    if (ce != cmd_epoch_)
        return false;
    if (st != link::FrameStatus::Ok) {
        // R_ERR on a Data FIS (or the PHY dropped under it): interface fatal error.
        set_serr(st == link::FrameStatus::Error ? (SERR_DIAG_H | SERR_ERR_T) : SERR_ERR_C);
        halt(IS_IFS, st == link::FrameStatus::Error ? "Data FIS answered R_ERR"
                                                    : "link lost during Data FIS",
             int(slot));
        return false;
    }
    if (acmd) {
        s.acmd_sent = true;
        return true;
    }
    s.done += n;
    return write_prdbc(s);
}

// DMA Activate (or a DMA Setup with auto-activate): send the next Data FIS, at most
// 8 KiB, of the first-party DMA transfer (NCQ write) or of the non-queued DMA write.
void AhciHba::Port::send_data_out() {
    unsigned slot;
    uint64_t pos;
    uint32_t n;
    const bool fpdma = dc().dma.active && !dc().dma.d2h;
    if (fpdma) {
        slot = dc().dma.slot;
        pos = uint64_t(dc().dma.offset) + dc().dma.done;
        n = std::min<uint32_t>(uint32_t(sata::kMaxDataFisPayload), dc().dma.count - dc().dma.done);
    } else if (dc().busy_slot >= 0 && !slots_[dc().busy_slot].queued && !dc().pio.active) {
        slot = unsigned(dc().busy_slot);
        const Slot &s = slots_[slot];
        pos = s.done;
        n = uint32_t(std::min<uint64_t>(sata::kMaxDataFisPayload,
                                        s.prd_total > pos ? s.prd_total - pos : 0));
    } else {
        return protocol_error("DMA Activate without a host-to-device transfer");
    }
    if (n == 0) {
        set_serr(SERR_ERR_P);
        return halt(IS_IFS, "DMA Activate past the end of the transfer", int(slot));
    }
    if (!transmit_data(slot, pos, n, false))
        return;
    if (fpdma) {
        dc().dma.done += n;
        if (dc().dma.done >= dc().dma.count)
            dc().dma = DmaCtx{};
    }
}

// Fatal (or stopping) error: latch the PxIS bit; if the engine runs it stops issuing until
// software clears PxCMD.ST. PxCI keeps the failing slot, CCS points at it. is_bit 0: a
// failing HBA that stops and latches nothing (hba_error with irq none).
void AhciHba::Port::halt(uint32_t is_bit, const char *why, int slot) {
    if (slot >= 0)
        cmd_ = (cmd_ & ~CMD_CCS_MASK) | uint32_t(slot) << CMD_CCS_SHIFT;
    if (cmd_ & CMD_ST)
        halted_ = true;
    // With FBS a port-wide stop is not a single device error (any earlier one included):
    // software recovers the whole port by clearing ST.
    fbs_ &= ~FBS_SDE;
    const char *kind = is_bit == IS_TFES   ? "TFES"
                       : is_bit == IS_HBFS ? "HBFS"
                       : is_bit == IS_IFS  ? "IFS"
                       : is_bit == IS_OFS  ? "OFS"
                       : is_bit == IS_HBDS ? "HBDS"
                       : is_bit == 0       ? "silent"
                                           : "other";
    trace("ahci.error", {{"kind", TraceValue::str(kind)},
                         {"slot", TraceValue::integer(slot)},
                         {"tfd", TraceValue::hex(tfd_)},
                         {"ci", TraceValue::hex(ci_)},
                         {"sact", TraceValue::hex(sact_)}},
          why);
    if (is_bit)
        set_is(is_bit);
}

// Error status from the device the engine works for (D2H, PIO Setup, E_Status, SDB).
// Without FBS: the port stops (halt). With FBS (AHCI 1.3.1 9.3.6): only that device
// stops, its commands stay in PxCI/PxSACT, PxFBS.SDE is set with DWE = its PM port and
// PxIS.TFES raised; the other devices keep running. A second device error before DEC, or
// one while the port is already stopped, is not isolated: the port stops.
void AhciHba::Port::device_error(const char *why, int slot) {
    if (!fbs_on() || halted_ || (fbs_ & FBS_SDE) || !(cmd_ & CMD_ST))
        return halt(IS_TFES, why, slot);
    DevCtx &d = dc();
    d.error = true;
    d.pio = Pio{};
    d.dma = DmaCtx{};
    fbs_ = (fbs_ & ~FBS_DWE_MASK) | FBS_SDE | uint32_t(cur_) << FBS_DWE_SHIFT;
    if (slot >= 0)
        cmd_ = (cmd_ & ~CMD_CCS_MASK) | uint32_t(slot) << CMD_CCS_SHIFT;
    trace("ahci.error", {{"kind", TraceValue::str("TFES")},
                         {"slot", TraceValue::integer(slot)},
                         {"pm_port", TraceValue::integer(cur_)},
                         {"single", TraceValue::boolean(true)},
                         {"tfd", TraceValue::hex(tfd_)},
                         {"ci", TraceValue::hex(ci_)},
                         {"sact", TraceValue::hex(sact_)}},
          why);
    set_is(IS_TFES);
}

void AhciHba::Port::host_bus_error(const char *what, uint64_t addr, int slot) {
    if (hba_error_.hit)
        return hba_error(what, slot);
    trace("ahci.host_bus_error", {{"addr", TraceValue::hex(addr)}}, what);
    halt(IS_HBFS, what, slot);
}

// A FIS that makes no sense in the current state. While the engine runs this is an
// interface fatal error (SError.ERR.P + PxIS.IFS); with ST = 0 the FIS is just dropped
// (e.g. data still arriving for commands the stop threw away).
void AhciHba::Port::protocol_error(const char *what) {
    if (!(cmd_ & CMD_ST)) {
        trace("ahci.fis_dropped", {}, what);
        return;
    }
    set_serr(SERR_ERR_P);
    halt(IS_IFS, what, dc().busy_slot);
}

} // namespace satasim::ahci
