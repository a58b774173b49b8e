// SiI3124 command engine (docs/hardware.md 6.4, 6.5): one SC_THREAD per port that, while it has
// work, advances in core clock cycles. It drains the received-FIS queue
// (sil24_port_rx.cpp) and executes activated slots in activation order: PRB fetch (64-byte
// chunk 0 = PRB + 2 SGEs, copied into the slot's LRAM), command FIS transmission (or the
// two Device Control FISes of an SRST request), scatter/gather through the SGE chain
// (contiguous 4-entry SGTs, LNK to jump, TRM to end, DRD to discard) and the error stop
// with its PORT_CMD_ERR code.
//
// Queuing: an NCQ command (PRB protocol override NCQ, or an FPDMA opcode without the
// override) may be sent whenever the device is not busy and no data phase runs; a
// non-queued command waits until every NCQ command has finished. The NCQ tag of the
// command FIS is set to the slot number (Count 7:3), so SDB/DMA Setup tags are slots.
//
// Port multiplier (PORT_CTRL PMP_EN, docs/hardware.md 6.7): FIS-based switching. Each PM port
// has its own device context (BSY slot, PIO and DMA data phase, NCQ slots), and the rules
// above apply per device: a command goes to a device whose context is idle while other
// devices have commands outstanding, the oldest eligible slot first (one device's
// commands keep their activation order). Without PMP_EN there is one context and the
// oldest activated slot goes first, as on a port with one device.
#include <algorithm>
#include <cstring>

#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

using namespace reg;

namespace {
uint32_t le32(const uint8_t *p) {
    return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}
bool is_fpdma_opcode(uint8_t cmd) { return cmd == 0x60 || cmd == 0x61 || cmd == 0x63 || cmd == 0x64 || cmd == 0x65; }
const char *cerr_name(CmdErr c) {
    switch (c) {
    case CERR_DEV: return "DEV";
    case CERR_SDB: return "SDB";
    case CERR_DATA: return "DATA";
    case CERR_SEND: return "SEND";
    case CERR_INCONSISTENT: return "INCONSISTENT";
    case CERR_DIRECTION: return "DIRECTION";
    case CERR_UNDERRUN: return "UNDERRUN";
    case CERR_OVERRUN: return "OVERRUN";
    case CERR_SGT_BOUNDARY: return "SGT_BOUNDARY";
    case CERR_SGT_MSTABRT: return "SGT_MSTABRT";
    case CERR_CMD_BOUNDARY: return "CMD_BOUNDARY";
    case CERR_CMD_MSTABRT: return "CMD_MSTABRT";
    case CERR_XFR_UNDEF: return "XFR_UNDEF";
    case CERR_XFR_MSTABRT: return "XFR_MSTABRT";
    default: return "other";
    }
}
} // namespace

void Sil24Hba::Port::engine_thread() {
    for (;;) {
        if (!rxq_.empty()) {
            sata::Fis fis = std::move(rxq_.front());
            rxq_.pop_front();
            process_fis(fis);
            continue;
        }
        const int slot = next_slot();
        if (slot >= 0) {
            issue_next(unsigned(slot));
            continue;
        }
        wait(wake_);
        bus::wait_for_clock_edge(period_); // work that arrives between edges starts on one
    }
}

// Time passes in core cycles. False when a reset or INIT happened meanwhile.
bool Sil24Hba::Port::sleep(uint64_t n, bool) {
    const uint64_t e = epoch_;
    if (n)
        wait(period_ * double(n));
    return e == epoch_;
}

bus::HostMemory &Sil24Hba::Port::dma_memory() { return hba_.mem_; }

// The queued slot the engine works on next (PRB fetch or command FIS), or -1.
int Sil24Hba::Port::next_slot() const {
    if (!link_ || halted_ || queue_.empty() || !(ctrl_ & CS_RDY) ||
        (ctrl_ & (CS_PORT_RST | CS_INIT | CS_DEV_RST)) || !link_->phy_ready())
        return -1;
    if (!pmp_en()) {
        const Dev &dv = dev_[0];
        if (dv.busy_slot >= 0 || dv.pio.active || dv.dma.active)
            return -1;
        const unsigned slot = queue_.front();
        const Slot &s = slots_[slot];
        if (!s.fetched)
            return int(slot); // the PRB fetch itself needs no wire
        return s.ncq || s.srst || sact_ == 0 ? int(slot) : -1;
    }
    uint32_t blocked = dev_err_; // a device stopped on an error takes nothing until INIT
    for (unsigned slot : queue_) {
        const Slot &s = slots_[slot];
        if (!s.fetched)
            return int(slot); // its PM port is in the PRB
        if (blocked & (1u << s.dev))
            continue;
        const Dev &dv = dev_[s.dev];
        if (dv.busy_slot < 0 && !dv.pio.active && !dv.dma.active &&
            (s.ncq || s.srst || dv.sact == 0))
            return int(slot);
        blocked |= 1u << s.dev; // later commands to this device wait behind this one
    }
    return -1;
}

// Chunk 0 of the PRB: from host memory (8-byte aligned, else CMD_BOUNDARY) into the
// slot's LRAM, or straight from LRAM for a PORT_EXEC_FIFO execution.
bool Sil24Hba::Port::fetch_prb(unsigned slot) {
    Slot &s = slots_[slot];
    cur_dev_ = 0; // PM port unknown until the PRB is in
    if (!sleep(cycles::kIssueSetup, true))
        return false;
    if (s.from_lram) {
        std::memcpy(s.chunk0, &lram_[lram_slot(slot)], kPrbChunk);
    } else {
        if (s.prb & 7) {
            fail(CERR_CMD_BOUNDARY, int(slot), "PRB not 8-byte aligned");
            return false;
        }
        Dma r = mem_read(s.prb, s.chunk0, kPrbChunk, true);
        if (r == Dma::Aborted)
            return false;
        if (r == Dma::Fault) {
            fail(CERR_CMD_MSTABRT, int(slot), "master abort fetching the PRB");
            return false;
        }
        std::memcpy(&lram_[lram_slot(slot)], s.chunk0, kPrbChunk);
    }
    s.ctrl = uint16_t(s.chunk0[PRB_CTRL] | s.chunk0[PRB_CTRL + 1] << 8);
    s.prot = uint16_t(s.chunk0[PRB_PROT] | s.chunk0[PRB_PROT + 1] << 8);
    s.pm_port = s.chunk0[PRB_FIS + 1] & 0xF;
    s.dev = pmp_en() ? s.pm_port : 0;
    s.srst = s.ctrl & PRB_CTRL_SRST;
    const uint8_t opcode = s.chunk0[PRB_FIS + 2];
    s.ncq = !s.srst && ((s.ctrl & PRB_CTRL_PROTOCOL) ? (s.prot & PRB_PROT_NCQ) != 0
                                                     : is_fpdma_opcode(opcode));
    s.fetched = true;
    return true;
}

// Walk the SGE chain the first time the command moves data: chunk 0 holds SGE 0 and 1
// (only SGE 0 after an ATAPI CDB); the chain continues in 64-byte SGTs contiguous after
// the PRB, or wherever a LNK entry points (8-byte aligned). A PRB executed from LRAM has
// nothing after chunk 0, so its chain must end or link there.
bool Sil24Hba::Port::resolve_sges(unsigned slot) {
    Slot &s = slots_[slot];
    if (s.sges_resolved)
        return true;
    const bool packet = (s.prot & PRB_PROT_PACKET) ||
                        (s.ctrl & (PRB_CTRL_PACKET_READ | PRB_CTRL_PACKET_WRITE));
    uint8_t chunk[kPrbChunk];
    std::memcpy(chunk, s.chunk0, kPrbChunk);
    unsigned idx = packet ? 3 : 2;    // entry index inside the current 64-byte chunk
    uint64_t chunk_addr = s.prb;      // bus address of the current chunk
    bool in_lram = s.from_lram;
    uint64_t pos = 0;
    s.sges.clear();
    for (unsigned n = 0;; ++n) {
        if (n >= kMaxSges) {
            fail(CERR_XFR_UNDEF, int(slot), "SGE chain without TRM");
            return false;
        }
        if (idx == 4) {
            if (in_lram) {
                fail(CERR_XFR_UNDEF, int(slot), "SGE chain runs past the LRAM slot");
                return false;
            }
            chunk_addr += kPrbChunk;
            Dma r = mem_read(chunk_addr, chunk, kPrbChunk, true);
            if (r == Dma::Aborted)
                return false;
            if (r == Dma::Fault) {
                fail(CERR_SGT_MSTABRT, int(slot), "master abort fetching an SGT");
                return false;
            }
            idx = 0;
        }
        const uint8_t *e = chunk + kSgeSize * idx++;
        const uint64_t addr = uint64_t(le32(e)) | uint64_t(le32(e + 4)) << 32;
        const uint32_t cnt = le32(e + 8), flags = le32(e + 12);
        if (flags & SGE_LNK) {
            if (addr & 7) {
                fail(CERR_SGT_BOUNDARY, int(slot), "SGT not 8-byte aligned");
                return false;
            }
            Dma r = mem_read(addr, chunk, kPrbChunk, true);
            if (r == Dma::Aborted)
                return false;
            if (r == Dma::Fault) {
                fail(CERR_SGT_MSTABRT, int(slot), "master abort fetching an SGT");
                return false;
            }
            chunk_addr = addr;
            in_lram = false;
            idx = 0;
            continue;
        }
        if (cnt) {
            Sge g;
            g.addr = addr;
            g.len = cnt;
            g.start = pos;
            g.discard = flags & SGE_DRD;
            s.sges.push_back(g);
            pos += cnt;
        }
        if (flags & SGE_TRM)
            break;
    }
    s.total = pos;
    s.sges_resolved = true;
    return true;
}

void Sil24Hba::Port::issue_next(unsigned slot) {
    Slot &s = slots_[slot];
    if (!s.fetched) {
        fetch_prb(slot); // the loop re-evaluates the queuing rules with the PRB known
        return;
    }
    queue_.erase(std::find(queue_.begin(), queue_.end(), slot));
    cur_dev_ = s.dev;
    Dev &dv = dev_[s.dev];
    ctrl_ = (ctrl_ & ~CS_ACT_MASK) | slot << CS_ACT_SHIFT;
    sata::Fis fis;
    fis.bytes.assign(s.chunk0 + PRB_FIS, s.chunk0 + PRB_FIS + 20);
    if (s.srst)
        return send_srst(slot, std::move(fis));
    fis.bytes[1] |= sata::kFisCommand;
    if (s.ncq)
        fis.bytes[12] = uint8_t((fis.bytes[12] & 0x07) | slot << 3);
    const uint32_t bit = 1u << slot;
    dv.busy_slot = int(slot);
    if (s.ncq) {
        sact_ |= bit;
        dv.sact |= bit;
    }
    if (s.ncq && (ctrl_ & CS_PMP_EN))
        pmp_[2 * s.pm_port + 1] |= bit; // the PM port's QActive (docs/hardware.md 6.7)
    const uint64_t e = epoch_;
    link::FrameStatus st = link_->send_from_host(fis);
    if (e != epoch_)
        return;
    switch (st) {
    case link::FrameStatus::Ok:
        s.sent = true;
        break;
    case link::FrameStatus::Error:
        set_serr(SERR_DIAG_H | SERR_ERR_T);
        fail(CERR_SEND, int(slot), "command FIS answered R_ERR");
        break;
    case link::FrameStatus::NoLink:
        // PHY went down: the FIS never left; it goes again once the link is back.
        if (dv.busy_slot == int(slot))
            dv.busy_slot = -1;
        sact_ &= ~bit;
        dv.sact &= ~bit;
        if (s.ncq && (ctrl_ & CS_PMP_EN))
            pmp_[2 * s.pm_port + 1] &= ~bit;
        queue_.push_front(slot);
        break;
    }
}

// SRST request: Device Control with SRST, a hold, Device Control without SRST; the
// device's signature D2H FIS then completes the slot and lands in its LRAM.
void Sil24Hba::Port::send_srst(unsigned slot, sata::Fis fis) {
    fis.bytes[1] &= uint8_t(~sata::kFisCommand);
    fis.bytes[15] |= sata::kAtaSrst;
    cur_dev_ = slots_[slot].dev;
    dev_[cur_dev_].busy_slot = int(slot);
    const uint64_t e = epoch_;
    link::FrameStatus st = link_->send_from_host(fis);
    if (e != epoch_)
        return;
    if (st == link::FrameStatus::Ok) {
        if (!sleep(cycles::kSrstHold, true))
            return;
        fis.bytes[15] &= uint8_t(~sata::kAtaSrst);
        st = link_->send_from_host(fis);
        if (e != epoch_)
            return;
    }
    if (st != link::FrameStatus::Ok) {
        set_serr(st == link::FrameStatus::Error ? (SERR_DIAG_H | SERR_ERR_T) : SERR_ERR_C);
        fail(CERR_SEND, int(slot), "SRST FIS not delivered");
        return;
    }
    slots_[slot].sent = true;
}

void Sil24Hba::Port::store_lram_fis(unsigned slot, const sata::Fis &fis) {
    const size_t n = std::min<size_t>(fis.bytes.size(), kLramSlotSize - PRB_FIS);
    uint8_t *dst = &lram_[lram_slot(slot) + PRB_FIS];
    std::memset(dst, 0, 24);
    std::memcpy(dst, fis.bytes.data(), n);
}

// A slot finished: its PORT_SLOT_STAT bit clears, the LRAM slot takes the transfer count
// and the final FIS, and the completion interrupt is raised unless the PRB masks it.
void Sil24Hba::Port::complete_slot(unsigned slot, const sata::Fis *result) {
    Slot &s = slots_[slot];
    const uint32_t done = s.done;
    std::memcpy(&lram_[lram_slot(slot) + PRB_XFER_CNT], &done, 4);
    if (result)
        store_lram_fis(slot, *result);
    const bool nien = s.ctrl & PRB_CTRL_NIEN;
    Dev &dv = dev_[s.dev];
    if (dv.busy_slot == int(slot))
        dv.busy_slot = -1;
    if (dv.dma.active && dv.dma.slot == slot)
        dv.dma = DmaCtx{};
    sact_ &= ~(1u << slot);
    dv.sact &= ~(1u << slot);
    if (s.ncq && (ctrl_ & CS_PMP_EN))
        pmp_[2 * s.pm_port + 1] &= ~(1u << slot);
    s = Slot{};
    if (!nien) {
        ++completions_;
        // Wiped by the PCI-X erratum's late acknowledge, or eaten by a lost-IRQ fault.
        if (!ack_in_flight() && !swallow_completion(slot))
            raise(IRQ_COMPLETE);
    }
    if (hba_.wave_)
        wave_sample();
    wake_.notify(sc_core::SC_ZERO_TIME);
}

// Command error: the port stops (PORT_SLOT_STAT keeps every busy slot, ATTN set) until
// software INITs it. PORT_CMD_ERR holds the code, PORT_CONTEXT the slot and PM port.
// Behind a PMP (PMP_EN) the stop is the same, and docs/hardware.md 6.7 adds PMP_RESUME: the
// failed device's context stays stopped (its slots stay busy, its FISes are dropped, no
// new command goes to it) until INIT, while writing PMP_RESUME lets the port go on with
// the other devices. Their FISes that arrive while the port is stopped are kept for then
// (the model's stand-in for the chip holding them off) and dropped by INIT.
void Sil24Hba::Port::fail(CmdErr code, int slot, const char *why, const sata::Fis *result) {
    cmd_err_ = code;
    const unsigned s = slot >= 0 ? unsigned(slot) : 0;
    const unsigned d = cur_dev_; // the device whose FIS or command went wrong
    const uint32_t pm = pmp_en() ? d : slots_[s].pm_port;
    context_ = (s & CTX_SLOT_MASK) | pm << CTX_PMP_SHIFT;
    if (result && slot >= 0)
        store_lram_fis(s, *result);
    halted_ = true;
    if (pmp_en())
        dev_err_ = uint16_t(dev_err_ | 1u << d);
    dev_[d].pio = Pio{};
    dev_[d].dma = DmaCtx{};
    trace("sil24.cmd_error", {{"code", TraceValue::integer(code)},
                              {"name", TraceValue::str(cerr_name(code))},
                              {"slot", TraceValue::integer(slot)},
                              {"slot_stat", TraceValue::hex(slot_stat() & SLOT_MASK)},
                              {"sactive", TraceValue::hex(sact_)}},
          why);
    raise(IRQ_ERROR);
}

bool Sil24Hba::Port::direction_ok(const Slot &s, bool d2h) const {
    if (!(s.ctrl & PRB_CTRL_PROTOCOL))
        return true; // the chip follows the device
    return d2h ? (s.prot & PRB_PROT_READ) || (s.ctrl & PRB_CTRL_PACKET_READ)
               : (s.prot & PRB_PROT_WRITE) || (s.ctrl & PRB_CTRL_PACKET_WRITE);
}

// Scatter/gather at byte position pos of the command's buffer; moves min(len, room in
// the chain) bytes and reports how many. DRD entries drop read data (and supply zeros if
// a write ever reaches them).
Sil24Hba::Port::Dma Sil24Hba::Port::sge_move(Slot &s, unsigned slot, uint64_t pos,
                                             uint8_t *buf, size_t len, bool to_mem,
                                             size_t *moved) {
    *moved = 0;
    if (!resolve_sges(slot))
        return halted_ ? Dma::Fault : Dma::Aborted;
    const uint64_t avail = pos < s.total ? s.total - pos : 0;
    const size_t n = size_t(std::min<uint64_t>(len, avail));
    if (!sleep(cycles::kDma.burst_cycles(to_mem, n), true))
        return Dma::Aborted;
    *moved = bus::for_each_sg_piece(s.sges, pos, n, [&](const Sge &g, uint64_t in, size_t off, size_t c) {
        if (g.discard) {
            if (!to_mem)
                std::memset(buf + off, 0, c);
            return true;
        }
        const bool master = bus_master_ok(g.addr + in, c);
        if (master && (to_mem ? hba_.mem_.write(g.addr + in, buf + off, c) : hba_.mem_.read(g.addr + in, buf + off, c)))
            return true;
        if (master)
            dma_violation(g.addr + in, c);
        trace("sil24.host_bus_error", {{"addr", TraceValue::hex(g.addr + in)}});
        fail(CERR_XFR_MSTABRT, int(slot), "master abort moving data");
        return false;
    });
    return *moved < n ? Dma::Fault : Dma::Ok;
}

// One host-to-device Data FIS of n bytes from the SGE chain at pos.
bool Sil24Hba::Port::transmit_data(unsigned slot, uint64_t pos, uint32_t n) {
    Slot &s = slots_[slot];
    std::vector<uint8_t> buf(n);
    size_t moved = 0;
    if (sge_move(s, slot, pos, buf.data(), n, false, &moved) != Dma::Ok)
        return false;
    if (moved < n) {
        fail(CERR_UNDERRUN, int(slot), "device wants more data than the SGEs hold");
        return false;
    }
    const uint64_t e = epoch_;
    link::FrameStatus st = link_->send_from_host(
        sata::make_data(buf.data(), n, (ctrl_ & CS_PMP_EN) ? s.pm_port : 0)); // docs/hardware.md 6.7
    if (e != epoch_)
        return false;
    if (st != link::FrameStatus::Ok) {
        set_serr(st == link::FrameStatus::Error ? (SERR_DIAG_H | SERR_ERR_T) : SERR_ERR_C);
        fail(CERR_DATA, int(slot), st == link::FrameStatus::Error ? "Data FIS answered R_ERR"
                                                                   : "link lost during Data FIS");
        return false;
    }
    s.done += n;
    return true;
}

bool Sil24Hba::Port::transmit_cdb(unsigned slot, uint32_t n) {
    Slot &s = slots_[slot];
    s.cdb_sent = true;
    n = std::min<uint32_t>(n, (ctrl_ & CS_CDB16) ? 16 : 12);
    const uint64_t e = epoch_;
    link::FrameStatus st = link_->send_from_host(
        sata::make_data(s.chunk0 + kPrbCdb, n, (ctrl_ & CS_PMP_EN) ? s.pm_port : 0));
    if (e != epoch_)
        return false;
    if (st != link::FrameStatus::Ok) {
        set_serr(st == link::FrameStatus::Error ? (SERR_DIAG_H | SERR_ERR_T) : SERR_ERR_C);
        fail(CERR_DATA, int(slot), st == link::FrameStatus::Error ? "CDB Data FIS answered R_ERR"
                                                                   : "link lost during the CDB");
        return false;
    }
    return true;
}

// DMA Activate (or an auto-activating DMA Setup): the next Data FIS (at most 8 KiB) of the
// first-party DMA write (NCQ) or of the non-queued DMA write.
void Sil24Hba::Port::send_data_out(Dev &dv) {
    unsigned slot;
    uint64_t pos;
    uint32_t n;
    const bool fpdma = dv.dma.active && !dv.dma.d2h;
    if (fpdma) {
        slot = dv.dma.slot;
        pos = uint64_t(dv.dma.offset) + dv.dma.done;
        n = std::min<uint32_t>(uint32_t(sata::kMaxDataFisPayload), dv.dma.count - dv.dma.done);
    } else if (dv.busy_slot >= 0 && !slots_[dv.busy_slot].ncq && !dv.pio.active) {
        slot = unsigned(dv.busy_slot);
        Slot &s = slots_[slot];
        if (!direction_ok(s, false))
            return fail(CERR_DIRECTION, int(slot), "DMA Activate for a read command");
        if (!resolve_sges(slot))
            return;
        pos = s.done;
        n = uint32_t(std::min<uint64_t>(sata::kMaxDataFisPayload,
                                        s.total > pos ? s.total - pos : 0));
        if (n == 0)
            return fail(CERR_UNDERRUN, int(slot), "DMA Activate past the end of the SGEs");
    } else {
        return fail(CERR_INCONSISTENT, dv.busy_slot, "DMA Activate without a write in progress");
    }
    if (!transmit_data(slot, pos, n))
        return;
    if (fpdma) {
        dv.dma.done += n;
        if (dv.dma.done >= dv.dma.count)
            dv.dma = DmaCtx{};
    }
}

} // namespace satasim::sil24
