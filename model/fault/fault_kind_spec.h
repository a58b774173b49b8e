// The plain facts of each fault kind, one row per fault::Kind: its scenario name, the
// scenario keys of its own parameters, what its address names, and its trigger rules.
// Plain data without SystemC: the scenario reader (harness/src/scenario/section_faults.cpp,
// which adds each kind's reader of those keys) and the fault engine (fault_kinds.h, which
// adds the block, the trace parameters and the arming) both take these facts from here, so
// they are written once. Built as its own library, satasim_model_fault_spec
// (model/CMakeLists.txt), which links nothing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/fault/fault_plan.h"

namespace satasim::fault {

// What a fault's address (port, pmp_port) names.
enum class Binds : uint8_t {
    Disk,       // the disk on `port`, or behind the PMP there at `pmp_port`
    PmpControl, // the port multiplier on `port` itself (no pmp_port)
};

struct KindSpec {
    Kind kind;
    const char *name;              // the scenario's `kind:` and the trace's `kind` field
    std::vector<std::string> keys; // the scenario keys of its own parameters, in message order
    Binds binds;
    bool time_only;                // fires at a time only (`at`): what it acts on counts no commands
    bool fires_once;               // repeat must stay 1 (one fault per unplug or plug)
    bool taskfile_only = false;    // acts on an SFF channel: controller sil3112 or piix
    bool ahci_only = false;        // acts on an AHCI port's DMA engine: controller ahci
};

// One row per fault::Kind, in the enumeration's order (the order of the scenario
// reader's lists of kinds and keys).
const std::vector<KindSpec> &kind_specs();
// The row of a kind (null for a value outside the enumeration).
const KindSpec *kind_spec(Kind k);
// The kind a scenario names (to_string(Kind), declared in fault_plan.h, is the other way).
std::optional<Kind> kind_from_string(std::string_view name);

} // namespace satasim::fault
