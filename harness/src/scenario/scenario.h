// The parsed scenario: what the scenario reader (scenario_parser.cpp and its section_*.cpp)
// builds from a YAML file and every other part of the harness reads. Plain data, all
// defaults applied, all units converted (sizes in sectors, times in nanoseconds).
// Documented key by key in scenarios/README.md.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "scenario/force_option.h"
#include "scenario/overrides.h"
#include "scenario/steps.h"
#include "model/fault/fault_plan.h"

namespace satasim::harness {

struct ControllerSpec {
    std::string type = "ahci"; // the controller table's first row (controller/controller_table.cpp: its default)
    unsigned ports = 4;
    int ports_line = 0; // the line of `ports` (0: not given, the type's default)
    unsigned slots = 32;
    int slots_line = 0; // the line of `slots` (0: not given)
    bool ncq = true;
    int ncq_line = 0;   // the line of `ncq` (0: not given)
    unsigned gen = 3;
    bool gen_set = false; // gen given in the file (the QEMU backend refuses non-Gen1 links)
    int gen_line = 0;
    // type ahci only: CAP.FBSS (FIS-based switching), used on ports whose PMP has fbs: true
    bool fbs = false;
    // type ahci only: CAP.SSS (staggered spin-up): the stack then probes the ports one after
    // another, as libata does ("SSS flag set, parallel bus scan disabled")
    bool staggered_spinup = false;
    // type ahci only: link power management (CAP.SALP, CAP.PSC, CAP.SSC: ALPE/ASP, Partial and
    // Slumber; docs/hardware.md 5.10)
    bool lpm = false;
    // type ahci only, with lpm: DevSleep (CAP2.SDS, SADM, DESO; PxDEVSLP: docs/hardware.md 5.11)
    bool devsleep = false;
    // type sil24 only: the PCI-X completion-interrupt-loss erratum (Sil24Config)
    bool pcix_irq_loss = false;
    uint64_t pcix_ack_window_ns = 2000;
    // type piix only: the ICH's port map (MAP register): "" (not modelled, ICH5-like, no MAP
    // line), "ich5" (MAP 000b, one device per channel) or "ich6" (MAP 00b: master/slave
    // emulation, devices at devno 0 and 1 of each channel)
    std::string map;
    // type piix only: the part (docs/hardware.md 10): "" (the ICH's SATA function in IDE
    // mode), "piix3" or "piix4" (the IDE function: parallel ATA, master and slave on each
    // channel's cable), and the cables' conductors a drive's IDENTIFY word 93 reports (40, 80)
    std::string part;
    unsigned cable = 40;
    bool parallel_ata() const { return part == "piix3" || part == "piix4"; }
    // a channel may have a device 1 (the slave position maps a SATA port, or a PATA cable)
    bool slave_positions() const { return map == "ich6" || parallel_ata(); }
    // controllers[] (several in one host): the PCI address (bus:dev.fn, as the kernel's log
    // names the function) and the interrupt line (GSI) of its INTx; two controllers may share
    // a line. The one-controller form keeps the table's address and line 19.
    std::string pci;
    unsigned irq = 19;
    int line = 0;            // where the entry starts (0: the one-controller form)
    unsigned first_port = 0; // its port 0 as a host-wide port (the ports of the controllers before it)
};

struct HostSpec {
    std::string eh_policy; // empty = the stack's default
    bool no_ncq = false;
    uint32_t port_mask = 0;
    bool irq_loss_fix = true; // apply the controller's lost-completion-IRQ workaround
    bool pio_polling = false; // taskfile controllers: poll PIO and non-data commands
    bool fua = false;         // libata.fua: FUA writes on devices with FUA, LBA48 and NCQ
    bool atapi_dmadir = false; // libata.atapi_dmadir: DMADIR on every ATAPI DMA command
    unsigned dma = 7;         // libata.dma: DMA for 0x1 ATA disks, 0x2 ATAPI, 0x4 CF
    bool ignore_hpa = false;  // libata.ignore_hpa: unlock a Host Protected Area at probe (SET MAX ADDRESS)
    bool no_msi = false;      // pci=nomsi: INTx even where the function and driver have MSI
    // the link power management policy (libata's target_lpm_policy: ahci's mobile_lpm_policy,
    // or the link_power_management_policy sysfs file): "" keeps the firmware's settings
    // (libata's ATA_LPM_UNKNOWN, nothing configured), max_performance, medium_power,
    // med_power_with_dipm, min_power_with_partial, min_power
    std::string lpm_policy;
    // how the stack's sata_down_spd_limit treats a link whose current speed is unknown (the
    // link is down): "" the EH profile's rule, lowest (Linux to 4.14: 1.5 Gbps), keep (4.15 to
    // 6.1: nothing changes), step (6.2 on: one step below the limit)
    std::string spd_down_unknown;
    bool stack = true;        // false: no driver stack, the scenario's directed `steps` run instead
    unsigned spd_limit = 0;   // 1..3: SControl.SPD the stack programs (libata.force=1.5Gbps), 0 none
    int spd_limit_line = 0;
    std::vector<ForceOption> force; // host.force: libata.force entries, in the parameter's order
    int force_line = 0;
};

// SATA link model (model/link): the cycle-level dword link or the computed FIS-level one.
// SATASIM_LINK_MODE=dword|fis in the environment overrides both scenario keys.
enum class LinkModeSpec { Dword, Fis };

enum class NcqOrderSpec { InOrder, Reverse, Random, ShortestSeek, ShortestAccess };

// An I/O error QEMU's blkdebug driver injects under a disk (backend qemu only).
enum class BlkdebugOp { Read, Write, Flush };
struct BlkdebugRule {
    int line = 0;
    BlkdebugOp op = BlkdebugOp::Read;
    int64_t lba = -1; // sector the failing request must touch; -1 = any (flush: always)
    bool once = true; // fail the first matching request only, else every one
    unsigned err = 5; // errno: 5 EIO
};

struct TimingSpec {
    bool ssd = false;
    double rpm = 7200;
    double seek_ms = 8.5;
    double latency_us = 60;
    double rate_mb_s = 180;
    double overhead_us = 20;
    double reset_ready_ms = 2;
    unsigned units = 0; // ssd: flash units reading in parallel (0: one at a time)
};

// Where a disk sits: a host port, and the fan-out port of the port multiplier there.
struct DevAddr {
    unsigned port = 0;
    std::optional<unsigned> pmp_port;
    // device number on a taskfile channel with master/slave emulation (1: the slave); a
    // SATA link's one device, and every device behind a PMP, is 0
    unsigned devno = 0;

    bool operator==(const DevAddr &o) const { return port == o.port && pmp_port == o.pmp_port && devno == o.devno; }
    bool operator!=(const DevAddr &o) const { return !(*this == o); }
    bool operator<(const DevAddr &o) const {
        if (port != o.port)
            return port < o.port;
        if (devno != o.devno)
            return devno < o.devno;
        return pmp_port.value_or(15) < o.pmp_port.value_or(15);
    }
    // "port 1", "port 1 pmp_port 2" or "port 1 devno 1" (messages)
    std::string str() const;
    // A model's trace name: "disk1", "disk1.2" behind the PMP on fan-out port 2, "disk1.1" for
    // the slave of channel 1 (as libata names both ata2.0N)
    std::string trace_name(const char *kind) const;
    // libata's device name: "ata2.00" on the host link, "ata2.02" behind the PMP on fan-out
    // port 2, "ata2.01" for the slave
    std::string ata_name() const;
    // fan-out port for the stack and the trace: -1 on the host link
    int link() const { return pmp_port ? int(*pmp_port) : -1; }
};

// The SMART feature set and what SMART RETURN STATUS says (device key `smart`, docs/device.md 5).
enum class SmartSpec { None, Good, ThresholdExceeded };

// The Count the drive's NCQ Command Error log gives a failed command (device key
// `ncq_log_count`, docs/hardware.md 8.6): its sector count, its low byte, or 0.
enum class NcqLogCountSpec { Full, LowByte, None };

// The registers besides Status/Error/LBA in the drive's Register FISes (device key
// `d2h_regs`, docs/hardware.md 8.7): cleared, the command's own (echo), LBA 27:24 alone.
enum class D2hRegsSpec { Cleared, Echo, LbaBits };

// What a drive does with DATA SET MANAGEMENT TRIM (device key `trim`, docs/device.md 3).
enum class TrimSpec { None, Zeroes, Deterministic, Indeterminate };

// devices[].atapi: the device is an ATAPI CD/DVD drive (model/atapi), not a disk.
struct AtapiSpec {
    uint32_t disc_blocks = 2295104; // 2048-byte blocks of the disc in the drive
    uint64_t disc_seed = 1;         // which disc: its data is disc_block(seed, lba)
    bool medium = true;             // a disc in the drive at power-on
    unsigned cdb_drq = 2;           // IDENTIFY PACKET word 0 bits 6:5: 0 = 3 ms, 1 = interrupt, 2 = 50 us
    bool dmadir = false;            // word 62 bit 15: DMA needs DMADIR
    bool dma = true;
    unsigned udma = 5;
    unsigned pio = 4;               // the fastest PIO mode (IDENTIFY PACKET words 51, 53, 64)
};

struct DeviceSpec {
    int line = 0; // where the entry starts in the file
    std::optional<AtapiSpec> atapi; // set: an ATAPI drive (devices[].atapi)
    unsigned port = 0;
    std::string model = "SATASIM HDD";
    std::string serial;   // default: "SIM" + port, set by the parser
    std::string firmware = "SIM1.0";
    uint64_t capacity = 1953525168; // sectors
    bool lba48 = true;
    bool ncq = true;
    unsigned ncq_depth = 32;
    unsigned gen = 3;
    bool gen_set = false; // gen given in the file
    unsigned udma = 6;
    unsigned pio = 4;
    unsigned multi = 16;
    unsigned ata_major = 8;
    bool write_cache = true;
    bool status_dsc = true;            // the drive sets DSC (status bit 4): 0x50, else 0x40
    uint64_t hpa = 0;                  // Host Protected Area: sectors accessible at power-on (0: no HPA feature set)
    TrimSpec trim = TrimSpec::None;    // DATA SET MANAGEMENT TRIM and what a trimmed sector reads (docs/device.md 3)
    bool hipm = false;                 // takes host-initiated Partial/Slumber (IDENTIFY 76 bit 9; docs/device.md 6)
    bool dipm = false;                 // device-initiated power management (IDENTIFY 78 bit 3; Slumber after 1 ms idle once enabled)
    bool devsleep = false;             // DevSleep (IDENTIFY 78 bit 8, log 30h page 08h's DEVSLP timing; docs/device.md 6.2)
    NcqOrderSpec ncq_order = NcqOrderSpec::InOrder;
    TimingSpec timing;
    std::vector<BlkdebugRule> blkdebug; // backend qemu: injected I/O errors
    bool present = true;               // false: the cable starts unplugged (a later plug fault)
    uint64_t ncq_sdb_coalesce_ns = 0;  // finished NCQ tags batched into one SDB FIS
    std::optional<LinkModeSpec> link_mode; // link: {mode}: overrides the scenario's link.mode
    std::optional<unsigned> pmp_port;      // behind the port multiplier on `port`, fan-out port
    uint64_t timeout_ns = 0;  // request timeout (the SCSI disk layer's); 0 = the stack's 30 s
    bool attach_read = false; // the kernel's partition-table read when the disk attaches
    bool mod15write = false;  // errata: [mod15write]: the SiI3112 mod15write erratum (DiskConfig)
    bool ncq_trim = false;          // queued TRIM: SEND FPDMA QUEUED DSM, IDENTIFY 77 bit 6, log 13h
    bool ncq_trim_erratum = false;  // errata: [ncq_trim]: queued TRIM offered but aborted (DiskConfig)
    SmartSpec smart = SmartSpec::None; // SMART feature set; RETURN STATUS good or threshold exceeded
    NcqLogCountSpec ncq_log_count = NcqLogCountSpec::Full; // Count in the NCQ error log 10h
    D2hRegsSpec d2h_regs = D2hRegsSpec::Cleared; // Count/Device (LBA) of its Register FISes
    unsigned logical_log2 = 0;         // logical_sector: 512 << this bytes (3: 4Kn); capacity, hpa, LBAs in it
    unsigned physical_log2 = 0;        // physical_sector: 512 << this bytes (3: 512e, or 4Kn's default)
    unsigned align_offset = 0;         // align_offset: LBA 0's logical sector offset in its physical sector
    unsigned devno = 0;       // the channel's device 1 (slave) on a piix with map: ich6

    DevAddr addr() const { return {port, pmp_port, devno}; }
    // Sectors the drive reports: LBA28-only drives cap at 2^28 - 1.
    uint64_t addressable() const;
    // What the stack configures: addressable(), within a Host Protected Area (`hpa`) unless the
    // host unlocks it (libata.ignore_hpa).
    uint64_t configured_sectors(bool ignore_hpa) const;
    unsigned max_sectors() const { return lba48 ? 65535 : 256; }
};

// A SATA port multiplier on a host port (pmps[]); its disks are devices[] with pmp_port.
struct PmpSpec {
    int line = 0;
    unsigned port = 0;                 // host port
    unsigned ports = 5;                // fan-out device ports, 1..15
    std::string product = "sii3726";   // sii3726 | sii4726 | sii5744 | jmb394 | jmb575 (pmp::product_config)
    bool fbs = false;                  // FIS-based switching capable
    bool async_notify = true;          // asynchronous notification supported (GSCR[64] bit 3)
};

// io, request: I/O. delete, scan, rescan: warm-plug steps (SCSI device delete, host or
// channel scan, device rescan) through ata_dev_delete / ata_port_scan.
enum class WorkloadKind { Io, Request, Delete, Scan, Rescan, Packet, Tray, Scsi };
enum class OpSpec { Read, Write, Mix, Flush, Trim };
enum class PatternSpec { Sequential, Random };
enum class ModeSpec { Auto, Dma, Pio, Ncq };
enum class SubmitExpect { Ok, Einval, Eopnotsupp, Enodev };
enum class PrefillSpec { Yes, No };

struct WorkloadSpec {
    int line = 0;
    WorkloadKind kind = WorkloadKind::Io;
    unsigned device = 0; // port of the disk
    std::optional<unsigned> pmp_port; // behind the port multiplier on that port
    unsigned devno = 0;  // the channel's slave (piix map ich6)
    DevAddr addr() const { return {device, pmp_port, devno}; }
    OpSpec op = OpSpec::Read;
    unsigned read_pct = 50;
    PatternSpec pattern = PatternSpec::Sequential;
    uint32_t block_min = 8, block_max = 8; // sectors
    unsigned qd = 1;
    uint64_t count = 0;
    ModeSpec mode = ModeSpec::Auto;
    uint64_t region_start = 0;
    uint64_t region_length = 0; // 0 = to the end of the device
    bool verify = true;
    PrefillSpec prefill = PrefillSpec::No;
    bool barrier = false;
    uint64_t sg_segment = 4u << 20; // bytes per scatter/gather entry
    uint64_t start_delay_ns = 0;
    // kind: request
    uint64_t lba = 0;
    uint32_t sectors = 0;
    SubmitExpect expect_submit = SubmitExpect::Ok;
    bool expect_error = false; // the command itself is expected to fail (err_mask != 0)
    bool fail_fast = false;    // no retries above EH (REQ_FAILFAST_DEV, as readahead)
    bool fua = false;          // writes are REQ_FUA: durable when they complete
    std::optional<unsigned> tag; // kind: request, scsi: the block layer's tag for it (a report's "tag N")
    // kind: scan: the host port scanned; none = every port (the host's "- - -")
    std::optional<unsigned> scan_port;
    bool attach_read = false; // the harness's own: a disk's attach-time read (devices[].attach_read)
    // kind: scsi (kind: packet is its alias on an ATAPI drive): the CDB (cdb), the SAM status it
    // must end with (expect_status, 0 GOOD, 2 CHECK CONDITION), the sense as key, asc, ascq in
    // either format (expect_sense_key); on an ATAPI drive only: PIO forced and the PIO byte
    // count limit (0 = the stack's)
    std::vector<uint8_t> cdb;
    std::optional<uint8_t> expect_status;
    std::optional<std::array<uint8_t, 3>> expect_sense_key;
    bool packet_pio = false;
    uint16_t byte_count = 0;
    // kind: tray: open | close | change (a new disc: disc_seed, disc_blocks) | remove
    std::string tray_action;
    uint64_t disc_seed = 0;
    uint32_t disc_blocks = 0;
    // kind: scsi: one CDB through the stack's SCSI/ATA translation (ata_scsi_queuecmd, or
    // ata_scsi_atapi_queuecmd on an ATAPI device), as sg_raw sends it (SG_IO: a pass-through
    // request), and what must come back
    uint32_t data_in = 0;            // bytes read from the device (the buffer's size)
    std::vector<uint8_t> data_out;   // bytes sent to it
    std::optional<std::vector<uint8_t>> expect_sense; // the sense data, every byte
    std::vector<uint8_t> expect_data; // the first bytes read

    bool warmplug() const {
        return kind == WorkloadKind::Delete || kind == WorkloadKind::Scan || kind == WorkloadKind::Rescan;
    }
};

struct ExpectDevice {
    int line = 0;
    unsigned port = 0;
    std::optional<unsigned> pmp_port;
    unsigned devno = 0;
    DevAddr addr() const { return {port, pmp_port, devno}; }
    std::optional<std::string> cls, model, serial, firmware, xfer;
    std::optional<uint64_t> sectors;
    std::optional<bool> lba48, ncq;
    std::optional<unsigned> ncq_depth, max_sectors, multi, gen;
    // devices_after gen: probe: the speed the probe negotiated on this port (the fastest
    // both ends support under the scenario's limits), whatever the controller's fastest is
    bool gen_probe = false;
};

// expect.serror: an EH report of the port's SError (libata's exception line `SErr 0x...`
// and its `SError: { ... }` line) with every `must` bit set and none outside must + may:
// what AHCI 1.3.1 3.3.12 requires of an error beside what it leaves to the HBA.
struct ExpectSerror {
    int line = 0;
    unsigned port = 0;
    uint32_t must = 0, may = 0;
};
// libata's SError bit names and bits, as its log prints them (stack/eh/analyze.c).
const std::map<std::string, unsigned> &serror_bit_names();

struct ExpectSpec {
    std::vector<ExpectDevice> devices;
    std::vector<DevAddr> empty_ports; // host ports, or fan-out ports behind a PMP
    std::vector<std::string> log_contains, log_not_contains;
    std::vector<int> log_contains_lines; // each log_contains entry's line (refusals name it)
    uint64_t io_errors = 0;
    // io_errors_min / io_errors_max: a range instead of the exact io_errors (faults)
    std::optional<uint64_t> io_errors_min, io_errors_max;
    bool all_devices_found = true;
    // The state at the end of the run (after faults): devices present and ports empty.
    std::vector<ExpectDevice> devices_after;
    std::vector<DevAddr> absent_after;
    std::vector<ExpectSerror> serror;
};

// waveform: VCD output of model signals (scenarios/README.md, vcd_writer.h).
struct WaveformSpec {
    bool on = false;
    unsigned groups = 0x1f;      // bit per model/wave Group (irq, phy, prims, fis, regs)
    std::vector<unsigned> ports; // host ports whose signals are recorded; empty: every port
};

// oracles: what judges a run besides its expectations (docs/fuzzing.md, "Findings"): a
// fuzz finding's scenario carries the oracles that found it, so `satasim run` replays it
// as a regression (fails on the defective build, passes on the fixed one).
struct OraclesSpec {
    bool fuzz = false;      // the fuzz oracles' verdict replaces the implicit expectations
    uint64_t max_steps = 0; // the fuzz runner's step watchdog (0: none)
    int line = 0;
};

struct Scenario {
    std::string file; // as given on the command line
    Overrides overrides; // keys set from outside the file (--set, --seed, a matrix point), as applied
    std::string name;
    std::string description;
    uint64_t seed = 1;
    uint64_t time_limit_ns = 600ull * 1000 * 1000 * 1000;
    bool trace_cmds = true;
    bool trace_fis = false; // per-FIS model records (disk.fis_rx / disk.fis_tx)
    std::string backend; // a registered backend's name (backend/registry.cpp), set by the parser
    int backend_line = 1; // the line of the `backend` key (1 without one)
    // The host's controllers in PCI order (controllers:, or the one of controller:); every
    // port elsewhere in the scenario is host-wide: controller c's port p is
    // controllers[c].first_port + p, as libata numbers ata ports across hosts (ata<port+1>).
    std::vector<ControllerSpec> controllers{ControllerSpec{}};
    // The first controller (the only one without controllers:), which the one-controller
    // parts of the harness (directed steps, waveform, QEMU and RTL backends) read.
    ControllerSpec controller;
    HostSpec host;
    LinkModeSpec link_mode = LinkModeSpec::Dword; // link: {mode}
    std::vector<DeviceSpec> devices; // in file order
    std::vector<PmpSpec> pmps;       // in file order
    std::vector<WorkloadSpec> workload;
    ExpectSpec expect;
    std::vector<Step> steps; // directed low-level steps (host.stack false), see scenario/steps.h
    fault::FaultPlan faults; // injected by model/fault's FaultInjector (backend systemc)
    WaveformSpec waveform;   // OUT/<name>/waveform.vcd when on
    OraclesSpec oracles;
    // Valid but likely not meant ("file:line: key: why"): satasim check prints them.
    std::vector<std::string> warnings;

    // Several controllers (controllers: with more than one entry; only the reader makes one).
    // With one, `controller` is the truth (code that builds a Scenario sets only that).
    bool multi() const { return controllers.size() > 1; }
    size_t n_controllers() const { return multi() ? controllers.size() : 1; }
    const ControllerSpec &controller_at(size_t i) const { return multi() ? controllers[i] : controller; }
    // Ports of every controller (host-wide ports run 0..total_ports()-1).
    unsigned total_ports() const {
        return multi() ? controllers.back().first_port + controllers.back().ports : controller.ports;
    }
    // The controller a host-wide port is on, its index, and the port on it.
    unsigned controller_index(unsigned port) const;
    const ControllerSpec &controller_of(unsigned port) const { return controller_at(controller_index(port)); }
    unsigned local_port(unsigned port) const { return port - controller_of(port).first_port; }
    // "port 3" (one controller) or "controller 1 port 0" (several): a host-wide port in messages.
    std::string port_name(unsigned port) const;

    // The disk directly on a host port (not one behind a port multiplier there).
    const DeviceSpec *device_on_port(unsigned port) const;
    // The disk at an address (on the host port, or behind its port multiplier).
    const DeviceSpec *device_at(const DevAddr &a) const;
    // Where a disk can sit on a host port: the port itself, or each fan-out port of the
    // port multiplier there.
    std::vector<DevAddr> disk_places(unsigned port) const;
    const PmpSpec *pmp_on_port(unsigned port) const {
        for (const auto &x : pmps)
            if (x.port == port)
                return &x;
        return nullptr;
    }
};

const char *op_name(OpSpec op);
const char *mode_name(ModeSpec m);
const char *pattern_name(PatternSpec p);
const char *ncq_order_name(NcqOrderSpec o);
const char *submit_expect_name(SubmitExpect e);
const char *workload_kind_name(WorkloadKind k);

} // namespace satasim::harness
