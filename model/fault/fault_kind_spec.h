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

// Which drives a kind acts on: a disk (model/device), an ATAPI drive (model/atapi), either
// (what acts on the link or the controller, and hang).
enum class Drive : uint8_t { Any, Disk, Atapi };

// Which controllers a kind or a parameter needs (the controller table's rows say which
// have a taskfile channel or an AHCI DMA engine: harness/src/controller/controller_table.h).
enum class Needs : uint8_t { Any, TaskfileChannel, AhciDmaEngine };

// A typed parameter, declared once in its kind's row: the scenario reader parses and
// range-checks it, the fault.inject record shows it, the fuzz codec packs it into the input's
// bytes (or keeps its default) and the YAML writer writes it, all from this entry; the model
// reads it with param() (or from its own struct: `get`/`set` bind an older parameter to the
// field of fault_plan.h the model code reads). A new parameter is an entry here plus its model
// code.
//   Enum     one of `values` (the value is the index)
//   Uint     a number in [min, max]
//   Time     a time in ns in [min, max], written with a unit
//   Bool     true/false
//   Op       a class of commands (any, read, write, flush, identify, ncq, non_ncq; the value is a
//            CommandMatch::Op); not given, the trigger's on_cmd op (any for the other triggers)
//   Sectors  a count of sectors (a number or a size: `1g`) in [min, max]
//   String   printable ASCII of at most max_len characters (ParamValue::text)
//   LbaRange [first, last], inclusive, within the addressed disk (ParamValue::first, last)
//   Flags    a set of `values` written as a YAML list (the value is a bit mask, bit i: values[i])
// String and LbaRange do not fit one number: they are bound with getv/setv and read with
// value(); the others are one number (param()).
enum class ParamType : uint8_t { Enum, Uint, Time, Bool, Op, Sectors, String, LbaRange, Flags };

// When the fault.inject record or the YAML writer shows a value (Same: the YAML writer as
// the record; Never: not at all). A String or LbaRange shows when given, whatever the rule.
enum class Show : uint8_t { NotDefault, Always, NonZero, Same, Never };

// Where a value sits in a fuzz input (harness/src/fuzz/fuzz_input.cpp): in the kind's own
// bytes (the ten after the trigger's), `bytes` little-endian at `offset`, or the bit field
// `bits` at `shift` of that byte. Decoded: (raw % mod, when mod) + bias, times unit; a raw 0
// is the default when zero_is_default. No bytes: the decoder keeps the default (a parameter
// added after the format, so saved inputs decode as before). Two parameters of which a
// scenario gives one (lost_irq's count or window) share their bytes: a selector bit (mask
// sel_mask of the kind's byte sel_offset) says which is there; the one that is not keeps
// its default, and the encoder writes the one whose value is not 0. The same selector says
// whether an optional value is there at all (a String, an LbaRange, plug's capacity), and a
// selector mask of several bits tests them together (present when all clear: sel_set false,
// slow's count while its window's nibble is 0).
//   map       instead of bias and unit: the value of each raw step (raw % map's size; the
//             encoder writes the index of the value), e.g. a subset of the ops, an inverted bit
//   round_up  the encoder rounds a value between steps up (else down)
//   text      String: the value when present (text_index: followed by the fault's index)
//   LbaRange: first is `bytes` (4) at offset, the span (last - first) 2 bytes after it;
//             decoded, first is taken modulo the disk's capacity and last kept within it. A
//             parameter `required_at` is present in every fault with an `at` trigger.
struct FuzzField {
    uint8_t offset = 0;
    uint8_t bytes = 0; // 1, 2 or 4; 0: not in the format (but a String with text)
    uint8_t shift = 0, bits = 0;
    uint64_t mod = 0, bias = 0, unit = 1;
    bool zero_is_default = false;
    uint8_t sel_offset = 0, sel_mask = 0; // sel_mask 0: no selector
    bool sel_set = false;                 // present when the bit is set (else when clear)
    std::vector<uint64_t> map = {};
    bool round_up = false;
    const char *text = nullptr;
    bool text_index = false;
    // The first format version that holds it (docs/fuzzing.md "Format versions"): an input of
    // an older version decodes it as its default, as it did before the field existed.
    uint8_t since = 1;
    // Whether the format holds this parameter at all.
    bool in_format() const { return bytes != 0 || text != nullptr; }
};

// The value of any parameter: one number (n), or what String and LbaRange need, and whether
// the scenario gave it (always true for a number: its default stands in).
struct ParamValue {
    bool given = true;
    uint64_t n = 0;    // the number; LbaRange: first
    uint64_t last = 0; // LbaRange
    std::string text;  // String
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
    // The binding of a String or LbaRange (not one number): its field in Fault.
    ParamValue (*getv)(const Fault &) = nullptr;
    void (*setv)(Fault &, const ParamValue &) = nullptr;
    size_t max_len = 0;                // String: its longest
    uint64_t only = 0;                 // Op: the ops a scenario may name (bit per op; 0: all) ...
    const char *only_why = nullptr;    // ... and the message for another
    const char *required_at = nullptr; // the message when an `at` trigger needs it (null: optional)
    bool from_command = false;         // LbaRange not given: the range of the command that fires it
    // Op, LbaRange: warn when the value is wider than the trigger's on_cmd (the fault then
    // also acts on commands the trigger never matched).
    bool warn_wider = false;
    // A warning when this parameter is given as `own` while `other_key` holds `other`.
    struct Warn {
        const char *other_key = nullptr;
        uint64_t other = 0, own = 0;
        const char *msg = nullptr;
    } warn = {};
    uint64_t forced = 0;                // Flags: bits always set (the kind's own; not written)
    // Flags: the record shows flags from this index on only when set (a flag added later
    // leaves the records of scenarios without it as they were).
    size_t flags_shown_when_set = SIZE_MAX;
    const char *yaml_unless = nullptr;  // the YAML writer shows it only while this key's value is 0
};

// Whether the record (yaml false) or the YAML writer (true) shows value v of p (the rule
// on one number; shown() is the whole rule).
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
    Drive drive = Drive::Any;

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
// ("1500ns", "2ms"), true/false, an op's name, a flag set's list ("[decode, internal]").
std::string param_text(const ParamSpec &p, uint64_t v);

// Any parameter's value (String and LbaRange through getv; the others as param()).
ParamValue value(const Fault &f, const ParamSpec &p);
void set_value(Fault &f, const ParamSpec &p, const ParamValue &v);
// Whether the record (yaml false) or the YAML writer (true) shows p's value in f.
bool shown(const Fault &f, const ParamSpec &p, bool yaml);
// What the YAML writer writes after `key: ` (param_text; a string quoted, a range
// "[first, last]", a flag set without its forced bits).
std::string value_text(const ParamSpec &p, const ParamValue &v);
// The names of the ops (ParamType::Op), in CommandMatch::Op's order.
const std::vector<const char *> &op_names();

} // namespace satasim::fault
