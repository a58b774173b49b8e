// A SATA disk (or SSD) at the transport layer: ATA command set, IDENTIFY data, PIO,
// DMA and NCQ protocols, a timing model and a media store that survives resets.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <systemc>

#include "model/common/trace.h"
#include "model/device/fault_params.h"
#include "model/device/media_store.h"
#include "model/link/sata_link.h"

namespace satasim::device {

// Order in which queued (NCQ) commands finish inside the drive.
enum class NcqOrder { InOrder, Reverse, Random, ShortestSeek, ShortestAccess };

struct DiskTiming {
    bool ssd = false;
    double rpm = 7200;                // rotational disk: rotation period from rpm
    double avg_seek_ms = 8.5;         // mean of random seeks (seek curve: timing.cpp)
    double flat_latency_us = 60;      // SSD: per-command media latency
    double media_mb_s = 180;          // sustained media rate (MB = 1e6 bytes)
    double cmd_overhead_us = 20;      // firmware overhead per command
    double reset_ready_ms = 2;        // COMRESET/SRST to signature D2H (BSY clear)
    // SSD: flash units (channels x dies) reading in parallel (docs/disk-models.md). 0 or 1:
    // one queued command's media access at a time, as a single-unit drive.
    unsigned units = 0;
};

struct DiskConfig {
    std::string model = "SATASIM HDD";
    std::string serial = "SIM0000001";
    std::string firmware = "SIM1.0";
    uint64_t sectors = 1953525168;    // logical sectors (of 512 << logical_log2 bytes)
    bool lba48 = true;                // IDENTIFY w83 b10
    bool ncq = true;                  // w76 b8
    unsigned ncq_depth = 32;          // 1..32 (w75 = depth-1)
    link::Gen max_gen = link::Gen::Gen3;
    unsigned udma_max = 6;            // highest UDMA mode supported (6 = UDMA/133)
    unsigned pio_max = 4;
    unsigned multi_max = 16;          // w47 7:0, max sectors per DRQ block
    unsigned ata_major = 8;           // highest ATA/ATAPI major version (w80)
    bool write_cache = true;          // supported and enabled at power-on
    // The cache's size: dirty data beyond it is written back by the drive on its own, oldest
    // first (write_cache.h). What a power loss can lose is at most this much.
    unsigned cache_mib = 8;
    // Status bit 4 (DSC, "device seek complete", which later ATA standards no longer
    // define) in every status the drive reports: older drives set it (a good completion
    // reads 0x50), many newer ones leave it clear (0x40), which the res line of libata's
    // report shows.
    bool status_dsc = true;
    NcqOrder ncq_order = NcqOrder::InOrder;
    uint64_t seed = 1;                // for NcqOrder::Random
    // Never-written sectors read as the blank pattern of their LBA and this seed
    // (media_store.h); the harness derives it per disk from the scenario seed.
    uint64_t media_seed = MediaStore::kDefaultSeed;
    // >0: finished NCQ tags wait up to this long so one Set Device Bits FIS reports
    // several of them (SActive bits are cleared in batches, as real drives do).
    uint64_t ncq_sdb_coalesce_ns = 0;
    // The SiI3112 "mod15write" erratum of some Seagate drives (docs/hardware.md 9.11): what
    // the drives do wrong is not public; the model's choice is that a host-to-device Data
    // FIS with the full 8 KiB payload hangs the firmware (BSY, silent) until a COMRESET. So
    // any write of 16 sectors or more hangs, and commands of at most 15 sectors (sata_sil's
    // fixup) never do. On real hardware the hang needs the SiI3112; here the FIS shape alone
    // triggers it, whatever controller sent it.
    bool mod15write = false;
    // A parallel ATA drive (on a PIIX3/PIIX4 channel, docs/hardware.md 10.5): no Serial ATA
    // IDENTIFY words (76-79, 222), and word 93 the hardware reset result: its device number,
    // whether the channel has a device 1 (seen at its reset through PDIAG-/DASP-) and the cable
    // (bit 13: an 80-conductor cable seen). The transport to the channel stays the model's.
    bool pata = false;
    unsigned pata_devno = 0;
    bool pata_pair = false;   // the other device of the cable is present
    bool pata_cable80 = false;
    // A Host Protected Area (docs/device.md 2): non-zero, the drive has the HPA feature set
    // (IDENTIFY words 82/85 bit 10) and powers up with this many sectors accessible (at most
    // `sectors`, the native capacity READ NATIVE MAX ADDRESS reports); SET MAX ADDRESS
    // moves the limit. 0: no HPA feature set (every sector accessible).
    uint64_t hpa_sectors = 0;
    // TRIM (DATA SET MANAGEMENT 06h, docs/device.md 3): not None, the drive takes TRIM
    // (IDENTIFY word 169 bit 0) and forgets the sectors it is told of. Zeroes: word 69 bits
    // 14 (deterministic read after TRIM) and 5 (read zeroes after TRIM), a trimmed sector
    // reads zeroes. Deterministic: bit 14 only; Indeterminate: neither. In those two the
    // model's choice is that a trimmed sector reads as never written (the blank pattern of
    // its LBA, media_store.h); a host may not count on either.
    enum class Trim { None, Zeroes, Deterministic, Indeterminate };
    Trim trim = Trim::None;
    // Interface power management (docs/device.md 6, SATA 3.x 8.4, 13.2.x IDENTIFY words
    // 76/78/79): hipm, the drive takes the host's PMREQ_P / PMREQ_S (word 76 bit 9) and
    // PMACKs them while idle; dipm, it supports device-initiated requests (word 78 bit 3),
    // enabled by SET FEATURES 10h/03h (word 79 bit 3): it then asks for Slumber after
    // dipm_idle_us without a command or a FIS (a model choice, MEM).
    bool hipm = false;
    bool dipm = false;
    double dipm_idle_us = 1000;
    // DevSleep (SATA 3.2, ACS-3 7.45.x / 9.10.x; docs/device.md 6.2): IDENTIFY word 78 bit 8,
    // enabled by SET FEATURES 10h/09h (word 79 bit 8), the DEVSLP timing variables in the
    // IDENTIFY DEVICE data log (30h) page 08h: MDAT (minimum DEVSLP assertion time) and DETO
    // (DevSleep exit timeout), in ms. Enabled, the drive enters DevSleep when the host asserts
    // DEVSLP and is ready for the wake-up's COMWAKE devsleep_exit_ms after it is negated
    // (a model choice within DETO, MEM).
    bool devsleep = false;
    unsigned devsleep_mdat_ms = 16, devsleep_deto_ms = 30; // (MEM; apart from libahci's fallbacks 10/20)
    double devsleep_exit_ms = 5;
    // IDENTIFY word 105: the most 512-byte blocks of LBA range entries one DSM command takes.
    static constexpr unsigned kTrimMaxBlocks = 8;
    // Queued TRIM (docs/device.md 3.2): with `trim` and `ncq`, the drive also takes DATA SET
    // MANAGEMENT as SEND FPDMA QUEUED (64h, subcommand 00h, the TRIM bit in the Auxiliary
    // field), says so in IDENTIFY word 77 bit 6 and in the NCQ Send and Receive log (13h).
    bool ncq_trim = false;
    // The queued-TRIM erratum some SSDs have (libata lists them as ATA_HORKAGE_NO_NCQ_TRIM):
    // the drive advertises queued TRIM but mishandles it. What the real firmware gets wrong
    // is not public; the model's choice is that it aborts every SEND FPDMA QUEUED DSM (an NCQ
    // error with ABRT, nothing trimmed), so a host that uses it goes through EH.
    bool ncq_trim_erratum = false;
    // SMART (docs/device.md 5): not None, the drive has the SMART feature set, supported and
    // enabled (IDENTIFY words 82/85 bit 0), and answers SMART RETURN STATUS (B0h, Feature
    // DAh, the key 4Fh/C2h in LBA mid/high) with LBA mid/high 4Fh/C2h (Good) or F4h/2Ch
    // (ThresholdExceeded: an attribute is past its threshold, the drive predicts its failure).
    // READ DATA (D0h) returns the data structure (no attributes); every other SMART
    // subcommand is aborted (the model's choice). None: B0h is aborted.
    enum class Smart { None, Good, ThresholdExceeded };
    Smart smart = Smart::None;
    // What the NCQ Command Error log (10h) holds in its Count field for the failed command
    // (docs/hardware.md 8.6; drives differ): its sector count (Full), its low byte only
    // (LowByte: a 256-sector read logs Count 00h/00h), nothing (None: 0).
    enum class NcqLogCount { Full, LowByte, None };
    NcqLogCount ncq_log_count = NcqLogCount::Full;
    // The registers a Register FIS carries besides Status, Error (and a failed command's LBA),
    // which libata's result taskfile shows (docs/hardware.md 8.7; drives differ): Count 0,
    // Device 40h on an error and nothing on a queued command's acceptance (Cleared); the
    // command's own Count and Device, and its LBA on the acceptance (Echo); Count 0 and LBA
    // 27:24 alone in Device on an error (LbaBits).
    enum class D2hRegs { Cleared, Echo, LbaBits };
    D2hRegs d2h_regs = D2hRegs::Cleared;
    // Advanced Format (docs/device.md 4): 2^physical_log2 logical sectors per physical sector
    // (IDENTIFY word 106 bits 3:0 with bit 13; 3 = 512e, 4096-byte physical sectors of eight
    // 512-byte logical ones), and where LBA 0 sits in the first physical sector (word 209
    // bits 13:0, in logical sectors: the "logical sector offset", below 2^physical_log2). A
    // write that starts or ends inside a physical sector makes the drive read that physical
    // sector first (read-modify-write): one more revolution (HDD) or read latency (SSD)
    // where the data goes to the media. 0: one logical per physical (word 106 = 4000h).
    unsigned physical_log2 = 0;
    unsigned align_offset = 0;
    // The logical sector: 512 << logical_log2 bytes (docs/device.md 4.1; 3 = 4Kn, 4096-byte
    // logical sectors): IDENTIFY word 106 bit 12 with words 117-118 its size in words (ACS-3
    // 7.12.7.44, .50). Every LBA, count and data transfer of a command is in these sectors;
    // the media store keeps 512-byte sectors, logical sector L being its sectors
    // L << logical_log2 onwards (so the harness's data check, keyed by bytes, is the same).
    unsigned logical_log2 = 0;
    DiskTiming timing;
};

// A command FIS the drive accepted (for fault triggers that count or match commands).
struct CommandInfo {
    uint8_t opcode;
    bool ncq;
    bool write;
    uint64_t lba;
    uint32_t sectors;
    int tag;      // NCQ tag, -1 non-queued
    uint64_t seq; // 1-based count of commands this drive accepted since power-on
    // An ATAPI drive's PACKET command (model/atapi, through the fault injector): opcode is
    // its CDB's operation code, lba/sectors a READ's range in 2048-byte blocks.
    bool packet = false;
};

class SataDisk : public sc_core::sc_module, public link::LinkEndpoint {
  public:
    SataDisk(sc_core::sc_module_name name, const DiskConfig &cfg, ModelTrace *trace = nullptr);
    ~SataDisk() override;

    // Pass this object and the host's endpoint to SataLink::attach(), then connect().
    void connect(link::SataLink *link);

    MediaStore &media() { return media_; }
    const DiskConfig &config() const { return cfg_; }
    // The 256 IDENTIFY DEVICE words the drive reports right now (reflects SET FEATURES).
    std::vector<uint16_t> identify_words() const;

    // Power-on state of the drive's electronics (queues, modes, features); media kept.
    void power_on_reset();
    // Emit a "disk.fis_rx"/"disk.fis_tx" trace record per FIS (off by default).
    void set_fis_trace(bool on);

    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override;
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void receive_error(link::LinkError err) override;
    bool pm_accept(link::PowerState s) override;
    void power_changed(link::PowerState s) override;
    bool answers_comwake() override;
    Noise failed_wake_noise() override;
    bool takes_devsleep() override;
    sc_core::sc_time devsleep_exit_time() override;

    // ---- fault hooks (model/fault/README.md). Power-on reset and clear_faults() disarm them.
    // fn runs for every command FIS the drive accepts, before it executes; hooks armed
    // from inside fn apply to that very command.
    void set_command_observer(std::function<void(const CommandInfo &)> fn);
    // Matching commands end with the device error (UNC/IDNF at the first bad sector, DF,
    // ABRT); queued ones through the NCQ error state and log 10h.
    void inject_media_error(const MediaParams &p, const std::string &id);
    // Matching reads and writes start their media access p.delay_ns late, then complete.
    void inject_slow(const SlowParams &p, const std::string &id);
    // Firmware hang: BSY, silent, deaf to SRST, until a COMRESET; the first `comresets`
    // COMRESETs find it still hung (the PHY comes up, no signature FIS follows).
    void inject_hang(const std::string &id, unsigned comresets = 0);
    // The next n IDENTIFY DEVICE commands are aborted.
    void inject_identify_failures(unsigned n, const std::string &id);
    // While unplugged: the drive that will be plugged in next (identity, blank media), its
    // electronics at power-on (settings, a hang gone; bad sectors go only with the media).
    // power_on_reset() brings the configured identity back.
    void replace_identity(const PlugParams &p);
    // The drive loses its power (an unplug pulls it too): what its write cache held and had
    // not written back is gone (docs/disk-models.md); a fault.effect record says how much
    // (`always`: even when nothing was lost). Returns the sectors lost.
    uint64_t lose_cache(const std::string &id, bool always = false);
    // A power cycle under the host (fault `power_loss`): the cache lost, then the
    // electronics at power-on (settings, a hang gone) and the reset sequence; the link's
    // PhyRdy drop is the caller's (SataLink::phy_glitch). Armed faults stay (the media's
    // bad sectors are the platters').
    void power_loss(const std::string &id);
    // A firmware bug (fault `bad_fis`): unknown_type, unsolicited_d2h and spurious_sdb send
    // their FIS once, between commands (the command process's next turn); long_d2h makes the
    // next Register D2H FIS one dword too long. `type`: the unknown FIS's type byte.
    void inject_bad_fis(BadFis what, uint8_t type, const std::string &id);
    // A firmware whose interface power management is broken (fault `lpm_fail`):
    // no_comwake, its PHY never answers the host's wake-up COMWAKE out of Partial/Slumber
    // (a COMRESET restarts it, and the next power state breaks it again); pmnak, it answers
    // every PMREQ with PMNAK. Until power-on or clear_faults().
    // wakes: no_comwake's unanswered wake-ups (0: all); noise: what each of them leaves on
    // the host's PHY.
    void inject_lpm_fail(LpmFail how, unsigned wakes, const Noise &noise, const std::string &id);
    // Sectors in the cache not yet written back.
    uint64_t cache_dirty_sectors() const;
    void clear_faults();

  private:
    struct Impl;
    void transport_proc();
    void command_proc();
    void dipm_proc();
    DiskConfig cfg_;
    ModelTrace *trace_;
    MediaStore media_;
    std::unique_ptr<Impl> impl_;
};

} // namespace satasim::device
