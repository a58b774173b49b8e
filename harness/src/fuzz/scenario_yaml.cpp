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
    // The kind's parameters (fault_kind_spec.h), as each row says: always, where not their
    // defaults, or when given (never an unset_default's "not given").
    for (const fault::ParamSpec &ps : fault::kind_spec(x.kind)->params)
        if (fault::shown(x, ps, true))
            o << ", " << ps.key << ": " << fault::value_text(ps, fault::value(x, ps));
    if (x.min_fired)
        o << ", min_fired: " << x.min_fired;
    o << "}\n";
}

const char *order_name(NcqOrderSpec o) { return ncq_order_name(o); }

const char *trim_name(TrimSpec v) {
    switch (v) {
    case TrimSpec::None: return "none";
    case TrimSpec::Zeroes: return "zeroes";
    case TrimSpec::Deterministic: return "deterministic";
    case TrimSpec::Indeterminate: return "indeterminate";
    }
    return "none";
}

std::string hex_bytes(const std::vector<uint8_t> &v) {
    static const char *digits = "0123456789abcdef";
    std::string s;
    for (uint8_t c : v) {
        if (!s.empty())
            s += ' ';
        s += digits[c >> 4];
        s += digits[c & 15];
    }
    return s;
}

// An ATAPI drive's entry (devices[].atapi): the keys the format carries.
void write_atapi(std::ostringstream &o, const DeviceSpec &d) {
    static const char *drq[3] = {"3ms", "interrupt", "50us"};
    const AtapiSpec &a = *d.atapi;
    o << "  - {port: " << d.port << ", atapi: {dma: " << b(a.dma) << ", dmadir: " << b(a.dmadir)
      << ", medium: " << b(a.medium) << ", cdb_drq: " << drq[a.cdb_drq % 3] << "}}\n";
}

} // namespace

std::string scenario_yaml(const Scenario &sc, const std::string &header) {
    std::ostringstream o;
    if (!header.empty()) {
        std::istringstream in(header);
        for (std::string line; std::getline(in, line);)
            o << "# " << line << "\n";
    }
    const ControllerSpec &c = sc.controller;
    // What the row lets a scenario choose: ncq where it is optional, fbs where the row takes
    // it, the PCI-X erratum and the driver's workaround where the row has them.
    const ControllerDesc &row = controller_desc(c.type);
    const bool erratum = row.takes_key("pcix_irq_loss");
    o << "name: " << sc.name << "\n";
    o << "description: \"" << sc.description << "\"\n";
    o << "seed: " << sc.seed << "\n";
    o << "time_limit: " << t(sc.time_limit_ns) << "\n";
    if (sc.trace_fis)
        o << "trace_fis: true\n";
    o << "controller: {type: " << c.type << ", ports: " << c.ports;
    if (row.ncq == NcqSupport::Optional)
        o << ", ncq: " << b(c.ncq);
    if (row.takes_key("fbs"))
        o << ", fbs: " << b(c.fbs);
    if (c.gen_set)
        o << ", gen: " << c.gen;
    if (erratum)
        o << ", pcix_irq_loss: " << b(c.pcix_irq_loss);
    if (c.lpm)
        o << ", lpm: true";
    if (c.devsleep)
        o << ", devsleep: true";
    o << "}\n";
    o << "host: {no_ncq: " << b(sc.host.no_ncq);
    if (sc.host.spd_limit)
        o << ", spd_limit: " << sc.host.spd_limit;
    if (erratum)
        o << ", irq_loss_fix: " << b(sc.host.irq_loss_fix);
    if (!sc.host.eh_policy.empty())
        o << ", eh_policy: " << sc.host.eh_policy;
    if (sc.host.fua)
        o << ", fua: true";
    if (sc.host.ignore_hpa)
        o << ", ignore_hpa: true";
    if (!sc.host.lpm_policy.empty())
        o << ", lpm_policy: " << sc.host.lpm_policy;
    if (!sc.host.spd_down_unknown.empty())
        o << ", spd_down_unknown: " << sc.host.spd_down_unknown;
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
        if (d.atapi) {
            write_atapi(o, d);
            continue;
        }
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
        if (d.trim != TrimSpec::None)
            o << ", trim: " << trim_name(d.trim);
        if (d.ncq_trim)
            o << ", ncq_trim: true";
        if (d.ncq_trim_erratum)
            o << ", errata: [ncq_trim]";
        if (d.hpa)
            o << ", hpa: " << d.hpa;
        if (d.smart != SmartSpec::None)
            o << ", smart: " << (d.smart == SmartSpec::Good ? "good" : "threshold_exceeded");
        if (d.logical_log2) // (capacity and hpa above count its 4096-byte sectors)
            o << ", logical_sector: " << (512u << d.logical_log2);
        if (d.physical_log2 != d.logical_log2)
            o << ", physical_sector: " << (512u << d.physical_log2);
        if (d.align_offset)
            o << ", align_offset: " << d.align_offset;
        if (d.hipm)
            o << ", hipm: true";
        if (d.dipm)
            o << ", dipm: true";
        if (d.devsleep)
            o << ", devsleep: true";
        o << "}\n";
    }
    if (!sc.workload.empty()) {
        o << "workload:\n";
        for (const WorkloadSpec &w : sc.workload) {
            if (w.kind == WorkloadKind::Scsi || w.kind == WorkloadKind::Packet) {
                o << "  - {kind: scsi, " << addr(w.device, w.pmp_port, "device");
                o << ", cdb: \"" << hex_bytes(w.cdb) << "\"" << (w.data_in ? ", data_in: " + std::to_string(w.data_in) : "");
                if (w.barrier)
                    o << ", barrier: true";
                if (w.start_delay_ns)
                    o << ", delay: " << t(w.start_delay_ns);
                o << "}\n";
                continue;
            }
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
            if (w.fua)
                o << ", fua: true";
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
