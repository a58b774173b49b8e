#include "scenario/scenario.h"

#include <cstdio>

namespace satasim::harness {

uint64_t DeviceSpec::addressable() const {
    constexpr uint64_t kLba28Max = (1ull << 28) - 1;
    if (!lba48 && capacity > kLba28Max)
        return kLba28Max;
    return capacity;
}

uint64_t DeviceSpec::configured_sectors(bool ignore_hpa) const {
    const uint64_t n = addressable();
    return hpa && !ignore_hpa && hpa < n ? hpa : n;
}

const DeviceSpec *Scenario::device_on_port(unsigned port) const {
    for (const auto &d : devices)
        if (d.port == port && !d.pmp_port && !d.devno)
            return &d;
    return nullptr;
}

const DeviceSpec *Scenario::device_at(const DevAddr &a) const {
    for (const auto &d : devices)
        if (d.addr() == a)
            return &d;
    return nullptr;
}

std::vector<DevAddr> Scenario::disk_places(unsigned port) const {
    const PmpSpec *pm = pmp_on_port(port);
    if (!pm) {
        if (controller_of(port).slave_positions()) // master and slave of a channel
            return {{port, std::nullopt, 0}, {port, std::nullopt, 1}};
        return {{port, std::nullopt}};
    }
    std::vector<DevAddr> out;
    for (unsigned f = 0; f < pm->ports; ++f)
        out.push_back({port, f});
    return out;
}

unsigned Scenario::controller_index(unsigned port) const {
    if (!multi())
        return 0;
    unsigned i = 0;
    while (i + 1 < controllers.size() && port >= controllers[i + 1].first_port)
        ++i;
    return i;
}

std::string Scenario::port_name(unsigned port) const {
    if (!multi())
        return "port " + std::to_string(port);
    return "controller " + std::to_string(controller_index(port)) + " port " + std::to_string(local_port(port));
}

std::string DevAddr::str() const {
    return "port " + std::to_string(port) + (pmp_port ? " pmp_port " + std::to_string(*pmp_port) : "") +
           (devno ? " devno " + std::to_string(devno) : "");
}

std::string DevAddr::trace_name(const char *kind) const {
    return kind + std::to_string(port) + (pmp_port ? "." + std::to_string(*pmp_port) : std::string()) +
           (devno ? "." + std::to_string(devno) : std::string());
}

std::string DevAddr::ata_name() const {
    char buf[24];
    std::snprintf(buf, sizeof buf, "ata%u.%02u", port + 1, pmp_port.value_or(devno));
    return buf;
}

const char *op_name(OpSpec op) {
    switch (op) {
    case OpSpec::Read: return "read";
    case OpSpec::Write: return "write";
    case OpSpec::Mix: return "mix";
    case OpSpec::Flush: return "flush";
    case OpSpec::Trim: return "trim";
    }
    return "?";
}

const char *mode_name(ModeSpec m) {
    switch (m) {
    case ModeSpec::Auto: return "auto";
    case ModeSpec::Dma: return "dma";
    case ModeSpec::Pio: return "pio";
    case ModeSpec::Ncq: return "ncq";
    }
    return "?";
}

const char *pattern_name(PatternSpec p) {
    return p == PatternSpec::Random ? "random" : "sequential";
}

const char *ncq_order_name(NcqOrderSpec o) {
    switch (o) {
    case NcqOrderSpec::InOrder: return "in_order";
    case NcqOrderSpec::Reverse: return "reverse";
    case NcqOrderSpec::Random: return "random";
    case NcqOrderSpec::ShortestSeek: return "shortest_seek";
    case NcqOrderSpec::ShortestAccess: return "shortest_access";
    }
    return "?";
}

const char *submit_expect_name(SubmitExpect e) {
    switch (e) {
    case SubmitExpect::Ok: return "ok";
    case SubmitExpect::Einval: return "einval";
    case SubmitExpect::Eopnotsupp: return "eopnotsupp";
    case SubmitExpect::Enodev: return "enodev";
    }
    return "?";
}

const char *workload_kind_name(WorkloadKind k) {
    switch (k) {
    case WorkloadKind::Io: return "io";
    case WorkloadKind::Request: return "request";
    case WorkloadKind::Delete: return "delete";
    case WorkloadKind::Scan: return "scan";
    case WorkloadKind::Rescan: return "rescan";
    case WorkloadKind::Packet: return "packet";
    case WorkloadKind::Tray: return "tray";
    case WorkloadKind::Scsi: return "scsi";
    }
    return "?";
}

} // namespace satasim::harness
