// The fuzz input format: a byte string <-> a Scenario (docs/fuzzing.md, "Input format").
//
// decode_scenario() never rejects: every byte string, of any length, maps to a scenario
// the scenario reader accepts (a missing byte reads as 0, every field is taken modulo its
// range, a choice that does not fit the topology is adjusted to one that does). The layout
// is fixed-size records at fixed offsets (header, 4 port slots, 4 workload slots, 6 fault
// slots) followed by the disk records in place order, so a mutation of one field does not
// shift the meaning of the others.
//
// encode_scenario() is the way back for the seeds: a scenario file -> the bytes whose
// decoding is the nearest scenario the format expresses; what it cannot express is listed.
// decode(encode(decode(b))) == decode(b) for every b (test_fuzz_input.py).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace satasim::harness::fuzz {

struct DecodeOptions {
    // Every link at FIS level (link.mode fis; the disks' own link keys dropped): the fast
    // campaign mode. Off: the input's link bits choose.
    bool force_fis = false;
};

// Bounds of the format (what a decoded scenario stays within; docs/fuzzing.md).
constexpr unsigned kMaxPorts = 4;
constexpr unsigned kWorkloadSlots = 4;
constexpr unsigned kFaultSlots = 6;
constexpr unsigned kMaxBlock = 256;    // sectors per request
// A workload's buffers in 4 KiB scatter/gather segments (a block layer's pages): more than
// one PRD / SGE entry per command from 9 sectors on, as on a real host.
constexpr uint64_t kPageSegment = 4096;
constexpr unsigned kMaxCount = 32;     // requests per workload (version 1: short schedules)
constexpr unsigned kMaxEveryCmds = 64; // a fault's every_cmds (version 1)
// Version 2 (header bytes 6-7 read kFormatV2 and its complement; any other value is version
// 1, the format as it was, so an input saved before version 2 decodes as it did): long
// schedules, for faults that count commands beyond a short one (a hang or CRC error every
// few hundred NCQ commands, as libata's verdicts need).
constexpr uint8_t kFormatV2 = 2;
constexpr unsigned kMaxCountV2 = 4096;    // requests per workload
constexpr unsigned kMaxEveryCmdsV2 = 1024; // a fault's every_cmds
// Version 3 (header bytes 6-7 read kFormatV3 and its complement): the kinds the format lacked.
// Its long schedules are version 2's; it adds an extension record after the fault slots and
// longer disk records (layout below): the fault kinds host_bus_error (AHCI), cominit,
// power_loss and bad_fis and the noise of unplug / phy_flap (the rows' fuzz fields with
// `since` 3), workloads that trim, write with FUA or send a SCSI command (a table of CDBs),
// ATAPI drives on host ports with PACKET commands (a table), the disks' trim / ncq_trim (and
// its erratum) / hpa / smart / physical_sector / align_offset keys, host fua and ignore_hpa.
constexpr uint8_t kFormatV3 = 3;
// Version 4 (marker kFormatV4 and its complement): version 3's layout with the link power
// management keys in bits version 3 leaves unread: the host extension byte's bits 1-3
// (host.lpm_policy), 4 (controller.lpm, where the row takes it) and 5 (controller.devsleep,
// with lpm), a disk record's byte 7 (hipm, dipm, devsleep) and the fault kind lpm_fail
// (kinds modulo 16). A version-3 input with those
// bits set decodes as version 3 did (the marker says which).
constexpr uint8_t kFormatV4 = 4;
// Version 5 (marker kFormatV5 and its complement): version 4's layout; a fault's target byte
// indexes the disks and the ATAPI drives together in place order (version 4 and before: the
// disks only), and the fault kinds take check_condition, its sense key, ASC, ASCQ and ABRT in
// the kind's bytes, then hba_error (error, irq) and line_noise (its noise, never empty): kinds
// modulo 19. A kind the addressed device does not take (a disk's
// kind on an ATAPI drive, check_condition on a disk) is dropped, as a pmp_hang without a PMP.
// A disk record's byte 7 bit 3: a 4Kn drive (logical_sector 4096). A cominit fault on a drive
// that is there takes any trigger (before version 5: a time trigger whatever its byte says).
constexpr uint8_t kFormatV5 = 5;
constexpr uint64_t kMaxAtUs = 2000000; // fault times: up to 2 s of simulated time
// time_limit: 24 h. The slowest legitimate schedule is a slow fault past the 30 s command
// timeout on every command: 4 x 32 requests, each 6 tries of 30 s plus resets, about 7 h
// (an AFL++ campaign's "hang" at the old 1 h limit was that, not a bug). Idle simulated
// time is cheap; a livelock is the step watchdog's.
constexpr uint64_t kTimeLimitNs = 24ull * 3600 * 1000 * 1000 * 1000;

// The byte layout (docs/fuzzing.md has the fields of each record).
namespace layout {
constexpr size_t kHeader = 0, kWorkloadCount = 4, kFaultCount = 5; // header: 8 bytes
constexpr size_t kVersion = 6, kVersionCheck = 7;                   // kFormatV2, ~kFormatV2
constexpr size_t kPorts = 8, kPortSize = 5;                         // 4 port slots
constexpr size_t kWorkloads = 28, kWorkloadSize = 16;               // 4 workload slots
constexpr size_t kFaults = 92, kFaultSize = 21;                     // 6 fault slots
constexpr size_t kDisks = 218, kDiskSize = 4;                       // disk records, in place order
// version 3: an extension record where version 1's disk records start, then longer ones
constexpr size_t kExt = 218, kExtSize = 16;       // per workload slot a byte, then the host's
constexpr size_t kDisksV3 = 234, kDiskSizeV3 = 8; // the version-1 record, then 4 bytes more
} // namespace layout

Scenario decode_scenario(const uint8_t *data, size_t size, const DecodeOptions &opt = {});

// lost: what of `sc` the bytes do not carry (key paths with a short reason), one entry each.
// Version 2 only when `sc` needs it (a workload longer than kMaxCount, an every_cmds above
// kMaxEveryCmds): every scenario version 1 expresses encodes as before.
std::vector<uint8_t> encode_scenario(const Scenario &sc, std::vector<std::string> *lost);

// A suite scenario made a seed: its workloads cut to kMaxCount requests (short schedules,
// fast executions), unless a fault counts commands beyond what version 1 expresses (an
// every_cmds above kMaxEveryCmds: the fault would fire no more within a short schedule),
// then the schedule is kept and the seed is version 2. What is cut goes to `lost`.
void short_schedules(Scenario &sc, std::vector<std::string> *lost);

// The name a decoded scenario gets: "fuzz-" and 16 hex digits of a hash of its canonical
// bytes (same scenario, same name, same trace).
std::string input_name(const std::vector<uint8_t> &canonical);

} // namespace satasim::harness::fuzz
