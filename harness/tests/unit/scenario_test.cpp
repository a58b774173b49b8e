// Unit tests of the scenario reader (harness/src/scenario/), without SystemC: the toolkit's
// message forms, the sections, the backends' key refusals, the fault kinds' table and the
// directed steps on the same toolkit. A tiny runner: each TEST registers itself; the
// program prints every failure and "N passed, N failed" and exits non-zero on a failure.
// argv[1]: the repository's scenarios/ folder (every scenario there must parse).
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "backend/qemu/qemu_rules.h"
#include "backend/rtl/dut_profile.h"
#include "backend/rtl/rtl_rules.h"
#include "backend/systemc/systemc_rules.h"
#include "controller/controller_table.h"
#include "model/fault/fault_kind_spec.h"
#include "scenario/scenario_parser.h"
#include "scenario/sections.h"

using namespace satasim::harness;

namespace {

struct TestCase {
    const char *name;
    std::function<void()> fn;
};
std::vector<TestCase> &tests() {
    static std::vector<TestCase> t;
    return t;
}
struct Register {
    Register(const char *n, std::function<void()> f) { tests().push_back({n, std::move(f)}); }
};
int g_failures_in_test = 0;
std::string g_scenarios_dir;

#define TEST(name)                                                                                                    \
    void name();                                                                                                      \
    Register reg_##name(#name, name);                                                                                 \
    void name()
#define CHECK(cond)                                                                                                   \
    do {                                                                                                              \
        if (!(cond)) {                                                                                                \
            std::printf("  %s:%d: CHECK(%s) failed\n", __FILE__, __LINE__, #cond);                                   \
            ++g_failures_in_test;                                                                                     \
        }                                                                                                             \
    } while (0)

// The backends as the program's registry (backend/registry.cpp) lists them.
const BackendRules kSystemc{"systemc", "SystemC", systemc::refuses_key, systemc::refusals, systemc::hardware_ports,
                            systemc::skips_step};
const BackendRules kQemu{"qemu", "QEMU", qemu::refuses_key, qemu::refusals, qemu::hardware_ports, qemu::skips_step};
const BackendList kBackends = {&kSystemc, &kQemu};

Scenario parse(const std::string &text) { return parse_scenario_text(text, "t.yaml", kBackends); }

// The whole message of the ScenarioError the text raises ("" if it parses).
std::string error_of(const std::string &text) {
    try {
        parse(text);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "";
}

#define CHECK_ERROR(text, expected)                                                                                   \
    do {                                                                                                              \
        std::string got_ = error_of(text);                                                                            \
        if (got_ != (expected)) {                                                                                     \
            std::printf("  %s:%d: expected the error\n    %s\n  got\n    %s\n", __FILE__, __LINE__,                   \
                        std::string(expected).c_str(), got_.empty() ? "(no error)" : got_.c_str());                  \
            ++g_failures_in_test;                                                                                     \
        }                                                                                                             \
    } while (0)

const char kDisk[] = "controller: {type: ahci, ports: 2}\ndevices:\n  - {port: 0, capacity: 1g}\n";

// ---- the toolkit: message forms

TEST(defaults_and_units) {
    Scenario sc = parse("controller: {ports: 2}\ndevices:\n  - {port: 1, capacity: 1g}\ntime_limit: 1.5s\n");
    CHECK(sc.name == "t");
    CHECK(sc.backend == "systemc");
    CHECK(sc.controller.type == "ahci" && sc.controller.ports == 2 && sc.controller.slots == 32);
    CHECK(sc.devices.size() == 1 && sc.devices[0].capacity == 2097152);
    CHECK(sc.devices[0].serial == "SIM0000001");
    CHECK(sc.devices[0].status_dsc); // a good completion reads 0x50 unless the drive says otherwise
    CHECK(sc.time_limit_ns == 1500000000ull);
    CHECK(!parse("devices:\n  - {port: 0, status_dsc: false}\n").devices[0].status_dsc);
}

// FUA: host.fua (libata.fua) and a workload's `fua`, writes only.
TEST(fua_keys) {
    Scenario sc = parse(std::string(kDisk) + "host: {fua: true}\nworkload:\n"
                                             "  - {device: 0, op: write, fua: true, count: 4, block: 8}\n"
                                             "  - {kind: request, device: 0, op: write, lba: 0, sectors: 8, fua: true}\n"
                                             "  - {device: 0, op: write, count: 4, block: 8}\n");
    CHECK(sc.host.fua && sc.workload[0].fua && sc.workload[1].fua && !sc.workload[2].fua);
    CHECK(!parse(kDisk).host.fua); // off by default, as the kernel's
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {device: 0, op: read, fua: true, count: 4, block: 8}\n",
                "t.yaml:5: workload[0].fua: only for op: write or mix (a FUA write is durable when it completes)");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: request, device: 0, op: flush, fua: true}\n",
                "t.yaml:5: workload[0].fua: only for op: write (a FUA write is durable when it completes)");
}

// HPA: a device's `hpa` (sectors accessible at power-on, within its capacity) and
// host.ignore_hpa (libata.ignore_hpa); what the stack configures follows both.
TEST(hpa_keys) {
    Scenario sc = parse("host: {ignore_hpa: true}\ndevices:\n  - {port: 0, capacity: 1g, hpa: 2000000}\n");
    CHECK(sc.host.ignore_hpa && sc.devices[0].hpa == 2000000u);
    CHECK(sc.devices[0].configured_sectors(true) == 2097152u);
    CHECK(sc.devices[0].configured_sectors(false) == 2000000u);
    Scenario n = parse(kDisk);
    CHECK(!n.host.ignore_hpa && n.devices[0].hpa == 0 && n.devices[0].configured_sectors(false) == n.devices[0].capacity);
    CHECK_ERROR("devices:\n  - {port: 0, capacity: 1g, hpa: 2g}\n",
                "t.yaml:2: devices[0].hpa: hpa (the sectors accessible at power-on) must be 1 .. the capacity "
                "(2097152 sectors)");
}

// DevSleep: controller.devsleep (ahci, with lpm: CAP2.SDS/SADM) and devices[].devsleep.
TEST(devsleep_keys) {
    Scenario sc = parse("controller: {type: ahci, ports: 1, lpm: true, devsleep: true}\n"
                        "devices:\n  - {port: 0, capacity: 1g, devsleep: true}\n");
    CHECK(sc.controller.lpm && sc.controller.devsleep && sc.devices[0].devsleep);
    CHECK(!parse(kDisk).devices[0].devsleep && !parse(kDisk).controller.devsleep);
    CHECK_ERROR("controller: {type: ahci, devsleep: true}\n",
                "t.yaml:1: controller.devsleep: needs lpm: true (aggressive DevSleep starts from Slumber, CAP2.DESO)");
}

// kind: scsi: a CDB and its data as hex bytes, the expected status and sense; bad input
// names the file, line and key.
TEST(scsi_workload_keys) {
    Scenario sc = parse(std::string(kDisk) + "workload:\n"
                                             "  - {kind: scsi, device: 0, cdb: \"12 00 00 00 24 00\", data_in: 36,\n"
                                             "     expect_data: \"00 00 05\"}\n"
                                             "  - {kind: scsi, device: 0, cdb: \"150000001000\", data_out: \"00 00 00 00\",\n"
                                             "     expect_status: check_condition, expect_sense: \"70 00 05\"}\n");
    const WorkloadSpec &a = sc.workload[0], &b = sc.workload[1];
    CHECK(a.kind == WorkloadKind::Scsi && a.cdb.size() == 6 && a.cdb[0] == 0x12 && a.cdb[4] == 0x24);
    CHECK(a.data_in == 36 && a.expect_data.size() == 3 && a.expect_data[2] == 0x05 && !a.expect_status);
    CHECK(b.cdb.size() == 6 && b.cdb[0] == 0x15 && b.cdb[4] == 0x10 && b.data_out.size() == 4);
    CHECK(b.expect_status && *b.expect_status == 0x02 && b.expect_sense && b.expect_sense->size() == 3);
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0}\n",
                "t.yaml:5: workload[0].cdb: required: the CDB as hex bytes (6, 10, 12 or 16 of them)");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 00 00\"}\n",
                "t.yaml:5: workload[0].cdb: a CDB of 3 bytes: 6, 10, 12 or 16");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 0g 00 00 24 00\"}\n",
                "t.yaml:5: workload[0].cdb: 'g' is not a hex digit (expected bytes such as \"12 00 00 00 24 00\")");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 0 00 00 24 00\"}\n",
                "t.yaml:5: workload[0].cdb: an odd number of hex digits (11): every byte is two digits");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 00 00 00 24 00\", data_in: 4,\n"
                                     "     data_out: \"00\"}\n",
                "t.yaml:6: workload[0].data_out: a command moves data one way: data_in is set too");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 00 00 00 24 00\", data_in: 2,\n"
                                     "     expect_data: \"00 00 05\"}\n",
                "t.yaml:6: workload[0].expect_data: 3 bytes expected, but data_in is 2");
    // the keys of an I/O entry are not a SCSI command's
    CHECK(error_of(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"00 00 00 00 00 00\", op: read}\n")
              .find("t.yaml:5: workload[0].op") == 0);
    // the block layer's tag: which command slot keeps a pass-through command's result
    CHECK(!a.tag && *parse(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 00 00 00 24 00\", "
                                              "data_in: 36, tag: 13}\n").workload[0].tag == 13);
    CHECK(error_of(std::string(kDisk) + "workload:\n  - {kind: scsi, device: 0, cdb: \"12 00 00 00 24 00\", tag: 32}\n")
              .find("t.yaml:5: workload[0].tag") == 0);
}

// What a drive's NCQ error log holds in Count (docs/hardware.md 8.6): the failed command's
// sector count unless the scenario says otherwise.
TEST(ncq_log_count_key) {
    CHECK(parse(kDisk).devices[0].ncq_log_count == NcqLogCountSpec::Full);
    CHECK(parse("devices:\n  - {port: 0, ncq_log_count: low_byte}\n").devices[0].ncq_log_count == NcqLogCountSpec::LowByte);
    CHECK(parse("devices:\n  - {port: 0, ncq_log_count: none}\n").devices[0].ncq_log_count == NcqLogCountSpec::None);
    CHECK(error_of("devices:\n  - {port: 0, ncq_log_count: half}\n").find("t.yaml:2: devices[0].ncq_log_count") == 0);
}

// What a drive's Register FISes carry besides Status/Error (docs/hardware.md 8.7).
TEST(d2h_regs_key) {
    CHECK(parse(kDisk).devices[0].d2h_regs == D2hRegsSpec::Cleared);
    CHECK(parse("devices:\n  - {port: 0, d2h_regs: echo}\n").devices[0].d2h_regs == D2hRegsSpec::Echo);
    CHECK(parse("devices:\n  - {port: 0, d2h_regs: lba_bits}\n").devices[0].d2h_regs == D2hRegsSpec::LbaBits);
    CHECK(error_of("devices:\n  - {port: 0, d2h_regs: all}\n").find("t.yaml:2: devices[0].d2h_regs") == 0);
}

TEST(trim_keys) {
    const std::string disk = "devices:\n  - {port: 0, capacity: 1g, trim: zeroes}\n";
    Scenario sc = parse(disk + "workload:\n  - {device: 0, op: trim, block: 16, count: 4, region: {start: 64, length: 64}}\n");
    CHECK(sc.devices[0].trim == TrimSpec::Zeroes && sc.workload[0].op == OpSpec::Trim);
    CHECK(parse(kDisk).devices[0].trim == TrimSpec::None);
    CHECK(parse("devices:\n  - {port: 0, trim: indeterminate}\n").devices[0].trim == TrimSpec::Indeterminate);
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {device: 0, op: trim, block: 16, count: 4}\n",
                "t.yaml:5: workload[0].op: the disk on port 0 has no trim key (it does not take TRIM)");
    CHECK_ERROR(disk + "workload:\n  - {device: 0, op: trim, mode: ncq, block: 16, count: 4}\n",
                "t.yaml:4: workload[0].mode: the stack chooses how a trim goes out (SEND FPDMA QUEUED where the disk and host allow it, else DATA SET MANAGEMENT): leave mode auto");
}

// Queued TRIM, its erratum, SMART, Advanced Format (docs/device.md 3.2, 4, 5).
TEST(disk_feature_keys) {
    Scenario sc = parse("devices:\n  - {port: 0, trim: zeroes, ncq_trim: true, errata: [ncq_trim], smart: threshold_exceeded,\n"
                        "     physical_sector: 4096, align_offset: 1}\n");
    const DeviceSpec &d = sc.devices[0];
    CHECK(d.ncq_trim && d.ncq_trim_erratum && d.smart == SmartSpec::ThresholdExceeded);
    CHECK(d.physical_log2 == 3 && d.align_offset == 1);
    const DeviceSpec plain = parse(kDisk).devices[0];
    CHECK(!plain.ncq_trim && !plain.ncq_trim_erratum && plain.smart == SmartSpec::None && plain.physical_log2 == 0);
    CHECK_ERROR("devices:\n  - {port: 0, ncq_trim: true}\n",
                "t.yaml:2: devices[0].ncq_trim: queued TRIM needs a drive that takes TRIM (trim: zeroes, deterministic or indeterminate)");
    CHECK_ERROR("devices:\n  - {port: 0, trim: zeroes, errata: [ncq_trim]}\n",
                "t.yaml:2: devices[0].errata[0]: the ncq_trim erratum is a drive that offers queued TRIM (ncq_trim: true)");
    CHECK_ERROR("devices:\n  - {port: 0, physical_sector: 3000}\n",
                "t.yaml:2: devices[0].physical_sector: physical_sector is the physical sector size in bytes: 512, 1024, 2048, 4096, ... 65536");
    CHECK_ERROR("devices:\n  - {port: 0, physical_sector: 4096, align_offset: 8}\n",
                "t.yaml:2: devices[0].align_offset: align_offset (IDENTIFY word 209: where LBA 0 sits in the first physical sector, in logical sectors) must be below the logical sectors per physical sector (8)");
    CHECK_ERROR("devices:\n  - {port: 0, smart: bad}\n",
                "t.yaml:2: devices[0].smart: unknown value 'bad' (expected one of: none, good, threshold_exceeded)");
}

// 4Kn (docs/device.md 4.1): logical_sector 4096 makes the drive's sizes 4096-byte sectors
// (capacity, hpa, a workload's block and region: a bare number counts them, a size with a
// unit is bytes), physical_sector defaults to it and may not be smaller.
TEST(logical_sector_key) {
    Scenario sc = parse("devices:\n  - {port: 0, capacity: 1g, hpa: 1000, logical_sector: 4096}\n"
                        "workload:\n  - {device: 0, op: read, block: 64k, region: {start: 100, length: 1m}}\n");
    const DeviceSpec &d = sc.devices[0];
    CHECK(d.logical_log2 == 3 && d.physical_log2 == 3 && d.capacity == 262144 && d.hpa == 1000);
    CHECK(sc.workload[0].block_min == 16 && sc.workload[0].region_start == 100 && sc.workload[0].region_length == 256);
    CHECK(parse("devices:\n  - {port: 0, logical_sector: 4096}\n").devices[0].capacity == 1953525168ull / 8);
    CHECK(parse("devices:\n  - {port: 0, logical_sector: 4096, physical_sector: 32768, align_offset: 7}\n")
              .devices[0].physical_log2 == 6);
    CHECK(parse(kDisk).devices[0].logical_log2 == 0);
    CHECK_ERROR("devices:\n  - {port: 0, logical_sector: 1024}\n",
                "t.yaml:2: devices[0].logical_sector: logical_sector is the logical sector size in bytes: 512, or 4096 (4Kn)");
    CHECK_ERROR("devices:\n  - {port: 0, logical_sector: 4096, physical_sector: 512}\n",
                "t.yaml:2: devices[0].physical_sector: physical_sector (512) is smaller than the logical sector (4096)");
    CHECK_ERROR("devices:\n  - {port: 0, logical_sector: 4096, capacity: 1001s}\n",
                "t.yaml:2: devices[0].capacity: bad size '1001s': not a whole number of the drive's 4096-byte logical sectors");
    CHECK_ERROR("devices:\n  - {port: 0, logical_sector: 4096, physical_sector: 32768, align_offset: 8}\n",
                "t.yaml:2: devices[0].align_offset: align_offset (IDENTIFY word 209: where LBA 0 sits in the first physical sector, in logical sectors) must be below the logical sectors per physical sector (8)");
}

TEST(uint_out_of_range_and_not_a_number) {
    CHECK_ERROR("controller: {ports: 40}\n", "t.yaml:1: controller.ports: 40 is out of range (1..32)");
    CHECK_ERROR("controller: {ports: four}\n", "t.yaml:1: controller.ports: expected a non-negative integer, got 'four'");
    CHECK_ERROR("controller: {ports: [1]}\n", "t.yaml:1: controller.ports: expected an integer, got a list");
}

TEST(unknown_and_duplicate_keys) {
    CHECK_ERROR("controller: {bogus: 1}\n", "t.yaml:1: controller.bogus: unknown key (expected one of: type, ports, "
                                            "slots, ncq, gen, fbs, staggered_spinup, lpm, devsleep, "
                                            "pcix_irq_loss, pcix_ack_window, map, part, cable)");
    CHECK_ERROR("seed: 1\nseed: 2\n", "t.yaml:2: seed: duplicate key (first on line 1)");
    CHECK_ERROR("controller: 4\n", "t.yaml:1: controller: expected a mapping, got a scalar");
}

TEST(flags_any_case) {
    CHECK(parse("trace_fis: On\n").trace_fis);
    CHECK(!parse("trace_cmds: NO\n").trace_cmds);
    CHECK_ERROR("trace_fis: maybe\n", "t.yaml:1: trace_fis: expected true or false, got 'maybe'");
}

TEST(identify_strings_stay_as_written) {
    // yaml-cpp keeps the text: no YAML 1.1 octal (668) or float (1.1).
    Scenario sc = parse("devices:\n  - {port: 0, serial: 00001234, firmware: 1.10, model: 0777}\n");
    CHECK(sc.devices[0].serial == "00001234");
    CHECK(sc.devices[0].firmware == "1.10");
    CHECK(sc.devices[0].model == "0777");
    CHECK_ERROR("devices:\n  - {port: 0, firmware: 123456789}\n",
                "t.yaml:2: devices[0].firmware: '123456789' is longer than 8 characters");
}

TEST(yaml_syntax_error_names_the_line) {
    std::string e = error_of("name: a\ndevices: [\n");
    CHECK(e.rfind("t.yaml:", 0) == 0 && e.find("YAML syntax error") != std::string::npos);
    CHECK_ERROR("", "t.yaml:1: empty scenario file");
}

TEST(quantities) {
    CHECK_ERROR("time_limit: 30\n", "t.yaml:1: time_limit: bad time '30': a time needs a unit (ns, us, ms, s, min)");
    Scenario sc = parse(std::string(kDisk) + "workload:\n  - {device: 0, op: read, count: 4, block: 64k}\n");
    CHECK(sc.workload.size() == 1 && sc.workload[0].block_min == 128 && sc.workload[0].count == 4);
}

// ---- the sections

TEST(devices_against_the_topology) {
    CHECK_ERROR("controller: {ports: 2}\ndevices:\n  - {port: 5}\n",
                "t.yaml:3: devices[0].port: port 5 does not exist on a 2-port ahci controller");
    CHECK_ERROR("devices:\n  - {port: 1}\n  - {port: 1}\n", "t.yaml:3: devices[1].port: port 1 already has a disk (line 2)");
    CHECK_ERROR(std::string(kDisk) + "workload:\n  - {device: 1, op: read, count: 1}\n",
                "t.yaml:5: workload[0].device: no disk on port 1 (disks are on ports 0)");
}

// ICH6 master/slave emulation: a slave is addressed by devno beside its channel's port, named
// as libata names it, and refused where no slave position exists.
TEST(piix_slave_addresses) {
    Scenario sc = parse("controller: {type: piix, map: ich6}\ndevices:\n  - {port: 1}\n  - {port: 1, devno: 1}\n"
                        "workload:\n  - {device: 1, devno: 1, op: read, count: 1}\n"
                        "faults:\n  - {kind: lost_irq, port: 1, devno: 1, after_cmds: 1}\n");
    CHECK(sc.controller.map == "ich6" && sc.controller.slave_positions());
    CHECK(sc.devices.size() == 2 && sc.devices[1].devno == 1 && sc.devices[0].devno == 0);
    CHECK(sc.devices[1].serial == "SIM0000001S");
    CHECK(sc.devices[1].addr().ata_name() == "ata2.01" && sc.devices[1].addr().trace_name("disk") == "disk1.1");
    CHECK(sc.devices[0].addr().trace_name("disk") == "disk1" && sc.devices[1].addr().str() == "port 1 devno 1");
    CHECK(sc.workload[0].addr() == sc.devices[1].addr());
    CHECK(sc.faults[0].devno == 1 && sc.faults[0].port == 1);
    CHECK(sc.disk_places(0).size() == 2);
    CHECK_ERROR("controller: {type: piix}\ndevices:\n  - {port: 0, devno: 1}\n",
                "t.yaml:3: devices[0].devno: a piix port has no device 1 (slave): devno 1 needs controller: "
                "{type: piix, map: ich6} or {type: piix, part: piix4}");
    CHECK_ERROR("controller: {type: sil3112, map: ich6}\n",
                "t.yaml:1: controller.map: only for type: piix (the ICH's port mapping register, which a sil3112 "
                "controller does not have)");
    // the PIIX3/PIIX4 IDE function: parallel ATA cables, master and slave on each
    {
        Scenario pata = parse("controller: {type: piix, part: piix3, cable: 80}\n"
                              "devices:\n  - {port: 0}\n  - {port: 0, devno: 1}\n");
        CHECK(pata.controller_of(0).parallel_ata() && pata.controller_of(0).slave_positions());
        CHECK(pata.controller_of(0).part == "piix3" && pata.controller_of(0).cable == 80);
        CHECK(pata.devices[1].devno == 1);
    }
    CHECK_ERROR("controller: {type: sil3112, part: piix4}\n",
                "t.yaml:1: controller.part: only for type: piix (which Intel part ata_piix drives)");
    CHECK_ERROR("controller: {type: piix, map: ich6, part: piix4}\n",
                "t.yaml:1: controller.part: a piix4 has parallel ATA channels and no port map (map: is the ICH's SATA "
                "function's)");
    CHECK_ERROR("controller: {type: piix, cable: 80}\n",
                "t.yaml:1: controller.cable: cable: is a parallel ATA cable's: only with part: piix3 or piix4");
    CHECK_ERROR("controller: {type: piix, part: piix4, cable: 60}\n",
                "t.yaml:1: controller.cable: a parallel ATA cable has 40 or 80 conductors (got 60)");
}

TEST(sil24_controller_limits) {
    Scenario sc = parse("controller: {type: sil24}\n");
    CHECK(sc.controller.ports == 4 && sc.controller.slots == 31 && sc.controller.gen == 2);
    CHECK_ERROR("controller: {type: sil24, fbs: true}\n",
                "t.yaml:1: controller.fbs: only for type: ahci (the sil24 switches per FIS natively)");
}

// The descriptor table (controller/controller_table.h): its rows in ControllerId order (the
// backends' binding tables index by it), names unique, every row's defaults within its limits.
TEST(controller_table_rows) {
    CHECK(controller_descs().size() == kControllerCount);
    for (size_t i = 0; i < controller_descs().size(); ++i) {
        const ControllerDesc &d = controller_descs()[i];
        CHECK(size_t(d.id) == i);
        CHECK(&controller_desc(d.name) == &d);
        CHECK(d.default_ports >= 1 && d.default_ports <= d.max_ports && d.max_gen >= 1 && d.max_gen <= 3);
        CHECK(d.runs_on("systemc"));
    }
}

// A typed fault parameter (fault_kind_spec.h: ParamSpec), read from its row alone:
// bmdma_error's dir.
TEST(fault_typed_parameter) {
    const std::string d = "controller: {type: sil3112}\ndevices:\n  - {port: 0}\nfaults:\n";
    Scenario sc = parse(d + "  - {kind: bmdma_error, port: 0, after_cmds: 1, dir: d2h}\n");
    CHECK(satasim::fault::param(sc.faults[0], "dir") == 2);
    CHECK(satasim::fault::param(parse(d + "  - {kind: bmdma_error, port: 0, after_cmds: 1}\n").faults[0], "dir") == 0);
    CHECK_ERROR(d + "  - {kind: bmdma_error, port: 0, after_cmds: 1, dir: sideways}\n",
                "t.yaml:5: faults[0].dir: unknown value 'sideways' (expected one of: any, h2d, d2h)");
    CHECK_ERROR(d + "  - {kind: drq_stuck, port: 0, after_cmds: 1, dir: h2d}\n",
                "t.yaml:5: faults[0].dir: not a key of kind: drq_stuck (it has no keys of its own)");
    // bsy_stuck's until (added as one row entry plus the channel's code)
    CHECK(satasim::fault::param(parse(d + "  - {kind: bsy_stuck, port: 0, after_cmds: 1, until: comreset}\n").faults[0],
                                "until") == 1);
    CHECK(satasim::fault::param(parse(d + "  - {kind: bsy_stuck, port: 0, after_cmds: 1}\n").faults[0], "until") == 0);
    CHECK_ERROR(d + "  - {kind: bsy_stuck, port: 0, after_cmds: 1, until: power_cycle}\n",
                "t.yaml:5: faults[0].until: unknown value 'power_cycle' (expected one of: srst, comreset)");
}

// The older parameters on their rows: each lands in the field of fault_plan.h its model code
// reads (the row's get/set), with the row's range, default and messages.
TEST(fault_bound_parameters) {
    const std::string d = std::string(kDisk) + "faults:\n";
    satasim::fault::Fault c = parse(d + "  - {kind: crc, port: 0, at: 1ms, dir: h2d, fis: reg_d2h, dword: 0, "
                                        "mask: 0x80000000, burst: 3, symbol: code}\n").faults[0];
    CHECK(c.crc.from_host && c.crc.fis == satasim::sata::FisType::RegD2H && c.crc.dword == 0 &&
          c.crc.xor_mask == 0x80000000u && c.crc.burst == 3 && c.crc.symbol == satasim::link::SymbolError::Code);
    CHECK(satasim::fault::param(c, "fis") == 3 && satasim::fault::param(c, "dir") == 1);
    // fis not given (the model corrupts Data FISes) is not fis: data
    satasim::fault::Fault u = parse(d + "  - {kind: crc, port: 0, at: 1ms}\n").faults[0];
    satasim::fault::Fault e = parse(d + "  - {kind: crc, port: 0, at: 1ms, fis: data}\n").faults[0];
    CHECK(!u.crc.fis && satasim::fault::param(u, "fis") == 0 && u.crc.dword == 1 && u.crc.xor_mask == 1);
    CHECK(e.crc.fis == satasim::sata::FisType::Data && satasim::fault::param(e, "fis") == 1);
    CHECK(parse(d + "  - {kind: phy_flap, port: 0, at: 1ms, down: 3ms}\n").faults[0].flap.down_ns == 3000000);
    CHECK(parse(d + "  - {kind: identify_fail, port: 0, at: 1ms, count: 2}\n").faults[0].identify_failures == 2);
    CHECK(parse(d + "  - {kind: host_bus_error, port: 0, at: 1ms, access: fis, resp: decerr}\n").faults[0].bus.decerr);
    CHECK_ERROR(d + "  - {kind: phy_flap, port: 0, at: 1ms, down: 61s}\n",
                "t.yaml:5: faults[0].down: must be at least 1ns and at most 60s");
    CHECK_ERROR(d + "  - {kind: link_degrade, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].gen: required (1, 2 or 3: the fastest generation the link reaches)");
    CHECK_ERROR(d + "  - {kind: crc, port: 0, at: 1ms, burst: 1001}\n", "t.yaml:5: faults[0].burst: 1001 is out of range (1..1000)");
    // lost_irq: count or window (which replaces the count), never both
    satasim::fault::Fault w = parse(d + "  - {kind: lost_irq, port: 0, at: 1ms, window: 2ms}\n").faults[0];
    CHECK(w.lost_irq.window_ns == 2000000 && w.lost_irq.count == 0);
    CHECK(parse(d + "  - {kind: lost_irq, port: 0, at: 1ms, count: 7}\n").faults[0].lost_irq.count == 7);
    CHECK_ERROR(d + "  - {kind: lost_irq, port: 0, at: 1ms, count: 2, window: 1ms}\n",
                "t.yaml:5: faults[0].window: give count or window, not both");
    CHECK_ERROR(d + "  - {kind: lost_irq, port: 0, at: 1ms, window: 0ms}\n", "t.yaml:5: faults[0].window: must be at least 1ns");
}

// The kinds that were read by hand before (media_error, slow, plug, the noise lists) on their
// rows too: an op that defaults to the trigger's, an LBA range within the disk, strings, a
// capacity in sectors or a size, a flag set written as a list (a kind's forced flag kept),
// each in the model's field, with the row's messages naming file, line and field.
TEST(fault_row_parameter_types) {
    namespace f = satasim::fault;
    const std::string d = std::string(kDisk) + "faults:\n"; // a 1g disk: 2097152 sectors
    // media_error: op from the on_cmd trigger, the range and the rest in MediaParams
    f::Fault m = parse(d + "  - {kind: media_error, port: 0, on_cmd: {op: read}, error: idnf, lba: [8, 15], count: 2, "
                           "cleared_by_write: false}\n").faults[0];
    CHECK(m.media.match.op == f::CommandMatch::Op::Read && m.media.error == f::MediaParams::Error::Idnf);
    CHECK(m.media.match.lba_first == 8u && m.media.match.lba_last == 15u && m.media.count == 2 && !m.media.cleared_by_write);
    f::Fault m2 = parse(d + "  - {kind: media_error, port: 0, after_cmds: 3}\n").faults[0];
    CHECK(m2.media.match.op == f::CommandMatch::Op::Any && !m2.media.match.lba_first && m2.media.cleared_by_write);
    CHECK_ERROR(d + "  - {kind: media_error, port: 0, after_cmds: 3, lba: [0, 2097152]}\n",
                "t.yaml:5: faults[0].lba[1]: sector 2097152 is beyond the disk's 2097152 sectors");
    CHECK_ERROR(d + "  - {kind: media_error, port: 0, after_cmds: 3, op: erase}\n",
                "t.yaml:5: faults[0].op: unknown value 'erase' (expected one of: any, read, write, flush, identify, ncq, "
                "non_ncq)");
    // slow: op within the row's subset, count or window, a delay within its range
    f::Fault s = parse(d + "  - {kind: slow, port: 0, on_cmd: {op: write}, delay: 2s, window: 1s}\n").faults[0];
    CHECK(s.slow.match.op == f::CommandMatch::Op::Write && s.slow.delay_ns == 2000000000u && s.slow.window_ns == 1000000000u);
    CHECK(s.slow.count == 0);
    CHECK_ERROR(d + "  - {kind: slow, port: 0, at: 1ms, delay: 1s, op: identify}\n",
                "t.yaml:5: faults[0].op: a slow fault delays reads and writes (any, read, write, ncq or non_ncq)");
    CHECK_ERROR(d + "  - {kind: slow, port: 0, at: 1ms, delay: 1s, count: 1, window: 1s}\n",
                "t.yaml:5: faults[0].window: give count or window, not both");
    CHECK_ERROR(d + "  - {kind: slow, port: 0, at: 1ms, delay: 3601s}\n",
                "t.yaml:5: faults[0].delay: must be at least 1ns and at most 3600s");
    // plug: strings and a capacity in sectors or a size
    f::Fault pl = parse(d + "  - {kind: plug, port: 0, at: 1ms, model: \"NEW DISK\", serial: \"S1\", capacity: 1m}\n")
                      .faults[0];
    CHECK(pl.plug.model == std::string("NEW DISK") && pl.plug.serial == std::string("S1") && pl.plug.capacity == 2048u);
    CHECK(!pl.plug.blank_media && !parse(d + "  - {kind: plug, port: 0, at: 1ms}\n").faults[0].plug.capacity);
    CHECK_ERROR(d + "  - {kind: plug, port: 0, at: 1ms, serial: \"123456789012345678901\"}\n",
                "t.yaml:5: faults[0].serial: '123456789012345678901' is longer than 20 characters");
    CHECK_ERROR(d + "  - {kind: plug, port: 0, at: 1ms, capacity: 0}\n",
                "t.yaml:5: faults[0].capacity: must be 1 .. 281474976710655 sectors");
    // noise: a flag set; cominit always sends its bursts (the forced flag), not written back
    f::Fault n = parse(d + "  - {kind: phy_flap, port: 0, at: 1ms, noise: [decode]}\n").faults[0];
    CHECK(!n.noise.cominit && n.noise.decode && !n.noise.internal && f::param(n, "noise") == 2);
    f::Fault ci = parse(d + "  - {kind: cominit, port: 0, at: 1ms, noise: [internal]}\n").faults[0];
    CHECK(ci.noise.cominit && ci.noise.internal);
    const f::ParamSpec &np = *f::kind_spec(f::Kind::Cominit)->param("noise");
    CHECK(f::value_text(np, f::value(ci, np)) == "[internal]" && f::shown(ci, np, true));
    CHECK(!f::shown(parse(d + "  - {kind: cominit, port: 0, at: 1ms}\n").faults[0], np, true));
    // what the YAML writer writes for the others: a range, a quoted string, count only without a window
    const f::KindSpec &ms = *f::kind_spec(f::Kind::MediaError);
    CHECK(f::value_text(*ms.param("lba"), f::value(m, *ms.param("lba"))) == "[8, 15]");
    CHECK(f::value_text(*ms.param("op"), f::value(m, *ms.param("op"))) == "read");
    const f::KindSpec &ps = *f::kind_spec(f::Kind::Plug);
    CHECK(f::value_text(*ps.param("model"), f::value(pl, *ps.param("model"))) == "\"NEW DISK\"");
    const f::KindSpec &ss = *f::kind_spec(f::Kind::Slow);
    CHECK(!f::shown(s, *ss.param("count"), true) && f::shown(s, *ss.param("count"), false));
    CHECK(f::shown(parse(d + "  - {kind: slow, port: 0, at: 1ms, delay: 1s}\n").faults[0], *ss.param("count"), true));
}

TEST(expect_section) {
    CHECK_ERROR(std::string(kDisk) + "expect: {io_errors: 1, io_errors_min: 0}\n",
                "t.yaml:4: expect.io_errors_min: give either io_errors (exact) or a range, not both (io_errors on line 4)");
    Scenario sc = parse(std::string(kDisk) + "expect:\n  empty_ports: [1]\n  log_contains: [\"link up\"]\n");
    CHECK(sc.expect.empty_ports.size() == 1 && sc.expect.empty_ports[0].port == 1);
    CHECK(sc.expect.log_contains == std::vector<std::string>{"link up"});
}

TEST(waveform_section) {
    Scenario sc = parse(std::string(kDisk) + "waveform: {signals: [irq, regs], ports: [0]}\n");
    CHECK(sc.waveform.on && sc.waveform.groups == 0x11 && sc.waveform.ports == std::vector<unsigned>{0});
    CHECK_ERROR(std::string(kDisk) + "waveform: {signals: [volts]}\n",
                "t.yaml:4: waveform.signals[0]: unknown signal group 'volts' (expected one of: irq, phy, prims, fis, "
                "regs, all)");
}

// ---- backends: the names and the keys a backend refuses (backend/rules.h)

TEST(backend_names_and_key_refusals) {
    CHECK(parse("backend: qemu\n").backend == "qemu");
    CHECK_ERROR("backend: bochs\n", "t.yaml:1: backend: unknown value 'bochs' (expected one of: systemc, qemu)");
    CHECK_ERROR("backend: qemu\npmps:\n  - {port: 0}\n",
                "t.yaml:3: pmps[0]: QEMU's AHCI has no port-multiplier support (CAP.SPM = 0): backend systemc only");
    CHECK_ERROR("backend: qemu\nlink: {mode: fis}\n",
                "t.yaml:2: link: only for backend: systemc (QEMU's AHCI has no SATA link model)");
    CHECK_ERROR("backend: qemu\nwaveform: true\n",
                "t.yaml:2: waveform: only for backend: systemc (the waveform records the SystemC models' signals)");
    CHECK(parse("backend: qemu\nsteps:\n  - delay: 1us\n").steps.size() == 1); // steps run on every backend
    CHECK(!parse("pmps:\n  - {port: 0}\n").pmps.empty()); // systemc takes every key
}

TEST(backend_scenario_refusals) {
    Scenario sc = parse("backend: qemu\ncontroller: {ports: 8, slots: 8}\n");
    std::vector<Refusal> r = qemu::refusals(sc);
    CHECK(r.size() == 2);
    CHECK(!r.empty() && r[0].what == "controller.ports 8: QEMU's ICH9 AHCI has 6 ports");
    CHECK(!r.empty() && r[0].line == 2); // at the key (the runner's message points there)
    CHECK(qemu::hardware_ports(sc) == 6);
    Scenario blk = parse("devices:\n  - {port: 0, blkdebug: [{op: read}]}\n");
    CHECK(systemc::refusals(blk).size() == 1);
    CHECK(systemc::hardware_ports(parse("controller: {type: sil24}\n")) == 4);
}

// Directed steps: what QEMU cannot do is refused at the step's line; what a backend cannot
// observe (another backend's models' trace records) is skipped with the reason.
TEST(backend_step_refusals_and_skips) {
    const std::string head = "backend: qemu\ncontroller: {ports: 1}\ndevices: [{port: 0, capacity: 1g}]\nsteps:\n";
    Scenario sc = parse(head + "  - mmio_read: {offset: 0x10}\n"
                               "  - device_fis: {port: 0, fis: {type: reg_d2h, status: 0x50}}\n"
                               "  - inject: {kind: unplug, port: 0, id: pull}\n"
                               "  - expect_trace: {ev: ahci.port_comreset}\n"
                               "  - expect_trace: {ev: step}\n");
    std::vector<Refusal> r = qemu::refusals(sc);
    CHECK(r.size() == 2);
    CHECK(r.size() == 2 && r[0].line == 6 && r[0].what.rfind("steps[1] device_fis: QEMU's disks are ide-hd", 0) == 0);
    CHECK(r.size() == 2 && r[1].line == 7 && r[1].what.rfind("steps[2] inject: fault injection needs", 0) == 0);
    CHECK(qemu::skips_step(sc.steps[0]).empty());
    CHECK(qemu::skips_step(sc.steps[3]).rfind("QEMU's AHCI, links and disks write no trace records", 0) == 0);
    CHECK(qemu::skips_step(sc.steps[4]).empty()); // the harness's own records are there
    CHECK(satasim::harness::rtl::skips_step(sc.steps[3]).rfind("the DUT's registers are its RTL's", 0) == 0);
    CHECK(satasim::harness::rtl::skips_step(sc.steps[1]).empty());
    for (const Step &s : sc.steps)
        CHECK(systemc::skips_step(s).empty());
}

// A crc fault's symbol error needs a DUT whose top takes its PHY's error flags: refused at the
// fault's line otherwise (known once the DUT is built: DutFeatures::rx_symbol_errors).
TEST(rtl_refuses_a_symbol_error_the_top_cannot_take) {
    const Scenario sc = parse(std::string(kDisk) + "faults:\n  - {kind: crc, port: 0, at: 1ms, symbol: disparity}\n"
                                                   "  - {kind: crc, port: 0, at: 2ms}\n");
    satasim::harness::rtl::DutProfile p;
    p.ports = 2;
    p.features.rx_symbol_errors = false;
    satasim::harness::rtl::set_active_profile(&p);
    const std::vector<Refusal> r = satasim::harness::rtl::refusals(sc);
    CHECK(r.size() == 1);
    CHECK(!r.empty() && r[0].line == 5);
    CHECK(!r.empty() && r[0].what.rfind("faults[fault0] crc symbol disparity: the DUT's top takes no symbol error "
                                        "flags from its PHY", 0) == 0);
    p.features.rx_symbol_errors = true;
    CHECK(satasim::harness::rtl::refusals(sc).empty());
    satasim::harness::rtl::set_active_profile(nullptr);
}

// ---- faults: one table row per kind

TEST(fault_kinds_table) {
    const std::string d = std::string(kDisk) + "faults:\n";
    Scenario sc = parse(d + "  - {kind: crc, port: 0, at: 1ms, dir: d2h, fis: data, burst: 3}\n"
                            "  - {kind: lost_irq, port: 0, after_cmds: 2, window: 5ms}\n");
    CHECK(sc.faults.size() == 2);
    CHECK(sc.faults[0].kind == satasim::fault::Kind::Crc && !sc.faults[0].crc.from_host && sc.faults[0].crc.burst == 3);
    CHECK(sc.faults[1].id == "fault1" && sc.faults[1].lost_irq.window_ns == 5000000 && sc.faults[1].lost_irq.count == 0);
    CHECK(sc.faults[0].crc.symbol == satasim::link::SymbolError::None);
    CHECK(parse(d + "  - {kind: crc, port: 0, at: 1ms, symbol: code}\n").faults[0].crc.symbol ==
          satasim::link::SymbolError::Code);
    CHECK_ERROR(d + "  - {kind: crc, port: 0, at: 1ms, symbol: parity}\n",
                "t.yaml:5: faults[0].symbol: unknown value 'parity' (expected one of: none, code, disparity)");
    CHECK_ERROR(d + "  - {port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].kind: required (crc, lost_irq, unplug, plug, media_error, hang, identify_fail, "
                "phy_flap, link_degrade, pmp_hang, slow, spurious_irq, irq_storm, drq_stuck, bsy_stuck, bmdma_error, host_bus_error, cominit, power_loss, bad_fis, lpm_fail, pmp_reg_abort, check_condition, hba_error or line_noise)");
    CHECK_ERROR(d + "  - {kind: zap, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].kind: unknown value 'zap' (expected one of: crc, lost_irq, unplug, plug, "
                "media_error, hang, identify_fail, phy_flap, link_degrade, pmp_hang, slow, spurious_irq, irq_storm, drq_stuck, "
                "bsy_stuck, bmdma_error, host_bus_error, cominit, power_loss, bad_fis, lpm_fail, pmp_reg_abort, check_condition, hba_error, line_noise)");
    // power_loss: its typed `off` (a time, 100 ms by default, within 1 us .. 60 s).
    {
        Scenario n = parse(d + "  - {kind: power_loss, port: 0, at: 1ms}\n"
                               "  - {kind: power_loss, port: 0, after_cmds: 5, off: 2s}\n");
        CHECK(n.faults[0].kind == satasim::fault::Kind::PowerLoss);
        CHECK(satasim::fault::param(n.faults[0], "off") == 100000000u);
        CHECK(satasim::fault::param(n.faults[1], "off") == 2000000000u);
        CHECK(satasim::fault::kind_spec(satasim::fault::Kind::PowerLoss)->cuts_power);
        CHECK(satasim::fault::kind_spec(satasim::fault::Kind::Unplug)->cuts_power);
        CHECK(!satasim::fault::kind_spec(satasim::fault::Kind::PhyFlap)->cuts_power);
    }
    CHECK_ERROR(d + "  - {kind: power_loss, port: 0, at: 1ms, off: 0ns}\n",
                "t.yaml:5: faults[0].off: must be at least 1us and at most 60s");
    // bad_fis: its typed `fis` (required) and the unknown type's `type` byte (D9h by default).
    {
        Scenario n = parse(d + "  - {kind: bad_fis, port: 0, at: 1ms, fis: unknown_type}\n"
                               "  - {kind: bad_fis, port: 0, after_cmds: 5, fis: unknown_type, type: 0xc7}\n"
                               "  - {kind: bad_fis, port: 0, on_cmd: {op: flush}, fis: long_d2h}\n"
                               "  - {kind: bad_fis, port: 0, at: 2ms, fis: spurious_sdb}\n");
        CHECK(n.faults[0].kind == satasim::fault::Kind::BadFis);
        CHECK(satasim::fault::param(n.faults[0], "fis") == uint64_t(satasim::device::BadFis::UnknownType));
        CHECK(satasim::fault::param(n.faults[0], "type") == 0xd9u);
        CHECK(satasim::fault::param(n.faults[1], "type") == 0xc7u);
        CHECK(satasim::fault::param(n.faults[2], "fis") == uint64_t(satasim::device::BadFis::LongD2h));
        CHECK(satasim::fault::param(n.faults[3], "fis") == uint64_t(satasim::device::BadFis::SpuriousSdb));
        CHECK(!satasim::fault::kind_spec(satasim::fault::Kind::BadFis)->cuts_power);
    }
    CHECK_ERROR(d + "  - {kind: bad_fis, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].fis: required (unknown_type, long_d2h, unsolicited_d2h or spurious_sdb)");
    CHECK_ERROR(d + "  - {kind: bad_fis, port: 0, at: 1ms, fis: garbage}\n",
                "t.yaml:5: faults[0].fis: unknown value 'garbage' (expected one of: unknown_type, long_d2h, "
                "unsolicited_d2h, spurious_sdb)");
    CHECK_ERROR(d + "  - {kind: bad_fis, port: 0, at: 1ms, fis: unknown_type, type: 256}\n",
                "t.yaml:5: faults[0].type: 256 is out of range (0..255)");
    // Line noise: unplug / phy_flap / cominit's `noise`; cominit fires at a time only.
    {
        Scenario n = parse(d + "  - {kind: unplug, port: 0, at: 1ms, noise: [cominit, internal]}\n"
                               "  - {kind: cominit, port: 0, at: 2ms}\n");
        CHECK(n.faults[0].noise.cominit && !n.faults[0].noise.decode && n.faults[0].noise.internal);
        CHECK(n.faults[1].noise.cominit && !n.faults[1].noise.decode);
        CHECK_ERROR(d + "  - {kind: unplug, port: 0, at: 1ms, noise: [hum]}\n",
                    "t.yaml:5: faults[0].noise[0]: unknown value 'hum' (expected one of: cominit, decode, internal, "
                    "phy, comwake)");
        // phy and comwake (DIAG.I + ERR.T, DIAG.W); lpm_fail takes noise too (its failed wake-ups')
        Scenario w = parse(d + "  - {kind: cominit, port: 0, at: 2ms, noise: [comwake]}\n"
                               "  - {kind: lpm_fail, port: 0, at: 3ms, how: no_comwake, noise: [decode, phy]}\n");
        CHECK(w.faults[0].noise.cominit && w.faults[0].noise.comwake && !w.faults[0].noise.phy);
        CHECK(w.faults[1].noise.decode && w.faults[1].noise.phy && !w.faults[1].noise.comwake);
    }
    // A host bus error: its keys, and only on an AHCI controller.
    {
        Scenario h = parse(d + "  - {kind: host_bus_error, port: 0, after_cmds: 3, access: command, resp: decerr}\n"
                               "  - {kind: host_bus_error, port: 0, at: 1ms}\n");
        CHECK(h.faults[0].bus.access == satasim::fault::BusAccess::Command && h.faults[0].bus.decerr);
        CHECK(h.faults[1].bus.access == satasim::fault::BusAccess::Data && !h.faults[1].bus.decerr);
    }
    CHECK_ERROR(d + "  - {kind: host_bus_error, port: 0, at: 1ms, access: prdt}\n",
                "t.yaml:5: faults[0].access: unknown value 'prdt' (expected one of: data, command, fis, any)");
    CHECK_ERROR("controller: {type: sil24}\ndevices:\n  - {port: 0, capacity: 1g}\nfaults:\n"
                "  - {kind: host_bus_error, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].kind: a host_bus_error acts on an AHCI port's DMA engine: controller ahci (not "
                "sil24)");
    // An HBA's internal error: its typed `error` and `irq`, and only on an AHCI controller.
    {
        Scenario h = parse(d + "  - {kind: hba_error, port: 0, after_cmds: 3, error: host_bus_data}\n"
                               "  - {kind: hba_error, port: 0, at: 1ms, irq: all_ones}\n");
        CHECK(satasim::fault::param(h.faults[0], "error") == 1 && satasim::fault::param(h.faults[0], "irq") == 0);
        CHECK(satasim::fault::param(h.faults[1], "error") == 0 && satasim::fault::param(h.faults[1], "irq") == 2);
    }
    CHECK_ERROR(d + "  - {kind: hba_error, port: 0, at: 1ms, error: parity}\n",
                "t.yaml:5: faults[0].error: unknown value 'parity' (expected one of: internal, host_bus_data, "
                "host_bus_fatal)");
    CHECK_ERROR(d + "  - {kind: hba_error, port: 0, at: 1ms, irq: maybe}\n",
                "t.yaml:5: faults[0].irq: unknown value 'maybe' (expected one of: raised, none, all_ones)");
    CHECK_ERROR("controller: {type: piix}\ndevices:\n  - {port: 0, capacity: 1g}\nfaults:\n"
                "  - {kind: hba_error, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].kind: a hba_error acts on an AHCI port's DMA engine: controller ahci (not "
                "piix)");
    // Line noise with no PHY event: its `noise` list is required, and it fires at a time only.
    {
        Scenario n = parse(d + "  - {kind: line_noise, port: 0, at: 1ms, noise: [decode, internal]}\n");
        CHECK(n.faults[0].kind == satasim::fault::Kind::LineNoise && n.faults[0].noise.decode &&
              n.faults[0].noise.internal && !n.faults[0].noise.cominit && !n.faults[0].noise.phy);
    }
    CHECK_ERROR(d + "  - {kind: line_noise, port: 0, at: 1ms}\n", "t.yaml:5: faults[0].noise: required: the noise the host PHY picks up (a list of cominit, decode, "
                "internal, phy, comwake)");
    CHECK_ERROR(d + "  - {kind: line_noise, port: 0, after_cmds: 2, noise: [decode]}\n", "t.yaml:5: faults[0].after_cmds: a line_noise fires at a time (`at`): it acts on the wire, which counts "
                "no commands");
    // A taskfile channel's fault on a controller without one.
    CHECK_ERROR(d + "  - {kind: drq_stuck, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].kind: a drq_stuck acts on a taskfile channel: controller sil3112 or piix (not ahci)");
    CHECK_ERROR(d + "  - {kind: hang, port: 0, at: 1ms, burst: 2}\n",
                "t.yaml:5: faults[0].burst: not a key of kind: hang (its keys: comresets)");
    // a hang that sits through COMRESETs (a drive that answers OOB, never its signature)
    CHECK(parse(d + "  - {kind: hang, port: 0, at: 1ms, comresets: 3}\n").faults[0].hang_comresets == 3);
    CHECK(parse(d + "  - {kind: hang, port: 0, at: 1ms}\n").faults[0].hang_comresets == 0);
    CHECK_ERROR(d + "  - {kind: link_degrade, port: 0, at: 1ms, down: 1ms}\n",
                "t.yaml:5: faults[0].down: not a key of kind: link_degrade (its keys: gen)");
    CHECK_ERROR(d + "  - {kind: media_error, port: 0, at: 1ms}\n",
                "t.yaml:5: faults[0].lba: required with an `at` trigger (the bad sectors); a command-triggered media "
                "error defaults to the range of the command that fires it");
}

// The reader's rows and the kinds' plain facts (model/fault/fault_kind_spec.h) cover every
// fault::Kind exactly once, in the same order, and agree: a kind with keys of its own has a
// reader of them, a kind without has none; only a kind bound to a disk has a no-disk note.
TEST(fault_kind_rows_match_the_spec) {
    using satasim::fault::Kind;
    const auto &specs = satasim::fault::kind_specs();
    const auto &rows = fault_kind_rows();
    CHECK(specs.size() == size_t(Kind::LineNoise) + 1);
    CHECK(rows.size() == specs.size());
    for (size_t i = 0; i < specs.size() && i < rows.size(); ++i) {
        CHECK(specs[i].kind == Kind(i));
        CHECK(rows[i].kind == Kind(i));
        CHECK((rows[i].parse != nullptr) == !specs[i].keys.empty());
        CHECK(rows[i].no_disk_note != nullptr);
        CHECK(specs[i].binds == satasim::fault::Binds::Disk || std::string(rows[i].no_disk_note).empty());
    }
    // The rules the reader takes from the spec, on the kinds that have them today.
    const std::string d = std::string(kDisk) + "faults:\n";
    CHECK_ERROR(d + "  - {kind: unplug, port: 0, at: 1ms, repeat: 2, every: 1ms}\n",
                "t.yaml:5: faults[0].repeat: a unplug fires once (use one unplug and one plug fault per cycle)");
    CHECK_ERROR(d + "  - {kind: plug, port: 0, at: 1ms, repeat: 2, every: 1ms}\n",
                "t.yaml:5: faults[0].repeat: a plug fires once (use one unplug and one plug fault per cycle)");
    CHECK(error_of(d + "  - {kind: phy_flap, port: 0, at: 1ms, repeat: 2, every: 1ms}\n").empty());
    CHECK_ERROR(d + "  - {kind: plug, port: 1, at: 1ms}\n",
                "t.yaml:5: faults[0].port: no disk on port 1 (to plug a drive into an empty connector, give the port a "
                "devices[] entry with present: false) (disks are on ports 0)");
    CHECK_ERROR(d + "  - {kind: unplug, port: 1, at: 1ms}\n", "t.yaml:5: faults[0].port: no disk on port 1 (disks are on ports 0)");
    const std::string pm = "controller: {type: ahci, ports: 2}\npmps:\n  - {port: 0, ports: 2}\ndevices:\n"
                           "  - {port: 0, pmp_port: 0, capacity: 1g}\n  - {port: 1, capacity: 1g}\nfaults:\n";
    CHECK(error_of(pm + "  - {kind: pmp_hang, port: 0, at: 1ms}\n").empty());
    CHECK_ERROR(pm + "  - {kind: pmp_hang, port: 0, pmp_port: 1, at: 1ms}\n",
                "t.yaml:8: faults[0].pmp_port: a pmp_hang acts on the port multiplier's control port: no pmp_port");
    CHECK_ERROR(pm + "  - {kind: pmp_hang, port: 0, after_cmds: 3}\n",
                "t.yaml:8: faults[0].after_cmds: a pmp_hang fires at a time (`at`): the port multiplier counts no "
                "commands");
    CHECK_ERROR(pm + "  - {kind: pmp_hang, port: 1, at: 1ms}\n",
                "t.yaml:8: faults[0].port: port 1 has no port multiplier (pmps[])");
    for (const auto &s : specs) {
        CHECK(satasim::fault::kind_from_string(s.name) == s.kind);
        CHECK(std::string(satasim::fault::to_string(s.kind)) == s.name);
    }
}

// Faults on an ATAPI drive (docs/device.md 7): the link's, the controller's and hang bind to
// it, check_condition only to it, a disk's firmware faults (media_error ...) not.
TEST(fault_kinds_on_an_atapi_drive) {
    const std::string cd = "controller: {type: ahci, ports: 2}\ndevices:\n  - {port: 0, atapi: {disc_blocks: 4096}}\n"
                           "  - {port: 1, capacity: 1g}\nfaults:\n";
    Scenario sc = parse(cd + "  - {kind: check_condition, port: 0, on_cmd: {opcode: 0x28, lba: [16, 16]}, key: 2, asc: 0x3a}\n"
                             "  - {kind: hang, port: 0, on_cmd: {op: read}}\n"
                             "  - {kind: lost_irq, port: 0, after_cmds: 3}\n");
    CHECK(sc.faults.size() == 3 && sc.faults[0].kind == satasim::fault::Kind::CheckCondition);
    CHECK(satasim::fault::param(sc.faults[0], "key") == 2 && satasim::fault::param(sc.faults[0], "asc") == 0x3a &&
          satasim::fault::param(sc.faults[0], "ascq") == 0);
    CHECK(sc.faults[0].trigger.on_cmd->opcode == 0x28 && *sc.faults[0].trigger.on_cmd->lba_last == 16);
    // an LBA of the disc's 2048-byte blocks
    CHECK_ERROR(cd + "  - {kind: hang, port: 0, on_cmd: {lba: [0, 4096]}}\n",
                "t.yaml:6: faults[0].on_cmd.lba[1]: sector 4096 is beyond the disk's 4096 sectors");
    CHECK_ERROR(cd + "  - {kind: media_error, port: 0, on_cmd: {op: read}}\n",
                "t.yaml:6: faults[0].kind: a media_error acts on a disk: port 0 has an ATAPI drive (devices[].atapi, "
                "line 3); an ATAPI drive takes crc, lost_irq, unplug, hang, phy_flap, link_degrade, spurious_irq, "
                "irq_storm, drq_stuck, bsy_stuck, bmdma_error, host_bus_error, cominit, check_condition, hba_error or line_noise "
                "(check_condition: a PACKET command's CHECK CONDITION with its sense)");
    CHECK_ERROR(cd + "  - {kind: check_condition, port: 1, after_cmds: 1}\n",
                "t.yaml:6: faults[0].kind: a check_condition acts on an ATAPI drive (devices[].atapi): port 1 has a "
                "disk (line 4)");
    CHECK_ERROR(cd + "  - {kind: check_condition, port: 0, after_cmds: 1, key: 0}\n",
                "t.yaml:6: faults[0].key: 0 is out of range (1..15)");
}

// ---- directed steps, on the same toolkit and message forms

TEST(steps_share_the_toolkit) {
    const std::string head = "controller: {ports: 1}\ndevices: [{port: 0, capacity: 1g}]\nsteps:\n";
    Scenario sc = parse(head + "  - mmio_read: {offset: 0x0, expect: 0x1, mask: 0x1}\n"
                               "  - wait_irq: {timeout: 1ms, level: False}\n"
                               "  - device_fis: {port: 0, fis: {type: reg_d2h}}\n");
    CHECK(sc.steps.size() == 3 && !sc.host.stack);
    CHECK(sc.steps[0].where == "t.yaml:4" && sc.steps[0].expect && sc.steps[0].expect->value == 1);
    CHECK(!sc.steps[1].irq_level); // flags any case, as everywhere
    CHECK(sc.steps[2].fis.type == StepFis::Type::RegD2H && sc.steps[2].fis.status == 0x50);
    // The same forms as the other sections (the steps' own toolkit said "expected a mapping",
    // "duplicate key" without the first line).
    CHECK_ERROR(head + "  - mmio_read: 4\n", "t.yaml:4: steps[0].mmio_read: expected a mapping, got a scalar");
    CHECK_ERROR(head + "  - mmio_read: {offset: 0x0, offset: 0x4}\n",
                "t.yaml:4: steps[0].mmio_read.offset: duplicate key (first on line 4)");
    CHECK_ERROR(head + "  - mmio_read: {offset: 0x2}\n", "t.yaml:4: steps[0].mmio_read.offset: register offsets are dword aligned");
    CHECK_ERROR(head + "  - mmio_write: {offset: 0x0, value: \"${buf}\"}\n",
                "t.yaml:4: steps[0].mmio_write.value: no alloc step named 'buf' before this step");
    sc = parse(head + "  - inject: {kind: hang, port: 0}\n");
    CHECK(sc.faults.size() == 1 && sc.steps[0].wait_fired && sc.steps[0].fault == 0);
}

// ---- every scenario of the repository parses

TEST(repository_scenarios_parse) {
    if (g_scenarios_dir.empty())
        return;
    namespace fs = std::filesystem;
    unsigned n = 0;
    for (const auto &e : fs::recursive_directory_iterator(g_scenarios_dir)) {
        const fs::path &p = e.path();
        if (p.extension() != ".yaml" || p.filename() == "testplan.yaml" ||
            p.parent_path().filename() == "common")
            continue;
        try {
            parse_scenario_file(p.string(), kBackends);
            ++n;
        } catch (const ScenarioError &err) {
            std::printf("  %s\n", err.what());
            ++g_failures_in_test;
        }
    }
    CHECK(n >= 50);
}

} // namespace

int main(int argc, char **argv) {
    if (argc > 1)
        g_scenarios_dir = argv[1];
    unsigned passed = 0, failed = 0;
    for (const TestCase &t : tests()) {
        g_failures_in_test = 0;
        try {
            t.fn();
        } catch (const std::exception &e) {
            std::printf("  unexpected exception: %s\n", e.what());
            ++g_failures_in_test;
        }
        std::printf("%s %s\n", g_failures_in_test ? "FAIL" : "ok  ", t.name);
        (g_failures_in_test ? failed : passed)++;
    }
    std::printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
