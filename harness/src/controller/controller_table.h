// The controller descriptor table: one row per controller a scenario can name
// (controller.type), with everything the harness knows about it. The scenario reader takes
// its limits and keys from here, the runner its driver and log prefix, the SystemC backend
// its port count (and, by id, its model builder: backend/systemc/controller_models.cpp),
// the report and the EH-rule monitor what the driver records, and the Python tools the
// same facts through `satasim controllers --json` (harness/satasim/controller_table.json).
// Adding a controller: a row here, an id, its model builder (docs/architecture.md).
// Plain data without SystemC: part of the scenario library, which links the driver stack
// only for the create functions.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

struct ata_host;
struct sata_platform;
struct sata_platform_ops;
struct ata_host_config;

namespace satasim::harness {

// One per row, in the table's order (the index of the backends' binding tables).
enum class ControllerId : uint8_t { Ahci, Sil24, Sil3112, Piix };
constexpr unsigned kControllerCount = 4;

// Whether the controller can queue (NCQ): a choice of the scenario, always, or never.
enum class NcqSupport : uint8_t { Optional, Always, Never };

using HostCreateFn = ata_host *(*)(sata_platform *, const sata_platform_ops *, const ata_host_config *);

// What the Python tools know of a controller (exported in controller_table.json; no C++ reads
// it): how a kernel log names it (satasim.dmesg_parse, satasim.import_dmesg), and how a
// scenario written for the reference controller is adapted for it (satasim.controllers).
struct ToolFacts {
    const char *kernel_driver;     // the Linux LLD's name as the log prints it (ahci, sata_sil24)
    const char *kernel_glue_match; // a driver name containing this is the LLD's platform glue ("": none)
    // Python regex: the words of the port's description line ("SATA max UDMA/133 abar m2048@...")
    // that name this driver (several rows matching: a taskfile (SFF) port, driver unnamed)
    const char *log_port_desc;
    // Its own wording in an exception's description (irq_stat decoding): a log that names no
    // driver but shows one of these is this controller's
    std::vector<std::string> log_irq_stat_words;
    // What the importer lets it stand in for, and the note it writes ({driver}: the log's
    // driver): log_wording (its own wording read), taskfile (an SFF port of no named driver),
    // taskfile_log (libata-sff wording), pata_own (its driver, PATA ports), pata (a PATA
    // driver), slave (a device 1), no_scr (soft resets only), unknown_driver (a driver
    // without a model), default (nothing said)
    std::vector<std::pair<std::string, std::string>> stands_in;
    // The log's host line (libata's "AHCI 0001.0300 32 slots 6 ports 6 Gbps 0x3f impl SATA
    // mode") gives its ports, slots, link speed and staggered spin-up (the importer's
    // controller block takes them, and a drive's slower link its own gen)
    bool log_host_line;
    bool tagged_non_ncq;    // a request's tag places a non-queued command too (the importer keeps it)
    const char *devno1_keys; // controller keys under which a channel has a device 1 ("": none)
    // The controller the scenario suites are written for (the adapter's source)
    bool reference;
    // Adapted for this controller: the reference's controller keys its block keeps (with the
    // type), and the expected log lines rewritten (Python regex, replacement), in order
    std::vector<std::string> adapt_keeps;
    std::vector<std::pair<std::string, std::string>> adapt_log;
};

struct ControllerDesc {
    ControllerId id;
    const char *name;          // controller.type
    const char *chip;          // what it models (messages, docs)
    // PCI identity of the function the kernel binds: the model's configuration space has these
    // (docs/hardware.md 12; a PIIX3/PIIX4 part has its own device ID, 7010/7111), and the
    // stack's PCI probe picks the driver from them
    uint16_t pci_vendor, pci_device;
    uint32_t pci_class;
    // The stack's driver: its create function and that function's name (the run's phase).
    HostCreateFn create;
    const char *driver;
    // dev_info(&pdev->dev, ...) prefix of the controller's own log lines: driver name and a
    // fixed PCI address (AHCI at q35's 00:1f.2, the SiI3124 on the bus behind a root port).
    const char *log_prefix;
    const char *model_instance; // the SystemC module's name and the model's trace source
    // Limits.
    unsigned max_ports;      // controller.ports at most
    unsigned hardware_ports; // ports the hardware always has (0: as many as the scenario gives)
    unsigned default_ports;
    unsigned slots;          // command slots per port; 0: the scenario's choice (1..32, default 32)
    NcqSupport ncq;
    unsigned ncq_depth;      // the driver's queue depth (0: no NCQ)
    unsigned max_gen;        // fastest link generation (also the default)
    unsigned max_udma;       // the driver's host UDMA mask's top mode
    bool pmp;                // can address a port multiplier
    bool scr;                // has SATA status/control registers (an ICH in IDE mode has none)
    bool taskfile;           // an SFF taskfile channel: one command at a time (the taskfile fault kinds)
    bool ahci_dma_engine;    // an AHCI port's DMA engine (the host_bus_error fault kind)
    // controller.* keys only some types take (fbs, staggered_spinup, pcix_*, map)
    std::vector<std::string> keys;
    const char *fbs_refusal_note; // why fbs: true is refused (after "only for type: ahci")
    const char *quirks;           // its errata the models and the driver know (docs)
    // Backends with a model of it (backend/registry.cpp names).
    std::vector<std::string> backends;
    // The driver's trace records the EH-rule monitor reads (trace/eh_rules.cpp): the error
    // interrupt (with its freeze flag) and the engine restarts that failed.
    const char *error_irq_record;
    std::vector<std::string> engine_failed_records;
    ToolFacts tools;
    // The prefix of the model's own trace records ("ahci." for ahci.port_reset): what a
    // backend without this model (QEMU) never writes (backend/qemu/qemu_rules.cpp).
    const char *model_records = "";

    bool takes_key(const std::string &key) const;
    bool runs_on(const std::string &backend) const;
};

// The prefix of a host's own log lines with several controllers in one host: the kernel
// driver's name and the function's PCI address ("sata_sil24 0000:03:00.0"). One controller
// keeps its row's log_prefix.
std::string controller_log_prefix(const ControllerDesc &d, const std::string &pci);

// One row per ControllerId, in its order.
const std::vector<ControllerDesc> &controller_descs();
// The row of a type; the first (ahci) for a name outside the table (the reader refuses those).
const ControllerDesc &controller_desc(const std::string &type);
const ControllerDesc &controller_desc(ControllerId id);
// "ahci, sil24, sil3112 or piix"-style lists of the rows a predicate selects ("or" between the last two).
std::string controller_names_or(const std::function<bool(const ControllerDesc &)> &select);

} // namespace satasim::harness
