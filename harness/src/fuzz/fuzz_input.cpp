// Byte layout (all little-endian, fuzz_input.h: layout, docs/fuzzing.md has the table):
//   [0, 8)      header (bytes 6-7: the format version, fuzz_input.h kFormatV2)
//   [8, 28)     4 port slots of 5 bytes
//   [28, 92)    4 workload slots of 16 bytes (header byte 4: how many are used)
//   [92, 218)   6 fault slots of 21 bytes (header byte 5: how many are used)
//   [218, ...)  disk records of 4 bytes, one per disk place in port order
// Version 3 (fuzz_input.h kFormatV3):
//   [218, 234)  the extension record: a byte per workload slot (kind, trim, fua, the command
//               table's index), then the host's (fua, ignore_hpa)
//   [234, ...)  disk records of 8 bytes (the 4 above, then trim, ncq_trim, its erratum,
//               smart, hpa, physical_sector, align_offset); an ATAPI drive takes none
// Version 4 (fuzz_input.h kFormatV4): version 3's layout; the host extension byte's bits 1-5
// (lpm_policy, controller lpm and devsleep) and a disk record's byte 7 (hipm, dipm, devsleep)
// are read, and the fault kinds take lpm_fail
// Version 5 (fuzz_input.h kFormatV5): version 4's layout; faults address ATAPI drives too
// (check_condition and the kinds an ATAPI drive takes)
#include "fuzz/fuzz_input.h"

#include <algorithm>
#include <cstdio>

#include "controller/controller_table.h"
#include "model/fault/fault_kind_spec.h"

namespace satasim::harness::fuzz {

namespace {

using fault::CommandMatch;

using namespace layout;

// Capacities a disk record chooses from (sectors): the default, LBA28 edges, small disks.
const uint64_t kCapacities[8] = {1953525168, 268435455, 268435456 + 4096, 1u << 20, 65536, 16777216, 4096,
                                 3907029168ull};
const unsigned kMultis[8] = {16, 0, 1, 2, 4, 8, 32, 128};
const CommandMatch::Op kOps[7] = {CommandMatch::Op::Any,      CommandMatch::Op::Read, CommandMatch::Op::Write,
                                  CommandMatch::Op::Flush,    CommandMatch::Op::Identify, CommandMatch::Op::Ncq,
                                  CommandMatch::Op::NonNcq};

// Version 3's commands. A `kind: scsi` workload on a disk sends one of these CDBs as sg_raw
// would (through the stack's SCSI/ATA translation): what a host asks a disk besides reads and
// writes. A workload on an ATAPI drive sends one of the PACKET commands (12-byte CDBs).
struct TableCmd {
    std::vector<uint8_t> cdb;
    uint32_t len; // data_in (scsi) or len (packet)
};
const TableCmd kScsiCmds[8] = {
    {{0x00, 0, 0, 0, 0, 0}, 0},                                                  // TEST UNIT READY
    {{0x12, 0, 0, 0, 0x24, 0}, 36},                                              // INQUIRY
    {{0x12, 0x01, 0xb0, 0, 0x40, 0}, 64},                                        // VPD block limits
    {{0x9e, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x20, 0, 0}, 32},             // READ CAPACITY (16)
    {{0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0},                                      // SYNCHRONIZE CACHE (10)
    {{0x1a, 0, 0x08, 0, 0xff, 0}, 255},                                          // MODE SENSE (6), caching
    {{0x85, 0x06, 0x20, 0, 0xda, 0, 0, 0, 0, 0, 0x4f, 0, 0xc2, 0, 0xb0, 0}, 0}, // SMART RETURN STATUS (CK_COND)
    {{0xa1, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0xe5, 0, 0}, 0},                       // CHECK POWER MODE (12, CK_COND)
};
const TableCmd kPacketCmds[8] = {
    {{0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 0},           // TEST UNIT READY
    {{0x12, 0, 0, 0, 36, 0, 0, 0, 0, 0, 0, 0}, 36},         // INQUIRY
    {{0x25, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}, 8},           // READ CAPACITY
    {{0x28, 0, 0, 0, 0, 16, 0, 0, 1, 0, 0, 0}, 2048},       // READ (10), one block
    {{0x28, 0, 0, 0, 0, 32, 0, 0, 8, 0, 0, 0}, 16384},      // READ (10), eight blocks
    {{0x03, 0, 0, 0, 18, 0, 0, 0, 0, 0, 0, 0}, 18},         // REQUEST SENSE
    {{0x4a, 0x01, 0, 0, 0x10, 0, 0, 0, 8, 0, 0, 0}, 8},     // GET EVENT STATUS NOTIFICATION
    {{0x5a, 0, 0x2a, 0, 0, 0, 0, 0, 0x20, 0, 0, 0}, 32},    // MODE SENSE (10), capabilities
};

// Reads fields at fixed offsets; bytes past the end read as 0.
struct Bytes {
    const uint8_t *p;
    size_t n;
    uint8_t u8(size_t off) const { return off < n ? p[off] : 0; }
    uint16_t u16(size_t off) const { return uint16_t(u8(off) | u8(off + 1) << 8); }
    uint32_t u32(size_t off) const { return uint32_t(u16(off)) | uint32_t(u16(off + 2)) << 16; }
};

// The other way: a zeroed buffer of the full fixed part, grown for disk records.
struct Out {
    std::vector<uint8_t> b = std::vector<uint8_t>(kDisks, 0);
    void u8(size_t off, unsigned v) {
        if (b.size() <= off)
            b.resize(off + 1, 0);
        b[off] = uint8_t(v);
    }
    void u16(size_t off, unsigned v) { u8(off, v & 0xff), u8(off + 1, v >> 8 & 0xff); }
    void u32(size_t off, uint64_t v) { u16(off, unsigned(v & 0xffff)), u16(off + 2, unsigned(v >> 16 & 0xffff)); }
    void or8(size_t off, unsigned v) { u8(off, (off < b.size() ? b[off] : 0) | v); }
};

template <class T, size_t N> size_t index_of(const T (&table)[N], const T &v, size_t fallback = 0) {
    for (size_t i = 0; i < N; ++i)
        if (table[i] == v)
            return i;
    return fallback;
}

constexpr uint64_t kUs = 1000;
// Version 4's link power management policies (host extension bits 1-3, taken modulo 6): ""
// keeps the firmware's settings (no policy), then libata's names (docs/libata-eh.md 9).
const std::string kLpmPolicies[6] = {"", "max_performance", "medium_power", "med_power_with_dipm",
                                     "min_power_with_partial", "min_power"};
const std::string kEhPolicy2006 = "libata-2006"; // header b1 bit 6 (else the stack's default)
// The controllers an input can build, by header bit 0 (the format's table: a new row here
// changes what saved inputs decode to). Their limits are their rows'.
const ControllerId kFuzzControllers[2] = {ControllerId::Ahci, ControllerId::Sil24};

// Every place a disk record fills, in port order: the host port, or each fan-out port of
// the PMP there whose bit is set in the slot's occupancy mask.
struct Place {
    unsigned port;
    std::optional<unsigned> pmp_port;
};

std::vector<Place> places_of(const Scenario &sc) {
    std::vector<Place> out;
    for (unsigned p = 0; p < sc.controller.ports; ++p) {
        if (const PmpSpec *pm = sc.pmp_on_port(p)) {
            for (unsigned f = 0; f < pm->ports; ++f)
                if (sc.device_at({p, f}))
                    out.push_back({p, f});
        } else if (sc.device_on_port(p)) {
            out.push_back({p, std::nullopt});
        }
    }
    return out;
}

void decode_disk(const Bytes &in, size_t off, DeviceSpec &d, bool force_fis) {
    const uint8_t d0 = in.u8(off), d1 = in.u8(off + 1), d2 = in.u8(off + 2), d3 = in.u8(off + 3);
    d.timing.ssd = d0 & 1;
    if (d.timing.ssd)
        d.timing.rate_mb_s = 550;
    d.ncq = !(d0 & 2);
    d.lba48 = !(d0 & 4);
    if (unsigned g = d0 >> 3 & 3) {
        d.gen = g;
        d.gen_set = true;
    }
    d.ncq_order = NcqOrderSpec(d0 >> 5 & 3);
    d.present = !(d0 & 0x80);
    d.ncq_depth = 1 + (d1 & 31);
    d.capacity = kCapacities[d1 >> 5];
    d.write_cache = !(d2 & 1);
    d.multi = kMultis[d2 >> 1 & 7];
    if (!force_fis && (d2 >> 4 & 3) == 1)
        d.link_mode = LinkModeSpec::Dword;
    if (!force_fis && (d2 >> 4 & 3) == 2)
        d.link_mode = LinkModeSpec::Fis;
    if (d2 & 0x40)
        d.ncq_sdb_coalesce_ns = (1 + uint64_t(d3)) * kUs;
}

// Version 3's four more bytes of a disk record: b4 bits 0-1 trim (none, zeroes,
// deterministic, indeterminate), bit 2 ncq_trim (with trim), bit 3 its erratum (with
// ncq_trim), bits 4-5 smart (none, good, threshold_exceeded, none), bit 6 an HPA; b5 bits 0-2
// physical_sector (512 << n), bits 3-7 align_offset (modulo the logical sectors per physical
// one); b6 the HPA's hidden part (capacity / (2 + b6 % 16) sectors hidden).
void decode_disk_v3(const Bytes &in, size_t off, DeviceSpec &d) {
    const uint8_t b4 = in.u8(off + 4), b5 = in.u8(off + 5), b6 = in.u8(off + 6);
    d.trim = TrimSpec(b4 & 3);
    d.ncq_trim = d.trim != TrimSpec::None && (b4 & 4);
    d.ncq_trim_erratum = d.ncq_trim && (b4 & 8);
    d.smart = (b4 >> 4 & 3) == 3 ? SmartSpec::None : SmartSpec(b4 >> 4 & 3);
    if ((b4 & 0x40) && d.capacity > 1)
        d.hpa = d.capacity - std::max<uint64_t>(1, d.capacity / (2 + (b6 & 15)));
    d.physical_log2 = b5 & 7;
    d.align_offset = (b5 >> 3) % (1u << d.physical_log2);
}

void encode_disk_v3(Out &o, size_t off, const DeviceSpec &d, std::vector<std::string> *lost, const std::string &path) {
    unsigned b4 = unsigned(d.trim) | (d.ncq_trim ? 4 : 0) | (d.ncq_trim_erratum ? 8 : 0) | unsigned(d.smart) << 4, b6 = 0;
    if (d.hpa) {
        b4 |= 0x40;
        unsigned best = 0; // the hidden part nearest the scenario's
        for (unsigned k = 0; k < 16; ++k) {
            const uint64_t a = d.capacity - std::max<uint64_t>(1, d.capacity / (2 + k)),
                           b = d.capacity - std::max<uint64_t>(1, d.capacity / (2 + best));
            if ((a > d.hpa ? a - d.hpa : d.hpa - a) < (b > d.hpa ? b - d.hpa : d.hpa - b))
                best = k;
        }
        b6 = best;
        if (d.capacity - std::max<uint64_t>(1, d.capacity / (2 + best)) != d.hpa)
            lost->push_back(path + ".hpa: the capacity less capacity / (2..17) only");
    }
    if (d.physical_log2 > 7)
        lost->push_back(path + ".physical_sector: at most 65536");
    o.u8(off + 4, b4), o.u8(off + 5, (d.physical_log2 & 7) | (d.align_offset & 31) << 3), o.u8(off + 6, b6);
    if (d.align_offset > 31)
        lost->push_back(path + ".align_offset: at most 31");
}

// Version 4's byte of a disk record (its byte 7): bit 0 hipm, bit 1 dipm, bit 2 devsleep;
// version 5's bit 3: a 4Kn drive (logical_sector 4096: its capacity and HPA in 4096-byte
// sectors, its physical sector at least that, align_offset below the logical sectors per
// physical one).
void decode_disk_v4(const Bytes &in, size_t off, DeviceSpec &d, unsigned version) {
    const uint8_t b7 = in.u8(off + 7);
    d.hipm = b7 & 1;
    d.dipm = b7 & 2;
    d.devsleep = b7 & 4;
    if (version >= 5 && (b7 & 8)) {
        d.logical_log2 = 3;
        d.physical_log2 = std::max(d.physical_log2, d.logical_log2);
        d.align_offset %= 1u << (d.physical_log2 - d.logical_log2);
    }
}

void encode_disk_v4(Out &o, size_t off, const DeviceSpec &d) {
    o.u8(off + 7, (d.hipm ? 1 : 0) | (d.dipm ? 2 : 0) | (d.devsleep ? 4 : 0) | (d.logical_log2 == 3 ? 8 : 0));
}

// Whether a disk needs version 3 (a key only its longer record holds).
bool disk_needs_v3(const DeviceSpec &d) {
    return d.atapi || d.trim != TrimSpec::None || d.hpa || d.smart != SmartSpec::None || d.physical_log2 ||
           d.align_offset;
}

void encode_disk(Out &o, size_t off, const DeviceSpec &d, std::vector<std::string> *lost, const std::string &path,
                 unsigned version) {
    NcqOrderSpec order = d.ncq_order;
    if (order == NcqOrderSpec::ShortestAccess) { // the format has two bits for the order
        lost->push_back(path + ".ncq_order: shortest_access is encoded as shortest_seek");
        order = NcqOrderSpec::ShortestSeek;
    }
    unsigned d0 = (d.timing.ssd ? 1 : 0) | (d.ncq ? 0 : 2) | (d.lba48 ? 0 : 4) | (d.gen_set ? d.gen << 3 : 0) |
                  unsigned(order) << 5 | (d.present ? 0 : 0x80);
    size_t cap = index_of(kCapacities, d.capacity, 8);
    if (cap == 8) {
        lost->push_back(path + ".capacity: " + std::to_string(d.capacity) + " sectors is not in the format's table");
        cap = 0;
    }
    unsigned d1 = ((d.ncq_depth - 1) & 31) | unsigned(cap) << 5;
    size_t multi = index_of(kMultis, d.multi);
    unsigned d2 = (d.write_cache ? 0 : 1) | unsigned(multi) << 1;
    if (d.link_mode)
        d2 |= (*d.link_mode == LinkModeSpec::Dword ? 1u : 2u) << 4;
    unsigned d3 = 0;
    if (d.ncq_sdb_coalesce_ns) {
        d2 |= 0x40;
        d3 = unsigned(std::min<uint64_t>(255, std::max<uint64_t>(1, d.ncq_sdb_coalesce_ns / kUs) - 1));
        if ((d3 + 1) * kUs != d.ncq_sdb_coalesce_ns)
            lost->push_back(path + ".ncq_sdb_coalesce: only whole microseconds 1..256");
    }
    o.u8(off, d0), o.u8(off + 1, d1), o.u8(off + 2, d2), o.u8(off + 3, d3);
    const DeviceSpec def;
    const bool hdd_default = !d.timing.ssd && d.timing.rpm == def.timing.rpm && d.timing.seek_ms == def.timing.seek_ms &&
                             d.timing.rate_mb_s == def.timing.rate_mb_s;
    const bool ssd_default = d.timing.ssd && d.timing.latency_us == def.timing.latency_us && d.timing.rate_mb_s == 550;
    if ((!hdd_default && !ssd_default) || d.timing.overhead_us != def.timing.overhead_us ||
        d.timing.reset_ready_ms != def.timing.reset_ready_ms)
        lost->push_back(path + ".timing: only the default hdd and ssd profiles");
    if (d.model != def.model || d.firmware != def.firmware)
        lost->push_back(path + ".model/firmware: the default identity only");
    if (d.udma != def.udma || d.pio != def.pio || d.ata_major != def.ata_major)
        lost->push_back(path + ".udma/pio/ata_major: the defaults only");
    if (index_of(kMultis, d.multi, 8) == 8)
        lost->push_back(path + ".multi: " + std::to_string(d.multi) + " is not in the format's table");
    if (!d.blkdebug.empty())
        lost->push_back(path + ".blkdebug: backend qemu only");
    if ((d.hipm || d.dipm || d.devsleep) && version < 4)
        lost->push_back(path + ".hipm/dipm/devsleep: version 4 only");
}

// The devices a byte picks among, in place order: a workload's (present at the probe; an
// ATAPI drive too), a fault's up to version 4 (any disk, no ATAPI drive: those versions' faults
// act on disks) and from version 5 (any device).
enum class Among { Present, Disks, Devices };

bool counted(const DeviceSpec &d, Among among) {
    return among == Among::Present ? d.present : among == Among::Disks ? !d.atapi : true;
}

Among fault_targets(unsigned version) { return version >= 5 ? Among::Devices : Among::Disks; }

const DeviceSpec *nth_device(const Scenario &sc, unsigned pick, Among among) {
    std::vector<const DeviceSpec *> c;
    for (const Place &pl : places_of(sc)) {
        const DeviceSpec *d = sc.device_at({pl.port, pl.pmp_port});
        if (counted(*d, among))
            c.push_back(d);
    }
    return c.empty() ? nullptr : c[pick % c.size()];
}

unsigned index_among(const Scenario &sc, const DevAddr &a, Among among) {
    unsigned i = 0;
    for (const Place &pl : places_of(sc)) {
        const DeviceSpec *d = sc.device_at({pl.port, pl.pmp_port});
        if (!counted(*d, among))
            continue;
        if (DevAddr{pl.port, pl.pmp_port} == a)
            return i;
        ++i;
    }
    return 0;
}

bool ncq_possible(const Scenario &sc, const DeviceSpec &d) { return d.ncq && sc.controller.ncq && !sc.host.no_ncq; }

// Version 3's workload byte (the extension record's, per slot): bits 0-1 the kind (0 and 3
// io, 1 trim: an io workload whose op is trim, on a disk with trim; 2 scsi: one of kScsiCmds),
// bit 2 fua (writes), bits 4-6 the command table's index; on an ATAPI drive every workload is a
// PACKET command of kPacketCmds.
void decode_table_step(const Bytes &in, size_t off, const DeviceSpec &d, uint8_t ext, WorkloadSpec &w) {
    const TableCmd &t = d.atapi ? kPacketCmds[ext >> 4 & 7] : kScsiCmds[ext >> 4 & 7];
    w.kind = WorkloadKind::Scsi; // (a PACKET command is a scsi step on an ATAPI drive)
    w.cdb = t.cdb;
    w.data_in = t.len;
    w.count = w.qd = 1; // (as the reader sets them for a SCSI command)
    w.barrier = in.u8(off + 1) & 0x40;
    w.start_delay_ns = uint64_t(in.u16(off + 14)) * kUs;
}

void decode_workload(const Bytes &in, size_t off, const Scenario &sc, unsigned version, uint8_t ext,
                     std::vector<WorkloadSpec> &out) {
    const bool v2 = version >= 2;
    const DeviceSpec *d = nth_device(sc, in.u8(off), Among::Present);
    if (!d)
        return;
    WorkloadSpec w;
    w.device = d->port;
    w.pmp_port = d->pmp_port;
    if (d->atapi || (version >= 3 && (ext & 3) == 2)) {
        decode_table_step(in, off, *d, ext, w);
        out.push_back(w);
        return;
    }
    const uint8_t w1 = in.u8(off + 1);
    w.op = OpSpec(w1 & 3);
    w.pattern = w1 & 4 ? PatternSpec::Random : PatternSpec::Sequential;
    w.mode = ModeSpec(w1 >> 3 & 3);
    if (w.mode == ModeSpec::Ncq && (!ncq_possible(sc, *d) || w.op == OpSpec::Flush))
        w.mode = ModeSpec::Auto;
    w.prefill = (w1 & 0x20) && w.op != OpSpec::Flush ? PrefillSpec::Yes : PrefillSpec::No;
    w.barrier = w1 & 0x40;
    if ((w1 & 0x80) && w.op != OpSpec::Flush)
        w.sg_segment = kPageSegment;
    w.block_min = 1 + in.u8(off + 2) % kMaxBlock;
    w.block_max = w.block_min + in.u8(off + 3) % (kMaxBlock + 1 - w.block_min);
    w.qd = 1 + in.u8(off + 4) % 32;
    w.count = 1 + in.u16(off + 5) % (v2 ? kMaxCountV2 : kMaxCount);
    if (w.op == OpSpec::Mix)
        w.read_pct = in.u8(off + 7) % 101;
    const uint64_t cap = d->configured_sectors(sc.host.ignore_hpa); // (addressable() without an HPA)
    uint64_t len = std::min<uint64_t>(cap, w.block_max + uint64_t(in.u16(off + 12)));
    uint64_t start = in.u32(off + 8) % cap;
    if (start + len > cap)
        start = cap - len;
    w.region_start = start;
    w.region_length = len;
    w.start_delay_ns = uint64_t(in.u16(off + 14)) * kUs;
    if (w.op == OpSpec::Flush) { // what the reader makes of a flush entry: no block, no region
        w.block_min = w.block_max = 8;
        w.region_start = 0;
        w.region_length = cap;
        w.pattern = PatternSpec::Sequential;
    }
    if (w.block_max > w.region_length) // (a disk smaller than a block: the 4096-sector one is not)
        w.block_min = w.block_max = unsigned(w.region_length);
    if (version >= 3) {
        // a trim on a disk that takes TRIM (the reader refuses it elsewhere), in one 512-byte
        // block of ranges (ATA_TRIM_MAX_SECTORS); FUA on what writes
        if ((ext & 3) == 1 && d->trim != TrimSpec::None && w.op != OpSpec::Flush) {
            w.op = OpSpec::Trim;
            w.read_pct = 50;
            w.prefill = PrefillSpec::No;
            if (w.mode == ModeSpec::Ncq)
                w.mode = ModeSpec::Auto;
        }
        w.fua = (ext & 4) && (w.op == OpSpec::Write || w.op == OpSpec::Mix);
    }
    out.push_back(w);
}

// A scsi or packet workload's command in its table (version 3), or lost.
void encode_table_step(Out &o, size_t off, size_t ext_off, const Scenario &sc, const WorkloadSpec &w,
                       std::vector<std::string> *lost, const std::string &path) {
    const DeviceSpec *dev = sc.device_at({w.device, w.pmp_port});
    const bool packet = dev && dev->atapi;
    const TableCmd *table = packet ? kPacketCmds : kScsiCmds;
    unsigned k = 0;
    for (unsigned i = 0; i < 8; ++i)
        if (table[i].cdb == w.cdb)
            k = i;
    if (table[k].cdb != w.cdb || w.data_in != table[k].len)
        lost->push_back(path + ".cdb: the format's table of " + (packet ? "PACKET" : "SCSI") + " commands only");
    if (w.expect_status || w.expect_sense || !w.expect_data.empty() || w.expect_sense_key || !w.data_out.empty() ||
        w.packet_pio || w.byte_count)
        lost->push_back(path + ": the command and its data only (no expectations, no data out, no PIO options)");
    o.u8(off, index_among(sc, {w.device, w.pmp_port}, Among::Present));
    o.u8(off + 1, w.barrier ? 0x40 : 0);
    o.u16(off + 14, unsigned(std::min<uint64_t>(w.start_delay_ns / kUs, 0xffff)));
    o.u8(ext_off, (packet ? 0 : 2) | k << 4);
}

void encode_workload(Out &o, size_t off, size_t ext_off, const Scenario &sc, const WorkloadSpec &w, bool v2, bool v3,
                     std::vector<std::string> *lost, const std::string &path) {
    if (v3 && (w.kind == WorkloadKind::Scsi || w.kind == WorkloadKind::Packet))
        return encode_table_step(o, off, ext_off, sc, w, lost, path);
    if (w.kind != WorkloadKind::Io) {
        lost->push_back(path + ": kind " + (w.kind == WorkloadKind::Request ? "request" : "tray, delete, scan or rescan") +
                        " (the format has io, scsi and packet workloads)");
        return;
    }
    if (v3)
        o.u8(ext_off, (w.op == OpSpec::Trim ? 1 : 0) | (w.fua ? 4 : 0));
    const OpSpec op = w.op == OpSpec::Trim ? OpSpec::Write : w.op; // (the extension byte says trim)
    o.u8(off, index_among(sc, {w.device, w.pmp_port}, Among::Present));
    o.u8(off + 1, unsigned(op) | (w.pattern == PatternSpec::Random ? 4 : 0) | unsigned(w.mode) << 3 |
                      (w.prefill == PrefillSpec::Yes && w.op != OpSpec::Flush ? 0x20 : 0) | (w.barrier ? 0x40 : 0) |
                      (w.sg_segment == kPageSegment && w.op != OpSpec::Flush ? 0x80 : 0));
    const bool flush = w.op == OpSpec::Flush; // no block, no region, no read_pct
    unsigned bmin = flush ? 1 : std::clamp<unsigned>(w.block_min, 1, kMaxBlock),
             bmax = flush ? 1 : std::clamp<unsigned>(w.block_max, bmin, kMaxBlock);
    if (w.op != OpSpec::Flush && (bmin != w.block_min || bmax != w.block_max))
        lost->push_back(path + ".block: at most " + std::to_string(kMaxBlock) + " sectors");
    o.u8(off + 2, bmin - 1);
    o.u8(off + 3, bmax - bmin);
    o.u8(off + 4, std::clamp<unsigned>(w.qd, 1, 32) - 1);
    if (w.qd > 32)
        lost->push_back(path + ".qd: at most 32");
    const unsigned max_count = v2 ? kMaxCountV2 : kMaxCount;
    o.u16(off + 5, unsigned(std::clamp<uint64_t>(w.count, 1, max_count) - 1));
    if (w.count > max_count)
        lost->push_back(path + ".count: at most " + std::to_string(max_count) + " requests" +
                        (v2 ? "" : " (short schedules)"));
    o.u8(off + 7, w.op == OpSpec::Mix ? w.read_pct : 0);
    o.u32(off + 8, flush ? 0 : w.region_start);
    uint64_t extra = !flush && w.region_length > bmax ? w.region_length - bmax : 0;
    if (!flush && (extra > 0xffff || w.region_start > 0xffffffffull))
        lost->push_back(path + ".region: start below 2^32, length at most the block + 65535 sectors");
    o.u16(off + 12, unsigned(std::min<uint64_t>(extra, 0xffff)));
    o.u16(off + 14, unsigned(std::min<uint64_t>(w.start_delay_ns / kUs, 0xffff)));
    if (w.start_delay_ns % kUs || w.start_delay_ns / kUs > 0xffff)
        lost->push_back(path + ".delay: whole microseconds up to 65.535 ms");
    if (!w.verify)
        lost->push_back(path + ".verify: always on (the data oracle)");
    if (w.fua && !v3)
        lost->push_back(path + ".fua: version 3 only");
    if (w.sg_segment != WorkloadSpec{}.sg_segment && w.sg_segment != kPageSegment)
        lost->push_back(path + ".sg_segment: the default or 4k only");
}

// The fault kinds an input can name, in the order of their byte's values (the byte is taken
// modulo this list's length, so taking a kind in changes what every saved input decodes to:
// that needs a format version). Versions 1 and 2: the eleven kinds of the first format;
// version 3 adds the kinds that came after it (host_bus_error, cominit, power_loss, bad_fis).
// Left out: the taskfile channels' kinds (the decoder builds AHCI and SiI3124 hosts only).
const std::vector<const fault::KindSpec *> &fuzz_kinds(unsigned version = 1) {
    static const std::vector<const fault::KindSpec *> v1 = [] {
        using K = fault::Kind;
        std::vector<const fault::KindSpec *> v;
        for (K k : {K::Crc, K::LostIrq, K::Unplug, K::Plug, K::MediaError, K::Hang, K::IdentifyFail, K::PhyFlap,
                    K::LinkDegrade, K::PmpHang, K::Slow})
            v.push_back(fault::kind_spec(k));
        return v;
    }();
    static const std::vector<const fault::KindSpec *> v3 = [] {
        using K = fault::Kind;
        std::vector<const fault::KindSpec *> v = v1;
        for (K k : {K::HostBusError, K::Cominit, K::PowerLoss, K::BadFis})
            v.push_back(fault::kind_spec(k));
        return v;
    }();
    static const std::vector<const fault::KindSpec *> v4 = [] {
        std::vector<const fault::KindSpec *> v = v3;
        v.push_back(fault::kind_spec(fault::Kind::LpmFail));
        return v;
    }();
    static const std::vector<const fault::KindSpec *> v5 = [] {
        std::vector<const fault::KindSpec *> v = v4;
        for (fault::Kind k : {fault::Kind::CheckCondition, fault::Kind::HbaError, fault::Kind::LineNoise})
            v.push_back(fault::kind_spec(k));
        return v;
    }();
    return version >= 5 ? v5 : version >= 4 ? v4 : version >= 3 ? v3 : v1;
}

// Why a kind is not in the format (fuzz_kinds()), for the encoder's list of what is lost.
std::string not_in_format(const fault::KindSpec &k) {
    if (k.taskfile_only)
        return std::string("a taskfile channel's fault (the fuzz topologies are ") +
               controller_desc(kFuzzControllers[0]).name + " and " + controller_desc(kFuzzControllers[1]).name + ")";
    return std::string(k.name) + " is not in the fuzz input format yet";
}

// The first format version whose kinds take k (1, 3, 4 or 5; 0: none).
unsigned kind_version(fault::Kind k) {
    for (unsigned v : {1u, 3u, 4u, 5u}) {
        const std::vector<const fault::KindSpec *> &ks = fuzz_kinds(v);
        if (std::any_of(ks.begin(), ks.end(), [&](const fault::KindSpec *s) { return s->kind == k; }))
            return v;
    }
    return 0;
}

// Whether a kind needs version 3 (not among the first format's).
bool kind_needs_v3(fault::Kind k) { return kind_version(k) != 1; }

// Whether a typed parameter's value is in the input (fault_kind_spec.h: FuzzField): in the
// format of this version, its selector (if any) says so, and a parameter an `at` trigger
// requires is there with one. q: the kind's first byte.
bool param_present(const Bytes &in, size_t q, const fault::ParamSpec &ps, const fault::Trigger &tr, unsigned version) {
    const fault::FuzzField &f = ps.fuzz;
    if (!f.in_format() || f.since > version)
        return false;
    if (ps.required_at && tr.at_ns)
        return true;
    return !f.sel_mask || ((in.u8(q + f.sel_offset) & f.sel_mask) != 0) == f.sel_set;
}

// A typed parameter's value from its fuzz field, q the kind's first byte, cap the addressed
// disk's sectors (an LbaRange), index the fault's (a String's text_index).
fault::ParamValue decode_param(const Bytes &in, size_t q, const fault::ParamSpec &ps, uint64_t cap, size_t index) {
    const fault::FuzzField &f = ps.fuzz;
    const size_t at = q + f.offset;
    fault::ParamValue v;
    if (ps.type == fault::ParamType::String) {
        v.text = std::string(f.text) + (f.text_index ? std::to_string(index) : "");
        return v;
    }
    uint64_t raw = f.bytes == 1 ? in.u8(at) : f.bytes == 2 ? in.u16(at) : in.u32(at);
    if (ps.type == fault::ParamType::LbaRange) { // first within the disk, then a span of 2 bytes
        v.n = cap ? raw % cap : 0;
        v.last = std::min<uint64_t>(cap ? cap - 1 : 0, v.n + in.u16(at + 4));
        return v;
    }
    if (f.bits)
        raw = raw >> f.shift & ((1u << f.bits) - 1);
    if (f.zero_is_default && raw == 0) {
        v.n = ps.def;
        return v;
    }
    const uint64_t r = f.mod ? raw % f.mod : raw;
    v.n = f.map.empty() ? (r + f.bias) * f.unit : f.map[r % f.map.size()];
    return v;
}

// The other way: the nearest value the field holds; what it cannot hold is said in lost.
void encode_param(Out &o, size_t q, const fault::ParamSpec &ps, const fault::ParamValue &val, size_t index,
                  unsigned version, std::vector<std::string> *lost, const std::string &path) {
    const fault::FuzzField &f = ps.fuzz;
    const std::string where = path + "." + ps.key;
    const uint64_t v = val.n;
    if (!f.in_format() || f.since > version) { // a parameter after the format: the decoder keeps its default
        if (!val.given || (ps.type != fault::ParamType::String && ps.type != fault::ParamType::LbaRange && v == ps.def))
            return;
        lost->push_back(where + ": its default only (not in the byte format)");
        return;
    }
    if (f.sel_mask) { // an optional value, or one of two sharing the bytes: the one given (not 0)
        if (!val.given || (ps.type != fault::ParamType::String && ps.type != fault::ParamType::LbaRange && v == 0))
            return;
        if (f.sel_set)
            o.or8(q + f.sel_offset, f.sel_mask);
    }
    const size_t at = q + f.offset;
    switch (ps.type) {
    case fault::ParamType::String: {
        const std::string text = std::string(f.text) + (f.text_index ? std::to_string(index) : "");
        if (val.text != text)
            lost->push_back(where + ": " + (f.text_index ? std::string(f.text) + "<index>" : text) + " only");
        return;
    }
    case fault::ParamType::LbaRange: {
        o.u32(at, val.n);
        o.u16(at + 4, unsigned(std::min<uint64_t>(val.last - val.n, 0xffff)));
        if (val.n > 0xffffffffull || val.last - val.n > 0xffff)
            lost->push_back(where + ": first below 2^32, at most 65536 sectors");
        return;
    }
    default: break;
    }
    uint64_t raw = 0;
    if (!f.map.empty()) { // a table of values: the index of this one
        const auto it = std::find(f.map.begin(), f.map.end(), v);
        raw = it == f.map.end() ? 0 : uint64_t(it - f.map.begin());
        if (it == f.map.end())
            lost->push_back(where + ": " + fault::param_text(ps, v) + " is not in the format (" +
                            fault::param_text(ps, f.map[0]) + " instead)");
    } else if (ps.type == fault::ParamType::Flags && f.bits) { // the flags the bits hold; a later one is lost
        const uint64_t held = (1u << f.bits) - 1;
        raw = v & held;
        for (size_t i = 0; i < ps.values.size(); ++i)
            if ((v & ~held) >> i & 1)
                lost->push_back(where + ": " + ps.values[i] + " is not in the format");
    } else {
        const uint64_t top = f.mod ? f.mod - 1 : f.bits ? (1u << f.bits) - 1 : (uint64_t(1) << (8 * f.bytes)) - 1;
        const uint64_t steps = f.round_up ? (v + f.unit - 1) / f.unit : v / f.unit, lo = f.bias, hi = f.bias + top;
        raw = std::clamp(steps, lo, hi) - lo;
        if (v % f.unit || steps < lo || steps > hi)
            lost->push_back(where + ": " + fault::param_text(ps, lo * f.unit) + ".." +
                            fault::param_text(ps, hi * f.unit));
    }
    if (f.bits)
        o.or8(at, unsigned(raw << f.shift));
    else if (f.bytes == 1)
        o.u8(at, unsigned(raw));
    else if (f.bytes == 2)
        o.u16(at, unsigned(raw));
    else
        o.u32(at, raw);
}

bool decode_fault(const Bytes &in, size_t off, const Scenario &sc, size_t index, unsigned version, fault::Fault &x) {
    const bool v2 = version >= 2;
    const std::vector<const fault::KindSpec *> &kinds = fuzz_kinds(version);
    const fault::KindSpec &spec = *kinds[in.u8(off) % kinds.size()];
    if (spec.ahci_only && controller_desc(sc.controller.type).id != ControllerId::Ahci)
        return false; // (an AHCI port's DMA fault on the SiI3124: dropped, as a pmp_hang without a PMP)
    x.kind = spec.kind;
    x.id = "fault" + std::to_string(index);
    const uint8_t target = in.u8(off + 1);
    uint64_t cap = 0;
    bool present = true; // (the addressed drive is there at the probe)
    if (spec.binds == fault::Binds::PmpControl) {
        if (sc.pmps.empty())
            return false;
        x.port = sc.pmps[target % sc.pmps.size()].port;
    } else {
        const DeviceSpec *d = nth_device(sc, target, fault_targets(version));
        if (!d || (d->atapi && spec.drive == fault::Drive::Disk) || (!d->atapi && spec.drive == fault::Drive::Atapi))
            return false; // (a kind the device does not take: dropped)
        x.port = d->port;
        x.pmp_port = d->pmp_port;
        present = d->present;
        // an ATAPI drive's commands are matched in 2048-byte blocks of its disc (as the reader)
        cap = d->atapi ? d->atapi->disc_blocks : d->addressable();
    }
    const uint8_t t = in.u8(off + 2);
    unsigned trig = (t & 3) % 3;
    if (spec.time_only)
        trig = 0;
    // cominit: a time trigger before version 5 (as the kind was then), and on an absent drive
    if (spec.kind == fault::Kind::Cominit && (version < 5 || !present))
        trig = 0;
    fault::Trigger &tr = x.trigger;
    tr.from_power_on = t & 4;
    tr.repeat = spec.fires_once ? 1 : 1 + (t >> 3 & 7);
    const uint32_t a = in.u32(off + 4);
    const uint16_t b = in.u16(off + 8);
    const uint8_t c = in.u8(off + 3);
    if (trig == 0) {
        tr.at_ns = (a % kMaxAtUs) * kUs;
        if (tr.repeat > 1)
            tr.every_ns = (1 + uint64_t(b)) * 10 * kUs; // 10 us .. 655 ms apart
    } else if (trig == 1) {
        tr.after_cmds = 1 + a % 200;
        if (tr.repeat > 1)
            tr.every_cmds = 1 + b % (v2 ? kMaxEveryCmdsV2 : kMaxEveryCmds);
    } else {
        CommandMatch m;
        m.op = kOps[(c & 0x3f) % 7];
        if (c & 0x80) {
            m.lba_first = a % cap;
            m.lba_last = std::min<uint64_t>(cap - 1, *m.lba_first + b);
        }
        tr.on_cmd = m;
        if (tr.repeat > 1 && (c & 0x40)) // version 2: bits 6-7 of the trigger byte above byte 20
            tr.every_cmds = 1 + (in.u8(off + 20) | (v2 ? unsigned(t >> 6) << 8 : 0u)) %
                                    (v2 ? kMaxEveryCmdsV2 : kMaxEveryCmds);
    }
    // The kind's own parameters: bytes [10, 20) (byte 20: on_cmd's every_cmds), where their
    // rows' fuzz fields say (fault_kind_spec.h); the others keep their defaults.
    const size_t q = off + 10;
    for (const fault::ParamSpec &ps : spec.params)
        if (param_present(in, q, ps, tr, version)) {
            fault::ParamValue v = decode_param(in, q, ps, cap, index);
            v.n |= ps.forced; // (a flag the kind always has, as the reader sets it: cominit's noise)
            fault::set_value(x, ps, v);
        }
    return true;
}

void encode_fault(Out &o, size_t off, const Scenario &sc, size_t index, const fault::Fault &x, unsigned version,
                  std::vector<std::string> *lost, const std::string &path) {
    const bool v2 = version >= 2;
    const std::vector<const fault::KindSpec *> &kinds = fuzz_kinds(version);
    bool in_format = false; // (a kind outside the format is said once, below)
    for (size_t i = 0; i < kinds.size(); ++i)
        if (kinds[i]->kind == x.kind)
            o.u8(off, unsigned(i)), in_format = true;
    const fault::KindSpec &spec = *fault::kind_spec(x.kind);
    if (spec.binds == fault::Binds::PmpControl) {
        for (size_t i = 0; i < sc.pmps.size(); ++i)
            if (sc.pmps[i].port == x.port)
                o.u8(off + 1, unsigned(i));
    } else {
        o.u8(off + 1, index_among(sc, {x.port, x.pmp_port}, fault_targets(version)));
    }
    const fault::Trigger &tr = x.trigger;
    unsigned trig = tr.at_ns ? 0 : tr.after_cmds ? 1 : 2;
    unsigned rep = std::clamp<unsigned>(tr.repeat, 1, 8);
    if (tr.repeat != rep)
        lost->push_back(path + ".repeat: 1..8 (for ever is not expressed)");
    o.u8(off + 2, trig | (tr.from_power_on ? 4 : 0) | (rep - 1) << 3);
    unsigned c = 0;
    if (tr.at_ns) {
        o.u32(off + 4, std::min<uint64_t>(*tr.at_ns / kUs, kMaxAtUs - 1));
        if (*tr.at_ns % kUs || *tr.at_ns / kUs >= kMaxAtUs)
            lost->push_back(path + ".at: whole microseconds below 2 s");
        if (tr.every_ns) {
            uint64_t e = std::clamp<uint64_t>(tr.every_ns / (10 * kUs), 1, 65536);
            o.u16(off + 8, unsigned(e - 1));
            if (e * 10 * kUs != tr.every_ns)
                lost->push_back(path + ".every: multiples of 10 us up to 655 ms");
        }
    } else if (tr.after_cmds) {
        o.u32(off + 4, std::clamp<uint64_t>(*tr.after_cmds, 1, 200) - 1);
        if (*tr.after_cmds > 200)
            lost->push_back(path + ".after_cmds: 1..200");
    } else if (tr.on_cmd) {
        c = unsigned(index_of(kOps, tr.on_cmd->op));
        if (tr.on_cmd->opcode)
            lost->push_back(path + ".on_cmd.opcode: not expressed (op classes only)");
        if (tr.on_cmd->lba_first) {
            c |= 0x80;
            o.u32(off + 4, *tr.on_cmd->lba_first);
            uint64_t span = *tr.on_cmd->lba_last - *tr.on_cmd->lba_first;
            o.u16(off + 8, unsigned(std::min<uint64_t>(span, 0xffff)));
            if (span > 0xffff)
                lost->push_back(path + ".on_cmd.lba: at most 65536 sectors");
        }
    }
    if (tr.every_cmds) {
        c |= 0x40;
        const unsigned max_every = v2 ? kMaxEveryCmdsV2 : kMaxEveryCmds;
        const unsigned e = unsigned(std::clamp<uint64_t>(tr.every_cmds, 1, max_every) - 1);
        if (!tr.on_cmd)
            o.u8(off + 8, e & 0xff), o.or8(off + 9, e >> 8);
        else
            o.u8(off + 20, e & 0xff), o.or8(off + 2, (e >> 8) << 6);
        if (tr.every_cmds > max_every)
            lost->push_back(path + ".every_cmds: 1.." + std::to_string(max_every));
    }
    o.u8(off + 3, c);
    if (x.min_fired)
        lost->push_back(path + ".min_fired: not expressed (the fuzz oracles do not count firings)");
    // The kind's typed parameters (fault_kind_spec.h) where their rows' fuzz fields say; one
    // without bytes is its default only.
    if (!in_format) {
        lost->push_back(path + ": " + not_in_format(spec));
        return;
    }
    const size_t q = off + 10;
    for (const fault::ParamSpec &ps : spec.params)
        encode_param(o, q, ps, fault::value(x, ps), index, version, lost, path);
}

// Version 2 when a workload or a fault's every_cmds is beyond version 1 (fuzz_input.h).
bool needs_v2(const Scenario &sc) {
    for (const WorkloadSpec &w : sc.workload)
        if (w.kind == WorkloadKind::Io && w.count > kMaxCount)
            return true;
    for (const fault::Fault &x : sc.faults)
        if (x.trigger.every_cmds > kMaxEveryCmds)
            return true;
    return false;
}

// Version 3 when the scenario has what only it carries (fuzz_input.h kFormatV3): on the first
// ports (the ones the format keeps), a v3 disk key or an ATAPI drive, a trim, FUA, SCSI or
// PACKET workload, a fault kind of its own or a parameter only it holds, host fua or
// ignore_hpa. Every scenario the older versions express encodes as before.
bool needs_v3(const Scenario &sc) {
    if (sc.host.fua || sc.host.ignore_hpa)
        return true;
    for (const DeviceSpec &d : sc.devices)
        if (d.port < kMaxPorts && disk_needs_v3(d))
            return true;
    for (const WorkloadSpec &w : sc.workload)
        if (w.kind == WorkloadKind::Scsi || w.kind == WorkloadKind::Packet ||
            (w.kind == WorkloadKind::Io && (w.op == OpSpec::Trim || w.fua)))
            return true;
    for (const fault::Fault &x : sc.faults) {
        if (kind_needs_v3(x.kind) && !fault::kind_spec(x.kind)->taskfile_only)
            return true;
        for (const fault::ParamSpec &ps : fault::kind_spec(x.kind)->params)
            if (ps.fuzz.since >= 3 && ps.fuzz.in_format() && fault::value(x, ps).n != ps.def)
                return true;
    }
    return false;
}

// Version 5 when a fault addresses an ATAPI drive (fuzz_input.h kFormatV5), check_condition
// or any kind it takes (version 4 and before index the disks only), or a disk on the first
// ports is 4Kn.
bool needs_v5(const Scenario &sc) {
    for (const DeviceSpec &d : sc.devices)
        if (d.port < kMaxPorts && d.logical_log2)
            return true;
    for (const fault::Fault &x : sc.faults)
        if (x.kind == fault::Kind::Cominit && !x.trigger.at_ns && x.port < kMaxPorts)
            return true; // (a cominit on a command: version 5's)
    for (const fault::Fault &x : sc.faults) {
        if (kind_version(x.kind) == 5)
            return true;
        const DeviceSpec *d = sc.device_at({x.port, x.pmp_port});
        if (fault::kind_spec(x.kind)->binds == fault::Binds::Disk && d && d->atapi && x.port < kMaxPorts)
            return true;
    }
    return false;
}

// Version 4 when the scenario has a link power management key (fuzz_input.h kFormatV4): the
// host's policy, the controller's lpm, a disk's hipm or dipm on the first ports, an lpm_fail.
bool needs_v4(const Scenario &sc) {
    if (!sc.host.lpm_policy.empty() || sc.controller.lpm)
        return true;
    for (const DeviceSpec &d : sc.devices)
        if (d.port < kMaxPorts && (d.hipm || d.dipm || d.devsleep))
            return true;
    for (const fault::Fault &x : sc.faults)
        if (kind_version(x.kind) == 4)
            return true;
    return false;
}

} // namespace

void short_schedules(Scenario &sc, std::vector<std::string> *lost) {
    for (const fault::Fault &x : sc.faults)
        if (x.trigger.every_cmds > kMaxEveryCmds)
            return; // the fault fires beyond a short schedule: keep it long (version 2)
    for (size_t i = 0; i < sc.workload.size(); ++i)
        if (WorkloadSpec &w = sc.workload[i]; w.kind == WorkloadKind::Io && w.count > kMaxCount) {
            lost->push_back("workload[" + std::to_string(i) + "].count: at most " + std::to_string(kMaxCount) +
                            " requests (short schedules)");
            w.count = kMaxCount;
        }
}

std::string input_name(const std::vector<uint8_t> &canonical) {
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (uint8_t c : canonical)
        h = (h ^ c) * 1099511628211ull;
    char buf[32];
    std::snprintf(buf, sizeof buf, "fuzz-%016llx", (unsigned long long)h);
    return buf;
}

Scenario decode_scenario(const uint8_t *data, size_t size, const DecodeOptions &opt) {
    const Bytes in{data, size};
    Scenario sc;
    sc.backend = "systemc";
    sc.time_limit_ns = kTimeLimitNs;
    const uint8_t h0 = in.u8(kHeader), h1 = in.u8(kHeader + 1);
    ControllerSpec &c = sc.controller;
    // Header bit 0 picks a row of the format's controllers; what the row allows (slots, NCQ,
    // FBS, the fastest generation, the PCI-X erratum's keys) comes from the row.
    const ControllerDesc &d = controller_desc(kFuzzControllers[h0 & 1]);
    const bool erratum = d.takes_key("pcix_irq_loss"); // the SiI3124's PCI-X erratum and its workaround
    c.type = d.name;
    c.ports = 1 + (h0 >> 1 & 3);
    c.slots = d.slots ? d.slots : 32;
    c.ncq = d.ncq == NcqSupport::Always || (d.ncq == NcqSupport::Optional && !(h0 & 8));
    c.fbs = d.takes_key("fbs") && (h0 & 0x10);
    sc.host.no_ncq = h0 & 0x20;
    sc.link_mode = opt.force_fis || (h0 & 0x40) ? LinkModeSpec::Fis : LinkModeSpec::Dword;
    sc.trace_fis = h0 & 0x80;
    if (unsigned g = h1 & 3) {
        c.gen = std::min(g, d.max_gen);
        c.gen_set = true;
    } else {
        c.gen = d.max_gen;
    }
    sc.host.spd_limit = h1 >> 2 & 3;
    c.pcix_irq_loss = erratum && (h1 & 0x10);
    // The PCI-X erratum without the driver's workaround loses completions by design (the
    // suite's erratum scenarios show it): not a configuration whose failures are findings.
    sc.host.irq_loss_fix = !(erratum && (h1 & 0x20)) || c.pcix_irq_loss;
    // the other EH profile: its verdicts and reset choices are judged too (eh_policy_rules.h)
    if (h1 & 0x40)
        sc.host.eh_policy = kEhPolicy2006;
    sc.seed = in.u16(kHeader + 2);
    auto marked = [&](uint8_t v) { return in.u8(kVersion) == v && in.u8(kVersionCheck) == uint8_t(~v); };
    const unsigned version = marked(kFormatV5)   ? 5
                             : marked(kFormatV4) ? 4
                             : marked(kFormatV3) ? 3
                             : marked(kFormatV2) ? 2
                                                 : 1;
    const bool v3 = version >= 3, v4 = version >= 4;
    if (v3) {
        sc.host.fua = h1 & 0x80;
        sc.host.ignore_hpa = in.u8(kExt + kWorkloadSlots) & 1;
    }
    if (v4) { // the host extension byte's bits 1-3: the policy; bit 4: the controller's LPM,
              // bit 5 its DevSleep (with LPM)
        const uint8_t hx = in.u8(kExt + kWorkloadSlots);
        sc.host.lpm_policy = kLpmPolicies[(hx >> 1 & 7) % 6];
        c.lpm = d.takes_key("lpm") && (hx & 0x10);
        c.devsleep = c.lpm && d.takes_key("devsleep") && (hx & 0x20);
    }

    size_t disk_off = v3 ? kDisksV3 : kDisks;
    auto next_disk = [&](unsigned port, std::optional<unsigned> pmp_port) {
        DeviceSpec d;
        d.port = port;
        d.pmp_port = pmp_port;
        std::string n = pmp_port ? std::to_string(port * 100 + *pmp_port) : std::to_string(port);
        d.serial = "SIM" + std::string(7 - n.size(), '0') + n;
        decode_disk(in, disk_off, d, opt.force_fis);
        if (v3)
            decode_disk_v3(in, disk_off, d);
        if (v4)
            decode_disk_v4(in, disk_off, d, version);
        disk_off += v3 ? kDiskSizeV3 : kDiskSize;
        sc.devices.push_back(d);
    };
    for (unsigned p = 0; p < c.ports; ++p) {
        const size_t off = kPorts + p * kPortSize;
        const unsigned kind = in.u8(off) % (v3 ? 4 : 3);
        if (kind == 3) {
            // version 3: an ATAPI drive (the port slot's byte 1: bit 0 no DMA, bit 1 DMADIR, bit
            // 2 no disc, bits 3-4 the CDB DRQ type); it takes no disk record
            DeviceSpec d;
            d.port = p;
            d.serial = "SIM" + std::string(p < 10 ? "000000" : "00000") + std::to_string(p);
            d.model = "SATASIM DVD-ROM";
            d.firmware = "1.00";
            AtapiSpec a;
            const uint8_t f = in.u8(off + 1);
            a.dma = !(f & 1);
            a.dmadir = f & 2;
            a.medium = !(f & 4);
            a.cdb_drq = (f >> 3 & 3) % 3;
            d.atapi = a;
            sc.devices.push_back(d);
        } else if (kind == 1) {
            next_disk(p, std::nullopt);
        } else if (kind == 2) {
            PmpSpec pm;
            pm.port = p;
            pm.ports = 1 + in.u8(off + 1) % 15;
            const uint8_t f = in.u8(off + 2);
            pm.fbs = f & 1;
            pm.product = f & 2 ? "sii4726" : "sii3726";
            pm.async_notify = !(f & 4);
            sc.pmps.push_back(pm);
            const uint16_t mask = in.u16(off + 3);
            for (unsigned fp = 0; fp < pm.ports; ++fp)
                if (mask >> fp & 1)
                    next_disk(p, fp);
        }
    }

    const unsigned n_work = in.u8(kHeader + 4) % (kWorkloadSlots + 1);
    for (unsigned i = 0; i < n_work; ++i)
        decode_workload(in, kWorkloads + i * kWorkloadSize, sc, version, v3 ? in.u8(kExt + i) : 0, sc.workload);
    const unsigned n_faults = in.u8(kHeader + 5) % (kFaultSlots + 1);
    for (unsigned i = 0; i < n_faults; ++i) {
        fault::Fault x;
        if (decode_fault(in, kFaults + i * kFaultSize, sc, sc.faults.size(), version, x))
            sc.faults.push_back(x);
    }
    // The implicit topology check stays (every configured disk found, nothing elsewhere);
    // I/O errors are what faults cause, not a finding (the oracles are fuzz/oracles.h).
    sc.expect.io_errors_min = 0;
    std::vector<std::string> unused;
    sc.name = input_name(encode_scenario(sc, &unused));
    sc.description = "decoded fuzz input (docs/fuzzing.md)";
    return sc;
}

std::vector<uint8_t> encode_scenario(const Scenario &sc, std::vector<std::string> *lost) {
    Out o;
    const ControllerSpec &c = sc.controller;
    // The row of the format's controllers (a type outside them is written as the first).
    const unsigned row = controller_desc(c.type).id == kFuzzControllers[1] ? 1 : 0;
    const ControllerDesc &d = controller_desc(kFuzzControllers[row]);
    const bool erratum = d.takes_key("pcix_irq_loss");
    if (sc.backend != "systemc" && !sc.backend.empty())
        lost->push_back("backend: systemc only");
    if (!sc.host.stack || !sc.steps.empty())
        lost->push_back("steps: directed steps are not expressed (the stack always runs)");
    unsigned ports = std::clamp(c.ports, 1u, kMaxPorts);
    if (ports != c.ports)
        lost->push_back("controller.ports: 1..4");
    o.u8(kHeader, row | (ports - 1) << 1 | (d.ncq == NcqSupport::Optional && !c.ncq ? 8 : 0) | (c.fbs ? 0x10 : 0) |
                      (sc.host.no_ncq ? 0x20 : 0) | (sc.link_mode == LinkModeSpec::Fis ? 0x40 : 0) |
                      (sc.trace_fis ? 0x80 : 0));
    o.u8(kHeader + 1, (c.gen_set ? c.gen : 0) | (sc.host.spd_limit & 3) << 2 | (c.pcix_irq_loss ? 0x10 : 0) |
                          (erratum && !sc.host.irq_loss_fix && !c.pcix_irq_loss ? 0x20 : 0) |
                          (sc.host.eh_policy == kEhPolicy2006 ? 0x40 : 0));
    if (erratum && c.pcix_irq_loss && !sc.host.irq_loss_fix)
        lost->push_back("host.irq_loss_fix: false with pcix_irq_loss (the erratum without its workaround)");
    o.u16(kHeader + 2, unsigned(sc.seed & 0xffff));
    if (sc.seed > 0xffff)
        lost->push_back("seed: 0..65535");
    if (c.pcix_ack_window_ns != ControllerSpec{}.pcix_ack_window_ns)
        lost->push_back("controller.pcix_ack_window: the default only");
    if ((!sc.host.eh_policy.empty() && sc.host.eh_policy != kEhPolicy2006) || sc.host.port_mask)
        lost->push_back("host.eh_policy/port_mask: the default and libata-2006 profiles, the default mask only");
    if (sc.waveform.on)
        lost->push_back("waveform: not expressed");
    const bool v5 = needs_v5(sc), v4 = v5 || needs_v4(sc), v3 = v4 || needs_v3(sc), v2 = v3 || needs_v2(sc);
    const unsigned version = v5 ? 5 : v4 ? 4 : v3 ? 3 : v2 ? 2 : 1;
    if (v3) {
        const uint8_t mark = v5 ? kFormatV5 : v4 ? kFormatV4 : kFormatV3;
        o.u8(kVersion, mark), o.u8(kVersionCheck, uint8_t(~mark));
        o.b.resize(kDisksV3, 0);
        o.or8(kHeader + 1, sc.host.fua ? 0x80 : 0);
        o.u8(kExt + kWorkloadSlots, sc.host.ignore_hpa ? 1 : 0);
    } else if (v2) {
        o.u8(kVersion, kFormatV2), o.u8(kVersionCheck, uint8_t(~kFormatV2));
    }
    if (v4) {
        const size_t policy = index_of(kLpmPolicies, sc.host.lpm_policy);
        o.or8(kExt + kWorkloadSlots, unsigned(policy) << 1 | (c.lpm && d.takes_key("lpm") ? 0x10 : 0) |
                                         (c.devsleep && d.takes_key("devsleep") ? 0x20 : 0));
    }

    // Topology: a port slot per port, a disk record per place.
    Scenario kept; // the part of sc the bytes carry, for the indexes of workloads and faults
    kept.controller = c;
    kept.controller.ports = ports;
    kept.host = sc.host;
    size_t disk_off = v3 ? kDisksV3 : kDisks;
    const size_t disk_size = v3 ? kDiskSizeV3 : kDiskSize;
    auto put_disk = [&](const DeviceSpec &d, const std::string &path) {
        encode_disk(o, disk_off, d, lost, path, version);
        if (v3)
            encode_disk_v3(o, disk_off, d, lost, path);
        if (v4)
            encode_disk_v4(o, disk_off, d);
        disk_off += disk_size;
    };
    for (unsigned p = 0; p < ports; ++p) {
        const size_t off = kPorts + p * kPortSize;
        if (const DeviceSpec *d = sc.device_on_port(p); d && d->atapi) {
            const AtapiSpec &a = *d->atapi, def;
            o.u8(off, 3);
            o.u8(off + 1, (a.dma ? 0 : 1) | (a.dmadir ? 2 : 0) | (a.medium ? 0 : 4) | (a.cdb_drq % 3) << 3);
            if (a.disc_blocks != def.disc_blocks || a.disc_seed != def.disc_seed || a.udma != def.udma)
                lost->push_back("devices[port " + std::to_string(p) + "].atapi: the default disc and UDMA mode only");
            kept.devices.push_back(*d);
        } else if (const PmpSpec *pm = sc.pmp_on_port(p)) {
            o.u8(off, 2);
            o.u8(off + 1, pm->ports - 1);
            o.u8(off + 2, (pm->fbs ? 1 : 0) | (pm->product == "sii4726" ? 2 : 0) | (pm->async_notify ? 0 : 4));
            unsigned mask = 0;
            for (unsigned f = 0; f < pm->ports; ++f)
                if (const DeviceSpec *d = sc.device_at({p, f})) {
                    mask |= 1u << f;
                    put_disk(*d, "devices[port " + std::to_string(p) + " pmp_port " + std::to_string(f) + "]");
                    kept.devices.push_back(*d);
                }
            o.u16(off + 3, mask);
            kept.pmps.push_back(*pm);
        } else if (const DeviceSpec *d = sc.device_on_port(p)) {
            o.u8(off, 1);
            put_disk(*d, "devices[port " + std::to_string(p) + "]");
            kept.devices.push_back(*d);
        }
    }
    for (const DeviceSpec &d : sc.devices)
        if (d.port >= ports)
            lost->push_back("devices[port " + std::to_string(d.port) + "]: ports 0..3 only");

    unsigned nw = 0;
    for (size_t i = 0; i < sc.workload.size(); ++i) {
        const WorkloadSpec &w = sc.workload[i];
        const std::string path = "workload[" + std::to_string(i) + "]";
        if (nw == kWorkloadSlots || w.device >= ports || !kept.device_at({w.device, w.pmp_port})) {
            lost->push_back(path + ": beyond the format's " + std::to_string(kWorkloadSlots) + " workloads or ports");
            continue;
        }
        const bool table = w.kind == WorkloadKind::Scsi || w.kind == WorkloadKind::Packet;
        if (w.kind != WorkloadKind::Io && !table) {
            lost->push_back(path + ": kind " + (w.kind == WorkloadKind::Request ? "request" : "tray, delete, scan or rescan") +
                            " (the format has io, scsi and packet workloads)");
            continue;
        }
        // an ATAPI drive takes PACKET commands only, a disk io and SCSI commands only
        const DeviceSpec *target = kept.device_at({w.device, w.pmp_port});
        if (target->atapi && w.kind != WorkloadKind::Scsi) {
            lost->push_back(path + ": kind io on an ATAPI drive");
            continue;
        }
        encode_workload(o, kWorkloads + nw * kWorkloadSize, kExt + nw, kept, w, v2, v3, lost, path);
        ++nw;
    }
    o.u8(kHeader + 4, nw);
    unsigned nf = 0;
    for (size_t i = 0; i < sc.faults.size(); ++i) {
        const fault::Fault &x = sc.faults[i];
        const std::string path = "faults[" + std::to_string(i) + "]";
        const bool on_pmp = fault::kind_spec(x.kind)->binds == fault::Binds::PmpControl;
        const DeviceSpec *target = on_pmp ? nullptr : kept.device_at({x.port, x.pmp_port});
        if (target && target->atapi && !v5) { // (needs_v5 says no: a kind the format does not hold)
            lost->push_back(path + ": a fault on an ATAPI drive (" + fault::kind_spec(x.kind)->name +
                            " is not in the format)");
            continue;
        }
        if (nf == kFaultSlots || x.port >= ports || (on_pmp ? !kept.pmp_on_port(x.port) : !target)) {
            lost->push_back(path + ": beyond the format's " + std::to_string(kFaultSlots) + " faults or ports");
            continue;
        }
        encode_fault(o, kFaults + nf * kFaultSize, kept, nf, x, version, lost, path);
        ++nf;
    }
    o.u8(kHeader + 5, nf);
    const ExpectSpec &e = sc.expect;
    if (!e.devices.empty() || !e.empty_ports.empty() || !e.log_contains.empty() || !e.log_not_contains.empty() ||
        !e.devices_after.empty() || !e.absent_after.empty() || e.io_errors || e.io_errors_max || !e.all_devices_found)
        lost->push_back("expect: the decoded scenario's expectations are the implicit ones (fuzz oracles judge)");
    return o.b;
}

} // namespace satasim::harness::fuzz
