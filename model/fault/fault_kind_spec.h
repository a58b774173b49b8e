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
// range-checks it, the fault.inject record shows it, the fuzz codec packs it into the input's
// bytes (or keeps its default) and the YAML writer writes it, all from this entry; the model
// reads it with param() (or from its own struct: `get`/`set` bind an older parameter to the
// field of fault_plan.h the model code reads). A new parameter is an entry here plus its model
// code.
enum class ParamType : uint8_t { Enum, Uint, Time, Bool };

// When the fault.inject record or the YAML writer shows a value (Same: the YAML writer as
// the record).
enum class Show : uint8_t { NotDefault, Always, NonZero, Same };

// Where a value sits in a fuzz input (harness/src/fuzz/fuzz_input.cpp): in the kind's own
// bytes (the ten after the trigger's), `bytes` little-endian at `offset`, or the bit field
// `bits` at `shift` of that byte. Decoded: (raw % mod, when mod) + bias, times unit; a raw 0
// is the default when zero_is_default. No bytes: the decoder keeps the default (a parameter
// added after the format, so saved inputs decode as before). Two parameters of which a
// scenario gives one (lost_irq's count or window) share their bytes: a selector bit (mask
// sel_mask of the kind's byte sel_offset) says which is there; the one that is not keeps
// its default, and the encoder writes the one whose value is not 0.
struct FuzzField {
    uint8_t offset = 0;
    uint8_t bytes = 0; // 1, 2 or 4; 0: not in the format
    uint8_t shift = 0, bits = 0;
    uint64_t mod = 0, bias = 0, unit = 1;
    bool zero_is_default = false;
    uint8_t sel_offset = 0, sel_mask = 0; // sel_mask 0: no selector
    bool sel_set = false;                 // present when the bit is set (else when clear)
};

struct ParamSpec {
    const char *key;
    ParamType type;
    std::vector<const char *> values; // Enum: the scenario's names; the value is the index
    uint64_t min, max;                // Uint, Time (ns): the range (inclusive)
    uint64_t def;                     // the default (Enum: an index)
    const char *doc;                  // what it does (docs, messages)
    Needs needs;                      // beyond the kind's own: the controllers it applies to
    // The model binding of an older parameter: its field in Fault (null: Fault::params).
    uint64_t (*get)(const Fault &) = nullptr;
    void (*set)(Fault &, uint64_t) = nullptr;
    // The fault.inject record: the field's name (null: the key), when it shows, a number in
    // hex; the YAML writer shows it under the same rule (hex too).
    const char *trace_field = nullptr;
    Show show = Show::NotDefault;
    Show yaml = Show::Same;
    bool hex = false;
    FuzzField fuzz = {};
    // Enum: value 0 is "not given" (the model then does what values[0] names; a scenario
    // cannot name it: the reader takes the first other index of a name, the writer omits it).
    bool unset_default = false;
    const char *required = nullptr; // the message when the scenario must give it (null: optional)
    const char *excludes = nullptr; // the key it may not be given with (the message: one or the other)
};

// Whether the record (yaml false) or the YAML writer (true) shows value v of p.
bool param_shown(const ParamSpec &p, uint64_t v, bool yaml);

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
    // The drive loses its power when it fires (an unplug, a power loss): the data check then
    // accepts that writes acknowledged but never made durable are gone (docs/disk-models.md).
    bool cuts_power = false;
    // In the fuzz input's byte format (harness/src/fuzz/fuzz_input.cpp). A kind added after
    // the format is not: taking it in would change what every saved input decodes to.
    bool in_fuzz_format = true;

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

// A typed parameter's value in a fault: its bound field's, else as given in the scenario,
// else its default (0 for a key its kind does not have).
uint64_t param(const Fault &f, const char *key);
uint64_t param(const Fault &f, const ParamSpec &p);
// Sets it (its bound field, else Fault::params).
void set_param(Fault &f, const ParamSpec &p, uint64_t v);
// Its scenario text: an enum's name, a number (hex: 0x..), a time in its largest whole unit
// ("1500ns", "2ms"), true/false.
std::string param_text(const ParamSpec &p, uint64_t v);

} // namespace satasim::fault
