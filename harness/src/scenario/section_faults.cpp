// Section faults[] (scenarios/README.md, model/fault/fault_plan.h).
#include "scenario/sections.h"

#include "controller/controller_table.h"

#include <algorithm>

namespace satasim::harness {

namespace {

using fault::CommandMatch;
using fault::Kind;

const std::vector<std::pair<const char *, CommandMatch::Op>> kMatchOps = {
    {"any", CommandMatch::Op::Any},       {"read", CommandMatch::Op::Read},
    {"write", CommandMatch::Op::Write},   {"flush", CommandMatch::Op::Flush},
    {"identify", CommandMatch::Op::Identify}, {"ncq", CommandMatch::Op::Ncq},
    {"non_ncq", CommandMatch::Op::NonNcq}};

// The scenario's name of an op class (messages).
const char *match_op_name(CommandMatch::Op op) {
    for (const auto &[name, o] : kMatchOps)
        if (o == op)
            return name;
    return "?";
}

// Keys every fault takes (kind, where, trigger); each kind's own are in its row of
// fault::kind_specs() (model/fault/fault_kind_spec.h).
const std::vector<std::string> kFaultCommonKeys = {"kind", "port", "pmp_port", "devno", "id", "at", "after_cmds", "on_cmd",
                                                   "from_power_on", "repeat", "every", "every_cmds",
                                                   "min_fired"};

// The readers of each kind's own keys (the rows of fault_kind_rows() below).

// [first, last] sectors, inclusive, on a disk of `cap` sectors.
std::pair<uint64_t, uint64_t> as_lba_range(const Parser &p, const Field &f, uint64_t cap) {
    const YAML::Node &l = as_list(p, f);
    if (l.size() != 2)
        p.fail(f, "expected [first, last] (two sectors, inclusive)");
    uint64_t a = as_sectors(p, element(f, 0)), b = as_sectors(p, element(f, 1));
    if (b < a)
        p.fail(element(f, 1), "last is smaller than first");
    if (b >= cap)
        p.fail(element(f, 1), "sector " + std::to_string(b) + " is beyond the disk's " + std::to_string(cap) +
                                  " sectors");
    return {a, b};
}

CommandMatch parse_command_match(const Parser &p, const Field &f, uint64_t cap) {
    MapView m(p, f.node, f.path, f.line, {"op", "opcode", "lba"});
    CommandMatch c;
    if (auto *v = m.find("op"))
        c.op = as_enum<CommandMatch::Op>(p, *v, kMatchOps);
    if (auto *v = m.find("opcode"))
        c.opcode = uint8_t(as_uint(p, *v, 0, 255));
    if (auto *v = m.find("lba")) {
        auto r = as_lba_range(p, *v, cap);
        c.lba_first = r.first;
        c.lba_last = r.second;
    }
    return c;
}

void parse_media_error(const Parser &p, const MapView &m, fault::Fault &x, uint64_t cap) {
    const fault::Trigger &t = x.trigger;
    if (auto *v = m.find("error"))
        x.media.error = as_enum<fault::MediaParams::Error>(p, *v,
                                                           {{"unc", fault::MediaParams::Error::Unc},
                                                            {"idnf", fault::MediaParams::Error::Idnf},
                                                            {"write_fault", fault::MediaParams::Error::WriteFault},
                                                            {"abrt", fault::MediaParams::Error::Abrt}});
    // Scope (scenarios/README.md, "media_error scope"): without `op`, the fault keeps to the
    // commands its trigger matches (a read-triggered UNC stays on reads); the error itself
    // then picks what a drive fails (UNC: reads; a write reallocates the sector).
    const CommandMatch::Op trigger_op = t.on_cmd ? t.on_cmd->op : CommandMatch::Op::Any;
    x.media.match.op = trigger_op;
    if (auto *v = m.find("op")) {
        x.media.match.op = as_enum<CommandMatch::Op>(p, *v, kMatchOps);
        if (trigger_op != CommandMatch::Op::Any && x.media.match.op != trigger_op)
            p.warn(v->line, v->path,
                   std::string("op ") + match_op_name(x.media.match.op) + " is wider than the trigger's on_cmd.op " +
                       match_op_name(trigger_op) + ": after it fires, the fault also fails commands the trigger "
                       "never matched (leave op out to keep it to " + match_op_name(trigger_op) + ")");
        if (x.media.error == fault::MediaParams::Error::Unc && x.media.match.op == CommandMatch::Op::Write)
            p.warn(v->line, v->path, "an unc error fails reads only (a write reallocates the sector): op write "
                                     "makes this fault fail nothing");
    }
    if (auto *v = m.find("lba")) {
        auto r = as_lba_range(p, *v, cap);
        x.media.match.lba_first = r.first;
        x.media.match.lba_last = r.second;
        const CommandMatch *tm = t.on_cmd ? &*t.on_cmd : nullptr;
        if (tm && tm->lba_first && (r.first < *tm->lba_first || r.second > tm->lba_last.value_or(r.second)))
            p.warn(v->line, v->path,
                   "lba [" + std::to_string(r.first) + ", " + std::to_string(r.second) +
                       "] is wider than the trigger's on_cmd.lba [" + std::to_string(*tm->lba_first) + ", " +
                       std::to_string(tm->lba_last.value_or(*tm->lba_first)) +
                       "]: sectors the trigger never matched fail too");
    } else if (t.at_ns) {
        p.fail(m.line(), m.join("lba"), "required with an `at` trigger (the bad sectors); a command-triggered "
                                        "media error defaults to the range of the command that fires it");
    }
    if (auto *v = m.find("count"))
        x.media.count = unsigned(as_uint(p, *v, 0, 1000000));
    if (auto *v = m.find("cleared_by_write"))
        x.media.cleared_by_write = as_bool(p, *v);
}

void parse_plug(const Parser &p, const MapView &m, fault::Fault &x, uint64_t) {
    if (auto *v = m.find("model"))
        x.plug.model = as_ident_string(p, *v, 40);
    if (auto *v = m.find("serial"))
        x.plug.serial = as_ident_string(p, *v, 20);
    if (auto *v = m.find("capacity")) {
        x.plug.capacity = as_sectors(p, *v);
        if (*x.plug.capacity < 1 || *x.plug.capacity > (1ull << 48) - 1)
            p.fail(*v, "capacity must be 1 .. 2^48-1 sectors");
    }
    if (auto *v = m.find("blank_media"))
        x.plug.blank_media = as_bool(p, *v);
}

// unplug / cominit: `noise: [cominit, decode, internal]`, what the host PHY picks up from
// the wire (fault::NoiseParams). A cominit fault always sends COMINIT bursts.
void parse_noise(const Parser &p, const MapView &m, fault::Fault &x) {
    if (auto *v = m.find("noise"))
        for_each_element(p, *v, [&](const Field &e, size_t) {
            bool *bit = as_enum<bool *>(p, e, {{"cominit", &x.noise.cominit}, {"decode", &x.noise.decode},
                                               {"internal", &x.noise.internal}});
            *bit = true;
        });
}
void parse_unplug(const Parser &p, const MapView &m, fault::Fault &x, uint64_t) { parse_noise(p, m, x); }
void parse_phy_flap(const Parser &p, const MapView &m, fault::Fault &x, uint64_t) { parse_noise(p, m, x); }
void parse_cominit(const Parser &p, const MapView &m, fault::Fault &x, uint64_t) {
    parse_noise(p, m, x);
    x.noise.cominit = true;
}

// slow: late answers to reads and writes (the drive's media access starts `delay` late).
void parse_slow(const Parser &p, const MapView &m, fault::Fault &x, uint64_t cap) {
    if (!m.has("delay"))
        p.fail(m.line(), m.join("delay"), "required (how late the drive answers each matching command)");
    x.slow.delay_ns = as_time_ns(p, m.get("delay"));
    if (x.slow.delay_ns == 0 || x.slow.delay_ns > 3600ull * 1000000000ull)
        p.fail(m.get("delay"), "must be more than 0 and at most 3600s");
    const fault::Trigger &t = x.trigger;
    x.slow.match.op = t.on_cmd ? t.on_cmd->op : CommandMatch::Op::Any; // as a media error's scope
    if (auto *v = m.find("op")) {
        x.slow.match.op = as_enum<CommandMatch::Op>(p, *v, kMatchOps);
        if (x.slow.match.op == CommandMatch::Op::Flush || x.slow.match.op == CommandMatch::Op::Identify)
            p.fail(*v, "a slow fault delays reads and writes (any, read, write, ncq or non_ncq)");
    }
    if (auto *v = m.find("lba")) {
        auto r = as_lba_range(p, *v, cap);
        x.slow.match.lba_first = r.first;
        x.slow.match.lba_last = r.second;
    }
    if (m.has("count") && m.has("window"))
        p.fail(m.get("window").key_line, m.get("window").path, "give count (commands) or window (a time), not both");
    if (auto *v = m.find("count"))
        x.slow.count = unsigned(as_uint(p, *v, 0, 1000000));
    if (auto *v = m.find("window")) {
        x.slow.window_ns = as_time_ns(p, *v);
        if (x.slow.window_ns == 0)
            p.fail(*v, "must be more than 0");
    }
}

// A typed parameter of the kind's row (fault_kind_spec.h: ParamSpec), parsed and checked
// from its declaration alone.
uint64_t parse_param(const Parser &p, const Field &v, const fault::ParamSpec &ps) {
    switch (ps.type) {
    case fault::ParamType::Enum: {
        // (an unset_default's index 0 is "not given": no name of the scenario's)
        std::vector<std::pair<const char *, uint64_t>> names;
        for (size_t i = ps.unset_default ? 1 : 0; i < ps.values.size(); ++i)
            names.push_back({ps.values[i], i});
        return as_enum<uint64_t>(p, v, names);
    }
    case fault::ParamType::Uint: return as_uint(p, v, ps.min, ps.max);
    case fault::ParamType::Time: {
        const uint64_t ns = as_time_ns(p, v);
        if (ns < ps.min || ns > ps.max)
            p.fail(v, ps.max == UINT64_MAX ? "must be at least " + fault::param_text(ps, ps.min)
                                           : "must be at least " + fault::param_text(ps, ps.min) + " and at most " +
                                                 fault::param_text(ps, ps.max));
        return ns;
    }
    case fault::ParamType::Bool: return as_bool(p, v) ? 1 : 0;
    }
    return ps.def;
}

// Whether the scenario's controller has what a kind or parameter needs.
bool controller_has(const ControllerDesc &c, fault::Needs n) {
    switch (n) {
    case fault::Needs::Any: return true;
    case fault::Needs::TaskfileChannel: return c.taskfile;
    case fault::Needs::AhciDmaEngine: return c.ahci_dma_engine;
    }
    return true;
}

// "crc, lost_irq, ... or pmp_hang"
std::string kind_names_or() {
    const std::vector<fault::KindSpec> &specs = fault::kind_specs();
    std::string s;
    for (size_t i = 0; i < specs.size(); ++i)
        s += std::string(i == 0 ? "" : i + 1 == specs.size() ? " or " : ", ") + specs[i].name;
    return s;
}

} // namespace

const std::vector<FaultKindRow> &fault_kind_rows() {
    static const std::vector<FaultKindRow> rows = {
        {Kind::Crc, nullptr},
        {Kind::LostIrq, nullptr},
        {Kind::Unplug, parse_unplug},
        {Kind::Plug, parse_plug,
         " (to plug a drive into an empty connector, give the port a devices[] entry with present: false)"},
        {Kind::MediaError, parse_media_error},
        {Kind::Hang, nullptr},
        {Kind::IdentifyFail, nullptr},
        {Kind::PhyFlap, parse_phy_flap},
        {Kind::LinkDegrade, nullptr},
        {Kind::PmpHang, nullptr},
        {Kind::Slow, parse_slow},
        {Kind::SpuriousIrq, nullptr},
        {Kind::IrqStorm, nullptr},
        {Kind::DrqStuck, nullptr},
        {Kind::BsyStuck, nullptr},
        {Kind::BmdmaError, nullptr},
        {Kind::HostBusError, nullptr},
        {Kind::Cominit, parse_cominit,
         " (a cominit fault on a connector without a drive: give the port a devices[] entry with present: false)"},
        {Kind::PowerLoss, nullptr},
    };
    return rows;
}

namespace {

const FaultKindRow &fault_kind_row(Kind k) {
    for (const FaultKindRow &r : fault_kind_rows())
        if (r.kind == k)
            return r;
    return fault_kind_rows().front(); // unreachable: every Kind has a row (harness_scenario_test)
}

} // namespace

fault::Fault parse_fault(const Parser &p, const Field &f, const Scenario &sc, size_t index) {
    fault::Fault x;
    if (!f.node.IsMap())
        p.fail(f, std::string("expected a mapping, got ") + kind_name(f.node));
    // Every key of every kind is accepted here; keys of another kind are refused below
    // with a message naming the kind.
    std::vector<std::string> all = kFaultCommonKeys;
    for (const fault::KindSpec &k : fault::kind_specs())
        for (const std::string &key : k.all_keys())
            if (std::find(all.begin(), all.end(), key) == all.end())
                all.push_back(key);
    MapView m(p, f.node, f.path, f.line, all);
    x.line = m.line();
    if (!m.has("kind"))
        p.fail(m.line(), m.join("kind"), "required (" + kind_names_or() + ")");
    {
        std::vector<std::pair<const char *, Kind>> names;
        for (const fault::KindSpec &k : fault::kind_specs())
            names.push_back({k.name, k.kind});
        x.kind = as_enum<Kind>(p, m.get("kind"), names);
    }
    const fault::KindSpec &spec = *fault::kind_spec(x.kind); // as_enum gave a kind of the table
    const FaultKindRow &row = fault_kind_row(x.kind);
    const std::string kname = spec.name;
    {
        const std::vector<std::string> own = spec.all_keys();
        for (const std::string &key : all) {
            if (!m.has(key) || std::find(kFaultCommonKeys.begin(), kFaultCommonKeys.end(), key) != kFaultCommonKeys.end() ||
                std::find(own.begin(), own.end(), key) != own.end())
                continue;
            std::string list;
            for (const auto &o : own)
                list += (list.empty() ? "" : ", ") + o;
            p.fail(m.get(key).key_line, m.get(key).path,
                   "not a key of kind: " + kname + (list.empty() ? " (it has no keys of its own)" : " (its keys: " + list + ")"));
        }
    }

    const DevAddr addr = parse_dev_addr(p, m, "port", sc, "the controller port of the disk");
    x.port = addr.port;
    x.pmp_port = addr.pmp_port;
    x.devno = addr.devno;
    uint64_t cap = 0;
    switch (spec.binds) {
    case fault::Binds::PmpControl: { // the port multiplier itself, on its host port
        const PmpSpec *pm = sc.pmp_on_port(x.port);
        if (!pm)
            p.fail(m.get("port"), "port " + std::to_string(x.port) + " has no port multiplier (pmps[])");
        if (auto *v = m.find("pmp_port")) // (pmp_hang, the one such kind, hangs it)
            p.fail(v->key_line, v->path, "a " + kname + " hangs the port multiplier's control port: no pmp_port");
        break;
    }
    case fault::Binds::Disk:
        cap = addressed_disk(p, m, "port", addr, sc, row.no_disk_note).addressable();
        break;
    }
    const ControllerDesc &ctl = controller_desc(sc.controller.type);
    if (spec.taskfile_only && !ctl.taskfile)
        p.fail(m.get("kind"), "a " + kname + " acts on a taskfile channel: controller " +
                                  controller_names_or([](const ControllerDesc &d) { return d.taskfile; }) +
                                  " (not " + sc.controller.type + ")");
    if (spec.ahci_only && !ctl.ahci_dma_engine)
        p.fail(m.get("kind"), "a " + kname + " acts on an AHCI port's DMA engine: controller " +
                                  controller_names_or([](const ControllerDesc &d) { return d.ahci_dma_engine; }) +
                                  " (not " + sc.controller.type + ")");

    x.id = "fault" + std::to_string(index);
    if (auto *v = m.find("id")) {
        x.id = as_string(p, *v);
        if (!valid_name(x.id))
            p.fail(*v, "'" + x.id + "' is not a usable fault id (letters, digits, '-', '_', '.')");
    }

    // Trigger: exactly one of at / after_cmds / on_cmd.
    const Field *first_trigger = nullptr;
    for (const char *k : {"at", "after_cmds", "on_cmd"}) {
        const Field *t = m.find(k);
        if (!t)
            continue;
        if (first_trigger)
            p.fail(t->key_line, t->path,
                   "a fault has one trigger (" + first_trigger->path + " on line " +
                       std::to_string(first_trigger->key_line) + ")");
        first_trigger = t;
    }
    if (!first_trigger)
        p.fail(m.line(), m.join("at"), "a trigger is required: at (time), after_cmds (Nth command) or on_cmd "
                                       "(a command matching a filter)");
    fault::Trigger &t = x.trigger;
    if (auto *v = m.find("at"))
        t.at_ns = as_time_ns(p, *v);
    if (auto *v = m.find("after_cmds"))
        t.after_cmds = as_uint(p, *v, 1, 100000000);
    if (auto *v = m.find("on_cmd"))
        t.on_cmd = parse_command_match(p, *v, cap);
    if (auto *v = m.find("from_power_on"))
        t.from_power_on = as_bool(p, *v);
    if (auto *v = m.find("repeat"))
        t.repeat = unsigned(as_uint(p, *v, 0, 1000000));
    if (auto *v = m.find("every")) {
        if (!t.at_ns)
            p.fail(v->key_line, v->path, "only with an `at` trigger (command triggers use every_cmds)");
        t.every_ns = as_time_ns(p, *v);
        if (t.every_ns == 0)
            p.fail(*v, "must be more than 0");
        if (!m.has("repeat"))
            t.repeat = 0; // every without repeat: for ever
    }
    if (auto *v = m.find("every_cmds")) {
        if (t.at_ns)
            p.fail(v->key_line, v->path, "only with an after_cmds or on_cmd trigger (time triggers use every)");
        t.every_cmds = as_uint(p, *v, 1, 100000000);
        if (!m.has("repeat"))
            t.repeat = 0;
    }
    if (t.repeat != 1 && t.at_ns && !t.every_ns)
        p.fail(m.get("repeat"), "a repeated time trigger needs `every` (the gap between firings)");
    if (t.repeat != 1 && t.after_cmds && !t.every_cmds)
        p.fail(m.get("repeat"), "a repeated after_cmds trigger needs `every_cmds` (commands between firings)");
    if (spec.time_only && !t.at_ns) // (pmp_hang, the one such kind, acts on the port multiplier)
        p.fail(first_trigger->key_line, first_trigger->path,
               "a " + kname + " fires at a time (`at`): the port multiplier counts no commands");
    if (spec.fires_once && t.repeat != 1)
        p.fail(m.get("repeat"), "a " + kname + " fires once (use one unplug and one plug fault per cycle)");
    if (auto *v = m.find("min_fired")) {
        // fewer firings than `repeat` that still count as a pass (the verdict's, not the models')
        x.min_fired = unsigned(as_uint(p, *v, 1, 1000000));
        if (t.repeat != 0 && x.min_fired > t.repeat)
            p.fail(*v, "the fault fires at most " + std::to_string(t.repeat) + " time(s) (repeat)");
        if (t.repeat != 0 && x.min_fired == t.repeat)
            p.fail(*v, "is the fault's full count already (repeat " + std::to_string(t.repeat) +
                           "): leave min_fired out");
    }

    if (row.parse)
        row.parse(p, m, x, cap);
    for (const fault::ParamSpec &ps : spec.params) {
        if (auto *v = m.find(ps.key)) {
            if (!controller_has(ctl, ps.needs))
                p.fail(v->key_line, v->path, "not on a " + sc.controller.type + " controller");
            fault::set_param(x, ps, parse_param(p, *v, ps));
        } else if (ps.required) {
            p.fail(m.line(), m.join(ps.key), ps.required);
        }
        if (ps.excludes && m.has(ps.key) && m.has(ps.excludes))
            p.fail(m.get(ps.key).key_line, m.get(ps.key).path,
                   std::string("give ") + ps.excludes + " or " + ps.key + ", not both");
    }
    return x;
}

} // namespace satasim::harness
