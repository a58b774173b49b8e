// The I/O submitters: one SystemC thread per workload entry (process context), keeping up
// to qd requests outstanding through ata_bio_submit(), generating them from seeded
// generators, and verifying data against the shadow of what each sector should hold.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "run/data_check.h"
#include "backend/platform_binding.h"
#include "util/prng.h"
#include "satasim/ata.h"
#include "satasim/scsi.h"
#include "scenario/scenario.h"
#include "trace/trace_sink.h"

namespace satasim::harness {

// What the run as a whole collects from every workload.
struct RunFailures {
    std::vector<std::string> reasons;
    // The I/O errors themselves: reasons only when their number is not what the scenario
    // expects (a fault scenario states how many it expects).
    std::vector<std::string> io_reasons;
    uint64_t io_errors = 0;   // failed bios not declared as expected
    uint64_t data_errors = 0; // sectors that read back wrong
    uint64_t not_durable = 0; // sectors that read back old after a power loss, never durable
    void add(const std::string &r) { push(reasons, r); }
    void add_io(const std::string &r) { push(io_reasons, r); }

  private:
    static void push(std::vector<std::string> &v, const std::string &r) {
        if (v.size() < 50)
            v.push_back(r);
        else if (v.size() == 50)
            v.push_back("(further problems not listed)");
    }
};

// One disk as the workloads see it: the stack's device, what it should contain, and the
// LBA ranges in flight (a write never overlaps another request in flight).
struct DeviceState {
    unsigned port = 0;
    std::optional<unsigned> pmp_port; // behind the port multiplier on `port`
    unsigned devno = 0;               // a channel's slave (piix map ich6)
    std::string name; // "disk<port>", "disk<port>.<pmp_port>" or "disk<port>.1" (slave)
    DevAddr addr() const { return {port, pmp_port, devno}; }
    ata_device *dev = nullptr;
    ata_dev_info info{};
    // 512-byte sectors per logical sector (8 on a 4Kn disk): requests are in logical sectors,
    // the data check (shadow, durability, fill pattern, the media) in 512-byte ones, by byte
    // offset / 512, so a 4Kn disk's LBA L is checked as sectors 8L .. 8L+7.
    uint32_t units() const { return info.sector_size > 512 ? info.sector_size / 512 : 1; }
    ShadowMap shadow;
    uint64_t next_gen = 1;
    struct Range {
        uint64_t lba, n;
        bool write;
        uint64_t id;
    };
    std::vector<Range> inflight;
    uint64_t next_range_id = 1;
    sc_core::sc_event changed; // a request finished on this device

    // The drive at this place replaced by another (a `plug` with blank_media: new media,
    // maybe the same identity, which the stack then rightly keeps as the same device): the
    // replacements so far and the present drive's media seed, from the fault engine and the
    // model disk (unset without them: nothing is ever replaced).
    std::function<unsigned()> media_swaps;
    std::function<std::optional<uint64_t>()> media_seed;
    // An ATAPI drive (devices[].atapi): its tray events and the disc it reads now (unset
    // without an ATAPI model there).
    std::function<bool(const std::string &action, uint64_t seed, uint32_t blocks)> atapi_event;
    std::function<std::optional<uint64_t>()> atapi_disc_seed;
    unsigned media = 0; // the replacements the shadow follows
    // After a replacement the old drive's data check ends: the shadow starts afresh with the
    // new drive (never written: its blank pattern). Requests submitted before it and ended
    // after it are not checked (the workload runner compares `media`). Call before using the
    // shadow; true if it started afresh.
    bool follow_media();
    // The drive's power losses (unplug, power_loss: the kinds whose rows say cuts_power) so
    // far, from the fault engine; unset when the scenario has none at this place: then no
    // write is tracked for durability and no read may come back old.
    std::function<unsigned()> power_losses;
    unsigned losses = 0; // the power losses the durability log follows
    DurabilityLog durability;
    bool tracks_durability() const { return bool(power_losses); }
    // Call before using the durability log: a new power loss makes every write not durable
    // maybe lost. True if there was one.
    bool follow_losses();

    bool conflicts(uint64_t lba, uint64_t n, bool write) const;
    uint64_t add_range(uint64_t lba, uint64_t n, bool write);
    void remove_range(uint64_t id);
};

struct WorkloadStats {
    uint64_t requested = 0;
    uint64_t issued = 0;
    uint64_t completed = 0; // done() called (successful or not)
    uint64_t errors = 0;    // completed with err_mask != 0
    uint64_t submit_errors = 0;
    uint64_t bytes = 0; // moved by successful reads and writes
    uint64_t reads = 0, writes = 0, flushes = 0, trims = 0;
    uint64_t data_errors = 0;
    uint64_t not_durable = 0; // sectors read back old after a power loss (not data errors)
    uint64_t prefill_commands = 0;
    uint64_t start_ns = 0, end_ns = 0;
    bool started = false, done = false;
    // kind: request
    std::optional<int> submit_rc;
    std::optional<unsigned> err_mask;
};

// The sense key, ASC and ASCQ of sense data in fixed or descriptor format (all zero: none).
std::array<uint8_t, 3> sense_key_of(const uint8_t *sense, unsigned len);

class WorkloadRunner {
  public:
    WorkloadRunner(unsigned index, const WorkloadSpec &spec, DeviceState *dev, PlatformBinding &binding,
                   TraceSink &sink, RunFailures &failures, uint64_t seed);
    ~WorkloadRunner();

    // The thread body: runs the workload to the end, then notifies done_event().
    void run();
    const WorkloadStats &stats() const { return stats_; }
    const WorkloadSpec &spec() const { return spec_; }
    unsigned index() const { return index_; }
    const sc_core::sc_event &done_event() const { return done_ev_; }
    std::string progress() const;
    // One line per request submitted and not yet ended (op, LBA, sectors, submit time).
    std::vector<std::string> pending_requests() const;
    std::string label() const; // "workload[0] (port 0, read)"

  private:
    struct Req {
        OpSpec op; // Read, Write or Flush
        uint64_t lba;
        uint32_t n;
    };
    struct Slot {
        WorkloadRunner *owner = nullptr;
        ata_bio bio{};
        std::vector<ata_sg> sg;
        plat_dma_buf buf{};
        Req req{};
        uint64_t gen = 0;
        uint64_t range_id = 0;
        uint64_t submit_ns = 0;
        unsigned media = 0; // the device's drive replacements when it was submitted
        unsigned losses = 0; // the device's power losses when it was submitted
        uint64_t acks = 0;   // the writes acknowledged when it was submitted (a flush covers those)
        bool busy = false;
        bool finished = false;
        bool prefill = false;
    };

    static void on_done(ata_bio *bio);
    void alloc_slots(unsigned n, uint32_t max_sectors);
    void free_slots();
    // Prepares and submits req on slot; returns the submit result.
    int submit(Slot &s, const Req &req, ata_io_mode mode, bool prefill);
    void finish(Slot &s);
    void process_done();
    void run_phase(const std::function<Req()> &gen, uint64_t count, unsigned qd, ata_io_mode mode,
                   bool prefill);
    void run_io();
    void run_request();
    void run_warmplug();
    // workload_atapi.cpp: an ATAPI drive's packet command and tray event
    // An ATAPI drive's READ(10)/(12) data against the disc in the drive (packet.verify); nothing
    // for another command or a device without a disc model.
    void verify_disc(const uint8_t *got, uint32_t len);
    void run_tray();
    void run_scsi();
    void maybe_prefill();
    void record_io_error(const Slot &s, const std::string &what);
    void record_not_durable(const Req &r, const std::vector<ReadCheck::Lost> &lost);

    unsigned index_;
    WorkloadSpec spec_;
    DeviceState *dev_;
    PlatformBinding &binding_;
    TraceSink &sink_;
    RunFailures &failures_;
    uint64_t seed_;      // data pattern seed (scenario seed)
    Rng rng_;            // request generator
    WorkloadStats stats_;
    std::vector<std::unique_ptr<Slot>> slots_;
    std::deque<Slot *> done_q_;
    unsigned outstanding_ = 0;
    bool expect_failure_ = false;
    bool scsi_done_ = false; // kind: scsi: the command's done() has run
    sc_core::sc_event wake_;
    sc_core::sc_event done_ev_;
};

ata_io_mode to_io_mode(ModeSpec m);
const char *dev_class_name(enum ata_dev_class c);
std::string link_speed_name(unsigned gen); // "6.0 Gbps"

} // namespace satasim::harness
