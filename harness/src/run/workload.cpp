#include "run/workload.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace satasim::harness {

namespace {

constexpr size_t kMaxDataReports = 5;

std::string errno_name(int rc) {
    switch (rc) {
    case 0: return "0";
    case -EINVAL: return "-EINVAL";
    case -EOPNOTSUPP: return "-EOPNOTSUPP";
    case -ENODEV: return "-ENODEV";
    case -EBUSY: return "-EBUSY";
    case -ENOMEM: return "-ENOMEM";
    case -EIO: return "-EIO";
    default: return std::to_string(rc);
    }
}

int expected_rc(SubmitExpect e) {
    switch (e) {
    case SubmitExpect::Ok: return 0;
    case SubmitExpect::Einval: return -EINVAL;
    case SubmitExpect::Eopnotsupp: return -EOPNOTSUPP;
    case SubmitExpect::Enodev: return -ENODEV;
    }
    return 0;
}

const char *req_op_name(OpSpec op) {
    return op == OpSpec::Read ? "read" : op == OpSpec::Write ? "write" : op == OpSpec::Trim ? "trim" : "flush";
}

} // namespace

ata_io_mode to_io_mode(ModeSpec m) {
    switch (m) {
    case ModeSpec::Auto: return ATA_IO_AUTO;
    case ModeSpec::Dma: return ATA_IO_DMA;
    case ModeSpec::Pio: return ATA_IO_PIO;
    case ModeSpec::Ncq: return ATA_IO_NCQ;
    }
    return ATA_IO_AUTO;
}

const char *dev_class_name(enum ata_dev_class c) {
    switch (c) {
    case ATA_DEV_UNKNOWN: return "unknown";
    case ATA_DEV_NONE: return "none";
    case ATA_DEV_ATA: return "ata";
    case ATA_DEV_ATAPI: return "atapi";
    case ATA_DEV_PMP: return "pmp";
    case ATA_DEV_SEMB: return "semb";
    case ATA_DEV_ZAC: return "zac";
    case ATA_DEV_SEMB_UNSUP: return "semb_unsup";
    }
    return "unknown";
}

std::string link_speed_name(unsigned gen) {
    switch (gen) {
    case 1: return "1.5 Gbps";
    case 2: return "3.0 Gbps";
    case 3: return "6.0 Gbps";
    default: return "unknown";
    }
}

// ---- DeviceState ----

bool DeviceState::conflicts(uint64_t lba, uint64_t n, bool write) const {
    for (const Range &r : inflight)
        if ((write || r.write) && lba < r.lba + r.n && r.lba < lba + n)
            return true;
    return false;
}

uint64_t DeviceState::add_range(uint64_t lba, uint64_t n, bool write) {
    uint64_t id = next_range_id++;
    inflight.push_back({lba, n, write, id});
    return id;
}

bool DeviceState::follow_media() {
    const unsigned now = media_swaps ? media_swaps() : 0;
    if (now == media)
        return false;
    media = now;
    shadow = ShadowMap{};
    shadow.set_blank(media_seed ? media_seed() : std::nullopt);
    durability.reset(shadow.blank_seed());
    return true;
}

bool DeviceState::follow_losses() {
    const unsigned now = power_losses ? power_losses() : 0;
    if (now == losses)
        return false;
    losses = now;
    durability.power_lost();
    return true;
}

void DeviceState::remove_range(uint64_t id) {
    for (size_t i = 0; i < inflight.size(); ++i)
        if (inflight[i].id == id) {
            inflight.erase(inflight.begin() + long(i));
            return;
        }
}

// ---- WorkloadRunner ----

WorkloadRunner::WorkloadRunner(unsigned index, const WorkloadSpec &spec, DeviceState *dev,
                               PlatformBinding &binding, TraceSink &sink, RunFailures &failures,
                               uint64_t seed)
    : index_(index), spec_(spec), dev_(dev), binding_(binding), sink_(sink), failures_(failures),
      seed_(seed), rng_(derive_seed(seed, "workload" + std::to_string(index))) {
    stats_.requested = spec.count;
}

WorkloadRunner::~WorkloadRunner() {
    // Buffers belong to host memory, which outlives nothing here: only release them when
    // no request can still point at them.
    if (outstanding_ == 0)
        free_slots();
}

std::string WorkloadRunner::label() const {
    if (spec_.attach_read)
        return "attach read (" + spec_.addr().str() + ")";
    if (spec_.kind == WorkloadKind::Scan && !spec_.scan_port)
        return "workload[" + std::to_string(index_) + "] (scan of every port)";
    if (spec_.warmplug())
        return "workload[" + std::to_string(index_) + "] (" + workload_kind_name(spec_.kind) + " port " +
               std::to_string(spec_.device) + ")";
    if (spec_.kind == WorkloadKind::Scsi)
        return "workload[" + std::to_string(index_) + "] (" + spec_.addr().str() + ", scsi)";
    return "workload[" + std::to_string(index_) + "] (" + spec_.addr().str() + ", " +
           (spec_.kind == WorkloadKind::Request ? "request " : "") + op_name(spec_.op) + ")";
}

std::string WorkloadRunner::progress() const {
    return label() + ": completed " + std::to_string(stats_.completed) + "/" + std::to_string(stats_.requested) +
           ", " + std::to_string(outstanding_) + " in flight" +
           (stats_.started ? "" : ", not started");
}

std::vector<std::string> WorkloadRunner::pending_requests() const {
    std::vector<std::string> out;
    for (const auto &s : slots_)
        if (s->busy && !s->finished)
            out.push_back(label() + ": " + req_op_name(s->req.op) + " lba " + std::to_string(s->req.lba) +
                          " sectors " + std::to_string(s->req.n) + (s->prefill ? " (prefill)" : "") +
                          " submitted at t=" + std::to_string(s->submit_ns) + " ns never ended");
    return out;
}

void WorkloadRunner::alloc_slots(unsigned n, uint32_t max_sectors) {
    free_slots();
    size_t bytes = std::max<size_t>(size_t(max_sectors) * kSector * dev_->units(), kSector);
    for (unsigned i = 0; i < n; ++i) {
        auto s = std::make_unique<Slot>();
        s->owner = this;
        int rc = binding_.dma_alloc(bytes, 4096, &s->buf);
        if (rc != 0)
            binding_.fatal("cannot allocate a " + std::to_string(bytes) + "-byte I/O buffer for " + label());
        slots_.push_back(std::move(s));
    }
}

void WorkloadRunner::free_slots() {
    for (auto &s : slots_)
        binding_.dma_free(&s->buf);
    slots_.clear();
}

void WorkloadRunner::on_done(ata_bio *bio) {
    Slot *s = static_cast<Slot *>(bio->priv);
    WorkloadRunner *self = s->owner;
    if (!s->busy || s->finished) {
        self->failures_.add(self->label() + ": done() called twice for one request (lba " +
                            std::to_string(s->req.lba) + ")");
        return;
    }
    s->finished = true;
    self->done_q_.push_back(s);
    self->wake_.notify(sc_core::SC_ZERO_TIME);
}

int WorkloadRunner::submit(Slot &s, const Req &req, ata_io_mode mode, bool prefill) {
    s.req = req;
    s.prefill = prefill;
    s.finished = false;
    s.gen = 0;
    s.bio = ata_bio{};
    s.sg.clear();
    const uint32_t u = dev_->units();
    size_t bytes = size_t(req.n) * u * kSector;
    if (req.op == OpSpec::Read) {
        std::memset(s.buf.cpu, kPoison, bytes);
    } else if (req.op == OpSpec::Write) {
        s.gen = dev_->next_gen++;
        uint8_t *p = static_cast<uint8_t *>(s.buf.cpu);
        for (uint64_t i = 0; i < uint64_t(req.n) * u; ++i)
            fill_sector(p + size_t(i) * kSector, req.lba * u + i, s.gen, seed_);
    }
    if (req.op == OpSpec::Trim) {
        // the payload the stack writes the range list into (sd's page for a discard)
        bytes = ATA_TRIM_PAYLOAD;
        s.sg.push_back(ata_sg{s.buf.bus, uint32_t(bytes)});
    } else if (req.op != OpSpec::Flush) {
        for (size_t off = 0; off < bytes; off += spec_.sg_segment) {
            size_t len = std::min<size_t>(spec_.sg_segment, bytes - off);
            s.sg.push_back(ata_sg{s.buf.bus + off, uint32_t(len)});
        }
    }
    s.bio.op = req.op == OpSpec::Read    ? ATA_BIO_READ
               : req.op == OpSpec::Write ? ATA_BIO_WRITE
               : req.op == OpSpec::Trim  ? ATA_BIO_TRIM
                                         : ATA_BIO_FLUSH;
    s.bio.mode = mode;
    s.bio.lba = req.op == OpSpec::Flush ? 0 : req.lba;
    s.bio.n_sectors = req.op == OpSpec::Flush ? 0 : req.n;
    s.bio.sg = s.sg.empty() ? nullptr : s.sg.data();
    s.bio.n_sg = unsigned(s.sg.size());
    s.bio.fail_fast = spec_.fail_fast;
    s.bio.fua = req.op == OpSpec::Write && spec_.fua && !prefill;
    s.bio.want_tag = spec_.tag.has_value();
    s.bio.blk_tag = spec_.tag.value_or(0);
    s.bio.done = &WorkloadRunner::on_done;
    s.bio.priv = &s;
    if (req.op != OpSpec::Flush) // hand the buffer to the device (QEMU: copy into guest RAM)
        binding_.dma_sync_for_device(&s.buf, 0, bytes);
    const bool changes = req.op == OpSpec::Write || req.op == OpSpec::Trim;
    s.range_id = req.op == OpSpec::Flush ? 0 : dev_->add_range(req.lba, req.n, changes);
    dev_->follow_media();
    dev_->follow_losses();
    s.media = dev_->media;
    s.losses = dev_->losses;
    s.acks = dev_->durability.acks();
    s.busy = true;
    s.submit_ns = binding_.now_ns();
    ++outstanding_;
    ++stats_.issued;
    int rc = ata_bio_submit(dev_->dev, &s.bio);
    if (rc != 0) {
        // Not queued: done() will not be called.
        s.busy = false;
        --outstanding_;
        if (s.range_id)
            dev_->remove_range(s.range_id);
        if (s.finished) {
            failures_.add(label() + ": ata_bio_submit returned " + errno_name(rc) +
                          " but also called done()");
            done_q_.erase(std::remove(done_q_.begin(), done_q_.end(), &s), done_q_.end());
        }
        s.finished = false;
    }
    return rc;
}

void WorkloadRunner::record_io_error(const Slot &s, const std::string &what) {
    ++failures_.io_errors;
    std::string msg = label() + ": " + req_op_name(s.req.op) + " lba " + std::to_string(s.req.lba) +
                      " sectors " + std::to_string(s.req.n) + " " + what;
    failures_.add_io("I/O error: " + msg);
    sink_.emit_harness("io.error", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"op", TraceValue::str(req_op_name(s.req.op))},
                        {"lba", TraceValue::integer(int64_t(s.req.lba))},
                        {"sectors", TraceValue::integer(s.req.n)},
                        {"err_mask", TraceValue::hex(s.bio.err_mask)},
                        {"status", TraceValue::hex(s.bio.status)},
                        {"error", TraceValue::hex(s.bio.error)}},
                       "I/O error: " + msg);
}

// A read found what a power loss left of writes never made durable: reported, not a data
// error; the sectors hold that now.
void WorkloadRunner::record_not_durable(const Req &r, const std::vector<ReadCheck::Lost> &lost) {
    stats_.not_durable += lost.size();
    failures_.not_durable += lost.size();
    for (const ReadCheck::Lost &l : lost) {
        dev_->shadow.set(l.lba, 1, l.found);
        dev_->durability.settle(l.lba, l.found);
    }
    for (const std::string &d : describe_lost(lost))
        sink_.emit_harness("data.not_durable", SATA_TC_INFO, int(dev_->port),
                           {{"workload", TraceValue::integer(index_)},
                            {"read_lba", TraceValue::integer(int64_t(r.lba))},
                            {"sectors", TraceValue::integer(r.n)}},
                           "lost, not durable, on " + dev_->addr().str() + " (" + dev_->name + "): " + d);
}

void WorkloadRunner::finish(Slot &s) {
    s.busy = false;
    s.finished = false;
    --outstanding_;
    if (s.range_id)
        dev_->remove_range(s.range_id);
    dev_->changed.notify(sc_core::SC_ZERO_TIME);
    if (s.prefill)
        ++stats_.prefill_commands;
    else
        ++stats_.completed;

    const Req &r = s.req;
    // the data check's 512-byte sectors of the request (DeviceState::units)
    const uint64_t cl = r.lba * dev_->units(), cn = uint64_t(r.n) * dev_->units();
    unsigned err = s.bio.err_mask;
    if (spec_.kind == WorkloadKind::Request)
        stats_.err_mask = err;
    // The drive was replaced while the request was in flight: which drive's data it moved
    // is not known (the old drive's, the new one's after EH retried it, or neither).
    dev_->follow_media();
    dev_->follow_losses();
    const bool across_swap = s.media != dev_->media;
    const bool tracked = dev_->tracks_durability() && !across_swap;
    if (err) {
        if (!s.prefill)
            ++stats_.errors;
        if (r.op == OpSpec::Write || r.op == OpSpec::Trim) {
            dev_->shadow.set(cl, cn, ShadowMap::kUnknown);
            if (tracked)
                dev_->durability.failed(cl, cn);
        }
        if (!expect_failure_) {
            char buf[96];
            std::snprintf(buf, sizeof buf, "failed: err_mask 0x%x status 0x%02x error 0x%02x%s", err,
                          unsigned(s.bio.status), unsigned(s.bio.error), s.prefill ? " (prefill)" : "");
            record_io_error(s, buf);
        }
        return;
    }
    if (expect_failure_)
        failures_.add(label() + ": expected the command to fail, but it completed successfully");
    if (!s.prefill) { // prefill is setup: not counted in the workload's statistics
        if (r.op == OpSpec::Read)
            ++stats_.reads;
        else if (r.op == OpSpec::Write)
            ++stats_.writes;
        else if (r.op == OpSpec::Trim)
            ++stats_.trims;
        else
            ++stats_.flushes;
    }
    if (r.op == OpSpec::Flush && tracked && s.losses == dev_->losses)
        dev_->durability.flushed(s.acks); // (a flush the power loss crossed claims nothing)
    if (r.op == OpSpec::Trim) {
        // The sectors read zeroes where IDENTIFY word 69 promises it (bits 14 and 5), else
        // anything (the drive's choice); after a power loss anything either way.
        const bool zeroes = ata_trim_reads_zeroes(dev_->dev) && !across_swap;
        dev_->shadow.set(cl, cn, zeroes ? ShadowMap::kTrimmed : ShadowMap::kUnknown);
        if (tracked)
            dev_->durability.failed(cl, cn);
    }
    if (r.op == OpSpec::Write) {
        dev_->shadow.set(cl, cn, across_swap ? ShadowMap::kUnknown : s.gen);
        if (tracked)
            dev_->durability.acknowledged(cl, cn, s.gen, s.bio.fua, s.losses != dev_->losses);
        if (!s.prefill)
            stats_.bytes += cn * kSector;
    } else if (r.op == OpSpec::Read) {
        binding_.dma_sync_for_cpu(&s.buf, 0, size_t(cn) * kSector); // QEMU: copy out of guest RAM
        if (!s.prefill)
            stats_.bytes += cn * kSector;
        if (spec_.verify && !across_swap) {
            ReadCheck c = check_read(static_cast<const uint8_t *>(s.buf.cpu), cl, uint32_t(cn), dev_->shadow, seed_,
                                     kMaxDataReports, tracked ? &dev_->durability : nullptr);
            if (!c.lost.empty())
                record_not_durable(r, c.lost);
            if (c.bad_sectors) {
                stats_.data_errors += c.bad_sectors;
                failures_.data_errors += c.bad_sectors;
                for (const std::string &d : c.first) {
                    std::string msg = "data mismatch on " + dev_->addr().str() + " (" +
                                      dev_->name + "), " + d;
                    failures_.add(msg);
                    sink_.emit_harness("data.mismatch", SATA_TC_INFO, int(dev_->port),
                                       {{"workload", TraceValue::integer(index_)},
                                        {"read_lba", TraceValue::integer(int64_t(r.lba))},
                                        {"sectors", TraceValue::integer(r.n)},
                                        {"bad_sectors", TraceValue::integer(int64_t(c.bad_sectors))}},
                                       msg);
                }
            }
        }
    }
}

void WorkloadRunner::process_done() {
    while (!done_q_.empty()) {
        Slot *s = done_q_.front();
        done_q_.pop_front();
        finish(*s);
    }
}

void WorkloadRunner::run_phase(const std::function<Req()> &gen, uint64_t count, unsigned qd,
                               ata_io_mode mode, bool prefill) {
    std::optional<Req> pending;
    uint64_t issued = 0, finished = 0;
    uint64_t base_completed = prefill ? stats_.prefill_commands : stats_.completed;
    auto n_finished = [&] {
        return (prefill ? stats_.prefill_commands : stats_.completed) - base_completed + finished;
    };
    for (;;) {
        process_done();
        while (outstanding_ < qd && issued < count) {
            if (!pending)
                pending = gen();
            const Req &r = *pending;
            if (r.op != OpSpec::Flush && dev_->conflicts(r.lba, r.n, r.op == OpSpec::Write || r.op == OpSpec::Trim))
                break; // wait for the overlapping request to finish
            Slot *slot = nullptr;
            for (auto &s : slots_)
                if (!s->busy) {
                    slot = s.get();
                    break;
                }
            if (!slot)
                break;
            int rc = submit(*slot, r, mode, prefill);
            ++issued;
            pending.reset();
            if (rc != 0) {
                ++stats_.submit_errors;
                ++finished;
                ++failures_.io_errors;
                std::string msg = label() + ": ata_bio_submit(" + req_op_name(slot->req.op) + " lba " +
                                  std::to_string(slot->req.lba) + " sectors " + std::to_string(slot->req.n) +
                                  ") returned " + errno_name(rc);
                failures_.add_io(msg);
                sink_.emit_harness("io.submit_error", SATA_TC_INFO, int(dev_->port),
                                   {{"workload", TraceValue::integer(index_)},
                                    {"lba", TraceValue::integer(int64_t(slot->req.lba))},
                                    {"sectors", TraceValue::integer(slot->req.n)},
                                    {"rc", TraceValue::integer(rc)}},
                                   msg);
            }
        }
        if (n_finished() >= count && outstanding_ == 0)
            break;
        if (done_q_.empty())
            sc_core::wait(wake_ | dev_->changed);
    }
}

void WorkloadRunner::maybe_prefill() {
    // Only on request: never-written sectors have defined contents (the shadow knows the
    // media's blank pattern), so a read workload checks its data without pre-writing its
    // region, and its cost follows the commands it issues.
    if (spec_.prefill != PrefillSpec::Yes)
        return;
    uint32_t chunk = std::min<uint32_t>(dev_->info.max_sectors ? dev_->info.max_sectors : 256, 2048);
    chunk = uint32_t(std::min<uint64_t>(chunk, spec_.region_length));
    uint64_t count = (spec_.region_length + chunk - 1) / chunk;
    sink_.emit_harness("workload.prefill", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"lba", TraceValue::integer(int64_t(spec_.region_start))},
                        {"sectors", TraceValue::integer(int64_t(spec_.region_length))},
                        {"commands", TraceValue::integer(int64_t(count))}});
    alloc_slots(std::min(4u, spec_.qd), chunk);
    uint64_t cursor = spec_.region_start, end = spec_.region_start + spec_.region_length;
    run_phase(
        [&]() {
            Req r{OpSpec::Write, cursor, uint32_t(std::min<uint64_t>(chunk, end - cursor))};
            cursor += r.n;
            return r;
        },
        count, std::min(4u, spec_.qd), ATA_IO_AUTO, true);
    free_slots();
}

void WorkloadRunner::run_io() {
    maybe_prefill();
    uint64_t start = spec_.region_start, len = spec_.region_length;
    uint64_t cursor = start;
    alloc_slots(spec_.qd, spec_.op == OpSpec::Flush ? 1 : spec_.block_max);
    auto gen = [&]() -> Req {
        Req r{};
        switch (spec_.op) {
        case OpSpec::Read: r.op = OpSpec::Read; break;
        case OpSpec::Write: r.op = OpSpec::Write; break;
        case OpSpec::Mix: r.op = rng_.below(100) < spec_.read_pct ? OpSpec::Read : OpSpec::Write; break;
        case OpSpec::Flush: r.op = OpSpec::Flush; return r;
        case OpSpec::Trim: r.op = OpSpec::Trim; break;
        }
        r.n = spec_.block_min == spec_.block_max
                  ? spec_.block_min
                  : uint32_t(spec_.block_min + rng_.below(uint64_t(spec_.block_max - spec_.block_min) + 1));
        if (spec_.pattern == PatternSpec::Sequential) {
            if (cursor + r.n > start + len)
                cursor = start;
            r.lba = cursor;
            cursor += r.n;
        } else if (spec_.block_min == spec_.block_max) {
            r.lba = start + rng_.below(len / r.n) * r.n; // block-aligned within the region
        } else {
            r.lba = start + rng_.below(len - r.n + 1);
        }
        return r;
    };
    run_phase(gen, spec_.count, spec_.qd, to_io_mode(spec_.mode), false);
    free_slots();
}

void WorkloadRunner::run_request() {
    Req r{spec_.op, spec_.lba, spec_.sectors};
    alloc_slots(1, std::max<uint32_t>(spec_.sectors, 1));
    // Wait for overlapping requests of other workloads.
    while (r.op != OpSpec::Flush && dev_->conflicts(r.lba, r.n, r.op == OpSpec::Write || r.op == OpSpec::Trim))
        sc_core::wait(dev_->changed);
    expect_failure_ = spec_.expect_error;
    Slot &s = *slots_[0];
    int rc = submit(s, r, to_io_mode(spec_.mode), false);
    stats_.submit_rc = rc;
    int want = expected_rc(spec_.expect_submit);
    std::string what = std::string(req_op_name(r.op)) + " lba " + std::to_string(r.lba) + " sectors " +
                       std::to_string(r.n) + " mode " + mode_name(spec_.mode);
    sink_.emit_harness("request.submit", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"op", TraceValue::str(req_op_name(r.op))},
                        {"lba", TraceValue::integer(int64_t(r.lba))},
                        {"sectors", TraceValue::integer(r.n)},
                        {"rc", TraceValue::integer(rc)},
                        {"expected_rc", TraceValue::integer(want)}});
    if (rc != want) {
        failures_.add(label() + ": ata_bio_submit(" + what + ") returned " + errno_name(rc) + ", expected " +
                      errno_name(want));
        if (rc != 0 && want == 0)
            ++failures_.io_errors;
    }
    if (rc == 0) {
        while (outstanding_ > 0) {
            process_done();
            if (outstanding_ > 0 && done_q_.empty())
                sc_core::wait(wake_);
        }
    } else {
        ++stats_.completed; // the request ran its course: refused at submit
        if (rc != want)
            ++stats_.submit_errors;
    }
    free_slots();
}

// delete / scan / rescan: the SCSI layer's warm-plug requests, in process context as the
// sysfs writes are (ata.h: they block until EH has run).
void WorkloadRunner::run_warmplug() {
    ata_host *h = binding_.host();
    std::vector<unsigned> ports;
    if (spec_.kind == WorkloadKind::Scan && !spec_.scan_port)
        for (unsigned p = 0; h && p < ata_host_n_ports(h); ++p)
            ports.push_back(p);
    else
        ports.push_back(spec_.device);
    for (unsigned port : ports) {
        const char *kind = workload_kind_name(spec_.kind);
        int rc = !h                                  ? -ENODEV
                 : spec_.kind == WorkloadKind::Delete ? ata_dev_delete(h, port)
                 : spec_.kind == WorkloadKind::Rescan ? ata_dev_rescan(h, port)
                                                      : ata_port_scan(h, port);
        // A host-wide scan skips ports the stack does not use (dummy ports: -ENODEV).
        const bool skipped = rc == -ENODEV && spec_.kind == WorkloadKind::Scan && !spec_.scan_port;
        const std::string name = DevAddr{port, std::nullopt}.ata_name();
        sink_.emit_harness("workload.warmplug", SATA_TC_INFO, int(port),
                           {{"workload", TraceValue::integer(index_)},
                            {"kind", TraceValue::str(kind)},
                            {"rc", TraceValue::integer(rc)}},
                           skipped ? std::string()
                                   : std::string("warm-plug ") + kind + " " +
                                         (spec_.kind == WorkloadKind::Scan ? "ata" + std::to_string(port + 1) : name) +
                                         ": " + errno_name(rc));
        if (rc != 0 && !skipped)
            failures_.add(label() + ": " +
                          (spec_.kind == WorkloadKind::Delete   ? "ata_dev_delete"
                           : spec_.kind == WorkloadKind::Rescan ? "ata_dev_rescan"
                                                                : "ata_port_scan") +
                          "(port " + std::to_string(port) + ") returned " + errno_name(rc));
        ++stats_.completed;
    }
}

namespace {

std::string hex_bytes(const uint8_t *b, size_t n) {
    std::string o;
    char t[4];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(t, sizeof t, i ? " %02x" : "%02x", b[i]);
        o += t;
    }
    return o;
}

} // namespace

// kind: scsi: one CDB through the SAT layer, as sg_raw sends it (an SG_IO pass-through
// request: no retries above EH, no block-layer error line), then its status, sense data and
// data checked against the expectations. The data check's shadow does not follow what a
// SCSI write changes: a scenario keeps such writes apart from verified regions.
void WorkloadRunner::run_scsi() {
    const size_t bytes = std::max<size_t>({size_t(spec_.data_in), spec_.data_out.size(), size_t(kSector)});
    plat_dma_buf buf{};
    if (binding_.dma_alloc(bytes, 4096, &buf) != 0)
        binding_.fatal("cannot allocate a " + std::to_string(bytes) + "-byte SCSI buffer for " + label());
    std::memset(buf.cpu, 0, bytes);
    if (!spec_.data_out.empty())
        std::memcpy(buf.cpu, spec_.data_out.data(), spec_.data_out.size());
    binding_.dma_sync_for_device(&buf, 0, bytes); // the buffer as the controller reads it (QEMU: guest RAM)
    const ata_sg sg{buf.bus, uint32_t(bytes)};
    ata_scsi_cmd cmd{};
    std::memcpy(cmd.cdb, spec_.cdb.data(), spec_.cdb.size());
    cmd.cdb_len = unsigned(spec_.cdb.size());
    cmd.dir = spec_.data_in ? ATA_SCSI_DIR_FROM_DEV : !spec_.data_out.empty() ? ATA_SCSI_DIR_TO_DEV : ATA_SCSI_DIR_NONE;
    cmd.len = spec_.data_in ? spec_.data_in : uint32_t(spec_.data_out.size());
    cmd.sg = cmd.len ? &sg : nullptr;
    cmd.n_sg = cmd.len ? 1 : 0;
    cmd.passthrough = true;
    cmd.want_tag = spec_.tag.has_value();
    cmd.blk_tag = spec_.tag.value_or(0);
    cmd.atapi_pio = spec_.packet_pio;
    cmd.atapi_byte_count = spec_.byte_count;
    cmd.priv = this;
    cmd.done = [](ata_scsi_cmd *c) {
        auto *self = static_cast<WorkloadRunner *>(c->priv);
        self->scsi_done_ = true;
        self->wake_.notify(sc_core::SC_ZERO_TIME);
    };
    scsi_done_ = false;
    const std::string cdb = hex_bytes(spec_.cdb.data(), spec_.cdb.size());
    const int rc = ata_scsi_queuecmd(dev_->dev, &cmd);
    while (rc == 0 && !scsi_done_)
        sc_core::wait(wake_);
    binding_.dma_sync_for_cpu(&buf, 0, bytes); // what the controller wrote (QEMU: from guest RAM)
    ++stats_.completed;
    const uint32_t got = cmd.len - std::min(cmd.resid, cmd.len);
    const std::string sense = hex_bytes(cmd.sense, cmd.sense_len);
    const std::string data = spec_.data_in ? hex_bytes(static_cast<const uint8_t *>(buf.cpu), std::min<uint32_t>(got, 64)) : "";
    sink_.emit_harness("scsi.result", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"cdb", TraceValue::str(cdb)},
                        {"rc", TraceValue::integer(rc)},
                        {"status", TraceValue::integer(cmd.status)},
                        {"sense", TraceValue::str(sense)},
                        {"resid", TraceValue::integer(cmd.resid)},
                        {"data", TraceValue::str(data)}},
                       "SCSI " + cdb + ": " + (rc ? errno_name(rc) : cmd.status ? "CHECK CONDITION, sense " + sense : "GOOD"));
    const std::string what = label() + ": CDB " + cdb;
    if (rc != 0) {
        failures_.add(what + ": ata_scsi_queuecmd returned " + errno_name(rc));
        ++stats_.submit_errors;
    } else {
        if (cmd.status != SAM_STAT_GOOD)
            ++stats_.errors;
        const uint8_t want = spec_.expect_status.value_or(SAM_STAT_GOOD);
        if (cmd.status != want)
            failures_.add(what + ": status " + (cmd.status ? "CHECK CONDITION" : "GOOD") + (cmd.sense_len ? " (sense " + sense + ")" : "") +
                          ", expected " + (want ? "CHECK CONDITION" : "GOOD"));
        if (spec_.expect_sense_key) {
            const auto &e = *spec_.expect_sense_key;
            const std::array<uint8_t, 3> got_key = sense_key_of(cmd.sense, cmd.sense_len);
            if (got_key != e) {
                char b[96];
                std::snprintf(b, sizeof b, ": sense %x/%02x/%02x, expected %x/%02x/%02x", got_key[0], got_key[1],
                              got_key[2], e[0], e[1], e[2]);
                failures_.add(what + b + (cmd.sense_len ? " (sense " + sense + ")" : ""));
            }
        }
        if (cmd.status == SAM_STAT_GOOD && spec_.verify && spec_.data_in)
            verify_disc(static_cast<const uint8_t *>(buf.cpu), got);
        if (spec_.expect_sense && (spec_.expect_sense->size() != cmd.sense_len ||
                                   !std::equal(spec_.expect_sense->begin(), spec_.expect_sense->end(), cmd.sense)))
            failures_.add(what + ": sense data [" + sense + "], expected [" +
                          hex_bytes(spec_.expect_sense->data(), spec_.expect_sense->size()) + "]");
        if (!spec_.expect_data.empty()) {
            const auto *p = static_cast<const uint8_t *>(buf.cpu);
            if (got < spec_.expect_data.size() || !std::equal(spec_.expect_data.begin(), spec_.expect_data.end(), p))
                failures_.add(what + ": data [" + hex_bytes(p, std::min<size_t>(got, spec_.expect_data.size())) +
                              "] (" + std::to_string(got) + " bytes), expected [" +
                              hex_bytes(spec_.expect_data.data(), spec_.expect_data.size()) + "]");
        }
    }
    binding_.dma_free(&buf);
}

void WorkloadRunner::run() {
    if (spec_.start_delay_ns)
        sc_core::wait(sc_core::sc_time::from_value(
            sc_dt::uint64(spec_.start_delay_ns) * sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value())));
    stats_.started = true;
    stats_.start_ns = binding_.now_ns();
    // the host port (a host-wide scan has none); dev_ is null for warm-plug steps
    const int port = spec_.kind == WorkloadKind::Scan && !spec_.scan_port ? -1 : int(spec_.device);
    sink_.emit_harness("workload.start", SATA_TC_INFO, port,
                       {{"workload", TraceValue::integer(index_)},
                        {"kind", TraceValue::str(workload_kind_name(spec_.kind))},
                        {"op", TraceValue::str(op_name(spec_.op))},
                        {"mode", TraceValue::str(mode_name(spec_.mode))},
                        {"count", TraceValue::integer(int64_t(spec_.count))}});
    if (spec_.warmplug())
        run_warmplug();
    else if (spec_.kind == WorkloadKind::Request)
        run_request();
    else if (spec_.kind == WorkloadKind::Tray)
        run_tray();
    else if (spec_.kind == WorkloadKind::Scsi)
        run_scsi();
    else
        run_io();
    stats_.end_ns = binding_.now_ns();
    stats_.done = true;
    sink_.emit_harness("workload.done", SATA_TC_INFO, port,
                       {{"workload", TraceValue::integer(index_)},
                        {"completed", TraceValue::integer(int64_t(stats_.completed))},
                        {"errors", TraceValue::integer(int64_t(stats_.errors))},
                        {"bytes", TraceValue::integer(int64_t(stats_.bytes))},
                        {"data_errors", TraceValue::integer(int64_t(stats_.data_errors))}});
    done_ev_.notify(sc_core::SC_ZERO_TIME);
}

} // namespace satasim::harness
