// Section expect (scenarios/README.md).
#include "scenario/sections.h"

#include <map>

namespace satasim::harness {

const std::map<std::string, unsigned> &serror_bit_names() {
    static const std::map<std::string, unsigned> m = {
        {"RecovData", 0},  {"RecovComm", 1}, {"UnrecovData", 8}, {"Persist", 9},  {"Proto", 10},
        {"HostInt", 11},   {"PHYRdyChg", 16}, {"PHYInt", 17},     {"CommWake", 18}, {"10B8B", 19},
        {"Dispar", 20},    {"BadCRC", 21},   {"Handshk", 22},    {"LinkSeq", 23},  {"TrStaTrns", 24},
        {"UnrecFIS", 25},  {"DevExch", 26}};
    return m;
}

static ExpectSerror parse_expect_serror(const Parser &p, const Field &f, const Scenario &sc) {
    ExpectSerror e;
    MapView m(p, f.node, f.path, f.line, {"port", "controller", "must", "may"});
    e.line = m.line();
    e.port = parse_host_port(p, m, m.get("port"), sc);
    // A list of names; `taken`: the bits named in must (may names none of them).
    auto bits = [&](const char *key, uint32_t taken) {
        uint32_t v = 0;
        if (auto *x = m.find(key))
            for_each_element(p, *x, [&](const Field &n, size_t) {
                const std::string s = as_string(p, n);
                auto it = serror_bit_names().find(s);
                if (it == serror_bit_names().end()) {
                    std::string names;
                    for (const auto &kv : serror_bit_names())
                        names += (names.empty() ? "" : " ") + kv.first;
                    p.fail(n, "'" + s + "' is no SError bit libata names (one of: " + names + ")");
                }
                const uint32_t bit = 1u << it->second;
                if (v & bit)
                    p.fail(n, "'" + s + "' is named twice");
                if (taken & bit)
                    p.fail(n, "'" + s + "' is both in must and in may");
                v |= bit;
            });
        return v;
    };
    e.must = bits("must", 0);
    if (!e.must)
        p.fail(m.has("must") ? m.get("must") : f, "must names at least one bit the error sets");
    e.may = bits("may", e.must);
    return e;
}

static ExpectDevice parse_expect_device(const Parser &p, const Field &f, const Scenario &sc, bool after) {
    ExpectDevice e;
    MapView m(p, f.node, f.path, f.line,
              {"port", "controller", "pmp_port", "devno", "class", "model", "serial", "firmware", "sectors", "lba48", "ncq",
               "ncq_depth", "max_sectors", "multi", "xfer", "gen"});
    e.line = m.line();
    DevAddr a = parse_dev_addr(p, m, "port", sc, "the host port");
    e.port = a.port;
    e.pmp_port = a.pmp_port;
    e.devno = a.devno;
    if (auto *v = m.find("class"))
        e.cls = as_enum<std::string>(p, *v,
                                     {{"ata", "ata"}, {"atapi", "atapi"}, {"pmp", "pmp"}, {"semb", "semb"},
                                      {"zac", "zac"}, {"none", "none"}, {"unknown", "unknown"}});
    if (auto *v = m.find("model"))
        e.model = as_string(p, *v);
    if (auto *v = m.find("serial"))
        e.serial = as_string(p, *v);
    if (auto *v = m.find("firmware"))
        e.firmware = as_string(p, *v);
    if (auto *v = m.find("xfer"))
        e.xfer = as_string(p, *v);
    if (auto *v = m.find("sectors"))
        e.sectors = as_sectors(p, *v);
    if (auto *v = m.find("lba48"))
        e.lba48 = as_bool(p, *v);
    if (auto *v = m.find("ncq"))
        e.ncq = as_bool(p, *v);
    if (auto *v = m.find("ncq_depth"))
        e.ncq_depth = unsigned(as_uint(p, *v, 0, 32));
    if (auto *v = m.find("max_sectors"))
        e.max_sectors = unsigned(as_uint(p, *v, 1, 65536));
    if (auto *v = m.find("multi"))
        e.multi = unsigned(as_uint(p, *v, 0, 255));
    if (auto *v = m.find("gen")) {
        if (SchemaRecorder *r = SchemaRecorder::active(); r && after) { // the two forms below
            r->integer(v->path, 0, 3);
            r->enumeration(v->path, {"probe"});
        }
        if (v->node.IsScalar() && v->node.Scalar() == "probe") {
            if (!after)
                p.fail(*v, "gen: probe is the speed the probe negotiated: it belongs in devices_after");
            e.gen_probe = true;
        } else
            e.gen = unsigned(as_uint(p, *v, 0, 3));
    }
    return e;
}

// A list of expected devices, each port at most once.
static std::vector<ExpectDevice> parse_expect_device_list(const Parser &p, const Field &v, const Scenario &sc,
                                                          bool after) {
    const YAML::Node &l = as_list(p, v);
    std::vector<ExpectDevice> out;
    std::map<DevAddr, int> seen;
    for (size_t i = 0; i < l.size(); ++i) {
        Field ef = element(v, i);
        ExpectDevice d = parse_expect_device(p, ef, sc, after);
        const DevAddr a = d.addr();
        if (seen.count(a))
            p.fail(d.line, ef.path + ".port",
                   a.str() + " is already expected (line " + std::to_string(seen[a]) + ")");
        seen[a] = d.line;
        out.push_back(d);
    }
    return out;
}

// A list of places expected to hold no device: host ports, or {port, pmp_port} for a
// fan-out port. Each must exist, must not be in `devices` (named `devices_key` in errors)
// and, with no_disk_configured, must have no disk in the file.
static std::vector<DevAddr> parse_port_list(const Parser &p, const Field &v, const Scenario &sc,
                                     const std::vector<ExpectDevice> &devices,
                                     const std::string &devices_key, bool no_disk_configured) {
    const YAML::Node &l = as_list(p, v);
    std::vector<DevAddr> out;
    for (size_t i = 0; i < l.size(); ++i) {
        Field pf = element(v, i);
        DevAddr a;
        if (pf.node.IsMap()) {
            MapView m(p, pf.node, pf.path, pf.line, {"port", "controller", "pmp_port", "devno"});
            a = parse_dev_addr(p, m, "port", sc, "the host port");
        } else {
            a.port = unsigned(as_uint(p, pf, 0, 31)); // controller 0's port ({port, controller}: another's)
            if (a.port >= sc.controller_at(0).ports)
                p.fail(pf, no_such_port(sc, a.port));
        }
        if (no_disk_configured)
            if (const DeviceSpec *d = sc.device_at(a); d && d->present)
                p.fail(pf, a.str() + " cannot be empty: devices (line " + std::to_string(d->line) +
                               ") puts a disk there");
        for (const auto &ed : devices)
            if (ed.addr() == a)
                p.fail(pf, a.str() + " is also in " + devices_key + " (line " + std::to_string(ed.line) + ")");
        out.push_back(a);
    }
    return out;
}

void parse_expect(const Parser &p, const Field &f, Scenario &sc) {
    MapView m(p, f.node, f.path, f.line,
              {"devices", "empty_ports", "log_contains", "log_not_contains", "io_errors",
               "io_errors_min", "io_errors_max", "all_devices_found", "devices_after", "absent_after", "serror"});
    ExpectSpec &e = sc.expect;
    if (auto *v = m.find("devices"))
        e.devices = parse_expect_device_list(p, *v, sc, false);
    if (auto *v = m.find("empty_ports"))
        e.empty_ports = parse_port_list(p, *v, sc, e.devices, "expect.devices", true);
    if (auto *v = m.find("log_contains"))
        for_each_element(p, *v, [&](const Field &line, size_t) {
            e.log_contains.push_back(as_string(p, line));
            e.log_contains_lines.push_back(line.line);
        });
    if (auto *v = m.find("log_not_contains"))
        e.log_not_contains = as_string_list(p, *v);
    if (auto *v = m.find("io_errors"))
        e.io_errors = as_uint(p, *v, 0, UINT32_MAX);
    for (const char *k : {"io_errors_min", "io_errors_max"})
        if (m.has(k) && m.has("io_errors"))
            p.fail(m.get(k), std::string("give either io_errors (exact) or a range, not both (io_errors on line ") +
                                 std::to_string(m.get("io_errors").key_line) + ")");
    if (auto *v = m.find("io_errors_min"))
        e.io_errors_min = as_uint(p, *v, 0, UINT32_MAX);
    if (auto *v = m.find("io_errors_max")) {
        e.io_errors_max = as_uint(p, *v, 0, UINT32_MAX);
        if (e.io_errors_min && *e.io_errors_max < *e.io_errors_min)
            p.fail(*v, "io_errors_max is smaller than io_errors_min");
    }
    if (auto *v = m.find("all_devices_found"))
        e.all_devices_found = as_bool(p, *v);
    if (auto *v = m.find("devices_after"))
        e.devices_after = parse_expect_device_list(p, *v, sc, true);
    if (auto *v = m.find("absent_after"))
        e.absent_after = parse_port_list(p, *v, sc, e.devices_after, "expect.devices_after", false);
    if (auto *v = m.find("serror"))
        for_each_element(p, *v, [&](const Field &x, size_t) { e.serror.push_back(parse_expect_serror(p, x, sc)); });
}

} // namespace satasim::harness
