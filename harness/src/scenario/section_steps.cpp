// Section steps[]: directed low-level steps instead of the stack (scenarios/README.md,
// scenario/steps.h), read with the same toolkit (yaml_walk.h) and messages as every other
// section.
#include "scenario/sections.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace satasim::harness {

namespace {

// The allocations named so far: a value may name only an earlier alloc step.
class Allocs {
  public:
    explicit Allocs(const Parser &p) : p_(p) {}

    // An integer, `${name}`, `${name}+off` or {alloc: name, offset: off}; `limit` bounds constants.
    StepValue value(const Field &f, uint64_t limit) const {
        StepValue v;
        if (f.node.IsMap()) {
            MapView k(p_, f.node, f.path, f.line, {"alloc", "offset"});
            if (!k.has("alloc"))
                p_.fail(f.line, f.path + ".alloc", "required (the name of an alloc step)");
            v.alloc = scalar(p_, k.get("alloc"), "an allocation name");
            if (k.has("offset"))
                v.value = as_uint(p_, k.get("offset"), 0, 0xffffffffu);
            check(k.get("alloc"), v.alloc);
            return v;
        }
        std::string s = scalar(p_, f, "an integer or ${name}");
        if (s.rfind("${", 0) == 0) {
            size_t close = s.find('}');
            if (close == std::string::npos)
                p_.fail(f, "'" + s + "': missing '}'");
            v.alloc = s.substr(2, close - 2);
            std::string rest = s.substr(close + 1);
            if (!rest.empty()) {
                if (rest[0] != '+')
                    p_.fail(f, "'" + s + "': only ${name}+offset is allowed");
                auto off = parse_uint(rest.substr(1));
                if (!off || *off > 0xffffffffu)
                    p_.fail(f, "'" + s + "': bad offset '" + rest.substr(1) + "'");
                v.value = *off;
            }
            check(f, v.alloc);
            return v;
        }
        v.value = as_uint(p_, f, 0, limit);
        return v;
    }
    void check(const Field &f, const std::string &name) const {
        if (!names.count(name))
            p_.fail(f, "no alloc step named '" + name + "' before this step");
    }

    std::set<std::string> names;

  private:
    const Parser &p_;
};

StepFis parse_fis(const Parser &p, const Field &f) {
    if (!f.node.IsMap())
        p.fail(f, "expected a mapping {type: reg_d2h|sdb|raw, ...}");
    if (!f.node["type"])
        p.fail(f.line, f.path + ".type", "required (reg_d2h, sdb or raw)");
    Field tf;
    tf.node = f.node["type"];
    tf.path = f.path + ".type";
    tf.line = line_of(tf.node, f.line);
    tf.key_line = tf.line;
    std::string type = scalar(p, tf, "a FIS type");
    StepFis fis;
    if (type == "reg_d2h" || type == "sdb") {
        const bool sdb = type == "sdb";
        MapView k(p, f.node, f.path, f.line,
                  sdb ? std::vector<std::string>{"type", "status", "error", "sactive", "irq", "notify", "pm_port"}
                      : std::vector<std::string>{"type", "status", "error", "lba", "device", "count", "irq",
                                                 "pm_port"});
        auto get = [&](const char *n, uint64_t hi, uint64_t def) {
            return k.has(n) ? as_uint(p, k.get(n), 0, hi) : def;
        };
        fis.type = sdb ? StepFis::Type::Sdb : StepFis::Type::RegD2H;
        fis.status = uint8_t(get("status", 255, sdb ? 0x40 : 0x50));
        fis.error = uint8_t(get("error", 255, 0));
        if (sdb) {
            fis.sactive = uint32_t(get("sactive", 0xffffffffu, 0));
        } else {
            fis.lba = get("lba", (1ull << 48) - 1, 0);
            fis.device = uint8_t(get("device", 255, 0));
            fis.count = uint16_t(get("count", 0xffff, 0));
        }
        fis.irq = k.has("irq") ? as_bool(p, k.get("irq")) : true;
        if (sdb)
            fis.notify = k.has("notify") ? as_bool(p, k.get("notify")) : false;
        fis.pm_port = uint8_t(get("pm_port", 15, 0));
        return fis;
    }
    if (type == "raw") {
        MapView k(p, f.node, f.path, f.line, {"type", "dwords"});
        if (!k.has("dwords"))
            p.fail(f.line, f.path + ".dwords", "required (the FIS, dword 0 first)");
        const YAML::Node &l = as_list(p, k.get("dwords"));
        if (l.size() == 0 || l.size() > 2049)
            p.fail(k.get("dwords"), "a FIS has 1..2049 dwords");
        fis.type = StepFis::Type::Raw;
        for (size_t i = 0; i < l.size(); ++i) {
            uint32_t d = uint32_t(as_uint(p, element(k.get("dwords"), i), 0, 0xffffffffu));
            for (int b = 0; b < 4; ++b)
                fis.raw.push_back(uint8_t(d >> (8 * b)));
        }
        return fis;
    }
    p.fail(tf, "unknown FIS type '" + type + "' (expected reg_d2h, sdb or raw)");
}

// bytes: [..] | dwords: [..] | ata_string: "..." -> the step's data (and masks).
void parse_data(const Parser &p, const Allocs &allocs, const MapView &k, const Field &f, Step &s, bool expect) {
    int forms = int(k.has("bytes")) + int(k.has("dwords")) + int(k.has("ata_string"));
    if (forms != 1)
        p.fail(f, expect ? "give exactly one of bytes, dwords, ata_string" : "give exactly one of bytes, dwords");
    if (k.has("bytes")) {
        const YAML::Node &l = as_list(p, k.get("bytes"));
        for (size_t i = 0; i < l.size(); ++i)
            s.bytes.push_back(uint8_t(as_uint(p, element(k.get("bytes"), i), 0, 255)));
        s.byte_mask.assign(s.bytes.size(), 0xff);
    } else if (k.has("dwords")) {
        const YAML::Node &l = as_list(p, k.get("dwords"));
        for (size_t i = 0; i < l.size(); ++i)
            s.dwords.push_back(allocs.value(element(k.get("dwords"), i), 0xffffffffu));
        uint32_t m = k.has("mask") ? uint32_t(as_uint(p, k.get("mask"), 0, 0xffffffffu)) : 0xffffffffu;
        for (size_t i = 0; i < s.dwords.size(); ++i)
            for (int b = 0; b < 4; ++b)
                s.byte_mask.push_back(uint8_t(m >> (8 * b)));
    } else {
        // An ATA IDENTIFY string: characters stored in byte-swapped pairs.
        std::string str = scalar(p, k.get("ata_string"), "a string");
        if (str.size() % 2)
            p.fail(k.get("ata_string"), "an ATA string has an even number of characters (pad with a space)");
        for (size_t i = 0; i < str.size(); i += 2) {
            s.bytes.push_back(uint8_t(str[i + 1]));
            s.bytes.push_back(uint8_t(str[i]));
        }
        s.byte_mask.assign(s.bytes.size(), 0xff);
    }
    if (s.bytes.empty() && s.dwords.empty())
        p.fail(f, "no data");
    if (k.has("mask") && !k.has("dwords"))
        p.fail(k.get("mask"), "mask is for dwords");
}

uint32_t reg_offset(const Parser &p, const Field &f) {
    uint32_t off = uint32_t(as_uint(p, f, 0, 0xffffc));
    if (off % 4)
        p.fail(f, "register offsets are dword aligned");
    return off;
}

// An inject step's fault entry (as in faults[]), appended to the scenario's faults.
size_t add_fault(const Parser &p, const Field &f, Scenario &sc) {
    fault::Fault x = parse_fault(p, f, sc, sc.faults.size());
    for (const fault::Fault &o : sc.faults)
        if (o.id == x.id)
            p.fail(f.line, f.path + ".id", "fault id '" + x.id + "' is already used (line " + std::to_string(o.line) + ")");
    sc.faults.push_back(x);
    return sc.faults.size() - 1;
}

std::vector<Step> parse_steps(const Parser &p, const Field &lf, Scenario &sc) {
    Allocs allocs(p);
    const YAML::Node &l = as_list(p, lf);
    if (l.size() == 0)
        p.fail(lf, "at least one step");
    std::vector<std::string> names;
    for (const auto &n : step_kinds())
        names.push_back(n.first);
    std::vector<Step> out;
    for (size_t i = 0; i < l.size(); ++i) {
        Field e = element(lf, i);
        if (!e.node.IsMap() || e.node.size() != 1)
            p.fail(e, "a step is a mapping with one key (mmio_write, mmio_read, wait_irq, poll, delay, alloc, "
                      "mem_write, mem_expect, device_fis, inject, expect_trace)");
        MapView top(p, e.node, e.path, e.line, names);
        const std::string key = e.node.begin()->first.Scalar();
        Field f = top.get(key);
        Step s;
        s.index = unsigned(i);
        for (const auto &n : step_kinds())
            if (key == n.first)
                s.kind = n.second;
        s.where = p.where(e.line, e.path);
        s.line = e.line;
        switch (s.kind) {
        case StepKind::MmioWrite: {
            MapView k(p, f.node, f.path, f.line, {"offset", "value"});
            if (!k.has("offset") || !k.has("value"))
                p.fail(f, "offset and value are required");
            s.offset = reg_offset(p, k.get("offset"));
            s.value = allocs.value(k.get("value"), 0xffffffffu);
            break;
        }
        case StepKind::MmioRead: {
            MapView k(p, f.node, f.path, f.line, {"offset", "expect", "mask"});
            if (!k.has("offset"))
                p.fail(f.line, f.path + ".offset", "required");
            s.offset = reg_offset(p, k.get("offset"));
            if (k.has("expect"))
                s.expect = allocs.value(k.get("expect"), 0xffffffffu);
            if (k.has("mask")) {
                if (!s.expect)
                    p.fail(k.get("mask"), "mask needs expect");
                s.mask = uint32_t(as_uint(p, k.get("mask"), 0, 0xffffffffu));
            }
            break;
        }
        case StepKind::WaitIrq: {
            MapView k(p, f.node, f.path, f.line, {"timeout", "level"});
            if (!k.has("timeout"))
                p.fail(f.line, f.path + ".timeout", "required");
            s.timeout_ns = as_time_ns(p, k.get("timeout"));
            if (k.has("level"))
                s.irq_level = as_bool(p, k.get("level"));
            break;
        }
        case StepKind::Poll: {
            MapView k(p, f.node, f.path, f.line, {"offset", "mask", "value", "timeout", "interval"});
            for (const char *r : {"offset", "value", "timeout"})
                if (!k.has(r))
                    p.fail(f.line, f.path + "." + r, "required");
            s.offset = reg_offset(p, k.get("offset"));
            s.value = allocs.value(k.get("value"), 0xffffffffu);
            if (k.has("mask"))
                s.mask = uint32_t(as_uint(p, k.get("mask"), 0, 0xffffffffu));
            s.timeout_ns = as_time_ns(p, k.get("timeout"));
            if (k.has("interval")) {
                s.interval_ns = as_time_ns(p, k.get("interval"));
                if (s.interval_ns == 0)
                    p.fail(k.get("interval"), "must be more than 0");
            }
            break;
        }
        case StepKind::Delay:
            s.delay_ns = as_time_ns(p, f);
            break;
        case StepKind::Alloc: {
            MapView k(p, f.node, f.path, f.line, {"name", "size", "align"});
            if (!k.has("name") || !k.has("size"))
                p.fail(f, "name and size are required");
            s.name = scalar(p, k.get("name"), "a name");
            if (s.name.empty() || !std::all_of(s.name.begin(), s.name.end(), [](unsigned char c) {
                    return std::isalnum(c) || c == '_';
                }))
                p.fail(k.get("name"), "'" + s.name + "' is not a usable name (letters, digits, '_')");
            if (allocs.names.count(s.name))
                p.fail(k.get("name"), "allocation '" + s.name + "' already exists");
            {
                std::string sz = scalar(p, k.get("size"), "a size");
                std::string why;
                auto v = parse_size_bytes(sz, 1, &why);
                if (!v) {
                    auto u = parse_uint(sz);
                    if (!u)
                        p.fail(k.get("size"), "bad size '" + sz + "': " + why);
                    v = u;
                }
                if (*v == 0 || *v > (16u << 20))
                    p.fail(k.get("size"), "size must be 1 byte .. 16 MiB");
                s.size = *v;
            }
            s.align = k.has("align") ? as_uint(p, k.get("align"), 1, 1u << 20) : 64;
            if (s.align & (s.align - 1))
                p.fail(k.get("align"), "align must be a power of two");
            allocs.names.insert(s.name);
            break;
        }
        case StepKind::MemWrite:
        case StepKind::MemExpect: {
            bool ex = s.kind == StepKind::MemExpect;
            MapView k(p, f.node, f.path, f.line,
                      ex ? std::vector<std::string>{"addr", "bytes", "dwords", "mask", "ata_string"}
                         : std::vector<std::string>{"addr", "bytes", "dwords"});
            if (!k.has("addr"))
                p.fail(f.line, f.path + ".addr", "required");
            s.addr = allocs.value(k.get("addr"), UINT64_MAX);
            parse_data(p, allocs, k, f, s, ex);
            break;
        }
        case StepKind::DeviceFis: {
            MapView k(p, f.node, f.path, f.line, {"port", "fis"});
            if (!k.has("port") || !k.has("fis"))
                p.fail(f, "port and fis are required");
            s.port = unsigned(as_uint(p, k.get("port"), 0, 31));
            if (s.port >= sc.controller.ports)
                p.fail(k.get("port"), "port " + std::to_string(s.port) + " does not exist on the controller");
            if (!sc.device_on_port(s.port))
                p.fail(k.get("port"), "no disk on port " + std::to_string(s.port) + " (the FIS is sent on its link)");
            s.fis = parse_fis(p, k.get("fis"));
            break;
        }
        case StepKind::Inject: {
            if (!f.node.IsMap())
                p.fail(f, "expected a fault entry (as in faults[])");
            if (f.node["from_power_on"])
                p.fail(line_of(f.node["from_power_on"], f.line), f.path + ".from_power_on",
                       "an injected fault's trigger counts from its step");
            // Without a trigger: at once (at: 0ns from the step); the step waits for it.
            if (!f.node["at"] && !f.node["after_cmds"] && !f.node["on_cmd"]) {
                f.node["at"] = "0ns";
                s.wait_fired = true;
            }
            Field ff = f;
            ff.key_line = f.line;
            s.fault = add_fault(p, ff, sc);
            break;
        }
        case StepKind::ExpectTrace: {
            MapView k(p, f.node, f.path, f.line, {"ev", "src", "port", "fields", "msg_contains", "absent"});
            if (!k.has("ev"))
                p.fail(f.line, f.path + ".ev", "required (the record's event name)");
            s.ev = scalar(p, k.get("ev"), "an event name");
            if (k.has("src"))
                s.src = scalar(p, k.get("src"), "a source name");
            if (k.has("port"))
                s.trace_port = int(as_uint(p, k.get("port"), 0, 31));
            if (k.has("msg_contains"))
                s.msg_contains = scalar(p, k.get("msg_contains"), "a string");
            if (k.has("absent"))
                s.absent = as_bool(p, k.get("absent"));
            if (k.has("fields")) {
                const Field &ff = k.get("fields");
                if (!ff.node.IsMap())
                    p.fail(ff, "expected a mapping of field: value");
                for (auto it = ff.node.begin(); it != ff.node.end(); ++it) {
                    std::string name = it->first.Scalar();
                    YAML::Node v = it->second;
                    if (!v.IsScalar())
                        p.fail(line_of(v, ff.line), ff.path + "." + name, "expected a scalar");
                    std::string t = v.Scalar();
                    auto u = parse_uint(t);
                    bool hex = t.size() > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
                    // Integers as JSON numbers, true/false as booleans; hex text and other strings as JSON strings.
                    std::string json = (u && !hex) ? std::to_string(*u) : "\"" + t + "\"";
                    if (t == "true" || t == "false")
                        json = t; // JSON booleans
                    s.fields.push_back({name, json});
                }
            }
            break;
        }
        }
        out.push_back(std::move(s));
    }
    return out;
}

} // namespace

// steps: directed low-level steps instead of the stack. No workload, no faults[] (inject
// steps instead), a backend that takes them (backend/rules.h); host.stack is false (or left out).
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
    Field lf = v;
    lf.path = "steps";
    lf.line = line_of(v.node, v.line);
    sc.steps = parse_steps(p, lf, sc);
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

} // namespace satasim::harness
