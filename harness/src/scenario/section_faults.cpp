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
const std::vector<std::string> kFaultCommonKeys = {"kind", "port", "controller", "pmp_port", "devno", "id", "at", "after_cmds", "on_cmd",
                                                   "from_power_on", "repeat", "every", "every_cmds",
                                                   "min_fired"};

// A kind's own keys are its typed parameters (fault::KindSpec::params); a reader of its own
// (the rows of fault_kind_rows() below) only for what a ParamSpec cannot say: none today.

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

// A typed parameter of the kind's row (fault_kind_spec.h: ParamSpec), parsed and checked
// from its declaration alone; cap: the addressed disk's sectors (an LbaRange stays within).
fault::ParamValue parse_param(const Parser &p, const Field &v, const fault::ParamSpec &ps, uint64_t cap) {
    fault::ParamValue out;
    switch (ps.type) {
    case fault::ParamType::Enum: {
        // (an unset_default's index 0 is "not given": no name of the scenario's)
        std::vector<std::pair<const char *, uint64_t>> names;
        for (size_t i = ps.unset_default ? 1 : 0; i < ps.values.size(); ++i)
            names.push_back({ps.values[i], i});
        out.n = as_enum<uint64_t>(p, v, names);
        break;
    }
    case fault::ParamType::Op: {
        std::vector<std::pair<const char *, uint64_t>> names;
        for (size_t i = 0; i < fault::op_names().size(); ++i)
            names.push_back({fault::op_names()[i], i});
        out.n = as_enum<uint64_t>(p, v, names);
        if (ps.only && !(ps.only >> out.n & 1))
            p.fail(v, ps.only_why);
        break;
    }
    case fault::ParamType::Uint: out.n = as_uint(p, v, ps.min, ps.max); break;
    case fault::ParamType::Sectors:
        out.n = as_sectors(p, v);
        if (out.n < ps.min || out.n > ps.max)
            p.fail(v, "must be " + std::to_string(ps.min) + " .. " + std::to_string(ps.max) + " sectors");
        break;
    case fault::ParamType::Time: {
        out.n = as_time_ns(p, v);
        if (out.n < ps.min || out.n > ps.max)
            p.fail(v, ps.max == UINT64_MAX ? "must be at least " + fault::param_text(ps, ps.min)
                                           : "must be at least " + fault::param_text(ps, ps.min) + " and at most " +
                                                 fault::param_text(ps, ps.max));
        break;
    }
    case fault::ParamType::Bool: out.n = as_bool(p, v) ? 1 : 0; break;
    case fault::ParamType::String: out.text = as_ident_string(p, v, ps.max_len); break;
    case fault::ParamType::LbaRange: {
        auto r = as_lba_range(p, v, cap);
        out.n = r.first;
        out.last = r.second;
        break;
    }
    case fault::ParamType::Flags: {
        std::vector<std::pair<const char *, uint64_t>> names;
        for (size_t i = 0; i < ps.values.size(); ++i)
            names.push_back({ps.values[i], uint64_t(1) << i});
        for_each_element(p, v, [&](const Field &e, size_t) { out.n |= as_enum<uint64_t>(p, e, names); });
        break;
    }
    }
    return out;
}

// The warnings a typed parameter's row asks for, on the value the scenario gave: wider than
// the trigger's on_cmd (the fault then acts on commands the trigger never matched), or a
// combination with another parameter that does nothing.
void warn_param(const Parser &p, const Field &v, const fault::ParamSpec &ps, const fault::Fault &x) {
    const fault::ParamValue val = fault::value(x, ps);
    const CommandMatch *tm = x.trigger.on_cmd ? &*x.trigger.on_cmd : nullptr;
    if (ps.warn_wider && ps.type == fault::ParamType::Op && tm && tm->op != CommandMatch::Op::Any &&
        CommandMatch::Op(val.n) != tm->op) {
        const std::string mine = match_op_name(CommandMatch::Op(val.n)), trig = match_op_name(tm->op);
        p.warn(v.line, v.path,
               std::string(ps.key) + " " + mine + " is wider than the trigger's on_cmd.op " + trig +
                   ": after it fires, the fault also fails commands the trigger never matched (leave " + ps.key +
                   " out to keep it to " + trig + ")");
    }
    if (ps.warn_wider && ps.type == fault::ParamType::LbaRange && tm && tm->lba_first &&
        (val.n < *tm->lba_first || val.last > tm->lba_last.value_or(val.last)))
        p.warn(v.line, v.path,
               std::string(ps.key) + " [" + std::to_string(val.n) + ", " + std::to_string(val.last) +
                   "] is wider than the trigger's on_cmd.lba [" + std::to_string(*tm->lba_first) + ", " +
                   std::to_string(tm->lba_last.value_or(*tm->lba_first)) +
                   "]: sectors the trigger never matched fail too");
    if (ps.warn.msg && val.n == ps.warn.own && fault::param(x, ps.warn.other_key) == ps.warn.other)
        p.warn(v.line, v.path, ps.warn.msg);
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

// "crc, lost_irq, ... or pmp_hang" (with a drive: the kinds that act on it)
std::string kind_names_or(std::optional<fault::Drive> on = std::nullopt) {
    std::vector<const char *> names;
    for (const fault::KindSpec &k : fault::kind_specs())
        if (!on || (k.drive == fault::Drive::Any ? k.binds == fault::Binds::Disk : k.drive == *on))
            names.push_back(k.name);
    std::string s;
    for (size_t i = 0; i < names.size(); ++i)
        s += std::string(i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
    return s;
}

} // namespace

const std::vector<FaultKindRow> &fault_kind_rows() {
    static const std::vector<FaultKindRow> rows = {
        {Kind::Crc, nullptr},
        {Kind::LostIrq, nullptr},
        {Kind::Unplug, nullptr},
        {Kind::Plug, nullptr,
         " (to plug a drive into an empty connector, give the port a devices[] entry with present: false)"},
        {Kind::MediaError, nullptr},
        {Kind::Hang, nullptr},
        {Kind::IdentifyFail, nullptr},
        {Kind::PhyFlap, nullptr},
        {Kind::LinkDegrade, nullptr},
        {Kind::PmpHang, nullptr},
        {Kind::Slow, nullptr},
        {Kind::SpuriousIrq, nullptr},
        {Kind::IrqStorm, nullptr},
        {Kind::DrqStuck, nullptr},
        {Kind::BsyStuck, nullptr},
        {Kind::BmdmaError, nullptr},
        {Kind::HostBusError, nullptr},
        {Kind::Cominit, nullptr,
         " (a cominit fault on a connector without a drive: give the port a devices[] entry with present: false)"},
        {Kind::PowerLoss, nullptr},
        {Kind::BadFis, nullptr},
        {Kind::LpmFail, nullptr},
        {Kind::PmpRegAbort, nullptr},
        {Kind::CheckCondition, nullptr},
        {Kind::HbaError, nullptr},
        {Kind::LineNoise, nullptr},
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
    const DeviceSpec *target = nullptr; // the addressed drive (Binds::Disk)
    switch (spec.binds) {
    case fault::Binds::PmpControl: { // the port multiplier itself, on its host port
        const PmpSpec *pm = sc.pmp_on_port(x.port);
        if (!pm)
            p.fail(m.get("port"), "port " + std::to_string(x.port) + " has no port multiplier (pmps[])");
        if (auto *v = m.find("pmp_port")) // (pmp_hang and pmp_reg_abort: the control port's faults)
            p.fail(v->key_line, v->path, "a " + kname + " acts on the port multiplier's control port: no pmp_port");
        break;
    }
    case fault::Binds::Disk: {
        const DeviceSpec &d = addressed_disk(p, m, "port", addr, sc, row.no_disk_note);
        target = &d;
        // an ATAPI drive's commands are matched by their CDB, a READ's range in 2048-byte blocks
        cap = d.atapi ? d.atapi->disc_blocks : d.addressable();
        if (d.atapi && spec.drive == fault::Drive::Disk)
            p.fail(m.get("kind"), "a " + kname + " acts on a disk: port " + std::to_string(x.port) +
                                      " has an ATAPI drive (devices[].atapi, line " + std::to_string(d.line) +
                                      "); an ATAPI drive takes " + kind_names_or(fault::Drive::Atapi) +
                                      (x.kind == Kind::MediaError ? " (check_condition: a PACKET command's "
                                                                    "CHECK CONDITION with its sense)"
                                                                  : ""));
        if (!d.atapi && spec.drive == fault::Drive::Atapi)
            p.fail(m.get("kind"), "a " + kname + " acts on an ATAPI drive (devices[].atapi): " + addr.str() +
                                      " has a disk (line " + std::to_string(d.line) + ")");
        break;
    }
    }
    const ControllerSpec &on = sc.controller_of(x.port); // the controller the fault's port is on
    const ControllerDesc &ctl = controller_desc(on.type);
    if (spec.taskfile_only && !ctl.taskfile)
        p.fail(m.get("kind"), "a " + kname + " acts on a taskfile channel: controller " +
                                  controller_names_or([](const ControllerDesc &d) { return d.taskfile; }) +
                                  " (not " + on.type + ")");
    if (spec.ahci_only && !ctl.ahci_dma_engine)
        p.fail(m.get("kind"), "a " + kname + " acts on an AHCI port's DMA engine: controller " +
                                  controller_names_or([](const ControllerDesc &d) { return d.ahci_dma_engine; }) +
                                  " (not " + on.type + ")");

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
    if (spec.time_only && !t.at_ns) // (pmp_hang acts on the port multiplier; line_noise on the wire)
        p.fail(first_trigger->key_line, first_trigger->path,
               "a " + kname + " fires at a time (`at`): " +
                   (spec.binds == fault::Binds::PmpControl ? "the port multiplier counts no commands"
                                                           : "it acts on the wire, which counts no commands"));
    if (x.kind == Kind::Cominit && target && !target->present && !t.at_ns)
        p.fail(first_trigger->key_line, first_trigger->path,
               "a cominit on a connector without a drive (devices[] line " + std::to_string(target->line) +
                   ", present: false) fires at a time (`at`): nothing there counts commands");
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
                p.fail(v->key_line, v->path, "not on a " + on.type + " controller");
            fault::set_value(x, ps, parse_param(p, *v, ps, cap));
            warn_param(p, *v, ps, x);
        } else if (ps.required) {
            p.fail(m.line(), m.join(ps.key), ps.required);
        } else if (ps.required_at && t.at_ns) {
            p.fail(m.line(), m.join(ps.key), ps.required_at);
        } else if (ps.type == fault::ParamType::Op) { // not given: the trigger's
            fault::set_param(x, ps, uint64_t(t.on_cmd ? t.on_cmd->op : CommandMatch::Op::Any));
        }
        if (ps.forced)
            fault::set_param(x, ps, fault::param(x, ps) | ps.forced);
        if (ps.excludes && m.has(ps.key) && m.has(ps.excludes))
            p.fail(m.get(ps.key).key_line, m.get(ps.key).path,
                   std::string("give ") + ps.excludes + " or " + ps.key + ", not both");
    }
    return x;
}

} // namespace satasim::harness
