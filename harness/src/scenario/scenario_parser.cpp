#include "scenario/scenario_parser.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "backend/rules.h"
#include "scenario/scenario_include.h"
#include "scenario/units.h"
#include "trace/vcd_writer.h"

namespace satasim::harness {

namespace {

// ---------------------------------------------------------------------------------------
// Locations and errors

class Parser;

int line_of(const YAML::Node &n, int fallback) {
    if (!n.IsDefined())
        return fallback;
    YAML::Mark m = n.Mark();
    return m.line >= 0 ? m.line + 1 : fallback;
}

// One key's value, with where it is.
struct Field {
    YAML::Node node;
    std::string path; // "devices[1].port"
    int key_line = 0;
    int line = 0; // the value's line (the key's when the value has no position)
};

class Parser {
  public:
    explicit Parser(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(int line, const std::string &path, const std::string &msg) const {
        std::ostringstream os;
        os << (file_for_ ? file_for_(path) : file_) << ":" << (line > 0 ? line : 1) << ": ";
        if (!path.empty())
            os << path << ": ";
        os << msg;
        throw ScenarioError(os.str());
    }
    [[noreturn]] void fail(const Field &f, const std::string &msg) const { fail(f.line, f.path, msg); }

    const std::string &file() const { return file_; }
    // The rules of the scenario's backend (backend/rules.h): set once `backend` is read.
    const BackendRules *backend = nullptr;
    // With `include:`, the file a key path came from (errors name it).
    std::function<std::string(const std::string &path)> file_for_;

  private:
    std::string file_;
};

const char *kind_name(const YAML::Node &n) {
    switch (n.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "an undefined value";
    }
}

// A mapping whose keys are checked against an allowed list on construction.
class MapView {
  public:
    MapView(const Parser &p, const YAML::Node &node, std::string path, int line,
            std::vector<std::string> allowed)
        : p_(p), path_(std::move(path)), line_(line_of(node, line)) {
        if (!node.IsMap())
            p_.fail(line_, path_, std::string("expected a mapping, got ") + kind_name(node));
        for (auto it = node.begin(); it != node.end(); ++it) {
            YAML::Node k = it->first; // by value: the iterator hands out a temporary pair
            int kline = line_of(k, line_);
            if (!k.IsScalar())
                p_.fail(kline, path_, "keys must be plain names");
            std::string key = k.Scalar();
            std::string kpath = join(key);
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string list;
                for (const auto &a : allowed)
                    list += (list.empty() ? "" : ", ") + a;
                p_.fail(kline, kpath, "unknown key (expected one of: " + list + ")");
            }
            if (fields_.count(key))
                p_.fail(kline, kpath, "duplicate key (first on line " +
                                          std::to_string(fields_[key].key_line) + ")");
            Field f;
            f.node = YAML::Node(it->second);
            f.path = kpath;
            f.key_line = kline;
            f.line = line_of(f.node, kline);
            fields_[key] = f;
        }
    }

    bool has(const std::string &k) const { return fields_.count(k) != 0; }
    const Field &get(const std::string &k) const { return fields_.at(k); }
    const Field *find(const std::string &k) const {
        auto it = fields_.find(k);
        return it == fields_.end() ? nullptr : &it->second;
    }
    int line() const { return line_; }
    const std::string &path() const { return path_; }
    std::string join(const std::string &k) const { return path_.empty() ? k : path_ + "." + k; }

  private:
    const Parser &p_;
    std::string path_;
    int line_;
    std::map<std::string, Field> fields_;
};

// ---------------------------------------------------------------------------------------
// Typed values

std::string scalar(const Parser &p, const Field &f, const char *what) {
    if (!f.node.IsScalar())
        p.fail(f, std::string("expected ") + what + ", got " + kind_name(f.node));
    return f.node.Scalar();
}

std::string as_string(const Parser &p, const Field &f) { return scalar(p, f, "a string"); }

uint64_t as_uint(const Parser &p, const Field &f, uint64_t lo, uint64_t hi) {
    std::string s = scalar(p, f, "an integer");
    auto v = parse_uint(s);
    if (!v)
        p.fail(f, "expected a non-negative integer, got '" + s + "'");
    if (*v < lo || *v > hi)
        p.fail(f, s + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return *v;
}

bool as_bool(const Parser &p, const Field &f) {
    std::string s = scalar(p, f, "true or false");
    std::string l;
    for (char c : s)
        l.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    if (l == "true" || l == "yes" || l == "on")
        return true;
    if (l == "false" || l == "no" || l == "off")
        return false;
    p.fail(f, "expected true or false, got '" + s + "'");
}

template <typename E>
E as_enum(const Parser &p, const Field &f, const std::vector<std::pair<const char *, E>> &names) {
    std::string s = scalar(p, f, "a name");
    for (const auto &n : names)
        if (s == n.first)
            return n.second;
    std::string list;
    for (const auto &n : names)
        list += (list.empty() ? "" : ", ") + std::string(n.first);
    p.fail(f, "unknown value '" + s + "' (expected one of: " + list + ")");
}

// A scalar in units: parse() returns nullopt and says why for anything it cannot take.
template <typename T, typename Parse>
T as_quantity(const Parser &p, const Field &f, const std::string &what, Parse parse) {
    std::string s = scalar(p, f, ("a " + what).c_str());
    std::string why;
    std::optional<T> v = parse(s, &why);
    if (!v)
        p.fail(f, "bad " + what + " '" + s + "': " + why);
    return *v;
}

uint64_t as_sectors(const Parser &p, const Field &f) {
    return as_quantity<uint64_t>(p, f, "size", parse_size_sectors);
}

uint64_t as_bytes(const Parser &p, const Field &f) {
    return as_quantity<uint64_t>(p, f, "size", [](const std::string &s, std::string *why) {
        return parse_size_bytes(s, 1, why);
    });
}

uint64_t as_time_ns(const Parser &p, const Field &f) {
    return as_quantity<uint64_t>(p, f, "time", parse_time_ns);
}

double as_rate(const Parser &p, const Field &f) {
    return as_quantity<double>(p, f, "rate", parse_rate_mb_s);
}

std::string as_ident_string(const Parser &p, const Field &f, size_t max_len) {
    std::string s = as_string(p, f);
    if (s.size() > max_len)
        p.fail(f, "'" + s + "' is longer than " + std::to_string(max_len) + " characters");
    for (unsigned char c : s)
        if (c < 0x20 || c > 0x7e)
            p.fail(f, "only printable ASCII is allowed in IDENTIFY strings");
    return s;
}

const YAML::Node &as_list(const Parser &p, const Field &f) {
    if (!f.node.IsSequence())
        p.fail(f, std::string("expected a list, got ") + kind_name(f.node));
    return f.node;
}

// Element i of a list, as a Field.
Field element(const Field &list, size_t i) {
    Field e;
    e.node = list.node[i];
    e.path = list.path + "[" + std::to_string(i) + "]";
    e.key_line = list.line;
    e.line = line_of(e.node, list.line);
    return e;
}

// Calls each(element, index) for every element of the list f (anything else is an error).
template <class Each> void for_each_element(const Parser &p, const Field &f, Each &&each) {
    const YAML::Node &l = as_list(p, f);
    for (size_t i = 0; i < l.size(); ++i)
        each(element(f, i), i);
}

std::vector<std::string> as_string_list(const Parser &p, const Field &f) {
    std::vector<std::string> out;
    for_each_element(p, f, [&](const Field &e, size_t) { out.push_back(as_string(p, e)); });
    return out;
}

// ---------------------------------------------------------------------------------------
// Sections

// The refusal of a host port or fan-out port that the topology does not have.
std::string no_such_port(const Scenario &sc, unsigned port) {
    return "port " + std::to_string(port) + " does not exist on a " + std::to_string(sc.controller.ports) +
           "-port " + sc.controller.type + " controller";
}
std::string no_such_fanout_port(const PmpSpec &pm, unsigned fanout) {
    return "fan-out port " + std::to_string(fanout) + " does not exist on the " + std::to_string(pm.ports) +
           "-port port multiplier on port " + std::to_string(pm.port) + " (line " + std::to_string(pm.line) + ")";
}

void parse_controller(const Parser &p, const Field &f, ControllerSpec &c) {
    MapView m(p, f.node, f.path, f.line,
              {"type", "ports", "slots", "ncq", "gen", "fbs", "pcix_irq_loss", "pcix_ack_window"});
    if (auto *t = m.find("type"))
        c.type = as_enum<std::string>(p, *t, {{"ahci", "ahci"}, {"sil24", "sil24"}});
    const bool sil24 = c.type == "sil24";
    // Per type: ports, command slots and fastest link generation the model can have.
    const unsigned max_ports = sil24 ? 4 : 32, max_gen = sil24 ? 2 : 3;
    if (sil24) {
        c.ports = 4;
        c.slots = 31;
        c.gen = 2;
    }
    if (auto *t = m.find("ports"))
        c.ports = unsigned(as_uint(p, *t, 1, max_ports));
    if (auto *t = m.find("slots")) {
        c.slots = unsigned(as_uint(p, *t, 1, 32));
        if (sil24 && c.slots != 31)
            p.fail(*t, "a sil24 controller has 31 command slots per port (got " + std::to_string(c.slots) + ")");
    }
    if (auto *t = m.find("ncq")) {
        c.ncq = as_bool(p, *t);
        if (sil24 && !c.ncq)
            p.fail(*t, "a sil24 controller always supports NCQ (use host.no_ncq to turn it off)");
    }
    if (auto *t = m.find("gen")) {
        c.gen = unsigned(as_uint(p, *t, 1, max_gen));
        c.gen_set = true;
    }
    if (auto *t = m.find("fbs")) {
        c.fbs = as_bool(p, *t);
        if (sil24 && c.fbs)
            p.fail(*t, "only for type: ahci (the sil24 switches per FIS natively)");
    }
    for (const char *k : {"pcix_irq_loss", "pcix_ack_window"})
        if (!sil24 && m.has(k))
            p.fail(m.get(k), "only for type: sil24");
    if (auto *t = m.find("pcix_irq_loss"))
        c.pcix_irq_loss = as_bool(p, *t);
    if (auto *t = m.find("pcix_ack_window")) {
        c.pcix_ack_window_ns = as_time_ns(p, *t);
        if (c.pcix_ack_window_ns == 0 || c.pcix_ack_window_ns > 1000000)
            p.fail(*t, "the PCI-X acknowledge window must be more than 0 and at most 1ms");
    }
}

void parse_host(const Parser &p, const Field &f, HostSpec &h) {
    MapView m(p, f.node, f.path, f.line, {"eh_policy", "no_ncq", "port_mask", "irq_loss_fix", "spd_limit", "stack"});
    if (auto *t = m.find("eh_policy"))
        h.eh_policy = as_string(p, *t);
    if (auto *t = m.find("no_ncq"))
        h.no_ncq = as_bool(p, *t);
    if (auto *t = m.find("port_mask"))
        h.port_mask = uint32_t(as_uint(p, *t, 0, 0xffffffffu));
    if (auto *t = m.find("irq_loss_fix"))
        h.irq_loss_fix = as_bool(p, *t);
    if (auto *t = m.find("spd_limit"))
        h.spd_limit = unsigned(as_uint(p, *t, 1, 3));
    if (auto *t = m.find("stack"))
        h.stack = as_bool(p, *t);
}

// link: {mode: dword|fis} (top level, or per device as an override)
LinkModeSpec parse_link(const Parser &p, const Field &f) {
    MapView m(p, f.node, f.path, f.line, {"mode"});
    if (!m.has("mode"))
        p.fail(m.line(), m.join("mode"), "required (dword or fis)");
    return as_enum<LinkModeSpec>(p, m.get("mode"), {{"dword", LinkModeSpec::Dword}, {"fis", LinkModeSpec::Fis}});
}

void parse_timing(const Parser &p, const Field &f, TimingSpec &t) {
    MapView m(p, f.node, f.path, f.line,
              {"kind", "rpm", "seek", "latency", "rate", "overhead", "reset_ready"});
    if (!m.has("kind"))
        p.fail(m.line(), m.join("kind"), "required (ssd or hdd)");
    t.ssd = as_enum<bool>(p, m.get("kind"), {{"ssd", true}, {"hdd", false}});
    if (t.ssd) {
        // An SSD default profile: flat latency, SATA-3-class media rate.
        t.latency_us = 60;
        t.rate_mb_s = 550;
        t.overhead_us = 20;
        for (const char *k : {"rpm", "seek"})
            if (m.has(k))
                p.fail(m.get(k), "only for kind: hdd");
    } else {
        if (m.has("latency"))
            p.fail(m.get("latency"), "only for kind: ssd (an hdd's latency comes from seek and rpm)");
    }
    if (auto *v = m.find("rpm"))
        t.rpm = double(as_uint(p, *v, 1000, 30000));
    if (auto *v = m.find("seek"))
        t.seek_ms = double(as_time_ns(p, *v)) / 1e6;
    if (auto *v = m.find("latency"))
        t.latency_us = double(as_time_ns(p, *v)) / 1e3;
    if (auto *v = m.find("rate"))
        t.rate_mb_s = as_rate(p, *v);
    if (auto *v = m.find("overhead"))
        t.overhead_us = double(as_time_ns(p, *v)) / 1e3;
    if (auto *v = m.find("reset_ready"))
        t.reset_ready_ms = double(as_time_ns(p, *v)) / 1e6;
}

PmpSpec parse_pmp(const Parser &p, const Field &f, const Scenario &sc) {
    PmpSpec x;
    MapView m(p, f.node, f.path, f.line, {"port", "ports", "product", "fbs", "async_notify"});
    x.line = m.line();
    if (!m.has("port"))
        p.fail(m.line(), m.join("port"), "required");
    x.port = unsigned(as_uint(p, m.get("port"), 0, 31));
    if (x.port >= sc.controller.ports)
        p.fail(m.get("port"), no_such_port(sc, x.port));
    if (const PmpSpec *other = sc.pmp_on_port(x.port))
        p.fail(m.get("port"), "port " + std::to_string(x.port) + " already has a port multiplier (line " +
                                  std::to_string(other->line) + ")");
    if (const char *why = p.backend->refuses_key(ScenarioKey::Pmps))
        p.fail(m.line(), f.path, why);
    if (auto *v = m.find("ports"))
        x.ports = unsigned(as_uint(p, *v, 1, 15));
    if (auto *v = m.find("product"))
        x.product = as_enum<std::string>(p, *v, {{"sii3726", "sii3726"}, {"sii4726", "sii4726"}});
    if (auto *v = m.find("fbs"))
        x.fbs = as_bool(p, *v);
    if (auto *v = m.find("async_notify"))
        x.async_notify = as_bool(p, *v);
    return x;
}

DeviceSpec parse_device(const Parser &p, const Field &f) {
    DeviceSpec d;
    MapView m(p, f.node, f.path, f.line,
              {"port", "model", "serial", "firmware", "capacity", "lba48", "ncq", "ncq_depth",
               "gen", "udma", "pio", "multi", "ata_major", "write_cache", "ncq_order", "timing", "blkdebug",
               "present", "ncq_sdb_coalesce", "link", "pmp_port"});
    d.line = m.line();
    if (auto *v = m.find("link"))
        d.link_mode = parse_link(p, *v);
    if (!m.has("port"))
        p.fail(m.line(), m.join("port"), "required");
    d.port = unsigned(as_uint(p, m.get("port"), 0, 31));
    d.serial = "SIM" + std::string(d.port < 10 ? "000000" : "00000") + std::to_string(d.port);
    if (auto *v = m.find("pmp_port")) {
        d.pmp_port = unsigned(as_uint(p, *v, 0, 14));
        // default serial: SIM<port><pmp_port> in 10 characters, e.g. SIM0000102 (port 1, 2)
        std::string n = std::to_string(d.port * 100 + *d.pmp_port);
        d.serial = "SIM" + std::string(7 - n.size(), '0') + n;
    }
    if (auto *v = m.find("model"))
        d.model = as_ident_string(p, *v, 40);
    if (auto *v = m.find("serial"))
        d.serial = as_ident_string(p, *v, 20);
    if (auto *v = m.find("firmware"))
        d.firmware = as_ident_string(p, *v, 8);
    if (auto *v = m.find("capacity")) {
        d.capacity = as_sectors(p, *v);
        if (d.capacity < 1 || d.capacity > (1ull << 48) - 1)
            p.fail(*v, "capacity must be 1 .. 2^48-1 sectors");
    }
    if (auto *v = m.find("lba48"))
        d.lba48 = as_bool(p, *v);
    if (auto *v = m.find("ncq"))
        d.ncq = as_bool(p, *v);
    if (auto *v = m.find("ncq_depth"))
        d.ncq_depth = unsigned(as_uint(p, *v, 1, 32));
    if (auto *v = m.find("gen")) {
        d.gen = unsigned(as_uint(p, *v, 1, 3));
        d.gen_set = true;
    }
    if (auto *v = m.find("udma"))
        d.udma = unsigned(as_uint(p, *v, 0, 6));
    if (auto *v = m.find("pio"))
        d.pio = unsigned(as_uint(p, *v, 0, 4));
    if (auto *v = m.find("multi")) {
        d.multi = unsigned(as_uint(p, *v, 0, 128));
        if (d.multi & (d.multi - 1))
            p.fail(*v, "multi must be 0 (off) or a power of two up to 128");
    }
    if (auto *v = m.find("ata_major"))
        d.ata_major = unsigned(as_uint(p, *v, 1, 14));
    if (auto *v = m.find("write_cache"))
        d.write_cache = as_bool(p, *v);
    if (auto *v = m.find("ncq_order"))
        d.ncq_order = as_enum<NcqOrderSpec>(p, *v,
                                            {{"in_order", NcqOrderSpec::InOrder},
                                             {"reverse", NcqOrderSpec::Reverse},
                                             {"random", NcqOrderSpec::Random},
                                             {"shortest_seek", NcqOrderSpec::ShortestSeek}});
    if (auto *v = m.find("timing"))
        parse_timing(p, *v, d.timing);
    if (auto *v = m.find("present"))
        d.present = as_bool(p, *v);
    if (auto *v = m.find("ncq_sdb_coalesce")) {
        d.ncq_sdb_coalesce_ns = as_time_ns(p, *v);
        if (d.ncq_sdb_coalesce_ns > 1000000000ull)
            p.fail(*v, "at most 1s");
    }
    if (auto *v = m.find("blkdebug")) {
        const YAML::Node &l = as_list(p, *v);
        for (size_t i = 0; i < l.size(); ++i) {
            Field ef = element(*v, i);
            MapView em(p, ef.node, ef.path, ef.line, {"op", "lba", "once", "errno"});
            BlkdebugRule r;
            r.line = em.line();
            if (!em.has("op"))
                p.fail(em.line(), em.join("op"), "required");
            r.op = as_enum<BlkdebugOp>(p, em.get("op"),
                                       {{"read", BlkdebugOp::Read}, {"write", BlkdebugOp::Write},
                                        {"flush", BlkdebugOp::Flush}});
            if (auto *x = em.find("lba")) {
                if (r.op == BlkdebugOp::Flush)
                    p.fail(*x, "a flush has no sector: leave lba out");
                r.lba = int64_t(as_sectors(p, *x));
                if (uint64_t(r.lba) >= d.capacity)
                    p.fail(*x, "lba beyond the disk's capacity");
            }
            if (auto *x = em.find("once"))
                r.once = as_bool(p, *x);
            if (auto *x = em.find("errno"))
                r.err = unsigned(as_uint(p, *x, 1, 133));
            d.blkdebug.push_back(r);
        }
    }
    return d;
}

// The disk a workload, fault or expectation names: the host port (`port_key`) and, on a
// port with a port multiplier, the fan-out port (`pmp_port`). Both must exist; whether a
// disk is configured there is the caller's question.
DevAddr parse_dev_addr(const Parser &p, const MapView &m, const char *port_key, const Scenario &sc,
                       const std::string &required_note) {
    if (!m.has(port_key))
        p.fail(m.line(), m.join(port_key), "required (" + required_note + ")");
    const Field &pf = m.get(port_key);
    DevAddr a;
    a.port = unsigned(as_uint(p, pf, 0, 31));
    if (a.port >= sc.controller.ports)
        p.fail(pf, no_such_port(sc, a.port));
    const PmpSpec *pm = sc.pmp_on_port(a.port);
    if (auto *v = m.find("pmp_port")) {
        if (!pm)
            p.fail(*v, "port " + std::to_string(a.port) + " has no port multiplier (pmps[])");
        a.pmp_port = unsigned(as_uint(p, *v, 0, 14));
        if (*a.pmp_port >= pm->ports)
            p.fail(*v, no_such_fanout_port(*pm, *a.pmp_port));
    }
    return a;
}

// The configured disk at `a`, or a failure at the address's port key naming where the disks are.
const DeviceSpec &addressed_disk(const Parser &p, const MapView &m, const char *port_key, const DevAddr &a,
                                 const Scenario &sc, const std::string &extra = "") {
    if (const DeviceSpec *d = sc.device_at(a))
        return *d;
    const PmpSpec *pm = sc.pmp_on_port(a.port);
    if (pm && !a.pmp_port)
        p.fail(m.get(port_key), "port " + std::to_string(a.port) + " has a port multiplier (pmps[], line " +
                                    std::to_string(pm->line) + "): give the disk's pmp_port");
    std::string where;
    for (const auto &d : sc.devices)
        where += (where.empty() ? "" : ", ") + (d.pmp_port ? d.addr().str() : std::to_string(d.port));
    p.fail(a.pmp_port ? m.get("pmp_port") : m.get(port_key),
           "no disk on " + a.str() + extra +
               (where.empty() ? std::string(" (no disks configured)") : " (disks are on ports " + where + ")"));
}

const std::vector<std::pair<const char *, ModeSpec>> kModes = {
    {"auto", ModeSpec::Auto}, {"dma", ModeSpec::Dma}, {"pio", ModeSpec::Pio}, {"ncq", ModeSpec::Ncq}};

WorkloadSpec parse_workload(const Parser &p, const Field &f, const Scenario &sc) {
    WorkloadSpec w;
    if (!f.node.IsMap())
        p.fail(f, std::string("expected a mapping, got ") + kind_name(f.node));
    bool request = false;
    if (f.node["kind"].IsDefined() && f.node["kind"].IsScalar() && f.node["kind"].Scalar() == "request")
        request = true;
    std::vector<std::string> keys;
    if (request)
        keys = {"kind", "device", "pmp_port", "op", "lba", "sectors", "mode", "expect_submit", "expect_error",
                "verify", "barrier", "delay"};
    else
        keys = {"kind", "device", "pmp_port", "op", "read_pct", "pattern", "block", "qd", "count", "mode",
                "region", "verify", "prefill", "barrier", "delay", "sg_segment"};
    MapView m(p, f.node, f.path, f.line, keys);
    w.line = m.line();
    if (auto *v = m.find("kind"))
        w.kind = as_enum<WorkloadKind>(p, *v, {{"io", WorkloadKind::Io}, {"request", WorkloadKind::Request}});

    const DevAddr addr = parse_dev_addr(p, m, "device", sc, "the port of the disk");
    const Field &devf = m.get("device");
    w.device = addr.port;
    w.pmp_port = addr.pmp_port;
    const DeviceSpec *dev = &addressed_disk(p, m, "device", addr, sc);
    if (!dev->present)
        p.fail(devf, "the disk on " + addr.str() + " starts unplugged (present: false, line " +
                         std::to_string(dev->line) + "): the boot probe finds nothing to run a workload on");

    if (auto *v = m.find("verify"))
        w.verify = as_bool(p, *v);
    if (auto *v = m.find("barrier"))
        w.barrier = as_bool(p, *v);
    if (auto *v = m.find("delay"))
        w.start_delay_ns = as_time_ns(p, *v);
    if (auto *v = m.find("mode"))
        w.mode = as_enum<ModeSpec>(p, *v, kModes);

    if (request) {
        if (!m.has("op"))
            p.fail(m.line(), m.join("op"), "required (read, write or flush)");
        w.op = as_enum<OpSpec>(p, m.get("op"),
                               {{"read", OpSpec::Read}, {"write", OpSpec::Write}, {"flush", OpSpec::Flush}});
        if (auto *v = m.find("lba"))
            w.lba = as_uint(p, *v, 0, (1ull << 48) - 1);
        if (w.op != OpSpec::Flush) {
            if (!m.has("sectors"))
                p.fail(m.line(), m.join("sectors"), "required for a read or write request");
            w.sectors = uint32_t(as_uint(p, m.get("sectors"), 1, 131072));
        } else if (m.has("sectors")) {
            p.fail(m.get("sectors"), "a flush has no sectors");
        }
        if (auto *v = m.find("expect_submit"))
            w.expect_submit = as_enum<SubmitExpect>(p, *v,
                                                    {{"ok", SubmitExpect::Ok},
                                                     {"einval", SubmitExpect::Einval},
                                                     {"eopnotsupp", SubmitExpect::Eopnotsupp},
                                                     {"enodev", SubmitExpect::Enodev}});
        if (auto *v = m.find("expect_error"))
            w.expect_error = as_bool(p, *v);
        w.count = 1;
        w.qd = 1;
        return w;
    }

    if (!m.has("op"))
        p.fail(m.line(), m.join("op"), "required (read, write, mix or flush)");
    w.op = as_enum<OpSpec>(p, m.get("op"),
                           {{"read", OpSpec::Read},
                            {"write", OpSpec::Write},
                            {"mix", OpSpec::Mix},
                            {"flush", OpSpec::Flush}});
    if (auto *v = m.find("read_pct")) {
        if (w.op != OpSpec::Mix)
            p.fail(*v, "only for op: mix");
        w.read_pct = unsigned(as_uint(p, *v, 0, 100));
    }
    if (auto *v = m.find("pattern"))
        w.pattern = as_enum<PatternSpec>(p, *v,
                                         {{"sequential", PatternSpec::Sequential}, {"random", PatternSpec::Random}});
    if (auto *v = m.find("block")) {
        if (v->node.IsMap()) {
            MapView b(p, v->node, v->path, v->line, {"min", "max"});
            if (!b.has("min") || !b.has("max"))
                p.fail(b.line(), v->path, "a block range needs min and max");
            w.block_min = uint32_t(std::min<uint64_t>(as_sectors(p, b.get("min")), UINT32_MAX));
            w.block_max = uint32_t(std::min<uint64_t>(as_sectors(p, b.get("max")), UINT32_MAX));
            if (w.block_min == 0)
                p.fail(b.get("min"), "a block is at least one sector");
            if (w.block_max < w.block_min)
                p.fail(b.get("max"), "max is smaller than min");
        } else {
            uint64_t s = as_sectors(p, *v);
            if (s == 0)
                p.fail(*v, "a block is at least one sector");
            w.block_min = w.block_max = uint32_t(std::min<uint64_t>(s, UINT32_MAX));
        }
        if (w.op == OpSpec::Flush)
            p.fail(*v, "a flush has no block size");
        if (w.block_max > dev->max_sectors())
            p.fail(*v, std::to_string(w.block_max) + " sectors exceeds the " +
                           std::to_string(dev->max_sectors()) + "-sector command limit of the " +
                           (dev->lba48 ? "LBA48" : "LBA28") + " disk on port " +
                           std::to_string(dev->port) + " (use kind: request for limit tests)");
    }
    if (auto *v = m.find("qd"))
        w.qd = unsigned(as_uint(p, *v, 1, 256));
    if (auto *v = m.find("sg_segment")) {
        w.sg_segment = as_bytes(p, *v);
        if (w.sg_segment < 2 || w.sg_segment > (4u << 20) || (w.sg_segment & 1))
            p.fail(*v, "a scatter/gather segment is an even number of bytes from 2 to 4 MiB");
    }

    uint64_t cap = dev->addressable();
    if (auto *v = m.find("region")) {
        MapView r(p, v->node, v->path, v->line, {"start", "length"});
        if (auto *s = r.find("start")) {
            w.region_start = as_sectors(p, *s);
            if (w.region_start >= cap)
                p.fail(*s, "start " + std::to_string(w.region_start) + " is beyond the disk's " +
                               std::to_string(cap) + " sectors");
        }
        if (auto *l = r.find("length")) {
            w.region_length = as_sectors(p, *l);
            if (w.region_length == 0)
                p.fail(*l, "a region is at least one sector");
            if (w.region_start + w.region_length > cap)
                p.fail(*l, "region " + std::to_string(w.region_start) + "+" +
                               std::to_string(w.region_length) + " sectors ends beyond the disk's " +
                               std::to_string(cap) + " sectors");
        }
    }
    if (w.region_length == 0)
        w.region_length = cap - w.region_start;
    if (w.op != OpSpec::Flush && w.region_length < w.block_max)
        p.fail(m.has("region") ? m.get("region").line : m.line(), m.join("region"),
               "region of " + std::to_string(w.region_length) + " sectors is smaller than the block (" +
                   std::to_string(w.block_max) + " sectors)");

    if (auto *v = m.find("count")) {
        w.count = as_uint(p, *v, 1, 100000000);
    } else if (w.pattern == PatternSpec::Sequential && w.op != OpSpec::Flush && w.block_min == w.block_max) {
        w.count = w.region_length / w.block_max; // one pass over the region
        if (w.count > 100000000)
            p.fail(m.line(), m.join("count"), "required (a sequential pass over the whole region would be " +
                                                  std::to_string(w.count) + " commands)");
    } else {
        p.fail(m.line(), m.join("count"), "required (except for a sequential pass with a fixed block)");
    }
    if (auto *v = m.find("prefill")) {
        w.prefill = as_bool(p, *v) ? PrefillSpec::Yes : PrefillSpec::No;
        if (w.prefill == PrefillSpec::Yes && w.op == OpSpec::Flush)
            p.fail(*v, "a flush workload has nothing to prefill");
    }

    if (w.mode == ModeSpec::Ncq) {
        const Field &mf = m.get("mode");
        if (!dev->ncq)
            p.fail(mf, "the disk on port " + std::to_string(dev->port) + " has ncq: false");
        if (!sc.controller.ncq)
            p.fail(mf, "the controller has ncq: false");
        if (sc.host.no_ncq)
            p.fail(mf, "host.no_ncq is set");
        if (w.op == OpSpec::Flush)
            p.fail(mf, "a flush is never queued");
    }
    return w;
}

ExpectDevice parse_expect_device(const Parser &p, const Field &f, const Scenario &sc) {
    ExpectDevice e;
    MapView m(p, f.node, f.path, f.line,
              {"port", "pmp_port", "class", "model", "serial", "firmware", "sectors", "lba48", "ncq",
               "ncq_depth", "max_sectors", "multi", "xfer", "gen"});
    e.line = m.line();
    DevAddr a = parse_dev_addr(p, m, "port", sc, "the host port");
    e.port = a.port;
    e.pmp_port = a.pmp_port;
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
    if (auto *v = m.find("gen"))
        e.gen = unsigned(as_uint(p, *v, 0, 3));
    return e;
}

// A list of expected devices, each port at most once.
std::vector<ExpectDevice> parse_expect_device_list(const Parser &p, const Field &v, const Scenario &sc) {
    const YAML::Node &l = as_list(p, v);
    std::vector<ExpectDevice> out;
    std::map<DevAddr, int> seen;
    for (size_t i = 0; i < l.size(); ++i) {
        Field ef = element(v, i);
        ExpectDevice d = parse_expect_device(p, ef, sc);
        const DevAddr a{d.port, d.pmp_port};
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
std::vector<DevAddr> parse_port_list(const Parser &p, const Field &v, const Scenario &sc,
                                     const std::vector<ExpectDevice> &devices,
                                     const std::string &devices_key, bool no_disk_configured) {
    const YAML::Node &l = as_list(p, v);
    std::vector<DevAddr> out;
    for (size_t i = 0; i < l.size(); ++i) {
        Field pf = element(v, i);
        DevAddr a;
        if (pf.node.IsMap()) {
            MapView m(p, pf.node, pf.path, pf.line, {"port", "pmp_port"});
            a = parse_dev_addr(p, m, "port", sc, "the host port");
        } else {
            a.port = unsigned(as_uint(p, pf, 0, 31));
            if (a.port >= sc.controller.ports)
                p.fail(pf, no_such_port(sc, a.port));
        }
        if (no_disk_configured)
            if (const DeviceSpec *d = sc.device_at(a); d && d->present)
                p.fail(pf, a.str() + " cannot be empty: devices (line " + std::to_string(d->line) +
                               ") puts a disk there");
        for (const auto &ed : devices)
            if (DevAddr{ed.port, ed.pmp_port} == a)
                p.fail(pf, a.str() + " is also in " + devices_key + " (line " + std::to_string(ed.line) + ")");
        out.push_back(a);
    }
    return out;
}

void parse_expect(const Parser &p, const Field &f, Scenario &sc) {
    MapView m(p, f.node, f.path, f.line,
              {"devices", "empty_ports", "log_contains", "log_not_contains", "io_errors",
               "io_errors_min", "io_errors_max", "all_devices_found", "devices_after", "absent_after"});
    ExpectSpec &e = sc.expect;
    if (auto *v = m.find("devices"))
        e.devices = parse_expect_device_list(p, *v, sc);
    if (auto *v = m.find("empty_ports"))
        e.empty_ports = parse_port_list(p, *v, sc, e.devices, "expect.devices", true);
    if (auto *v = m.find("log_contains"))
        e.log_contains = as_string_list(p, *v);
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
        e.devices_after = parse_expect_device_list(p, *v, sc);
    if (auto *v = m.find("absent_after"))
        e.absent_after = parse_port_list(p, *v, sc, e.devices_after, "expect.devices_after", false);
}

std::string file_stem(const std::string &path) {
    size_t slash = path.find_last_of('/');
    std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
    size_t dot = base.find_last_of('.');
    return dot == std::string::npos || dot == 0 ? base : base.substr(0, dot);
}

bool valid_name(const std::string &n) {
    if (n.empty() || n.size() > 100 || n[0] == '.')
        return false;
    for (unsigned char c : n)
        if (!(std::isalnum(c) || c == '-' || c == '_' || c == '.'))
            return false;
    return true;
}

// ---------------------------------------------------------------------------------------
// faults[]

using fault::CommandMatch;
using fault::Kind;

const std::vector<std::pair<const char *, Kind>> kFaultKinds = {
    {"crc", Kind::Crc},           {"lost_irq", Kind::LostIrq},
    {"unplug", Kind::Unplug},     {"plug", Kind::Plug},
    {"media_error", Kind::MediaError}, {"hang", Kind::Hang},
    {"identify_fail", Kind::IdentifyFail}, {"phy_flap", Kind::PhyFlap},
    {"link_degrade", Kind::LinkDegrade}, {"pmp_hang", Kind::PmpHang}};

const std::vector<std::pair<const char *, CommandMatch::Op>> kMatchOps = {
    {"any", CommandMatch::Op::Any},       {"read", CommandMatch::Op::Read},
    {"write", CommandMatch::Op::Write},   {"flush", CommandMatch::Op::Flush},
    {"identify", CommandMatch::Op::Identify}, {"ncq", CommandMatch::Op::Ncq},
    {"non_ncq", CommandMatch::Op::NonNcq}};

// Keys every fault takes (kind, where, trigger) and the keys of each kind.
const std::vector<std::string> kFaultCommonKeys = {"kind", "port", "pmp_port", "id", "at", "after_cmds", "on_cmd",
                                                   "from_power_on", "repeat", "every", "every_cmds"};

std::vector<std::string> fault_kind_keys(Kind k) {
    switch (k) {
    case Kind::Crc: return {"dir", "fis", "dword", "mask", "burst"};
    case Kind::MediaError: return {"error", "op", "lba", "count", "cleared_by_write"};
    case Kind::LostIrq: return {"count", "window"};
    case Kind::Plug: return {"model", "serial", "capacity", "blank_media"};
    case Kind::PhyFlap: return {"down"};
    case Kind::LinkDegrade: return {"gen"};
    case Kind::IdentifyFail: return {"count"};
    case Kind::Unplug:
    case Kind::Hang:
    case Kind::PmpHang: return {};
    }
    return {};
}

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

fault::Fault parse_fault(const Parser &p, const Field &f, const Scenario &sc, size_t index) {
    fault::Fault x;
    if (!f.node.IsMap())
        p.fail(f, std::string("expected a mapping, got ") + kind_name(f.node));
    // Every key of every kind is accepted here; keys of another kind are refused below
    // with a message naming the kind.
    std::vector<std::string> all = kFaultCommonKeys;
    for (const auto &k : kFaultKinds)
        for (const std::string &key : fault_kind_keys(k.second))
            if (std::find(all.begin(), all.end(), key) == all.end())
                all.push_back(key);
    MapView m(p, f.node, f.path, f.line, all);
    x.line = m.line();
    if (!m.has("kind"))
        p.fail(m.line(), m.join("kind"), "required (crc, lost_irq, unplug, plug, media_error, hang, identify_fail, "
                                         "phy_flap, link_degrade or pmp_hang)");
    x.kind = as_enum<Kind>(p, m.get("kind"), kFaultKinds);
    const std::string kname = fault::to_string(x.kind);
    {
        std::vector<std::string> own = fault_kind_keys(x.kind);
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
    uint64_t cap = 0;
    if (x.kind == Kind::PmpHang) { // the port multiplier itself, on its host port
        const PmpSpec *pm = sc.pmp_on_port(x.port);
        if (!pm)
            p.fail(m.get("port"), "port " + std::to_string(x.port) + " has no port multiplier (pmps[])");
        if (auto *v = m.find("pmp_port"))
            p.fail(v->key_line, v->path, "a pmp_hang hangs the port multiplier's control port: no pmp_port");
    } else {
        cap = addressed_disk(p, m, "port", addr, sc,
                             x.kind == Kind::Plug ? " (to plug a drive into an empty connector, give the port a "
                                                    "devices[] entry with present: false)"
                                                  : "")
                  .addressable();
    }

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
    if (x.kind == Kind::PmpHang && !t.at_ns)
        p.fail(first_trigger->key_line, first_trigger->path,
               "a pmp_hang fires at a time (`at`): the port multiplier counts no commands");
    if ((x.kind == Kind::Unplug || x.kind == Kind::Plug) && t.repeat != 1)
        p.fail(m.get("repeat"), "a " + kname + " fires once (use one unplug and one plug fault per cycle)");

    switch (x.kind) {
    case Kind::Crc:
        if (auto *v = m.find("dir"))
            x.crc.from_host = as_enum<bool>(p, *v, {{"h2d", true}, {"d2h", false}});
        if (auto *v = m.find("fis"))
            x.crc.fis = as_enum<sata::FisType>(p, *v,
                                               {{"data", sata::FisType::Data},
                                                {"reg_h2d", sata::FisType::RegH2D},
                                                {"reg_d2h", sata::FisType::RegD2H},
                                                {"sdb", sata::FisType::SetDeviceBits},
                                                {"dma_setup", sata::FisType::DmaSetup},
                                                {"pio_setup", sata::FisType::PioSetup},
                                                {"dma_activate", sata::FisType::DmaActivate}});
        if (auto *v = m.find("dword"))
            x.crc.dword = unsigned(as_uint(p, *v, 0, 2049));
        if (auto *v = m.find("mask")) {
            x.crc.xor_mask = uint32_t(as_uint(p, *v, 1, 0xffffffffu));
        }
        if (auto *v = m.find("burst"))
            x.crc.burst = unsigned(as_uint(p, *v, 1, 1000));
        break;
    case Kind::MediaError:
        if (auto *v = m.find("error"))
            x.media.error = as_enum<fault::MediaParams::Error>(p, *v,
                                                               {{"unc", fault::MediaParams::Error::Unc},
                                                                {"idnf", fault::MediaParams::Error::Idnf},
                                                                {"write_fault", fault::MediaParams::Error::WriteFault},
                                                                {"abrt", fault::MediaParams::Error::Abrt}});
        if (auto *v = m.find("op"))
            x.media.match.op = as_enum<CommandMatch::Op>(p, *v, kMatchOps);
        if (auto *v = m.find("lba")) {
            auto r = as_lba_range(p, *v, cap);
            x.media.match.lba_first = r.first;
            x.media.match.lba_last = r.second;
        } else if (t.at_ns) {
            p.fail(m.line(), m.join("lba"), "required with an `at` trigger (the bad sectors); a command-triggered "
                                            "media error defaults to the range of the command that fires it");
        }
        if (auto *v = m.find("count"))
            x.media.count = unsigned(as_uint(p, *v, 0, 1000000));
        if (auto *v = m.find("cleared_by_write"))
            x.media.cleared_by_write = as_bool(p, *v);
        break;
    case Kind::LostIrq:
        if (m.has("count") && m.has("window"))
            p.fail(m.get("window").key_line, m.get("window").path,
                   "give count (interrupts) or window (a time), not both");
        if (auto *v = m.find("count"))
            x.lost_irq.count = unsigned(as_uint(p, *v, 1, 1000000));
        if (auto *v = m.find("window")) {
            x.lost_irq.window_ns = as_time_ns(p, *v);
            if (x.lost_irq.window_ns == 0)
                p.fail(*v, "must be more than 0");
            x.lost_irq.count = 0;
        }
        break;
    case Kind::Plug:
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
        break;
    case Kind::PhyFlap:
        if (auto *v = m.find("down")) {
            x.flap.down_ns = as_time_ns(p, *v);
            if (x.flap.down_ns == 0 || x.flap.down_ns > 60ull * 1000000000ull)
                p.fail(*v, "must be more than 0 and at most 60s");
        }
        break;
    case Kind::LinkDegrade:
        if (!m.has("gen"))
            p.fail(m.line(), m.join("gen"), "required (1, 2 or 3: the fastest generation the link reaches)");
        x.gen = unsigned(as_uint(p, m.get("gen"), 1, 3));
        break;
    case Kind::IdentifyFail:
        if (auto *v = m.find("count"))
            x.identify_failures = unsigned(as_uint(p, *v, 1, 1000));
        break;
    case Kind::Unplug:
    case Kind::Hang:
    case Kind::PmpHang:
        break;
    }
    return x;
}

// steps: directed low-level steps instead of the stack (directed_steps.h). No workload, no
// faults[] (inject steps instead), backend systemc; host.stack is false (or left out).
void parse_directed_steps(const Parser &p, const MapView &m, const Field &v, Scenario &sc) {
    if (m.has("host") && m.get("host").node.IsMap() && m.get("host").node["stack"] && sc.host.stack)
        p.fail(line_of(m.get("host").node["stack"], 1), "host.stack", "true is not allowed with steps (they run without the stack)");
    sc.host.stack = false;
    for (const char *k : {"workload", "faults"})
        if (m.has(k))
            p.fail(m.get(k).key_line, k, std::string("not allowed with steps (") +
                                             (std::string(k) == "faults" ? "use inject steps" : "the stack does not run") + ")");
    if (const char *why = p.backend->refuses_key(ScenarioKey::Steps))
        p.fail(v.key_line, "steps", why);
    StepParseContext ctx;
    ctx.fail = [&p](int line, const std::string &path, const std::string &msg) { p.fail(line, path, msg); };
    ctx.where = [&p](int line, const std::string &path) {
        return (p.file_for_ ? p.file_for_(path) : p.file()) + ":" + std::to_string(line);
    };
    ctx.has_disk = [&sc](unsigned port) { return sc.device_on_port(port) != nullptr; };
    ctx.ports = sc.controller.ports;
    ctx.add_fault = [&p, &sc](const YAML::Node &node, const std::string &path, int line) {
        Field ff;
        ff.node = node;
        ff.path = path;
        ff.key_line = line;
        ff.line = line;
        fault::Fault x = parse_fault(p, ff, sc, sc.faults.size());
        for (const fault::Fault &o : sc.faults)
            if (o.id == x.id)
                p.fail(line, path + ".id", "fault id '" + x.id + "' is already used (line " + std::to_string(o.line) + ")");
        sc.faults.push_back(x);
        return sc.faults.size() - 1;
    };
    sc.steps = parse_steps(v.node, "steps", v.line, ctx);
}

// With steps, nothing probes: expectations about found devices and I/O cannot apply.
void check_directed_expect(const Parser &p, const MapView &m) {
    if (!m.has("expect") || !m.get("expect").node.IsMap())
        return;
    const YAML::Node &e = m.get("expect").node;
    for (const char *k : {"devices", "empty_ports", "devices_after", "absent_after", "io_errors", "io_errors_min",
                          "io_errors_max"})
        if (e[k])
            p.fail(line_of(e[k], 1), std::string("expect.") + k,
                   "not with steps (the stack does not run; check registers and memory with steps)");
}

// One devices[] entry, checked against the topology: a host port that exists, a fan-out
// port when (and only when) a port multiplier sits on the port, one disk per place.
DeviceSpec parse_placed_device(const Parser &p, const Field &df, const Scenario &sc) {
    DeviceSpec d = parse_device(p, df);
    std::string ppath = df.path + ".port";
    int pline = line_of(df.node["port"], d.line);
    if (d.port >= sc.controller.ports)
        p.fail(pline, ppath,
               no_such_port(sc, d.port));
    if (const PmpSpec *pm = sc.pmp_on_port(d.port)) {
        const std::string fpath = df.path + ".pmp_port";
        const int fline = line_of(df.node["pmp_port"], d.line);
        if (!d.pmp_port)
            p.fail(pline, ppath,
                   "port " + std::to_string(d.port) + " has a port multiplier (pmps[], line " +
                       std::to_string(pm->line) + "): give the disk its pmp_port");
        if (*d.pmp_port >= pm->ports)
            p.fail(fline, fpath,
                   no_such_fanout_port(*pm, *d.pmp_port));
        for (const DeviceSpec &o : sc.devices)
            if (o.port == d.port && o.pmp_port == d.pmp_port)
                p.fail(fline, fpath,
                       "fan-out port " + std::to_string(*d.pmp_port) + " of port " +
                           std::to_string(d.port) + " already has a disk (line " +
                           std::to_string(o.line) + ")");
    } else if (d.pmp_port) {
        p.fail(line_of(df.node["pmp_port"], d.line), df.path + ".pmp_port",
               "port " + std::to_string(d.port) + " has no port multiplier (add it to pmps[])");
    }
    if (const DeviceSpec *other = d.pmp_port ? nullptr : sc.device_on_port(d.port))
        p.fail(pline, ppath,
               "port " + std::to_string(d.port) + " already has a disk (line " +
                   std::to_string(other->line) + ")");
    if (const char *why = p.backend->refuses_key(ScenarioKey::DeviceLink); d.link_mode && why)
        p.fail(line_of(df.node["link"], d.line), df.path + ".link", why);
    // A disk faster than the host is fine: the link negotiates down.
    return d;
}

} // namespace

// waveform: {signals: [group...], ports: [port...]} (VCD of model signals, vcd_writer.h)
void parse_waveform(const Parser &p, const Field &f, Scenario &sc) {
    WaveformSpec &w = sc.waveform;
    // `waveform: true` (or an empty `waveform:`): every signal; `false`: none.
    w.on = f.node.IsScalar() ? as_bool(p, f) : true;
    if (const char *why = p.backend->refuses_key(ScenarioKey::Waveform); w.on && why)
        p.fail(f, why);
    if (f.node.IsNull() || f.node.IsScalar())
        return;
    MapView m(p, f.node, f.path, f.line, {"signals", "ports"});
    if (auto *v = m.find("signals")) {
        const YAML::Node &l = as_list(p, *v);
        if (l.size() == 0)
            p.fail(*v, "empty list (leave the key out for every signal)");
        w.groups = 0;
        for (size_t i = 0; i < l.size(); ++i) {
            Field e = element(*v, i);
            unsigned mask = 0;
            std::string err;
            if (!wave_group_mask(as_string(p, e), &mask, &err))
                p.fail(e, err);
            w.groups |= mask;
        }
    }
    if (auto *v = m.find("ports")) {
        const YAML::Node &l = as_list(p, *v);
        if (l.size() == 0)
            p.fail(*v, "empty list (leave the key out for every port)");
        for (size_t i = 0; i < l.size(); ++i) {
            Field e = element(*v, i);
            unsigned port = unsigned(as_uint(p, e, 0, 31));
            if (port >= sc.controller.ports)
                p.fail(e, no_such_port(sc, port));
            if (std::find(w.ports.begin(), w.ports.end(), port) != w.ports.end())
                p.fail(e, "port " + std::to_string(port) + " is listed twice");
            w.ports.push_back(port);
        }
    }
}

Scenario parse_scenario_text(const std::string &text, const std::string &file, const BackendList &backends) {
    Parser p(file);
    YAML::Node root;
    try {
        root = YAML::Load(text);
    } catch (const YAML::ParserException &e) {
        p.fail(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    } catch (const YAML::Exception &e) {
        p.fail(e.mark.line >= 0 ? e.mark.line + 1 : 1, "", std::string("YAML error: ") + e.what());
    }
    if (!root.IsDefined() || root.IsNull())
        p.fail(1, "", "empty scenario file");
    IncludeResult inc = resolve_includes(root, file);
    root = inc.root;
    if (!inc.origin.empty())
        p.file_for_ = [inc, file](const std::string &path) { return origin_file(inc, path, file); };

    Scenario sc;
    sc.file = file;
    Field rootf;
    rootf.node = root;
    rootf.line = 1;
    MapView m(p, root, "", 1,
              {"name", "description", "seed", "time_limit", "trace_cmds", "trace_fis", "controller", "host",
               "devices", "workload", "expect", "backend", "faults", "link", "steps", "pmps", "waveform"});

    sc.name = file_stem(file);
    if (auto *v = m.find("name"))
        sc.name = as_string(p, *v);
    if (!valid_name(sc.name))
        p.fail(m.has("name") ? m.get("name").line : 1, "name",
               "'" + sc.name + "' is not a usable scenario name (letters, digits, '-', '_', '.'; "
                               "it names the output folder)");
    if (auto *v = m.find("description"))
        sc.description = as_string(p, *v);
    if (auto *v = m.find("seed"))
        sc.seed = as_uint(p, *v, 0, UINT64_MAX);
    if (auto *v = m.find("time_limit")) {
        sc.time_limit_ns = as_time_ns(p, *v);
        if (sc.time_limit_ns == 0 || sc.time_limit_ns > 100000ull * 1000000000ull)
            p.fail(*v, "the time limit must be more than 0 and at most 100000s");
    }
    if (auto *v = m.find("trace_cmds"))
        sc.trace_cmds = as_bool(p, *v);
    if (auto *v = m.find("trace_fis"))
        sc.trace_fis = as_bool(p, *v);
    p.backend = backends.front();
    if (auto *v = m.find("backend")) {
        std::vector<std::pair<const char *, const BackendRules *>> names;
        for (const BackendRules *r : backends)
            names.push_back({r->name, r});
        p.backend = as_enum<const BackendRules *>(p, *v, names);
    }
    sc.backend = p.backend->name;
    if (auto *v = m.find("controller"))
        parse_controller(p, *v, sc.controller);
    if (auto *v = m.find("host"))
        parse_host(p, *v, sc.host);
    if (auto *v = m.find("link")) {
        sc.link_mode = parse_link(p, *v);
        if (const char *why = p.backend->refuses_key(ScenarioKey::Link))
            p.fail(*v, why);
    }

    // The list sections: a missing or empty (null) key is an empty list.
    auto list_section = [&](const char *key, auto &&each) {
        if (auto *v = m.find(key); v && !v->node.IsNull())
            for_each_element(p, *v, each);
    };
    list_section("pmps", [&](const Field &f, size_t) { sc.pmps.push_back(parse_pmp(p, f, sc)); });

    list_section("devices", [&](const Field &f, size_t) { sc.devices.push_back(parse_placed_device(p, f, sc)); });

    list_section("workload", [&](const Field &f, size_t) { sc.workload.push_back(parse_workload(p, f, sc)); });
    std::map<std::string, int> fault_ids;
    list_section("faults", [&](const Field &ff, size_t i) {
        fault::Fault x = parse_fault(p, ff, sc, i);
        if (fault_ids.count(x.id))
            p.fail(line_of(ff.node["id"], x.line), ff.path + ".id",
                   "fault id '" + x.id + "' is already used (line " + std::to_string(fault_ids[x.id]) + ")");
        fault_ids[x.id] = x.line;
        sc.faults.push_back(x);
    });
    if (auto *v = m.find("waveform"))
        parse_waveform(p, *v, sc);
    if (auto *v = m.find("steps"))
        parse_directed_steps(p, m, *v, sc);
    else if (m.has("host") && !sc.host.stack)
        p.fail(line_of(m.get("host").node["stack"], 1), "host.stack", "false needs `steps:` (what runs instead of the stack)");
    if (auto *v = m.find("expect"))
        parse_expect(p, *v, sc);
    if (!sc.steps.empty())
        check_directed_expect(p, m);
    return sc;
}

Scenario parse_scenario_file(const std::string &path, const BackendList &backends) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw ScenarioError(path + ": cannot read the scenario file");
    std::ostringstream ss;
    ss << in.rdbuf();
    return parse_scenario_text(ss.str(), path, backends);
}

} // namespace satasim::harness
