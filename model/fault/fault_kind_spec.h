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

// Which controllers a kind or a parameter needs (the controller table's rows say which
// have a taskfile channel or an AHCI DMA engine: harness/src/controller/controller_table.h).
enum class Needs : uint8_t { Any, TaskfileChannel, AhciDmaEngine };

// A typed parameter, declared once in its kind's row: the scenario reader parses and
// range-checks it, the fault.inject record shows it (when not its default), the fuzz
// codec keeps it at its default and the YAML writer writes it, all from this entry; the
// model reads it with param(). A new parameter is an entry here plus its model code.
enum class ParamType : uint8_t { Enum, Uint, Time, Bool };
struct ParamSpec {
    const char *key;
    ParamType type;
    std::vector<const char *> values; // Enum: the scenario's names; the value is the index
    uint64_t min, max;                // Uint, Time (ns): the range (inclusive)
    uint64_t def;                     // the default (Enum: an index)
    const char *doc;                  // what it does (docs, messages)
    Needs needs;                      // beyond the kind's own: the controllers it applies to
};

struct KindSpec {
    Kind kind;
    const char *name;              // the scenario's `kind:` and the trace's `kind` field
    std::vector<std::string> keys; // the keys its own reader parses (section_faults.cpp), in message order
    Binds binds;
    bool time_only;                // fires at a time only (`at`): what it acts on counts no commands
    bool fires_once;               // repeat must stay 1 (one fault per unplug or plug)
    bool taskfile_only = false;    // acts on an SFF channel (a taskfile controller)
    bool ahci_only = false;        // acts on an AHCI port's DMA engine
    std::vector<ParamSpec> params = {}; // typed parameters, read without a reader of their own

    // Every scenario key of the kind: its reader's, then the typed parameters'.
    std::vector<std::string> all_keys() const;
    const ParamSpec *param(const std::string &key) const;
};

// One row per fault::Kind, in the enumeration's order (the order of the scenario
// reader's lists of kinds and keys).
const std::vector<KindSpec> &kind_specs();
// The row of a kind (null for a value outside the enumeration).
const KindSpec *kind_spec(Kind k);
// The kind a scenario names (to_string(Kind), declared in fault_plan.h, is the other way).
std::optional<Kind> kind_from_string(std::string_view name);

// A typed parameter's value in a fault: as given in the scenario, else its default (0 for a
// key its kind does not have).
uint64_t param(const Fault &f, const char *key);
// Its scenario text: an enum's name, a number, a time in ns ("1500ns"), true/false.
std::string param_text(const ParamSpec &p, uint64_t v);

} // namespace satasim::fault
