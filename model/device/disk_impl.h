// Internal state of SataDisk, shared by the files that implement it chapter by chapter:
//   sata_disk.cpp   module, processes, link callbacks, resets, signature
//   command_set.cpp command decode and the non-queued commands
//   protocols.cpp   PIO data-in/out, DMA in/out FIS sequences
//   ncq_queue.cpp   NCQ acceptance, ordering, data phases, SDB completions, error log 10h
//   identify.cpp    IDENTIFY DEVICE data
//   timing.cpp      busy-time model (seek, rotation, transfer, SSD latency)
// Not a public header.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <systemc>

#include "model/device/sata_disk.h"
#include "model/device/write_cache.h"

namespace satasim::device {

// ATA opcodes the drive decodes (docs/hardware.md 8.2).
namespace op {
constexpr uint8_t kReadSectors = 0x20, kReadSectorsExt = 0x24, kReadDmaExt = 0x25,
                  kReadNativeMaxExt = 0x27, kReadMultipleExt = 0x29, kReadLogExt = 0x2F,
                  kWriteSectors = 0x30, kWriteSectorsExt = 0x34, kWriteDmaExt = 0x35,
                  kWriteMultipleExt = 0x39, kWriteDmaFuaExt = 0x3D, kReadVerify = 0x40,
                  kReadVerifyExt = 0x42, kReadFpdma = 0x60, kWriteFpdma = 0x61,
                  kExecDiag = 0x90, kInitDevParams = 0x91, kReadMultiple = 0xC4,
                  kWriteMultiple = 0xC5, kSetMultiple = 0xC6, kReadDma = 0xC8,
                  kWriteDma = 0xCA, kWriteMultipleFuaExt = 0xCE, kStandbyImm = 0xE0,
                  kIdleImm = 0xE1, kStandby = 0xE2, kIdle = 0xE3, kCheckPower = 0xE5,
                  kFlush = 0xE7, kFlushExt = 0xEA, kIdentify = 0xEC, kSetFeatures = 0xEF,
                  kReadNativeMax = 0xF8, kSetMaxAddress = 0xF9, kSetMaxAddressExt = 0x37,
                  kDataSetManagement = 0x06, kSendFpdma = 0x64, kSmart = 0xB0;
} // namespace op

// 64-bit splitmix generator: the only source of randomness in the drive.
struct SplitMix64 {
    uint64_t state = 0;
    void seed(uint64_t s) { state = s; }
    uint64_t next() {
        uint64_t z = (state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n ? next() % n : 0; }
};

// A decoded read/write request (LBA, sectors, direction, addressing).
struct Xfer {
    uint64_t lba = 0;
    uint32_t sectors = 0;
    bool write = false;
    bool fua = false;
};

struct NcqSlot {
    enum class State { Free, Queued, Running, Done } state = State::Free;
    sata::Taskfile tf;
    Xfer x;
    uint64_t seq = 0;          // acceptance order
    sc_core::sc_time accepted; // time the command FIS arrived
    sc_core::sc_time media_ready; // parallel SSD: when its data is in the drive's buffer
    bool trim = false;         // SEND FPDMA QUEUED DSM: x.sectors counts 512-byte blocks of ranges
};

// Contents of the NCQ Command Error log (page 10h) for the last NCQ error.
struct NcqErrorLog {
    bool valid = false;
    bool nq = false;
    uint8_t tag = 0;
    uint8_t status = 0, error = 0, device = 0;
    uint64_t lba = 0;
    uint16_t count = 0;
};

// An armed media error (inject_media_error). UNC sectors are a set: the matched range
// minus the sectors a write has remapped since.
struct MediaFault {
    MediaParams p;
    std::string id;
    unsigned left = 0;                     // commands still to fail; 0 = persistent
    std::map<uint64_t, uint64_t> remapped; // [first, last] ranges written over (UNC)
};

// An armed slow-down (inject_slow).
struct SlowFault {
    SlowParams p;
    std::string id;
    unsigned left = 0;         // commands still to delay; 0 = every match
    sc_core::sc_time until;    // window end (window_ns > 0)
};

// What the fault model decided for one command.
struct MediaVerdict {
    bool fail = false;
    uint8_t status = 0, error = 0;
    uint64_t lba = 0;        // LBA registers: the first failing sector
    uint32_t good = 0;       // sectors before it (read data transferred before the error)
    bool after_data = false; // write fault: the data phase runs, nothing is committed
};

struct SataDisk::Impl {
    Impl(SataDisk &disk);

    SataDisk &d;
    const DiskConfig &cfg;
    MediaStore &media;
    WriteCache cache; // what of the media is only in the drive's DRAM (write_cache.h)
    link::SataLink *link = nullptr;

    // ---- PHY / reset state (sata_disk.cpp)
    bool phy_up = false;
    link::Gen gen = link::Gen::None;
    enum class ResetState { None, SrstHeld, Resetting } reset_state = ResetState::Resetting;
    sc_core::sc_time ready_at;      // Resetting: signature not before this time
    uint64_t epoch = 1;             // bumps on every reset/abort; stale work checks it
    bool fis_trace = false;

    // ---- receive side (transport process)
    std::deque<sata::Fis> rxq;
    sc_core::sc_event rx_event;
    std::deque<sata::Fis> data_in;  // host Data FISes for the running command
    sc_core::sc_event data_event;
    bool awaiting_data = false;  // a data-out phase waits for the host's Data FIS
    bool rx_wire_error = false;  // ...and that FIS was lost on the wire
    sc_core::sc_event work_event;   // anything for the command process

    // ---- electronics settings (power-on defaults in power_on_defaults())
    bool wcache_enabled = true;
    bool lookahead_enabled = true;
    bool auto_activate = false;     // SET FEATURES 10h/02h
    bool dipm_enabled = false;      // SET FEATURES 10h/03h (DiskConfig::dipm)
    bool devslp_enabled = false;    // SET FEATURES 10h/09h (DiskConfig::devsleep)
    link::PowerState power = link::PowerState::Active; // the interface's, as the link said
    sc_core::sc_time last_activity; // the last FIS in or out (DIPM's idle timer)
    sc_core::sc_event dipm_event;   // the idle timer's check
    unsigned multi_count = 0;       // 0 = READ/WRITE MULTIPLE not enabled
    int udma_selected = -1;
    int mwdma_selected = -1;
    uint8_t power_mode = 0xFF;      // CHECK POWER MODE count value
    bool cache_dirty = false;
    uint64_t head_lba = 0;          // where the heads are (end of the last media access)
    // ---- Host Protected Area (command_set.cpp; docs/device.md 2): the accessible sectors as a
    // kept SET MAX ADDRESS (VV set) left them (0: native; over power cycles, as the drive's own
    // configuration), a volatile one's (VV clear; 0: none; gone at power-on and COMRESET),
    // whether a kept one was taken since power-on (a second is aborted), and whether the last
    // command was READ NATIVE MAX ADDRESS (SET MAX ADDRESS must follow it at once).
    uint64_t max_nv = 0, max_vol = 0;
    bool nv_max_set = false;
    bool after_read_native_max = false;
    // Parallel SSD (timing.units > 1): when each flash unit and the drive's internal data
    // path (to its buffer, at timing.media_mb_s) are next free.
    std::vector<sc_core::sc_time> unit_free;
    sc_core::sc_time buffer_path_free;

    // ---- non-queued command
    std::optional<sata::Taskfile> pending_cmd;

    // ---- NCQ (ncq_queue.cpp)
    std::array<NcqSlot, 32> slots{};
    uint64_t next_seq = 1;
    std::deque<sata::Taskfile> pending_accepts; // D2H (BSY=0) owed for received FPDMA commands
    uint32_t sdb_pending = 0;       // completed tags not yet reported
    bool ncq_error_state = false;   // rejecting queued commands until log 10h is read
    NcqErrorLog ncq_log;
    std::vector<sata::Fis> pending_error_fis; // error responses decided by the transport side
    SplitMix64 rng;
    sc_core::sc_time sdb_hold_until; // ncq_sdb_coalesce_ns: finished tags wait until then

    // ---- faults (faults.cpp); power-on reset disarms them
    std::function<void(const CommandInfo &)> observer;
    uint64_t cmd_seq = 0;           // commands accepted since power-on
    std::vector<MediaFault> media_faults;
    std::vector<SlowFault> slow_faults;
    bool hung = false;
    std::string hang_id;
    unsigned hang_comresets = 0; // COMRESETs the hang still sits through
    unsigned identify_failures = 0;
    std::string identify_fail_id;
    std::string base_model, base_serial; // identity at power-on (replace_identity undoes)
    // bad_fis: a FIS to send on the command process's next turn, and whether the next
    // Register D2H FIS goes out a dword too long (the fault's id for the effect records).
    std::optional<sata::Fis> bad_fis;
    std::string bad_fis_id;
    bool long_d2h = false;
    std::string long_d2h_id;
    // lpm_fail: the PHY does not answer COMWAKE / the link layer PMNAKs every request
    bool no_comwake = false, pmnak = false, pmnak_told = false;
    unsigned no_comwake_left = 0; // unanswered wake-ups still to come (0: every one)
    link::LinkEndpoint::Noise wake_noise; // what each unanswered wake-up garbles on the line
    std::string lpm_fail_id;
    uint64_t base_sectors = 0;

    // ---- sata_disk.cpp
    void power_on_defaults();
    void dipm_thread();
    bool interface_idle() const; // no command, no FIS, no reset: the link may sleep
    void activity();             // a FIS in or out: DIPM's idle timer starts again
    void start_reset(const char *kind, bool srst_held);
    void transport_thread();
    void command_thread();
    void dispatch(const sata::Fis &fis);
    bool handle_reset();
    bool send(const sata::Fis &fis);
    bool alive(uint64_t e) const { return e == epoch; }
    void trace(const char *name, std::vector<std::pair<std::string, TraceValue>> fields,
               const std::string &msg = {});
    void trace_error(const char *what, const sata::Taskfile &tf, uint8_t status, uint8_t error,
                     uint64_t lba);
    sata::Fis signature_fis(bool irq) const;
    unsigned max_multi() const;
    uint64_t native_capacity() const; // the drive's sectors (LBA28-only drives are capped)
    uint64_t capacity() const; // addressable now: the native capacity within the HPA's limit
    // SET MAX ADDRESS (EXT), the HPA feature set (ATA8-ACS 7.49 / 7.50).
    void set_max_address(uint64_t e, const sata::Taskfile &tf, bool ext, bool after_rnm);

    // ---- command_set.cpp
    // READ/WRITE FPDMA QUEUED, and SEND FPDMA QUEUED on a drive with queued TRIM.
    bool is_queued(uint8_t cmd) const {
        return cmd == op::kReadFpdma || cmd == op::kWriteFpdma || (cmd == op::kSendFpdma && cfg.ncq_trim);
    }
    void execute(const sata::Taskfile &tf);
    bool decode_rw(const sata::Taskfile &tf, bool ext, bool write, Xfer &x) const;
    bool range_ok(const Xfer &x, bool lba28) const;
    bool finish_ok(uint64_t e, uint64_t lba = 0, uint16_t count = 0, uint8_t device = 0);
    sata::Fis error_fis(const sata::Taskfile &tf, uint8_t status, uint8_t error, uint64_t lba) const;
    bool finish_error(uint64_t e, const sata::Taskfile &tf, uint8_t error, uint64_t lba,
                      uint8_t status = 0x51);
    void set_features(uint64_t e, const sata::Taskfile &tf);
    void read_log_ext(uint64_t e, const sata::Taskfile &tf);
    // SMART (B0h): RETURN STATUS only (docs/device.md 5).
    void smart(uint64_t e, const sata::Taskfile &tf);
    // DATA SET MANAGEMENT with the TRIM bit (trim.cpp).
    void data_set_management(uint64_t e, const sata::Taskfile &tf);
    // Forget `count` sectors from `lba` as DiskConfig::trim says they read afterwards.
    void trim_sectors(uint64_t lba, uint64_t count);
    // A range list as DSM carries it: false if an entry reaches beyond the accessible sectors
    // (then nothing is trimmed); else every range is forgotten and traced (disk.trim).
    bool apply_trim_list(const std::vector<uint8_t> &list, bool queued);
    // SEND FPDMA QUEUED, subcommand DSM with the TRIM bit (trim.cpp), in the queue's slot.
    void queued_trim(int tag);
    // The NCQ Send and Receive log (13h), one page (docs/device.md 3.2).
    std::vector<uint8_t> ncq_send_recv_log_page() const;
    std::vector<uint8_t> identify_log_page(uint32_t page) const; // log 30h (DevSleep drives)

    // ---- logical sectors (DiskConfig::logical_log2) over the media store's 512-byte ones
    size_t sector_bytes() const { return MediaStore::kSectorSize << cfg.logical_log2; }
    void media_read(uint64_t lba, uint32_t n, uint8_t *dst) const {
        media.read(lba << cfg.logical_log2, uint32_t(n << cfg.logical_log2), dst);
    }
    void cache_write(uint64_t lba, uint32_t n, const uint8_t *src, bool through) {
        cache.write(lba << cfg.logical_log2, uint32_t(n << cfg.logical_log2), src, through);
    }

    // ---- protocols.cpp
    bool pio_in(uint64_t e, const sata::Taskfile &tf, uint32_t blocks,
                const std::function<std::vector<uint8_t>(uint32_t block)> &block_data);
    // The mod15write erratum (DiskConfig::mod15write): true if this host Data FIS hangs the
    // drive (then hung, like inject_hang, and the caller gives up the command).
    bool erratum_hang(const sata::Fis &f);
    bool pio_out(uint64_t e, const sata::Taskfile &tf, uint32_t sectors, uint32_t block_sectors,
                 const std::function<void(uint32_t first_sector, uint32_t n, const uint8_t *)> &sink);
    bool dma_in_data(uint64_t e, uint64_t lba, uint32_t sectors);
    // discard: the data is taken from the host but not written (a failing write).
    // through: the data goes to the platters (FUA, cache disabled), else into the cache.
    bool dma_out_data(uint64_t e, uint64_t lba, uint32_t sectors, bool skip_first_activate,
                      bool through, bool discard = false);
    // DMA out into whatever `sink` does with each run of whole sectors of `sector_size` bytes
    // (first: the sector offset in the transfer): the logical sectors of a write, the
    // 512-byte blocks of a DSM range list.
    bool dma_out(uint64_t e, uint32_t sectors, size_t sector_size, bool skip_first_activate,
                 const std::function<void(uint32_t first, uint32_t n, const uint8_t *)> &sink);
    bool wait_data(uint64_t e, sata::Fis &out);
    bool idle_until(uint64_t e, sc_core::sc_time deadline);
    bool busy_for(uint64_t e, sc_core::sc_time t) {
        return idle_until(e, sc_core::sc_time_stamp() + t);
    }
    // Whether a write's data goes straight to the platters (FUA, or the cache disabled).
    bool write_through(const Xfer &x) const { return x.fua || !wcache_enabled; }
    // Data of a write has arrived: with FUA or the write cache off it goes to the platters
    // now (busy for the media time), otherwise it waits in the cache for a FLUSH.
    bool commit_write(uint64_t e, const Xfer &x) {
        if (write_through(x))
            return busy_for(e, rmw_time(x) + media_access(x.lba, x.sectors, sc_core::sc_time_stamp()));
        cache_dirty = true;
        return true;
    }

    // ---- ncq_queue.cpp
    void receive_queued(const sata::Taskfile &tf);
    void ncq_protocol_error(const sata::Taskfile &tf, bool nq, uint8_t tag);
    bool ncq_outstanding() const;
    bool has_queued() const;
    int pick_next();
    void execute_queued(int tag);
    // status: of the error SDB, DRDY | ERR (41h) unless the error says otherwise (DF).
    void ncq_fail(int tag, uint8_t error, uint64_t lba, uint8_t status = 0x41);
    void abort_all_queued();
    bool service_accepts();
    bool flush_sdb(bool force);
    bool sdb_held() const; // finished tags wait for more to report in one SDB
    std::vector<uint8_t> ncq_log_page() const;

    // ---- faults.cpp
    void accept_command(const sata::Taskfile &tf, bool ncq);
    MediaVerdict check_media(const sata::Taskfile &tf, bool ncq, const Xfer *x);
    // The extra time an armed slow-down adds before this read/write's media access.
    sc_core::sc_time slow_delay(const sata::Taskfile &tf, bool ncq, const Xfer &x);
    void media_written(const Xfer &x);
    void fault_effect(const std::string &id, std::vector<std::pair<std::string, TraceValue>> fields,
                      const std::string &msg);
    void violation(const char *rule, const std::string &msg);
    bool take_identify_failure();
    // bad_fis: sends the armed unsolicited FIS (true if one was due).
    bool send_bad_fis();
    void reset_faults();
    // Power gone: the cache's dirty sectors are lost (a fault.effect record when there were
    // any, or always with `always`); returns how many.
    uint64_t lose_cache(const std::string &id, bool always);

    // ---- identify.cpp
    std::vector<uint16_t> identify() const;

    // ---- timing.cpp
    sc_core::sc_time overhead() const;
    sc_core::sc_time media_access(uint64_t lba, uint32_t sectors, sc_core::sc_time start);
    bool parallel_ssd() const { return cfg.timing.ssd && cfg.timing.units > 1; }
    // Parallel SSD: when a queued read accepted at `accepted` has its data in the buffer.
    sc_core::sc_time plan_queued_read(uint64_t lba, uint32_t sectors, sc_core::sc_time accepted);
    sc_core::sc_time flush_time();
    // Advanced Format: the read-modify-write a write costs where it starts or ends inside a
    // physical sector (DiskConfig::physical_log2), zero when aligned (disk.rmw when not).
    sc_core::sc_time rmw_time(const Xfer &x);
    double rotation_s() const;
    double sectors_per_track() const;
    double seek_s(uint64_t from_lba, uint64_t to_lba) const;
    double positioning_s(uint64_t lba, double start) const;
};

} // namespace satasim::device
