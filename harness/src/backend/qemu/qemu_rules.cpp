// What QEMU's q35 ICH9 AHCI (and its ide-hd disks) cannot model (backend/rules.h).
#include "backend/qemu/qemu_rules.h"

#include "controller/controller_table.h"
#include "scenario/scenario.h"
#include "scenario/steps.h"

namespace satasim::harness::qemu {

namespace {
// The largest disc the backend writes as an ide-cd image (2048-byte blocks: 128 MiB).
constexpr uint32_t kMaxDiscBlocks = 65536;
} // namespace

const char *refuses_key(ScenarioKey key) {
    switch (key) {
    case ScenarioKey::Link:
    case ScenarioKey::DeviceLink: return "only for backend: systemc (QEMU's AHCI has no SATA link model)";
    case ScenarioKey::Pmps: return "QEMU's AHCI has no port-multiplier support (CAP.SPM = 0): backend systemc only";
    case ScenarioKey::Waveform: return "only for backend: systemc (the waveform records the SystemC models' signals)";
    case ScenarioKey::Steps: return nullptr; // MMIO, the interrupt line and guest memory (steps that need more: refusals)
    case ScenarioKey::Controllers:
        return "QEMU's q35 machine here has its one ICH9 AHCI function: one controller only (backend systemc for several)";
    }
    return nullptr;
}

namespace {

// The trace records of the models QEMU replaces (the controllers', each row's
// model_records, and the blocks around them: taskfile channel, BMDMA, link, disks, fault
// engine, port multipliers): QEMU writes none of its own.
bool model_record(const std::string &ev) {
    for (const ControllerDesc &d : controller_descs())
        if (*d.model_records && ev.rfind(d.model_records, 0) == 0)
            return true;
    for (const char *p : {"sff.", "bmdma.", "link.", "disk.", "fault.", "pmp."})
        if (ev.rfind(p, 0) == 0)
            return true;
    return false;
}

} // namespace

std::string skips_step(const Step &s) {
    if (s.kind == StepKind::ExpectTrace && model_record(s.ev))
        return "QEMU's AHCI, links and disks write no trace records (" + s.ev +
               " is a SystemC model's); the registers are checked by the other steps";
    return "";
}

std::vector<Refusal> refusals(const Scenario &sc) {
    std::vector<Refusal> r;
    const DeviceSpec defaults;
    auto no = [&](const std::string &feature, const std::string &why) {
        r.push_back(feature + ": " + why);
    };
    if (!controller_desc(sc.controller.type).runs_on("qemu"))
        no("controller.type " + sc.controller.type,
           "QEMU has no model of this controller (only q35's ICH9 AHCI), e.g. no SiI3124 (sil24)");
    if (sc.controller.ports > 6)
        r.push_back({"controller.ports " + std::to_string(sc.controller.ports) + ": QEMU's ICH9 AHCI has 6 ports",
                     sc.controller.ports_line});
    if (sc.controller.slots != 32)
        no("controller.slots " + std::to_string(sc.controller.slots), "QEMU's AHCI always has 32 command slots");
    if (!sc.controller.ncq)
        no("controller.ncq false", "QEMU's AHCI always advertises NCQ (CAP.SNCQ)");
    if (sc.controller.staggered_spinup)
        no("controller.staggered_spinup true", "QEMU's AHCI has no staggered spin-up (CAP.SSS is 0)");
    if (sc.controller.lpm)
        no("controller.lpm true", "QEMU's AHCI has no link power management (CAP.SALP, PSC and SSC are 0)");
    if (sc.controller.devsleep)
        no("controller.devsleep true", "QEMU's AHCI has no DevSleep (CAP2 is 0)");
    if (sc.controller.gen_set && sc.controller.gen != 1)
        no("controller.gen " + std::to_string(sc.controller.gen),
           "QEMU's AHCI links are Gen1 (1.5 Gbps) only; a non-Gen1 link cannot be modelled");
    for (const DeviceSpec &d : sc.devices) {
        std::string k = "devices[port " + std::to_string(d.port) + "].";
        if (d.atapi) { // an ide-cd on a disc image the harness writes (qemu_machine.cpp)
            if (d.atapi->disc_blocks > kMaxDiscBlocks)
                no(k + "atapi.disc_blocks " + std::to_string(d.atapi->disc_blocks),
                   "the harness writes the disc as an image file for QEMU's ide-cd: at most " +
                       std::to_string(kMaxDiscBlocks) + " blocks (128 MiB)");
            if (!d.atapi->dma || d.atapi->udma != AtapiSpec{}.udma || d.atapi->pio != AtapiSpec{}.pio)
                no(k + "atapi.dma/udma/pio", "QEMU's ide-cd transfer-mode list is fixed (PIO 0-4, UDMA 0-5)");
        }
        if (d.gen_set && d.gen != 1)
            no(k + "gen " + std::to_string(d.gen), "QEMU's SATA links are Gen1 (1.5 Gbps) only");
        if (d.ncq_order != NcqOrderSpec::InOrder)
            no(k + "ncq_order " + ncq_order_name(d.ncq_order),
               "NCQ reorder policies cannot be modelled: QEMU completes queued commands as its block "
               "layer finishes them");
        if (!d.lba48)
            no(k + "lba48 false", "QEMU's ide-hd always implements the 48-bit feature set (no LBA28-only disks)");
        if (!d.ncq)
            no(k + "ncq false", "QEMU's AHCI disks always support NCQ");
        if (d.ncq_depth != 32)
            no(k + "ncq_depth " + std::to_string(d.ncq_depth), "QEMU's ide-hd reports a queue depth of 32");
        if (d.multi != defaults.multi)
            no(k + "multi " + std::to_string(d.multi),
               "QEMU's ide-hd always supports READ/WRITE MULTIPLE with a 16-sector limit");
        if (d.udma != defaults.udma || d.pio != defaults.pio)
            no(k + "udma/pio", "QEMU's ide-hd transfer-mode list is fixed");
        if (d.ata_major != defaults.ata_major)
            no(k + "ata_major " + std::to_string(d.ata_major), "QEMU's ide-hd IDENTIFY version words are fixed");
        if (!d.write_cache)
            no(k + "write_cache false", "not modelled on the QEMU backend");
        if (!d.status_dsc)
            no(k + "status_dsc false", "QEMU's ide-hd always reports DSC in its status");
        if (d.trim != TrimSpec::None)
            no(k + "trim", "not offered on the QEMU backend (the stack writes the TRIM range list at submit, after the harness copied the buffer into guest RAM)");
        if (d.hpa)
            no(k + "hpa", "QEMU's ide-hd has no Host Protected Area feature set (no SET MAX ADDRESS)");
        if (d.devsleep)
            no(k + "devsleep", "QEMU's ide-hd has no DevSleep (IDENTIFY word 78 bit 8)");
        if (d.hipm || d.dipm)
            no(k + (d.hipm ? "hipm" : "dipm"), "QEMU's ide-hd has no interface power management (IDENTIFY words 76/78)");
        if (d.model.size() > 40 || d.serial.size() > 20 || d.firmware.size() > 8)
            no(k + "model/serial/firmware", "too long for QEMU's ide-hd properties");
        if (!d.present)
            no(k + "present false", "QEMU's disks are attached at start; hotplug is not modelled");
        if (d.ncq_sdb_coalesce_ns)
            no(k + "ncq_sdb_coalesce", "QEMU's AHCI completes each queued command on its own");
        if (d.logical_log2)
            no(k + "logical_sector", "not offered on the QEMU backend (its ide-hd has logical_block_size 512 on IDE, not modelled here)");
        else if (d.physical_log2 || d.align_offset)
            no(k + "physical_sector", "not offered on the QEMU backend (its ide-hd has physical_block_size, not modelled here)");
        if (d.smart != SmartSpec::None)
            no(k + "smart", "QEMU's ide-hd keeps its own SMART state (always good); the key sets the model's");
        if (d.ncq_log_count != NcqLogCountSpec::Full)
            no(k + "ncq_log_count", "QEMU's ide-hd fills its own NCQ error log; the key sets the model's");
        if (d.d2h_regs != D2hRegsSpec::Cleared)
            no(k + "d2h_regs", "QEMU's ide-hd fills its own Register FISes; the key sets the model's");
        if (d.ncq_trim)
            no(k + "ncq_trim", "QEMU's ide-hd has no NCQ (and no queued TRIM)");
        if (d.mod15write)
            no(k + "errata mod15write", "QEMU's ide-hd has no drive errata");
    }
    if (!sc.faults.empty() && sc.steps.empty()) // with steps, the faults are inject steps' (below)
        no("faults (" + std::to_string(sc.faults.size()) + " entries, line " + std::to_string(sc.faults[0].line) + ")",
           "fault injection (CRC errors, lost interrupts, hotplug, media errors, hangs, PHY events) needs the "
           "satasim models; QEMU's only errors are devices[].blkdebug");
    for (const fault::Fault &f : sc.faults)
        if (f.kind == fault::Kind::Slow) {
            // what QEMU offers does not fit: null-co's latency-ns stores no data (the data
            // check fails), throttle groups limit a rate, not one command's answer, and
            // blkdebug injects errors only
            no("faults[line " + std::to_string(f.line) + "] kind slow",
               "QEMU has no per-command latency on a disk that keeps its data (null-co's latency-ns "
               "discards writes, a throttle group limits throughput, blkdebug only fails requests)");
            break;
        }
    for (size_t i = 0; i < sc.workload.size(); ++i)
        if (const WorkloadSpec &w = sc.workload[i];
            w.kind == WorkloadKind::Tray && w.tray_action == "change" && w.disc_blocks > kMaxDiscBlocks)
            r.push_back({"workload[" + std::to_string(i) + "] tray change disc_blocks " +
                             std::to_string(w.disc_blocks) + ": the harness writes the disc as an image file for QEMU's ide-cd: at most " +
                             std::to_string(kMaxDiscBlocks) + " blocks (128 MiB)",
                         w.line});
    // Directed steps that act on what QEMU does not show from outside.
    for (const Step &s : sc.steps) {
        const std::string at = "steps[" + std::to_string(s.index) + "] " + kind_name(s.kind);
        if (s.kind == StepKind::DeviceFis)
            r.push_back({at + ": QEMU's disks are ide-hd devices inside its AHCI: there is no device-side link to "
                              "send a FIS from",
                         s.line});
        else if (s.kind == StepKind::Inject)
            r.push_back({at + ": fault injection needs the satasim models (QEMU's only errors are devices[].blkdebug)",
                         s.line});
    }
    if (sc.trace_fis)
        no("trace_fis true", "per-FIS records come from the satasim disk model; QEMU's disks have no FIS trace");
    return r;
}


// QEMU's AHCI always implements 6 ports.
unsigned hardware_ports(const Scenario &) { return 6; }

} // namespace satasim::harness::qemu
