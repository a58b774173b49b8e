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
        {Kind::Unplug, "unplug", {}, Binds::Disk, false, true},
        {Kind::Plug, "plug", {"model", "serial", "capacity", "blank_media"}, Binds::Disk, false, true},
        {Kind::MediaError, "media_error", {"error", "op", "lba", "count", "cleared_by_write"}, Binds::Disk, false,
         false},
        {Kind::Hang, "hang", {"comresets"}, Binds::Disk, false, false},
        {Kind::IdentifyFail, "identify_fail", {"count"}, Binds::Disk, false, false},
        {Kind::PhyFlap, "phy_flap", {"down"}, Binds::Disk, false, false},
        {Kind::LinkDegrade, "link_degrade", {"gen"}, Binds::Disk, false, false},
        // The port multiplier's control port counts no commands: a time trigger only.
        {Kind::PmpHang, "pmp_hang", {}, Binds::PmpControl, true, false},
        {Kind::Slow, "slow", {"delay", "op", "lba", "count", "window"}, Binds::Disk, false, false},
        {Kind::SpuriousIrq, "spurious_irq", {}, Binds::Disk, false, false, true},
        {Kind::IrqStorm, "irq_storm", {}, Binds::Disk, false, true, true},
        {Kind::DrqStuck, "drq_stuck", {}, Binds::Disk, false, false, true},
        {Kind::BsyStuck, "bsy_stuck", {}, Binds::Disk, false, false, true},
        {Kind::BmdmaError, "bmdma_error", {}, Binds::Disk, false, false, true},
        {Kind::HostBusError, "host_bus_error", {"access", "resp"}, Binds::Disk, false, false, false, true},
    };
    return rows;
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
