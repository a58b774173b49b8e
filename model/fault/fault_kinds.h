// The fault kinds as the fault engine sees them, one table row each: the block it acts
// through, the parameters it shows in its `fault.inject` record and how it arms that
// block's hook (model/fault/README.md). The plain facts of a kind (its scenario name and
// keys, what its address names, its trigger rules) are its row in fault_kind_spec.h, which
// the scenario reader reads too; each row here points at that row. The injector reads this
// table and switches on no kind; adding a kind means adding an enumerator to fault::Kind, a
// row to kind_specs(), a row to kind_table() and (if it has keys) a reader in the harness.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "model/atapi/atapi_device.h"
#include "model/common/trace.h"
#include "model/device/sata_disk.h"
#include "model/fault/fault_kind_spec.h"
#include "model/fault/fault_plan.h"
#include "model/link/sata_link.h"
#include "model/sff/sff_channel.h"

namespace satasim::fault {

// The hooks of one disk: on a host port, or behind the port multiplier there. The
// controller and the port multiplier are reached through callbacks so that this block does
// not depend on which HBA model the scenario uses.
struct PortHooks {
    device::SataDisk *disk = nullptr;
    atapi::AtapiDevice *atapi = nullptr; // instead of a disk: an ATAPI drive (devices[].atapi)
    link::SataLink *link = nullptr; // the disk's own link (a fan-out link behind a PMP)
    std::function<void(unsigned count, uint64_t window_ns, const std::string &id)> lost_irq;
    std::function<void()> clear_hba; // the controller's clear_faults() (shared by all ports)
    std::function<void(const std::string &id)> pmp_hang; // the port's PMP control port hangs
    // the port's PMP aborts reads of one fan-out port's PSCR register
    std::function<void(unsigned pscr_port, unsigned reg, const std::string &id)> pmp_reg_abort;
    std::function<void()> clear_pmp;                      // and its faults are cleared
    sff::SffChannel *channel = nullptr; // the disk's taskfile channel (SFF controllers only)
    // The AHCI controller's host bus fails the port's next matching DMA (AHCI only).
    std::function<void(const BusErrorParams &bus, const std::string &id)> host_bus_error;
    // The AHCI port's engine fails inside at its next DMA access (AHCI only; the SystemC model).
    std::function<void(unsigned error, unsigned irq, const std::string &id)> hba_error;
};

// The blocks a fault acts through. Each keeps what was armed; disarm() is its
// clear_faults(), reached through the PortHooks of one disk.
enum class Block : uint8_t { Disk, Link, Hba, Pmp };

struct BlockRow {
    Block block;
    const char *name;
    void (*disarm)(const PortHooks &h); // a no-op when the hook is not bound
};
// Every block, in the order FaultInjector::reset() disarms them.
const std::vector<BlockRow> &block_table();

using TraceFields = std::vector<std::pair<std::string, TraceValue>>;

// One firing of a fault: the fault, and the command that fired it (command triggers; null
// for time triggers and directed `inject` steps).
struct Firing {
    const Fault &fault;
    const device::CommandInfo *cmd;
};

struct KindRow {
    Kind kind;
    Block block; // whose hook arm() reaches
    // Appends the kind's parameters to the `fault.inject` record (null: it has none).
    void (*params)(const Firing &f, TraceFields &out);
    // Arms the block's hook for this firing; hooks that are not bound are skipped.
    void (*arm)(const Firing &f, const PortHooks &h);
    const KindSpec *spec = nullptr; // the kind's plain facts (kind_table() sets it)
};

// The fault as it fires: a typed parameter whose row says it comes from the firing command
// when not given (`from_command`: media_error's and slow's `lba`) takes that command's range
// (nothing changes for a time trigger). The record shows it and the block is armed with it.
Fault at_firing(const Fault &f, const device::CommandInfo *cmd);
// Appends f's typed parameters to its fault.inject record, as each row's entry says (the
// field, when it shows; an LBA range as <field>_first/_last, a flag set as one boolean each).
void trace_params(const Fault &f, TraceFields &out);

// One row per fault::Kind, in the enumeration's order (that of kind_specs()).
const std::vector<KindRow> &kind_table();
// The row of a kind (null for a value outside the enumeration).
const KindRow *kind_row(Kind k);

} // namespace satasim::fault
