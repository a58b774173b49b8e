#include "model/fault/fault_kind_spec.h"

namespace satasim::fault {

// Plain data beside the kind table: the scenario parser names ops without the injector.
const char *to_string(CommandMatch::Op op) {
    switch (op) {
    case CommandMatch::Op::Any: return "any";
    case CommandMatch::Op::Read: return "read";
    case CommandMatch::Op::Write: return "write";
    case CommandMatch::Op::Flush: return "flush";
    case CommandMatch::Op::Identify: return "identify";
    case CommandMatch::Op::Ncq: return "ncq";
    case CommandMatch::Op::NonNcq: return "non_ncq";
    }
    return "?";
}

const std::vector<KindSpec> &kind_specs() {
    static const std::vector<KindSpec> rows = {
        // kind, name, keys, binds, time_only, fires_once
        {Kind::Crc, "crc", {"dir", "fis", "dword", "mask", "burst", "symbol"}, Binds::Disk, false, false},
        {Kind::LostIrq, "lost_irq", {"count", "window"}, Binds::Disk, false, false},
        {Kind::Unplug, "unplug", {"noise"}, Binds::Disk, false, true},
        {Kind::Plug, "plug", {"model", "serial", "capacity", "blank_media"}, Binds::Disk, false, true},
        {Kind::MediaError, "media_error", {"error", "op", "lba", "count", "cleared_by_write"}, Binds::Disk, false,
         false},
        {Kind::Hang, "hang", {"comresets"}, Binds::Disk, false, false},
        {Kind::IdentifyFail, "identify_fail", {"count"}, Binds::Disk, false, false},
        {Kind::PhyFlap, "phy_flap", {"down", "noise"}, Binds::Disk, false, false},
        {Kind::LinkDegrade, "link_degrade", {"gen"}, Binds::Disk, false, false},
        // The port multiplier's control port counts no commands: a time trigger only.
        {Kind::PmpHang, "pmp_hang", {}, Binds::PmpControl, true, false},
        {Kind::Slow, "slow", {"delay", "op", "lba", "count", "window"}, Binds::Disk, false, false},
        {Kind::SpuriousIrq, "spurious_irq", {}, Binds::Disk, false, false, true},
        {Kind::IrqStorm, "irq_storm", {}, Binds::Disk, false, true, true},
        {Kind::DrqStuck, "drq_stuck", {}, Binds::Disk, false, false, true},
        {Kind::BsyStuck, "bsy_stuck", {}, Binds::Disk, false, false, true},
        {Kind::BmdmaError, "bmdma_error", {}, Binds::Disk, false, false, true, false,
         {{"dir", ParamType::Enum, {"any", "h2d", "d2h"}, 0, 0, 0,
           "the transfer that fails: the next in either direction (any), the next out of memory (h2d: a DMA "
           "write) or the next into memory (d2h: a DMA read)",
           Needs::Any}}},
        {Kind::HostBusError, "host_bus_error", {"access", "resp"}, Binds::Disk, false, false, false, true},
        // A time trigger: the port it acts on may have no drive that counts commands.
        {Kind::Cominit, "cominit", {"noise"}, Binds::Disk, true, false},
    };
    return rows;
}

std::vector<std::string> KindSpec::all_keys() const {
    std::vector<std::string> out = keys;
    for (const ParamSpec &p : params)
        out.push_back(p.key);
    return out;
}

const ParamSpec *KindSpec::param(const std::string &key) const {
    for (const ParamSpec &p : params)
        if (key == p.key)
            return &p;
    return nullptr;
}

uint64_t param(const Fault &f, const char *key) {
    for (const auto &[k, v] : f.params)
        if (k == key)
            return v;
    const KindSpec *s = kind_spec(f.kind);
    const ParamSpec *p = s ? s->param(key) : nullptr;
    return p ? p->def : 0;
}

std::string param_text(const ParamSpec &p, uint64_t v) {
    switch (p.type) {
    case ParamType::Enum: return v < p.values.size() ? p.values[v] : "?";
    case ParamType::Uint: return std::to_string(v);
    case ParamType::Time: return std::to_string(v) + "ns";
    case ParamType::Bool: return v ? "true" : "false";
    }
    return "?";
}

const KindSpec *kind_spec(Kind k) {
    for (const KindSpec &r : kind_specs())
        if (r.kind == k)
            return &r;
    return nullptr;
}

const char *to_string(Kind k) {
    const KindSpec *r = kind_spec(k);
    return r ? r->name : "?";
}

std::optional<Kind> kind_from_string(std::string_view name) {
    for (const KindSpec &r : kind_specs())
        if (name == r.name)
            return r.kind;
    return std::nullopt;
}

} // namespace satasim::fault
