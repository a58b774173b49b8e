// Fault hooks of the drive (model/fault/README.md): the command observer the injector's
// triggers count and match with, media errors (UNC with remapping on write, IDNF, write
// fault, ABRT), a firmware hang only a COMRESET clears, IDENTIFY failures, a new identity
// for the next plug-in, and the protocol-violation records of the host side of ATA/NCQ.
#include <algorithm>
#include <limits>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Taskfile;

namespace {
// Drive status for the failures (docs/hardware.md 8.1, 8.8). Non-queued completions carry DSC
// like every status this drive reports; a write fault reports DF and no seek complete.
constexpr uint8_t kStatusNcqError = 0x41;   // DRDY | ERR (SDB Status-Hi/Lo)
constexpr uint8_t kStatusDeviceFault = 0x61; // DRDY | DF | ERR

struct CmdClass {
    bool read = false, write = false, ext = false, flush = false, identify = false;
};

CmdClass classify(uint8_t c) {
    CmdClass k;
    switch (c) {
    case op::kReadSectorsExt: case op::kReadMultipleExt: case op::kReadDmaExt:
    case op::kReadVerifyExt:
        k.ext = true;
        [[fallthrough]];
    case op::kReadSectors: case op::kReadMultiple: case op::kReadDma: case op::kReadVerify:
    case op::kReadFpdma:
        k.read = true;
        break;
    case op::kWriteSectorsExt: case op::kWriteMultipleExt: case op::kWriteMultipleFuaExt:
    case op::kWriteDmaExt: case op::kWriteDmaFuaExt:
        k.ext = true;
        [[fallthrough]];
    case op::kWriteSectors: case op::kWriteMultiple: case op::kWriteDma: case op::kWriteFpdma:
        k.write = true;
        break;
    case op::kFlush: case op::kFlushExt:
        k.flush = true;
        break;
    case op::kIdentify:
        k.identify = true;
        break;
    default:
        break;
    }
    return k;
}

bool op_matches(CommandMatch::Op o, const CmdClass &k, bool ncq) {
    switch (o) {
    case CommandMatch::Op::Any: return true;
    case CommandMatch::Op::Read: return k.read;
    case CommandMatch::Op::Write: return k.write;
    case CommandMatch::Op::Flush: return k.flush;
    case CommandMatch::Op::Identify: return k.identify;
    case CommandMatch::Op::Ncq: return ncq;
    case CommandMatch::Op::NonNcq: return !ncq;
    }
    return false;
}

// First sector of [a, b] not covered by the remapped ranges, or nullopt.
std::optional<uint64_t> first_unmapped(const std::map<uint64_t, uint64_t> &r, uint64_t a,
                                       uint64_t b) {
    uint64_t pos = a;
    while (pos <= b) {
        auto it = r.upper_bound(pos);
        if (it == r.begin())
            return pos;
        --it;
        if (it->second < pos)
            return pos;
        if (it->second == std::numeric_limits<uint64_t>::max())
            return std::nullopt;
        pos = it->second + 1;
    }
    return std::nullopt;
}

void add_range(std::map<uint64_t, uint64_t> &r, uint64_t a, uint64_t b) {
    auto it = r.upper_bound(a);
    if (it != r.begin() && std::prev(it)->second + 1 >= a)
        --it;
    while (it != r.end() && it->first <= b + 1 && b + 1 != 0) {
        a = std::min(a, it->first);
        b = std::max(b, it->second);
        it = r.erase(it);
    }
    r[a] = b;
}
} // namespace

// ---------------------------------------------------------------- trace helpers

void SataDisk::Impl::fault_effect(const std::string &id,
                                  std::vector<std::pair<std::string, TraceValue>> fields,
                                  const std::string &msg) {
    fields.insert(fields.begin(), {"id", TraceValue::str(id)});
    trace("fault.effect", std::move(fields), msg);
}

// The host broke a rule of the ATA/SATA protocol (model/fault/README.md).
void SataDisk::Impl::violation(const char *rule, const std::string &msg) {
    trace("disk.violation", {{"rule", TraceValue::str(rule)}}, msg);
}

// ---------------------------------------------------------------- command observer

// A command FIS the drive takes on: count it and show it to the observer, which may arm
// faults for this very command.
void SataDisk::Impl::accept_command(const Taskfile &tf, bool ncq) {
    ++cmd_seq;
    if (!observer)
        return;
    const CmdClass k = classify(tf.command);
    CommandInfo ci{tf.command, ncq, k.write, tf.lba, 0, -1, cmd_seq};
    if (ncq) {
        const uint32_t n = uint32_t(tf.feature) | uint32_t(tf.feature_hi) << 8;
        ci.lba = tf.lba & 0xFFFFFFFFFFFFull;
        ci.sectors = n ? n : 65536u;
        ci.tag = int((tf.count >> 3) & 0x1F);
    } else if (k.read || k.write) {
        Xfer x;
        if (decode_rw(tf, k.ext, k.write, x)) {
            ci.lba = x.lba;
            ci.sectors = x.sectors;
        }
    }
    observer(ci);
}

// ---------------------------------------------------------------- media errors

// Does an armed media error hit this command? x: its LBA range (data commands only).
// Consumes one failure of a counted fault.
MediaVerdict SataDisk::Impl::check_media(const Taskfile &tf, bool ncq, const Xfer *x) {
    MediaVerdict v;
    const CmdClass k = classify(tf.command);
    for (size_t i = 0; i < media_faults.size(); ++i) {
        MediaFault &f = media_faults[i];
        const CommandMatch &m = f.p.match;
        if (!op_matches(m.op, k, ncq) || (m.opcode && *m.opcode != tf.command))
            continue;
        const bool ranged = m.lba_first || m.lba_last;
        const uint64_t first = m.lba_first.value_or(0);
        const uint64_t last = m.lba_last.value_or(std::numeric_limits<uint64_t>::max());
        uint64_t lo = 0, hi = 0; // the command's sectors inside the fault's range
        if (x) {
            const uint64_t end = x->lba + x->sectors - 1;
            lo = std::max(first, x->lba);
            hi = std::min(last, end);
            if (lo > hi)
                continue;
        } else if (ranged) {
            continue; // no LBA range to touch
        }
        switch (f.p.error) {
        case MediaParams::Error::Unc: {
            if (!k.read || !x)
                continue;
            auto bad = first_unmapped(f.remapped, lo, hi);
            if (!bad)
                continue; // every sector it touches was rewritten since
            v = {true, ncq ? kStatusNcqError : sata::kAtaStatusError, sata::kAtaUnc, *bad,
                 uint32_t(*bad - x->lba), false};
            break;
        }
        case MediaParams::Error::Idnf:
            if (!x)
                continue;
            v = {true, ncq ? kStatusNcqError : sata::kAtaStatusError, sata::kAtaIdnf, lo,
                 uint32_t(lo - x->lba), false};
            break;
        case MediaParams::Error::WriteFault:
            if (!k.write && !k.flush)
                continue;
            v = {true, kStatusDeviceFault, sata::kAtaAbrt, x ? lo : 0, 0, k.write};
            break;
        case MediaParams::Error::Abrt:
            v = {true, ncq ? kStatusNcqError : sata::kAtaStatusError, sata::kAtaAbrt,
                 x ? x->lba : tf.lba, 0, false};
            break;
        }
        std::vector<std::pair<std::string, TraceValue>> fields{
            {"cmd", TraceValue::hex(tf.command)},
            {"error", TraceValue::str(to_string(f.p.error))},
            {"lba", TraceValue::hex(v.lba)}};
        if (ncq)
            fields.push_back({"tag", TraceValue::integer((tf.count >> 3) & 0x1F)});
        fault_effect(f.id, std::move(fields),
                     std::string("command fails with ") + to_string(f.p.error));
        if (f.left && --f.left == 0)
            media_faults.erase(media_faults.begin() + long(i));
        return v;
    }
    return v;
}

// ---------------------------------------------------------------- slow-downs

sc_core::sc_time SataDisk::Impl::slow_delay(const Taskfile &tf, bool ncq, const Xfer &x) {
    const CmdClass k = classify(tf.command);
    const sc_core::sc_time now = sc_core::sc_time_stamp();
    sc_core::sc_time total = sc_core::SC_ZERO_TIME;
    for (size_t i = 0; i < slow_faults.size();) {
        SlowFault &f = slow_faults[i];
        if (f.p.window_ns && now >= f.until) { // the window is over
            slow_faults.erase(slow_faults.begin() + long(i));
            continue;
        }
        const CommandMatch &m = f.p.match;
        const uint64_t end = x.lba + (x.sectors ? x.sectors - 1 : 0);
        if (!op_matches(m.op, k, ncq) || (m.opcode && *m.opcode != tf.command) ||
            (m.lba_first && end < *m.lba_first) || (m.lba_last && x.lba > *m.lba_last)) {
            ++i;
            continue;
        }
        const sc_core::sc_time d = sc_core::sc_time::from_value(
            sc_dt::uint64(f.p.delay_ns) * sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
        total += d;
        std::vector<std::pair<std::string, TraceValue>> fields{{"cmd", TraceValue::hex(tf.command)},
                                                                {"lba", TraceValue::hex(x.lba)},
                                                                {"delay_ns", TraceValue::integer(int64_t(f.p.delay_ns))}};
        if (ncq)
            fields.push_back({"tag", TraceValue::integer((tf.count >> 3) & 0x1F)});
        fault_effect(f.id, std::move(fields), "command answers late");
        if (f.left && --f.left == 0) {
            slow_faults.erase(slow_faults.begin() + long(i));
            continue;
        }
        ++i;
    }
    return total;
}

// A write reached the media: bad sectors under it are reallocated (UNC faults that a
// write clears).
void SataDisk::Impl::media_written(const Xfer &x) {
    if (x.sectors == 0)
        return;
    const uint64_t end = x.lba + x.sectors - 1;
    for (MediaFault &f : media_faults) {
        const CommandMatch &m = f.p.match;
        if (f.p.error != MediaParams::Error::Unc || !f.p.cleared_by_write ||
            !(m.lba_first || m.lba_last))
            continue;
        const uint64_t lo = std::max(m.lba_first.value_or(0), x.lba);
        const uint64_t hi = std::min(m.lba_last.value_or(std::numeric_limits<uint64_t>::max()), end);
        if (lo > hi || !first_unmapped(f.remapped, lo, hi))
            continue;
        add_range(f.remapped, lo, hi);
        fault_effect(f.id, {{"lba", TraceValue::hex(lo)}, {"sectors", TraceValue::integer(int64_t(hi - lo + 1))}},
                     "bad sectors rewritten (reallocated)");
    }
}

bool SataDisk::Impl::take_identify_failure() {
    if (identify_failures == 0)
        return false;
    --identify_failures;
    fault_effect(identify_fail_id, {{"cmd", TraceValue::hex(op::kIdentify)},
                                    {"error", TraceValue::str("abrt")}},
                 "IDENTIFY DEVICE aborted");
    return true;
}

void SataDisk::Impl::reset_faults() {
    media_faults.clear();
    slow_faults.clear();
    hung = false;
    hang_id.clear();
    identify_failures = 0;
    identify_fail_id.clear();
    bad_fis.reset();
    bad_fis_id.clear();
    long_d2h = false;
    long_d2h_id.clear();
    no_comwake = pmnak = pmnak_told = false;
    no_comwake_left = 0;
    wake_noise = {};
    lpm_fail_id.clear();
}

// bad_fis: the armed FIS goes out now, between commands, whatever the host is doing (the
// drive's firmware does not ask). The record says what was sent; the host's reaction is the
// controller's.
bool SataDisk::Impl::send_bad_fis() {
    if (!bad_fis || reset_state != ResetState::None)
        return false;
    const sata::Fis f = std::move(*bad_fis);
    const std::string id = std::move(bad_fis_id);
    bad_fis.reset();
    bad_fis_id.clear();
    std::vector<std::pair<std::string, TraceValue>> fields = {{"type", TraceValue::hex(f.bytes[0])},
                                                              {"bytes", TraceValue::integer(int64_t(f.bytes.size()))}};
    if (f.type() == sata::FisType::SetDeviceBits)
        fields.emplace_back("sactive", TraceValue::hex(f.dword(1)));
    fault_effect(id, std::move(fields), "drive sends an unsolicited FIS: " + sata::describe(f));
    send(f);
    return true;
}

// ---------------------------------------------------------------- SataDisk hooks

void SataDisk::set_command_observer(std::function<void(const CommandInfo &)> fn) {
    impl_->observer = std::move(fn);
}

void SataDisk::inject_media_error(const MediaParams &p, const std::string &id) {
    MediaFault f;
    f.p = p;
    f.id = id;
    f.left = p.count;
    impl_->media_faults.push_back(std::move(f));
}

void SataDisk::inject_slow(const SlowParams &p, const std::string &id) {
    SlowFault f;
    f.p = p;
    f.id = id;
    f.left = p.count;
    if (p.window_ns)
        f.until = sc_core::sc_time_stamp() + sc_core::sc_time::from_value(sc_dt::uint64(p.window_ns) *
                                                                          sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
    impl_->slow_faults.push_back(std::move(f));
}

// Firmware hang: every command in flight is abandoned where it stands and nothing more
// leaves the drive (no FIS, no SRST answer) until a COMRESET (oob_reset) restarts it.
void SataDisk::inject_hang(const std::string &id, unsigned comresets) {
    Impl &m = *impl_;
    if (m.hung)
        return;
    m.hung = true;
    m.hang_id = id;
    m.hang_comresets = comresets;
    ++m.epoch; // running work stops at its next step
    m.fault_effect(id, {{"state", TraceValue::str("hung")}}, "drive firmware hung (BSY, silent)");
    m.work_event.notify(sc_core::SC_ZERO_TIME);
    m.data_event.notify(sc_core::SC_ZERO_TIME);
}

void SataDisk::inject_identify_failures(unsigned n, const std::string &id) {
    impl_->identify_failures += n;
    impl_->identify_fail_id = id;
}

// The drive that will be plugged in next: its identity, fresh media if asked (which takes
// the old media's bad sectors with it), and electronics at power-on (a hung firmware
// restarts; armed IDENTIFY failures wait for the next IDENTIFY). Called while the cable
// is out; with the link up only the identity changes (nothing resets under the host).
void SataDisk::replace_identity(const PlugParams &p) {
    Impl &m = *impl_;
    if (p.model)
        cfg_.model = *p.model;
    if (p.serial)
        cfg_.serial = *p.serial;
    if (p.capacity)
        cfg_.sectors = *p.capacity;
    if (p.blank_media) { // a different drive: its own media, reading its own blank pattern
        media_.clear(MediaStore::replacement_seed(media_.seed(), cfg_.serial.c_str()));
        m.media_faults.clear();
    }
    m.trace("disk.identity", {{"model", TraceValue::str(cfg_.model)},
                              {"serial", TraceValue::str(cfg_.serial)},
                              {"sectors", TraceValue::integer(int64_t(cfg_.sectors))},
                              {"blank_media", TraceValue::boolean(p.blank_media)}},
            m.phy_up ? "identity replaced while the link is up" : "");
    if (m.phy_up)
        return;
    m.hung = false;
    m.power_on_defaults();
    m.rxq.clear();
    m.start_reset("power_on", false);
}

// A firmware bug: the FIS to send on the command process's next turn, or (long_d2h) the
// next Register D2H FIS sent a dword too long (send() pads it).
void SataDisk::inject_bad_fis(BadFis what, uint8_t type, const std::string &id) {
    Impl &m = *impl_;
    switch (what) {
    case BadFis::LongD2h:
        m.long_d2h = true;
        m.long_d2h_id = id;
        return;
    case BadFis::UnknownType: {
        // four dwords: the type, then bytes counting up (what UFIS shows the host)
        sata::Fis f;
        f.bytes.resize(16);
        for (size_t i = 2; i < f.bytes.size(); ++i)
            f.bytes[i] = uint8_t(i);
        f.bytes[0] = type;
        m.bad_fis = std::move(f);
        break;
    }
    case BadFis::UnsolicitedD2h:
        // a good status with the I bit, for no command the host issued
        m.bad_fis = sata::make_reg_d2h(sata::kAtaDrdy | sata::kAtaDsc, 0, 0, 0, 0, true);
        break;
    case BadFis::SpuriousSdb: {
        // the highest tag of the queue the drive does not hold: "completed" out of nowhere
        uint32_t held = 0;
        for (unsigned t = 0; t < 32; ++t)
            if (m.slots[t].state != NcqSlot::State::Free)
                held |= 1u << t;
        const unsigned depth = std::clamp(m.cfg.ncq_depth, 1u, 32u);
        uint32_t bit = 0;
        for (unsigned t = depth; t-- > 0 && !bit;)
            if (!(held & (1u << t)))
                bit = 1u << t;
        m.bad_fis = sata::make_sdb(sata::kAtaDrdy | sata::kAtaDsc, 0, bit, true, false);
        break;
    }
    }
    m.bad_fis_id = id;
    m.work_event.notify(sc_core::SC_ZERO_TIME);
}

void SataDisk::clear_faults() { impl_->reset_faults(); }

// ---------------------------------------------------------------- power

uint64_t SataDisk::Impl::lose_cache(const std::string &id, bool always) {
    const uint64_t lost = cache.lose();
    cache_dirty = false;
    if (lost || always)
        fault_effect(id, {{"cache_lost_sectors", TraceValue::integer(int64_t(lost))}},
                     lost ? "power lost: " + std::to_string(lost) +
                                " sector(s) in the write cache, not written back, are gone"
                          : std::string("power lost: the write cache held nothing unwritten"));
    return lost;
}

uint64_t SataDisk::lose_cache(const std::string &id, bool always) { return impl_->lose_cache(id, always); }

void SataDisk::power_loss(const std::string &id) {
    Impl &m = *impl_;
    m.lose_cache(id, true);
    m.hung = false;
    m.power_on_defaults();
    m.rxq.clear();
    m.start_reset("power_on", false);
}

uint64_t SataDisk::cache_dirty_sectors() const { return impl_->cache.dirty_sectors(); }

} // namespace satasim::device
