#include "fuzz/scenario_yaml.h"

#include <sstream>

#include "controller/controller_table.h"
#include "model/fault/fault_kind_spec.h"

namespace satasim::harness::fuzz {

namespace {

using fault::CommandMatch;

// A time in the largest unit that keeps it whole.
std::string t(uint64_t ns) {
    if (ns && ns % 1000000000ull == 0)
        return std::to_string(ns / 1000000000ull) + "s";
    if (ns && ns % 1000000ull == 0)
        return std::to_string(ns / 1000000ull) + "ms";
    if (ns && ns % 1000ull == 0)
        return std::to_string(ns / 1000ull) + "us";
    return std::to_string(ns) + "ns";
}

const char *b(bool v) { return v ? "true" : "false"; }

std::string addr(unsigned port, const std::optional<unsigned> &pmp_port, const char *key = "port") {
    std::string s = std::string(key) + ": " + std::to_string(port);
    if (pmp_port)
        s += ", pmp_port: " + std::to_string(*pmp_port);
    return s;
}

const char *match_op(CommandMatch::Op op) { return fault::to_string(op); }

std::string lba_range(uint64_t first, uint64_t last) {
    return "[" + std::to_string(first) + ", " + std::to_string(last) + "]";
}

void write_fault(std::ostringstream &o, const fault::Fault &x) {
    const fault::Trigger &tr = x.trigger;
    o << "  - {kind: " << fault::to_string(x.kind) << ", id: " << x.id << ", " << addr(x.port, x.pmp_port);
    if (tr.at_ns)
        o << ", at: " << t(*tr.at_ns);
    if (tr.after_cmds)
        o << ", after_cmds: " << *tr.after_cmds;
    if (tr.on_cmd) {
        o << ", on_cmd: {op: " << match_op(tr.on_cmd->op);
        if (tr.on_cmd->lba_first)
            o << ", lba: " << lba_range(*tr.on_cmd->lba_first, *tr.on_cmd->lba_last);
        o << "}";
    }
    if (tr.from_power_on)
        o << ", from_power_on: true";
    if (tr.repeat != 1)
        o << ", repeat: " << tr.repeat;
    if (tr.every_ns)
        o << ", every: " << t(tr.every_ns);
    if (tr.every_cmds)
        o << ", every_cmds: " << tr.every_cmds;
    // The older parameters by hand; the typed ones (fault_kind_spec.h) below.
    switch (x.kind) {
    case fault::Kind::Plug:
        if (x.plug.model)
            o << ", model: \"" << *x.plug.model << "\"";
        if (x.plug.serial)
            o << ", serial: \"" << *x.plug.serial << "\"";
        if (x.plug.capacity)
            o << ", capacity: " << *x.plug.capacity;
        o << ", blank_media: " << b(x.plug.blank_media);
        break;
    case fault::Kind::MediaError:
        o << ", error: " << fault::to_string(x.media.error) << ", op: " << match_op(x.media.match.op);
        if (x.media.match.lba_first)
            o << ", lba: " << lba_range(*x.media.match.lba_first, *x.media.match.lba_last);
        o << ", count: " << x.media.count << ", cleared_by_write: " << b(x.media.cleared_by_write);
        break;
    case fault::Kind::Slow:
        o << ", delay: " << t(x.slow.delay_ns) << ", op: " << match_op(x.slow.match.op);
        if (x.slow.match.lba_first)
            o << ", lba: " << lba_range(*x.slow.match.lba_first, *x.slow.match.lba_last);
        if (x.slow.window_ns)
            o << ", window: " << t(x.slow.window_ns);
        else
            o << ", count: " << x.slow.count;
        break;
    case fault::Kind::Unplug:
    case fault::Kind::Cominit:
        if (x.noise.decode || x.noise.internal || (x.kind == fault::Kind::Unplug && x.noise.cominit)) {
            std::string l;
            for (auto [on, name] : {std::pair{x.noise.cominit && x.kind == fault::Kind::Unplug, "cominit"},
                                    {x.noise.decode, "decode"}, {x.noise.internal, "internal"}})
                if (on)
                    l += (l.empty() ? "" : ", ") + std::string(name);
            o << ", noise: [" << l << "]";
        }
        break;
    case fault::Kind::Crc: // typed parameters only
    case fault::Kind::LostIrq:
    case fault::Kind::IdentifyFail:
    case fault::Kind::PhyFlap:
    case fault::Kind::LinkDegrade:
    case fault::Kind::HostBusError:
    case fault::Kind::Hang:
    case fault::Kind::PmpHang:
    case fault::Kind::SpuriousIrq:
    case fault::Kind::IrqStorm:
    case fault::Kind::DrqStuck:
    case fault::Kind::BsyStuck:
    case fault::Kind::BmdmaError:
        break;
    default: // kinds with typed parameters only (below)
        break;
    }
    // The kind's typed parameters (fault_kind_spec.h): always or where not their defaults,
    // as each row says (never an unset_default's "not given").
    for (const fault::ParamSpec &ps : fault::kind_spec(x.kind)->params)
        if (const uint64_t v = fault::param(x, ps); fault::param_shown(ps, v, true))
            o << ", " << ps.key << ": " << fault::param_text(ps, v);
    if (x.min_fired)
        o << ", min_fired: " << x.min_fired;
    o << "}\n";
}

const char *order_name(NcqOrderSpec o) { return ncq_order_name(o); }

} // namespace

std::string scenario_yaml(const Scenario &sc, const std::string &header) {
    std::ostringstream o;
    if (!header.empty()) {
        std::istringstream in(header);
        for (std::string line; std::getline(in, line);)
            o << "# " << line << "\n";
    }
    const ControllerSpec &c = sc.controller;
    // A SiI3124 (the row taking the PCI-X erratum keys): fixed ncq and fbs, its erratum written.
    const bool sil24 = controller_desc(c.type).takes_key("pcix_irq_loss");
    o << "name: " << sc.name << "\n";
    o << "description: \"" << sc.description << "\"\n";
    o << "seed: " << sc.seed << "\n";
    o << "time_limit: " << t(sc.time_limit_ns) << "\n";
    if (sc.trace_fis)
        o << "trace_fis: true\n";
    o << "controller: {type: " << c.type << ", ports: " << c.ports;
    if (!sil24)
        o << ", ncq: " << b(c.ncq) << ", fbs: " << b(c.fbs);
    if (c.gen_set)
        o << ", gen: " << c.gen;
    if (sil24)
        o << ", pcix_irq_loss: " << b(c.pcix_irq_loss);
    o << "}\n";
    o << "host: {no_ncq: " << b(sc.host.no_ncq);
    if (sc.host.spd_limit)
        o << ", spd_limit: " << sc.host.spd_limit;
    if (sil24)
        o << ", irq_loss_fix: " << b(sc.host.irq_loss_fix);
    if (!sc.host.eh_policy.empty())
        o << ", eh_policy: " << sc.host.eh_policy;
    o << "}\n";
    o << "link: {mode: " << (sc.link_mode == LinkModeSpec::Fis ? "fis" : "dword") << "}\n";
    if (!sc.pmps.empty()) {
        o << "pmps:\n";
        for (const PmpSpec &p : sc.pmps)
            o << "  - {port: " << p.port << ", ports: " << p.ports << ", product: " << p.product
              << ", fbs: " << b(p.fbs) << ", async_notify: " << b(p.async_notify) << "}\n";
    }
    o << (sc.devices.empty() ? "devices: []\n" : "devices:\n");
    for (const DeviceSpec &d : sc.devices) {
        o << "  - {" << addr(d.port, d.pmp_port) << ", serial: \"" << d.serial << "\", capacity: " << d.capacity
          << ", lba48: " << b(d.lba48) << ", ncq: " << b(d.ncq) << ", ncq_depth: " << d.ncq_depth;
        if (d.gen_set)
            o << ", gen: " << d.gen;
        o << ", multi: " << d.multi << ", write_cache: " << b(d.write_cache) << ", ncq_order: " << order_name(d.ncq_order)
          << ", timing: {kind: " << (d.timing.ssd ? "ssd" : "hdd") << "}";
        if (!d.present)
            o << ", present: false";
        if (d.ncq_sdb_coalesce_ns)
            o << ", ncq_sdb_coalesce: " << t(d.ncq_sdb_coalesce_ns);
        if (d.link_mode)
            o << ", link: {mode: " << (*d.link_mode == LinkModeSpec::Fis ? "fis" : "dword") << "}";
        o << "}\n";
    }
    if (!sc.workload.empty()) {
        o << "workload:\n";
        for (const WorkloadSpec &w : sc.workload) {
            o << "  - {" << addr(w.device, w.pmp_port, "device") << ", op: " << op_name(w.op);
            if (w.op == OpSpec::Mix)
                o << ", read_pct: " << w.read_pct;
            if (w.op != OpSpec::Flush) {
                o << ", pattern: " << pattern_name(w.pattern);
                if (w.block_min == w.block_max)
                    o << ", block: " << w.block_min;
                else
                    o << ", block: {min: " << w.block_min << ", max: " << w.block_max << "}";
                o << ", region: {start: " << w.region_start << ", length: " << w.region_length << "}";
                o << ", prefill: " << b(w.prefill == PrefillSpec::Yes);
                if (w.sg_segment != WorkloadSpec{}.sg_segment)
                    o << ", sg_segment: " << w.sg_segment;
            }
            o << ", qd: " << w.qd << ", count: " << w.count << ", mode: " << mode_name(w.mode);
            if (w.barrier)
                o << ", barrier: true";
            if (w.start_delay_ns)
                o << ", delay: " << t(w.start_delay_ns);
            o << "}\n";
        }
    }
    if (!sc.faults.empty()) {
        o << "faults:\n";
        for (const fault::Fault &x : sc.faults)
            write_fault(o, x);
    }
    o << "expect:\n";
    if (sc.expect.io_errors_min || sc.expect.io_errors_max) {
        o << "  io_errors_min: " << sc.expect.io_errors_min.value_or(0) << "\n";
        if (sc.expect.io_errors_max)
            o << "  io_errors_max: " << *sc.expect.io_errors_max << "\n";
    } else {
        o << "  io_errors: " << sc.expect.io_errors << "\n";
    }
    return o.str();
}

} // namespace satasim::harness::fuzz
