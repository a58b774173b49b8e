// The SATA disk module: link callbacks, the transport process (consumes received FISes,
// never sends), the command process (the only sender), resets and the signature.
#include <algorithm>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Fis;
using sata::FisType;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::sc_time_stamp;
using sc_core::SC_ZERO_TIME;

namespace {
constexpr size_t kRxQueueDepth = 4; // FIS receive buffer: beyond this the drive holds R_RDY
}

SataDisk::Impl::Impl(SataDisk &disk)
    : d(disk), cfg(disk.cfg_), media(disk.media_),
      cache(disk.media_, size_t(disk.cfg_.cache_mib) * 2048 / WriteCache::kChunkSectors) {
    base_model = cfg.model;
    base_serial = cfg.serial;
    base_sectors = cfg.sectors;
    max_nv = cfg.hpa_sectors;
    power_on_defaults();
    ready_at = sc_time(cfg.timing.reset_ready_ms, sc_core::SC_MS);
}

void SataDisk::Impl::power_on_defaults() {
    wcache_enabled = cfg.write_cache;
    lookahead_enabled = true;
    auto_activate = false;
    dipm_enabled = false;
    devslp_enabled = false;
    multi_count = 0;
    udma_selected = cfg.udma_max <= 6 ? int(cfg.udma_max) : 6; // MEM: fastest UDMA selected
    mwdma_selected = -1;
    power_mode = 0xFF;
    cache_dirty = false;
    cache.write_back(); // (power-on reset: a clean power cycle; a power loss lost it first)
    head_lba = 0;
    ncq_error_state = false;
    ncq_log = NcqErrorLog{};
    rng.seed(cfg.seed);
    max_vol = 0; // a volatile SET MAX ADDRESS does not outlive the power
    nv_max_set = false;
    after_read_native_max = false;
}

unsigned SataDisk::Impl::max_multi() const {
    // One DRQ block must fit one Data FIS (8 KiB = 16 sectors of 512 bytes, 2 of 4096).
    return std::min(cfg.multi_max, unsigned(sata::kMaxDataFisPayload / sector_bytes()));
}

uint64_t SataDisk::Impl::native_capacity() const {
    return cfg.lba48 ? cfg.sectors : std::min<uint64_t>(cfg.sectors, 0x0FFFFFFF);
}

uint64_t SataDisk::Impl::capacity() const {
    // a volatile SET MAX stands until the power goes, over the non-volatile one
    const uint64_t limit = max_vol ? max_vol : max_nv;
    return limit ? std::min(native_capacity(), limit) : native_capacity();
}

void SataDisk::Impl::trace(const char *name,
                           std::vector<std::pair<std::string, TraceValue>> fields,
                           const std::string &msg) {
    if (!d.trace_)
        return;
    TraceRecord r;
    r.src = d.name();
    r.name = name;
    r.fields = std::move(fields);
    r.msg = msg;
    d.trace_->emit(r);
}

void SataDisk::Impl::trace_error(const char *what, const Taskfile &tf, uint8_t status,
                                 uint8_t error, uint64_t lba) {
    trace("disk.error",
          {{"cmd", TraceValue::hex(tf.command)},
           {"status", TraceValue::hex(status)},
           {"error", TraceValue::hex(error)},
           {"lba", TraceValue::integer(int64_t(lba))}},
          what);
}

Fis SataDisk::Impl::signature_fis(bool irq) const {
    // ATA device signature: count 1, LBA low 1, mid/high 0; diagnostics passed (error 01h).
    return sata::make_reg_d2h(sata::kAtaDrdy | sata::kAtaDsc, 0x01, 0x000001, 0x00, 1, irq);
}

// Every reset: drop all work, then (Resetting) send the signature once ready and PhyRdy.
void SataDisk::Impl::start_reset(const char *kind, bool srst_held) {
    ++epoch;
    pending_cmd.reset();
    for (auto &slot : slots)
        slot.state = NcqSlot::State::Free;
    sdb_pending = 0;
    sdb_hold_until = SC_ZERO_TIME;
    pending_accepts.clear();
    pending_error_fis.clear();
    // A reset ends the NCQ error state: the host aborted every queued command with it.
    ncq_error_state = false;
    data_in.clear();
    reset_state = srst_held ? ResetState::SrstHeld : ResetState::Resetting;
    ready_at = sc_time_stamp() + sc_time(cfg.timing.reset_ready_ms, sc_core::SC_MS);
    trace("disk.reset", {{"kind", TraceValue::str(kind)}});
    work_event.notify(SC_ZERO_TIME);
    data_event.notify(SC_ZERO_TIME);
}

bool SataDisk::Impl::send(const Fis &in) {
    if (!link || hung)
        return false;
    // a drive that leaves DSC clear: bit 4 of the status byte (Register, PIO Setup, Set
    // Device Bits) and of the PIO Setup's ending status
    Fis cleared;
    const bool strip = !cfg.status_dsc && in.bytes.size() >= 4 &&
                       (in.type() == sata::FisType::RegD2H || in.type() == sata::FisType::PioSetup ||
                        in.type() == sata::FisType::SetDeviceBits);
    if (strip) {
        cleared = in;
        cleared.bytes[2] &= uint8_t(~sata::kAtaDsc);
        if (in.type() == sata::FisType::PioSetup && cleared.bytes.size() > 15)
            cleared.bytes[15] &= uint8_t(~sata::kAtaDsc);
    }
    const Fis &fis0 = strip ? cleared : in;
    // bad_fis long_d2h: the firmware sends this Register D2H FIS a dword too long
    Fis padded;
    const bool pad = long_d2h && fis0.type() == sata::FisType::RegD2H;
    if (pad) {
        long_d2h = false;
        padded = fis0;
        padded.bytes.resize(padded.bytes.size() + 4, 0);
        fault_effect(long_d2h_id, {{"type", TraceValue::hex(padded.bytes[0])},
                                   {"bytes", TraceValue::integer(int64_t(padded.bytes.size()))}},
                     "drive sends its Register D2H FIS a dword too long: " + sata::describe(fis0));
        long_d2h_id.clear();
    }
    const Fis &fis = pad ? padded : fis0;
    if (fis_trace)
        trace("disk.fis_tx", {}, sata::describe(fis));
    activity();
    link::FrameStatus st = link->send_from_device(fis);
    activity();
    if (st != link::FrameStatus::Ok) {
        trace("disk.tx_failed",
              {{"status", TraceValue::str(st == link::FrameStatus::NoLink ? "nolink" : "r_err")}},
              sata::describe(fis));
        return false;
    }
    return true;
}

// ---------------------------------------------------------------- transport process

void SataDisk::Impl::transport_thread() {
    for (;;) {
        while (rxq.empty())
            sc_core::wait(rx_event);
        Fis fis = std::move(rxq.front());
        rxq.pop_front();
        if (rxq.size() + 1 == kRxQueueDepth && link)
            link->receiver_ready_changed();
        dispatch(fis);
    }
}

void SataDisk::Impl::dispatch(const Fis &fis) {
    if (fis_trace)
        trace("disk.fis_rx", {}, sata::describe(fis));
    switch (fis.type()) {
    case FisType::RegH2D: {
        Taskfile tf = sata::parse_taskfile(fis);
        if (hung) {
            // Firmware hung: the link layer still takes frames, nothing acts on them.
            trace("disk.cmd_ignored", {{"cmd", TraceValue::hex(tf.command)}}, "drive hung");
            return;
        }
        if (!(fis.at(1) & sata::kFisCommand)) {
            // Device Control update: SRST edge detection (docs/hardware.md 5.7).
            if (tf.control & sata::kAtaSrst) {
                if (reset_state != ResetState::SrstHeld)
                    start_reset("srst", true);
            } else if (reset_state == ResetState::SrstHeld) {
                reset_state = ResetState::Resetting;
                ready_at = sc_time_stamp() + sc_time(cfg.timing.reset_ready_ms, sc_core::SC_MS);
                work_event.notify(SC_ZERO_TIME);
            }
            return;
        }
        if (reset_state != ResetState::None) {
            trace("disk.cmd_ignored", {{"cmd", TraceValue::hex(tf.command)}}, "device in reset");
            return;
        }
        if (pending_cmd) {
            trace("disk.cmd_ignored", {{"cmd", TraceValue::hex(tf.command)}},
                  "command while a non-queued command is active");
            return;
        }
        if (is_queued(tf.command) && cfg.ncq) {
            receive_queued(tf);
            return;
        }
        if (ncq_outstanding()) {
            // A non-queued command while queued ones are outstanding (docs/hardware.md 8.8).
            violation("nonqueued_while_ncq_outstanding",
                      "non-queued command " + sata::describe(fis) +
                          " while NCQ commands are outstanding");
            ncq_protocol_error(tf, true, 0);
            return;
        }
        accept_command(tf, false);
        if (hung)
            return; // the observer hung the drive on this command: it never runs
        pending_cmd = tf;
        work_event.notify(SC_ZERO_TIME);
        return;
    }
    case FisType::Data:
        if (hung)
            return;
        data_in.push_back(fis);
        data_event.notify(SC_ZERO_TIME);
        return;
    default:
        trace("disk.fis_ignored", {}, sata::describe(fis));
        return;
    }
}

// ---------------------------------------------------------------- command process

// Reset completion: wait for the ready time and PhyRdy, then send the signature.
// Returns true when the drive is ready for commands.
bool SataDisk::Impl::handle_reset() {
    for (;;) {
        if (hung) {
            sc_core::wait(work_event); // only a COMRESET brings the firmware back
            continue;
        }
        if (reset_state == ResetState::None)
            return true;
        if (reset_state == ResetState::SrstHeld || !phy_up) {
            sc_core::wait(work_event);
            continue;
        }
        sc_time now = sc_time_stamp();
        if (now < ready_at) {
            sc_core::wait(ready_at - now, work_event);
            continue;
        }
        uint64_t e = epoch;
        bool ok = send(signature_fis(false));
        if (!alive(e))
            continue; // reset again while sending
        if (ok) {
            reset_state = ResetState::None;
            trace("disk.ready", {{"signature", TraceValue::hex(0x00000101)}});
            return true;
        }
        sc_core::wait(work_event); // link went away: retry after the next PhyRdy
    }
}

void SataDisk::Impl::command_thread() {
    for (;;) {
        handle_reset();
        uint64_t e = epoch;
        if (send_bad_fis())
            continue;
        if (!pending_error_fis.empty()) {
            flush_sdb(true);
            std::vector<Fis> errs;
            errs.swap(pending_error_fis);
            for (auto &f : errs)
                if (alive(e))
                    send(f);
            continue;
        }
        if (!service_accepts())
            continue;
        if (pending_cmd) {
            Taskfile tf = *pending_cmd;
            data_in.clear();
            flush_sdb(true);
            execute(tf);
            if (alive(e))
                pending_cmd.reset();
            continue;
        }
        if (!ncq_error_state) {
            int tag = pick_next();
            if (tag >= 0) {
                execute_queued(tag);
                continue;
            }
        }
        flush_sdb(false);
        if (alive(e) && pending_accepts.empty() && !pending_cmd && pending_error_fis.empty() &&
            reset_state == ResetState::None && (ncq_error_state || !has_queued())) {
            if (sdb_held())
                sc_core::wait(sdb_hold_until - sc_time_stamp(), work_event);
            else
                sc_core::wait(work_event);
        }
    }
}

// ---------------------------------------------------------------- SataDisk

SataDisk::SataDisk(sc_core::sc_module_name name, const DiskConfig &cfg, ModelTrace *trace)
    : sc_core::sc_module(name), cfg_(cfg), trace_(trace), media_(cfg.media_seed), impl_(std::make_unique<Impl>(*this)) {
    SC_HAS_PROCESS(SataDisk);
    SC_THREAD(transport_proc);
    SC_THREAD(command_proc);
    if (cfg.dipm)
        SC_THREAD(dipm_proc);
}

void SataDisk::transport_proc() { impl_->transport_thread(); }
void SataDisk::command_proc() { impl_->command_thread(); }
void SataDisk::dipm_proc() { impl_->dipm_thread(); }

SataDisk::~SataDisk() = default;

void SataDisk::connect(link::SataLink *link) { impl_->link = link; }

std::vector<uint16_t> SataDisk::identify_words() const { return impl_->identify(); }

void SataDisk::set_fis_trace(bool on) { impl_->fis_trace = on; }

// Power-on: also every fault disarmed and the drive's own identity back (fuzzers reuse
// the model across runs). The command observer is a wiring, not a fault: it stays.
void SataDisk::power_on_reset() {
    Impl &m = *impl_;
    cfg_.model = m.base_model;
    cfg_.serial = m.base_serial;
    cfg_.sectors = m.base_sectors;
    m.max_nv = cfg_.hpa_sectors; // (a new simulation: the drive as configured)
    m.reset_faults();
    m.cmd_seq = 0;
    m.power_on_defaults();
    m.rxq.clear();
    m.start_reset("power_on", false);
}

bool SataDisk::receive_fis(const sata::Fis &fis) {
    if (fis.bytes.size() < 4 || fis.bytes.size() % 4)
        return false;
    size_t fixed = sata::fis_fixed_length(fis.type());
    if (fis.type() == FisType::Data) {
        if (fis.bytes.size() > 4 + sata::kMaxDataFisPayload)
            return false;
    } else if (fixed == 0 || fis.bytes.size() != fixed) {
        return false; // unknown type or wrong length: R_ERR
    }
    impl_->rxq.push_back(fis);
    impl_->rx_event.notify(SC_ZERO_TIME);
    impl_->activity();
    return true;
}

bool SataDisk::ready_to_receive() const { return impl_->rxq.size() < kRxQueueDepth; }

// PhyRdy lost (cable pulled, PHY glitch, COMRESET, offline): frames in flight are gone,
// and the drive abandons its command state; it comes back through the reset sequence
// (signature after the next PhyRdy). A hung firmware notices nothing.
void SataDisk::phy_changed(bool ready, link::Gen gen) {
    Impl &m = *impl_;
    m.phy_up = ready;
    m.gen = ready ? gen : link::Gen::None;
    if (!ready && !m.hung && m.reset_state == Impl::ResetState::None) {
        m.rxq.clear();
        m.start_reset("link_lost", false);
    }
    m.work_event.notify(SC_ZERO_TIME);
    m.data_event.notify(SC_ZERO_TIME);
}

void SataDisk::oob_reset() {
    Impl &m = *impl_;
    if (m.hung && m.hang_comresets) {
        // the PHY answers (OOB is the link's), the firmware does not: no signature
        --m.hang_comresets;
        m.fault_effect(m.hang_id, {{"state", TraceValue::str("hung")}, {"comresets_left", TraceValue::integer(m.hang_comresets)}},
                       "COMRESET: the firmware stays hung");
        return;
    }
    if (m.hung) {
        m.hung = false;
        m.fault_effect(m.hang_id, {{"state", TraceValue::str("recovered")}},
                       "COMRESET restarts the hung firmware");
    }
    m.rxq.clear();
    m.max_vol = 0; // a hardware reset: a volatile SET MAX ADDRESS is gone
    m.start_reset("comreset", false);
}

// A host frame failed on the wire (the link answered R_ERR). During a data-out phase the
// drive ends the command with ICRC|ABRT (docs/hardware.md 8.8); otherwise the lost FIS is the
// host's to retry.
void SataDisk::receive_error(link::LinkError err) {
    if ((err == link::LinkError::RxCrc || err == link::LinkError::RxSequence) &&
        impl_->awaiting_data) {
        impl_->rx_wire_error = true;
        impl_->data_event.notify(sc_core::SC_ZERO_TIME);
    }
}

} // namespace satasim::device
