// Native Command Queuing (docs/hardware.md 8.5, 8.7, 8.8): acceptance, the internal completion
// order policy, DMA Setup data phases, Set Device Bits completions (several tags per SDB
// when they finish back to back) and the NCQ error state with log page 10h.
#include <algorithm>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Fis;
using sata::Taskfile;
using sc_core::sc_time_stamp;

namespace {
constexpr uint8_t kStatusAccept = 0x40;   // DRDY, BSY=0: command queued, bus released
} // namespace

bool SataDisk::Impl::ncq_outstanding() const {
    return std::any_of(slots.begin(), slots.end(),
                       [](const NcqSlot &s) { return s.state != NcqSlot::State::Free; });
}

bool SataDisk::Impl::has_queued() const {
    return std::any_of(slots.begin(), slots.end(),
                       [](const NcqSlot &s) { return s.state == NcqSlot::State::Queued; });
}

// Transport side: a READ/WRITE FPDMA QUEUED command FIS arrived.
void SataDisk::Impl::receive_queued(const Taskfile &tf) {
    const uint8_t tag = uint8_t((tf.count >> 3) & 0x1F);
    if (ncq_error_state) {
        // Queued commands are refused until the host has read log 10h. Not a violation:
        // the command FIS may have crossed the error SDB on the wire.
        trace_error("queued command refused in NCQ error state", tf, sata::kAtaStatusError,
                    sata::kAtaAbrt, tf.lba);
        pending_error_fis.push_back(
            sata::make_reg_d2h(sata::kAtaStatusError, sata::kAtaAbrt, tf.lba, tf.device, 0, true));
        work_event.notify(sc_core::SC_ZERO_TIME);
        return;
    }
    const unsigned depth = std::clamp(cfg.ncq_depth, 1u, 32u);
    if (tag >= depth || slots[tag].state != NcqSlot::State::Free) {
        violation(tag >= depth ? "ncq_tag_out_of_range" : "ncq_tag_in_use",
                  "queued command with tag " + std::to_string(tag) +
                      (tag >= depth ? " beyond the queue depth" : " already outstanding"));
        ncq_protocol_error(tf, false, tag);
        return;
    }
    accept_command(tf, true);
    if (hung)
        return; // the observer hung the drive on this command: not even accepted
    NcqSlot &s = slots[tag];
    s.state = NcqSlot::State::Queued;
    s.tf = tf;
    s.x.lba = tf.lba & 0xFFFFFFFFFFFFull;
    uint32_t n = uint32_t(tf.feature) | uint32_t(tf.feature_hi) << 8;
    s.x.sectors = n ? n : 65536u;
    s.x.write = tf.command == op::kWriteFpdma || tf.command == op::kSendFpdma;
    s.x.fua = (tf.device & 0x80) != 0;
    s.trim = tf.command == op::kSendFpdma;
    if (s.trim) // no LBA: Features count 512-byte blocks of range entries
        s.x.lba = 0;
    s.seq = next_seq++;
    s.accepted = sc_time_stamp();
    if (parallel_ssd() && !s.x.write)
        s.media_ready = plan_queued_read(s.x.lba, s.x.sectors, s.accepted);
    pending_accepts.push_back(tf);
    work_event.notify(sc_core::SC_ZERO_TIME);
}

// Errors found when a command FIS arrives (duplicate or invalid tag, non-queued command
// while queued ones are outstanding): everything outstanding is aborted, the offending
// command is answered with a D2H Register FIS (ERR, ABRT) and log 10h describes it.
void SataDisk::Impl::ncq_protocol_error(const Taskfile &tf, bool nq, uint8_t tag) {
    ncq_log = NcqErrorLog{true, nq, uint8_t(nq ? 0 : tag), sata::kAtaStatusError, sata::kAtaAbrt,
                          tf.device, tf.lba, tf.count};
    uint32_t aborted = 0;
    for (unsigned t = 0; t < 32; ++t)
        if (slots[t].state == NcqSlot::State::Queued || slots[t].state == NcqSlot::State::Running)
            aborted |= 1u << t;
    trace("disk.ncq_error",
          {{"cause", TraceValue::str(nq ? "non-queued command while queued outstanding"
                                        : "invalid or duplicate tag")},
           {"cmd", TraceValue::hex(tf.command)},
           {"tag", TraceValue::integer(tag)},
           {"aborted", TraceValue::hex(aborted)}});
    abort_all_queued();
    ncq_error_state = true;
    pending_accepts.clear();
    ++epoch; // stop the running queued command
    pending_error_fis.push_back(
        sata::make_reg_d2h(sata::kAtaStatusError, sata::kAtaAbrt, tf.lba, tf.device, 0, true));
    work_event.notify(sc_core::SC_ZERO_TIME);
    data_event.notify(sc_core::SC_ZERO_TIME);
}

// Queued and running commands are dropped; finished ones still get their SDB bit.
void SataDisk::Impl::abort_all_queued() {
    for (auto &s : slots)
        if (s.state == NcqSlot::State::Queued || s.state == NcqSlot::State::Running)
            s.state = NcqSlot::State::Free;
    // a parallel SSD's units drop the dropped commands' reads
    for (sc_core::sc_time &u : unit_free)
        u = std::min(u, sc_time_stamp());
    buffer_path_free = std::min(buffer_path_free, sc_time_stamp());
}

// The internal order policy: which queued command the drive works on next.
int SataDisk::Impl::pick_next() {
    std::vector<int> ready;
    for (int t = 0; t < 32; ++t)
        if (slots[size_t(t)].state == NcqSlot::State::Queued)
            ready.push_back(t);
    if (ready.empty())
        return -1;
    auto seq = [&](int t) { return slots[size_t(t)].seq; };
    if (parallel_ssd()) // the data that is in the buffer first goes first (writes at once)
        return *std::min_element(ready.begin(), ready.end(), [&](int a, int b) {
            const NcqSlot &x = slots[size_t(a)], &y = slots[size_t(b)];
            const sc_core::sc_time tx = x.x.write ? x.accepted : x.media_ready;
            const sc_core::sc_time ty = y.x.write ? y.accepted : y.media_ready;
            return tx != ty ? tx < ty : x.seq < y.seq;
        });
    switch (cfg.ncq_order) {
    case NcqOrder::InOrder:
        return *std::min_element(ready.begin(), ready.end(),
                                 [&](int a, int b) { return seq(a) < seq(b); });
    case NcqOrder::Reverse:
        return *std::max_element(ready.begin(), ready.end(),
                                 [&](int a, int b) { return seq(a) < seq(b); });
    case NcqOrder::Random:
        return ready[size_t(rng.below(ready.size()))];
    case NcqOrder::ShortestSeek: {
        auto dist = [&](int t) {
            uint64_t l = slots[size_t(t)].x.lba;
            return l > head_lba ? l - head_lba : head_lba - l;
        };
        return *std::min_element(ready.begin(), ready.end(), [&](int a, int b) {
            return dist(a) != dist(b) ? dist(a) < dist(b) : seq(a) < seq(b);
        });
    }
    case NcqOrder::ShortestAccess: {
        // Rotational position ordering (Intel and Seagate, "Serial ATA Native Command
        // Queuing", 2003): the command whose seek plus rotational latency is shortest from
        // where the heads are, at the moment its media access could start.
        auto cost = [&](int t) {
            const NcqSlot &s = slots[size_t(t)];
            const double start = std::max(sc_time_stamp(), s.accepted + overhead()).to_seconds();
            return positioning_s(s.x.lba, start);
        };
        int best = ready.front();
        double best_cost = cost(best);
        for (int t : ready) {
            const double c = cost(t);
            if (c < best_cost || (c == best_cost && seq(t) < seq(best)))
                best = t, best_cost = c;
        }
        return best;
    }
    }
    return ready.front();
}

// The Register FIS that releases the bus after a queued command is taken (SATA 3.x 13.6.4.2:
// BSY cleared, no interrupt). Its other registers are the drive's choice: zero, or (d2h_regs:
// echo) the command's own Count (tag << 3), LBA and Device, which is what libata's D2H-area
// fill then shows for every command of a failed queue (dmesg corpus 26, 50: "cmd
// 60/08:10:7d:00:de/..." and "res 40/00:10:7d:00:de/.../40" on all the queue's tags).
bool SataDisk::Impl::service_accepts() {
    while (!pending_accepts.empty()) {
        const uint64_t e = epoch;
        const Taskfile tf = pending_accepts.front();
        pending_accepts.pop_front();
        if (cfg.d2h_regs == DiskConfig::D2hRegs::Echo)
            send(sata::make_reg_d2h(kStatusAccept, 0, tf.lba, tf.device, tf.count, false));
        else
            send(sata::make_reg_d2h(kStatusAccept, 0, 0, 0, 0, false));
        if (!alive(e))
            return false;
    }
    return true;
}

// With ncq_sdb_coalesce_ns, finished tags wait (up to that long after the first of them
// finished) while other queued commands are still in the drive, so that one SDB reports
// several: fewer FISes and interrupts, as real drives do.
bool SataDisk::Impl::sdb_held() const {
    if (!sdb_pending || cfg.ncq_sdb_coalesce_ns == 0 || sc_time_stamp() >= sdb_hold_until)
        return false;
    return std::any_of(slots.begin(), slots.end(), [](const NcqSlot &s) {
        return s.state == NcqSlot::State::Queued || s.state == NcqSlot::State::Running;
    });
}

// One SDB for every command finished since the last one (force: even if held).
bool SataDisk::Impl::flush_sdb(bool force) {
    if (!sdb_pending || (!force && sdb_held()))
        return true;
    const uint64_t e = epoch;
    const uint32_t mask = sdb_pending;
    sdb_pending = 0;
    for (unsigned t = 0; t < 32; ++t)
        if (mask & (1u << t))
            slots[t].state = NcqSlot::State::Free;
    send(sata::make_sdb(kStatusAccept, 0, mask, true, false));
    return alive(e);
}

void SataDisk::Impl::execute_queued(int tag) {
    const uint64_t e = epoch;
    NcqSlot &s = slots[size_t(tag)];
    s.state = NcqSlot::State::Running;
    if (s.trim)
        return queued_trim(tag);
    const Xfer x = s.x;
    // Firmware overhead counts from the command's arrival: it overlaps earlier work.
    if (!idle_until(e, s.accepted + overhead()))
        return;
    if (!range_ok(x, false)) {
        ncq_fail(tag, sata::kAtaIdnf | sata::kAtaAbrt, std::max(x.lba, capacity()));
        return;
    }
    power_mode = 0xFF;
    const uint32_t bytes = x.sectors * uint32_t(sector_bytes());
    const MediaVerdict v = check_media(s.tf, true, &x);
    if (const sc_core::sc_time late = slow_delay(s.tf, true, x); late != sc_core::SC_ZERO_TIME && !busy_for(e, late))
        return; // reset while the drive took its time
    if (v.fail && !v.after_data) {
        // The media read (or the address lookup) fails before any data moves.
        if (!x.write && !busy_for(e, media_access(x.lba, v.good + 1, sc_time_stamp())))
            return;
        ncq_fail(tag, v.error, v.lba, v.status);
        return;
    }
    bool ok;
    if (v.fail) {
        // Write fault: the data is taken from the host, the media write fails.
        const bool aa = auto_activate;
        ok = send(sata::make_dma_setup(false, false, aa, uint8_t(tag), 0, bytes)) && alive(e) &&
             dma_out_data(e, x.lba, x.sectors, aa, write_through(x), true);
        if (alive(e) && ok)
            ncq_fail(tag, v.error, v.lba, v.status);
        else if (alive(e))
            ncq_fail(tag, sata::kAtaIcrc | sata::kAtaAbrt, x.lba);
        return;
    }
    if (!x.write) {
        const bool media_done = parallel_ssd() ? idle_until(e, s.media_ready)
                                               : busy_for(e, media_access(x.lba, x.sectors, sc_time_stamp()));
        if (!media_done || !service_accepts())
            return;
        ok = send(sata::make_dma_setup(true, false, false, uint8_t(tag), 0, bytes)) && alive(e) &&
             dma_in_data(e, x.lba, x.sectors);
    } else {
        const bool aa = auto_activate;
        ok = send(sata::make_dma_setup(false, false, aa, uint8_t(tag), 0, bytes)) && alive(e) &&
             dma_out_data(e, x.lba, x.sectors, aa, write_through(x));
        ok = ok && commit_write(e, x);
        if (ok)
            media_written(x);
    }
    if (!alive(e))
        return;
    if (!ok) {
        // The data phase failed on the wire (R_ERR or the link went away).
        ncq_fail(tag, sata::kAtaIcrc | sata::kAtaAbrt, x.lba);
        return;
    }
    s.state = NcqSlot::State::Done;
    if (!sdb_pending)
        sdb_hold_until = sc_time_stamp() + sc_core::sc_time(double(cfg.ncq_sdb_coalesce_ns), sc_core::SC_NS);
    sdb_pending |= 1u << tag;
}

// Errors found while executing a queued command: SDB with ERR (SActive = only the tags that
// finished successfully), all other queued commands aborted, log 10h names the tag. Its
// Count field holds the failed command's sector count (an FPDMA command's Features), as the
// drives of the field reports fill it: "cmd 61/20:70:..." fails as "res 51/04:20:...",
// "cmd 60/38:b0:..." as "res 41/40:38:..." (dmesg-corpus 09, 18, 19, 49, 11), not the
// Count register that carries the tag. Other drives log only its low byte, or nothing
// (device key ncq_log_count: 11, 49, 57 log a 256-sector read's Count as 00h/00h).
void SataDisk::Impl::ncq_fail(int tag, uint8_t error, uint64_t lba, uint8_t status) {
    const NcqSlot &s = slots[size_t(tag)];
    const uint16_t count = uint16_t(s.tf.feature | s.tf.feature_hi << 8);
    ncq_log = NcqErrorLog{true, false, uint8_t(tag), status, error, s.tf.device, lba,
                          cfg.ncq_log_count == DiskConfig::NcqLogCount::Full      ? count
                          : cfg.ncq_log_count == DiskConfig::NcqLogCount::LowByte ? uint16_t(count & 0xFF)
                                                                                  : uint16_t(0)};
#ifdef SATASIM_PLANT_DISK_NCQ_LOG_WRONG_TAG
    ncq_log.tag = uint8_t((tag + 1) & 0x1F); // planted: log 10h names the next tag
#endif
    uint32_t aborted = 0;
    for (unsigned t = 0; t < 32; ++t)
        if (slots[t].state == NcqSlot::State::Queued || slots[t].state == NcqSlot::State::Running)
            aborted |= 1u << t;
    trace("disk.ncq_error",
          {{"cause", TraceValue::str("command failed")},
           {"cmd", TraceValue::hex(s.tf.command)},
           {"tag", TraceValue::integer(tag)},
           {"error", TraceValue::hex(error)},
           {"lba", TraceValue::integer(int64_t(lba))},
           {"aborted", TraceValue::hex(aborted)}});
    abort_all_queued();
    ncq_error_state = true;
    const uint32_t done = sdb_pending;
    sdb_pending = 0;
    for (unsigned t = 0; t < 32; ++t)
        if (done & (1u << t))
            slots[t].state = NcqSlot::State::Free;
    send(sata::make_sdb(status, error, done, true, false));
}

// NCQ Command Error log, page 10h (docs/hardware.md 8.6); byte 511 is the checksum.
std::vector<uint8_t> SataDisk::Impl::ncq_log_page() const {
    std::vector<uint8_t> p(512, 0);
    if (ncq_log.valid) {
        p[0] = uint8_t((ncq_log.nq ? 0x80 : 0) | (ncq_log.tag & 0x1F));
        p[2] = ncq_log.status;
        p[3] = ncq_log.error;
        p[4] = uint8_t(ncq_log.lba);
        p[5] = uint8_t(ncq_log.lba >> 8);
        p[6] = uint8_t(ncq_log.lba >> 16);
        p[7] = ncq_log.device;
        p[8] = uint8_t(ncq_log.lba >> 24);
        p[9] = uint8_t(ncq_log.lba >> 32);
        p[10] = uint8_t(ncq_log.lba >> 40);
        p[12] = uint8_t(ncq_log.count);
        p[13] = uint8_t(ncq_log.count >> 8);
    }
    unsigned sum = 0;
    for (size_t i = 0; i < 511; ++i)
        sum += p[i];
    p[511] = uint8_t(-sum);
    return p;
}

} // namespace satasim::device
