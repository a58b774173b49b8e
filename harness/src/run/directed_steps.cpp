#include "run/directed_steps.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <set>

#include <systemc>
#include <yaml-cpp/yaml.h>

#include "model/sata/fis.h"
#include "backend/platform_binding.h"
#include "backend/systemc/topology.h"
#include "trace/trace_sink.h"
#include "scenario/units.h"
#include "run/workload.h"

namespace satasim::harness {

namespace {

// ---------------------------------------------------------------------------------------
// Parsing

int line_of(const YAML::Node &n, int fallback) {
    if (!n.IsDefined())
        return fallback;
    YAML::Mark m = n.Mark();
    return m.line >= 0 ? m.line + 1 : fallback;
}

struct F {
    YAML::Node node;
    std::string path;
    int line = 0;
};

class StepParser {
  public:
    explicit StepParser(const StepParseContext &c) : ctx(c) {}

    [[noreturn]] void fail(const F &f, const std::string &msg) const {
        ctx.fail(f.line, f.path, msg);
        throw std::logic_error("unreachable");
    }
    [[noreturn]] void fail(int line, const std::string &path, const std::string &msg) const {
        ctx.fail(line, path, msg);
        throw std::logic_error("unreachable");
    }

    // The keys of a mapping, checked against `allowed`.
    std::map<std::string, F> keys(const F &f, const std::vector<std::string> &allowed) const {
        if (!f.node.IsMap())
            fail(f, "expected a mapping");
        std::map<std::string, F> out;
        for (auto it = f.node.begin(); it != f.node.end(); ++it) {
            YAML::Node k = it->first;
            int kl = line_of(k, f.line);
            if (!k.IsScalar())
                fail(kl, f.path, "keys must be plain names");
            std::string key = k.Scalar();
            std::string kp = f.path + "." + key;
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string list;
                for (const auto &a : allowed)
                    list += (list.empty() ? "" : ", ") + a;
                fail(kl, kp, "unknown key (expected one of: " + list + ")");
            }
            if (out.count(key))
                fail(kl, kp, "duplicate key");
            F v;
            v.node = YAML::Node(it->second);
            v.path = kp;
            v.line = line_of(v.node, kl);
            out[key] = v;
        }
        return out;
    }

    std::string scalar(const F &f, const char *what) const {
        if (!f.node.IsScalar())
            fail(f, std::string("expected ") + what);
        return f.node.Scalar();
    }
    uint64_t uint(const F &f, uint64_t lo, uint64_t hi) const {
        std::string s = scalar(f, "an integer");
        auto v = parse_uint(s);
        if (!v)
            fail(f, "expected a non-negative integer, got '" + s + "'");
        if (*v < lo || *v > hi)
            fail(f, s + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
        return *v;
    }
    uint64_t time(const F &f) const {
        std::string s = scalar(f, "a time");
        std::string why;
        auto v = parse_time_ns(s, &why);
        if (!v)
            fail(f, "bad time '" + s + "': " + why);
        return *v;
    }
    bool boolean(const F &f) const {
        std::string s = scalar(f, "true or false");
        if (s == "true" || s == "yes" || s == "on")
            return true;
        if (s == "false" || s == "no" || s == "off")
            return false;
        fail(f, "expected true or false, got '" + s + "'");
    }
    F element(const F &list, size_t i) const {
        F e;
        e.node = list.node[i];
        e.path = list.path + "[" + std::to_string(i) + "]";
        e.line = line_of(e.node, list.line);
        return e;
    }
    const YAML::Node &seq(const F &f) const {
        if (!f.node.IsSequence())
            fail(f, "expected a list");
        return f.node;
    }

    // An integer, `${name}`, `${name}+off` or {alloc: name, offset: off}; `limit` bounds constants.
    StepValue value(const F &f, uint64_t limit) const {
        StepValue v;
        if (f.node.IsMap()) {
            auto k = keys(f, {"alloc", "offset"});
            if (!k.count("alloc"))
                fail(f.line, f.path + ".alloc", "required (the name of an alloc step)");
            v.alloc = scalar(k["alloc"], "an allocation name");
            if (k.count("offset"))
                v.value = uint(k["offset"], 0, 0xffffffffu);
            check_alloc(k["alloc"], v.alloc);
            return v;
        }
        std::string s = scalar(f, "an integer or ${name}");
        if (s.rfind("${", 0) == 0) {
            size_t close = s.find('}');
            if (close == std::string::npos)
                fail(f, "'" + s + "': missing '}'");
            v.alloc = s.substr(2, close - 2);
            std::string rest = s.substr(close + 1);
            if (!rest.empty()) {
                if (rest[0] != '+')
                    fail(f, "'" + s + "': only ${name}+offset is allowed");
                auto off = parse_uint(rest.substr(1));
                if (!off || *off > 0xffffffffu)
                    fail(f, "'" + s + "': bad offset '" + rest.substr(1) + "'");
                v.value = *off;
            }
            check_alloc(f, v.alloc);
            return v;
        }
        v.value = uint(f, 0, limit);
        return v;
    }
    void check_alloc(const F &f, const std::string &name) const {
        if (!allocs.count(name))
            fail(f, "no alloc step named '" + name + "' before this step");
    }

    const StepParseContext &ctx;
    std::set<std::string> allocs;
};

std::vector<uint8_t> build_fis(const StepParser &p, const F &f) {
    if (!f.node.IsMap())
        p.fail(f, "expected a mapping {type: reg_d2h|sdb|raw, ...}");
    if (!f.node["type"])
        p.fail(f.line, f.path + ".type", "required (reg_d2h, sdb or raw)");
    F tf;
    tf.node = f.node["type"];
    tf.path = f.path + ".type";
    tf.line = line_of(tf.node, f.line);
    std::string type = p.scalar(tf, "a FIS type");
    if (type == "reg_d2h") {
        auto k = p.keys(f, {"type", "status", "error", "lba", "device", "count", "irq", "pm_port"});
        auto get = [&](const char *n, uint64_t hi, uint64_t def) {
            return k.count(n) ? p.uint(k[n], 0, hi) : def;
        };
        bool irq = k.count("irq") ? p.boolean(k["irq"]) : true;
        return sata::make_reg_d2h(uint8_t(get("status", 255, 0x50)), uint8_t(get("error", 255, 0)),
                                  get("lba", (1ull << 48) - 1, 0), uint8_t(get("device", 255, 0)),
                                  uint16_t(get("count", 0xffff, 0)), irq, uint8_t(get("pm_port", 15, 0)))
            .bytes;
    }
    if (type == "sdb") {
        auto k = p.keys(f, {"type", "status", "error", "sactive", "irq", "notify", "pm_port"});
        auto get = [&](const char *n, uint64_t hi, uint64_t def) {
            return k.count(n) ? p.uint(k[n], 0, hi) : def;
        };
        bool irq = k.count("irq") ? p.boolean(k["irq"]) : true;
        bool notify = k.count("notify") ? p.boolean(k["notify"]) : false;
        return sata::make_sdb(uint8_t(get("status", 255, 0x40)), uint8_t(get("error", 255, 0)),
                              uint32_t(get("sactive", 0xffffffffu, 0)), irq, notify, uint8_t(get("pm_port", 15, 0)))
            .bytes;
    }
    if (type == "raw") {
        auto k = p.keys(f, {"type", "dwords"});
        if (!k.count("dwords"))
            p.fail(f.line, f.path + ".dwords", "required (the FIS, dword 0 first)");
        const YAML::Node &l = p.seq(k["dwords"]);
        if (l.size() == 0 || l.size() > 2049)
            p.fail(k["dwords"], "a FIS has 1..2049 dwords");
        std::vector<uint8_t> out;
        for (size_t i = 0; i < l.size(); ++i) {
            uint32_t d = uint32_t(p.uint(p.element(k["dwords"], i), 0, 0xffffffffu));
            for (int b = 0; b < 4; ++b)
                out.push_back(uint8_t(d >> (8 * b)));
        }
        return out;
    }
    p.fail(tf, "unknown FIS type '" + type + "' (expected reg_d2h, sdb or raw)");
}

// bytes: [..] | dwords: [..] | ata_string: "..." -> the step's data (and masks).
void parse_data(const StepParser &p, std::map<std::string, F> &k, const F &f, Step &s, bool expect) {
    int forms = int(k.count("bytes")) + int(k.count("dwords")) + int(k.count("ata_string"));
    if (forms != 1)
        p.fail(f, expect ? "give exactly one of bytes, dwords, ata_string" : "give exactly one of bytes, dwords");
    if (k.count("bytes")) {
        const YAML::Node &l = p.seq(k["bytes"]);
        for (size_t i = 0; i < l.size(); ++i)
            s.bytes.push_back(uint8_t(p.uint(p.element(k["bytes"], i), 0, 255)));
        s.byte_mask.assign(s.bytes.size(), 0xff);
    } else if (k.count("dwords")) {
        const YAML::Node &l = p.seq(k["dwords"]);
        for (size_t i = 0; i < l.size(); ++i)
            s.dwords.push_back(p.value(p.element(k["dwords"], i), 0xffffffffu));
        uint32_t m = k.count("mask") ? uint32_t(p.uint(k["mask"], 0, 0xffffffffu)) : 0xffffffffu;
        for (size_t i = 0; i < s.dwords.size(); ++i)
            for (int b = 0; b < 4; ++b)
                s.byte_mask.push_back(uint8_t(m >> (8 * b)));
    } else {
        // An ATA IDENTIFY string: characters stored in byte-swapped pairs.
        std::string str = p.scalar(k["ata_string"], "a string");
        if (str.size() % 2)
            p.fail(k["ata_string"], "an ATA string has an even number of characters (pad with a space)");
        for (size_t i = 0; i < str.size(); i += 2) {
            s.bytes.push_back(uint8_t(str[i + 1]));
            s.bytes.push_back(uint8_t(str[i]));
        }
        s.byte_mask.assign(s.bytes.size(), 0xff);
    }
    if (s.bytes.empty() && s.dwords.empty())
        p.fail(f, "no data");
    if (k.count("mask") && !k.count("dwords"))
        p.fail(k["mask"], "mask is for dwords");
}

const std::vector<std::pair<const char *, StepKind>> kStepKinds = {
    {"mmio_write", StepKind::MmioWrite}, {"mmio_read", StepKind::MmioRead}, {"wait_irq", StepKind::WaitIrq},
    {"poll", StepKind::Poll},            {"delay", StepKind::Delay},        {"alloc", StepKind::Alloc},
    {"mem_write", StepKind::MemWrite},   {"mem_expect", StepKind::MemExpect}, {"device_fis", StepKind::DeviceFis},
    {"inject", StepKind::Inject},        {"expect_trace", StepKind::ExpectTrace}};

const char *kind_name(StepKind k) {
    for (const auto &n : kStepKinds)
        if (n.second == k)
            return n.first;
    return "?";
}

void check_offset(const StepParser &p, const F &f, uint64_t off) {
    if (off % 4)
        p.fail(f, "register offsets are dword aligned");
}

} // namespace

std::vector<Step> parse_steps(const YAML::Node &list, const std::string &path, int line, const StepParseContext &ctx) {
    StepParser p(ctx);
    F lf;
    lf.node = list;
    lf.path = path;
    lf.line = line_of(list, line);
    const YAML::Node &l = p.seq(lf);
    if (l.size() == 0)
        p.fail(lf, "at least one step");
    std::vector<Step> out;
    for (size_t i = 0; i < l.size(); ++i) {
        F e = p.element(lf, i);
        if (!e.node.IsMap() || e.node.size() != 1)
            p.fail(e, "a step is a mapping with one key (mmio_write, mmio_read, wait_irq, poll, delay, alloc, "
                      "mem_write, mem_expect, device_fis, inject, expect_trace)");
        std::vector<std::string> names;
        for (const auto &n : kStepKinds)
            names.push_back(n.first);
        auto top = p.keys(e, names);
        const std::string key = top.begin()->first;
        F f = top.begin()->second;
        Step s;
        s.index = unsigned(i);
        for (const auto &n : kStepKinds)
            if (key == n.first)
                s.kind = n.second;
        s.where = ctx.where(e.line, e.path);
        switch (s.kind) {
        case StepKind::MmioWrite: {
            auto k = p.keys(f, {"offset", "value"});
            if (!k.count("offset") || !k.count("value"))
                p.fail(f, "offset and value are required");
            s.offset = uint32_t(p.uint(k["offset"], 0, 0xffffc));
            check_offset(p, k["offset"], s.offset);
            s.value = p.value(k["value"], 0xffffffffu);
            break;
        }
        case StepKind::MmioRead: {
            auto k = p.keys(f, {"offset", "expect", "mask"});
            if (!k.count("offset"))
                p.fail(f.line, f.path + ".offset", "required");
            s.offset = uint32_t(p.uint(k["offset"], 0, 0xffffc));
            check_offset(p, k["offset"], s.offset);
            if (k.count("expect"))
                s.expect = p.value(k["expect"], 0xffffffffu);
            if (k.count("mask")) {
                if (!s.expect)
                    p.fail(k["mask"], "mask needs expect");
                s.mask = uint32_t(p.uint(k["mask"], 0, 0xffffffffu));
            }
            break;
        }
        case StepKind::WaitIrq: {
            auto k = p.keys(f, {"timeout", "level"});
            if (!k.count("timeout"))
                p.fail(f.line, f.path + ".timeout", "required");
            s.timeout_ns = p.time(k["timeout"]);
            if (k.count("level"))
                s.irq_level = p.boolean(k["level"]);
            break;
        }
        case StepKind::Poll: {
            auto k = p.keys(f, {"offset", "mask", "value", "timeout", "interval"});
            for (const char *r : {"offset", "value", "timeout"})
                if (!k.count(r))
                    p.fail(f.line, f.path + "." + r, "required");
            s.offset = uint32_t(p.uint(k["offset"], 0, 0xffffc));
            check_offset(p, k["offset"], s.offset);
            s.value = p.value(k["value"], 0xffffffffu);
            if (k.count("mask"))
                s.mask = uint32_t(p.uint(k["mask"], 0, 0xffffffffu));
            s.timeout_ns = p.time(k["timeout"]);
            if (k.count("interval")) {
                s.interval_ns = p.time(k["interval"]);
                if (s.interval_ns == 0)
                    p.fail(k["interval"], "must be more than 0");
            }
            break;
        }
        case StepKind::Delay:
            s.delay_ns = p.time(f);
            break;
        case StepKind::Alloc: {
            auto k = p.keys(f, {"name", "size", "align"});
            if (!k.count("name") || !k.count("size"))
                p.fail(f, "name and size are required");
            s.name = p.scalar(k["name"], "a name");
            if (s.name.empty() || !std::all_of(s.name.begin(), s.name.end(), [](unsigned char c) {
                    return std::isalnum(c) || c == '_';
                }))
                p.fail(k["name"], "'" + s.name + "' is not a usable name (letters, digits, '_')");
            if (p.allocs.count(s.name))
                p.fail(k["name"], "allocation '" + s.name + "' already exists");
            {
                std::string sz = p.scalar(k["size"], "a size");
                std::string why;
                auto v = parse_size_bytes(sz, 1, &why);
                if (!v) {
                    auto u = parse_uint(sz);
                    if (!u)
                        p.fail(k["size"], "bad size '" + sz + "': " + why);
                    v = u;
                }
                if (*v == 0 || *v > (16u << 20))
                    p.fail(k["size"], "size must be 1 byte .. 16 MiB");
                s.size = *v;
            }
            s.align = k.count("align") ? p.uint(k["align"], 1, 1u << 20) : 64;
            if (s.align & (s.align - 1))
                p.fail(k["align"], "align must be a power of two");
            p.allocs.insert(s.name);
            break;
        }
        case StepKind::MemWrite:
        case StepKind::MemExpect: {
            bool ex = s.kind == StepKind::MemExpect;
            auto k = ex ? p.keys(f, {"addr", "bytes", "dwords", "mask", "ata_string"})
                        : p.keys(f, {"addr", "bytes", "dwords"});
            if (!k.count("addr"))
                p.fail(f.line, f.path + ".addr", "required");
            s.addr = p.value(k["addr"], UINT64_MAX);
            parse_data(p, k, f, s, ex);
            break;
        }
        case StepKind::DeviceFis: {
            auto k = p.keys(f, {"port", "fis"});
            if (!k.count("port") || !k.count("fis"))
                p.fail(f, "port and fis are required");
            s.port = unsigned(p.uint(k["port"], 0, 31));
            if (s.port >= ctx.ports)
                p.fail(k["port"], "port " + std::to_string(s.port) + " does not exist on the controller");
            if (!ctx.has_disk(s.port))
                p.fail(k["port"], "no disk on port " + std::to_string(s.port) + " (the FIS is sent on its link)");
            s.fis = build_fis(p, k["fis"]);
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
            s.fault = ctx.add_fault(f.node, f.path, f.line);
            break;
        }
        case StepKind::ExpectTrace: {
            auto k = p.keys(f, {"ev", "src", "port", "fields", "msg_contains", "absent"});
            if (!k.count("ev"))
                p.fail(f.line, f.path + ".ev", "required (the record's event name)");
            s.ev = p.scalar(k["ev"], "an event name");
            if (k.count("src"))
                s.src = p.scalar(k["src"], "a source name");
            if (k.count("port"))
                s.trace_port = int(p.uint(k["port"], 0, 31));
            if (k.count("msg_contains"))
                s.msg_contains = p.scalar(k["msg_contains"], "a string");
            if (k.count("absent"))
                s.absent = p.boolean(k["absent"]);
            if (k.count("fields")) {
                F ff = k["fields"];
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

// ---------------------------------------------------------------------------------------
// Running

namespace {

std::string hex32(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%08llx", (unsigned long long)v);
    return b;
}

sc_core::sc_time ns(uint64_t n) {
    return sc_core::sc_time::from_value(sc_dt::uint64(n) * sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
}

uint64_t now_ns() {
    return uint64_t(sc_core::sc_time_stamp().value() / sc_core::sc_time(1, sc_core::SC_NS).value());
}

class StepRunner {
  public:
    StepRunner(Topology &t, PlatformBinding &b, TraceSink &s, RunFailures &f) : topo(t), binding(b), sink(s), failures(f) {
        sink.set_record_hook([this](const std::string &line) { lines.push_back(line); });
    }
    ~StepRunner() { sink.set_record_hook(nullptr); }

    uint64_t resolve(const StepValue &v) const {
        if (v.alloc.empty())
            return v.value;
        return allocs.at(v.alloc) + v.value;
    }

    void note(const Step &s, const std::string &msg) {
        sink.emit_harness("step", SATA_TC_INFO, -1,
                          {{"index", TraceValue::integer(int64_t(s.index))},
                           {"kind", TraceValue::str(kind_name(s.kind))}},
                          "step " + std::to_string(s.index) + " (" + s.where + "): " + msg);
    }
    void fail(const Step &s, const std::string &msg) {
        std::string r = s.where + ": steps[" + std::to_string(s.index) + "] " + kind_name(s.kind) + ": " + msg;
        failures.add(r);
        sink.emit_harness("step.fail", SATA_TC_INFO, -1,
                          {{"index", TraceValue::integer(int64_t(s.index))},
                           {"kind", TraceValue::str(kind_name(s.kind))}},
                          "FAILED " + r);
    }

    bool trace_matches(const Step &s, const std::string &line) const {
        auto has = [&](const std::string &needle) { return line.find(needle) != std::string::npos; };
        if (!has("\"ev\":\"" + s.ev + "\""))
            return false;
        if (!s.src.empty() && !has("\"src\":\"" + s.src + "\""))
            return false;
        if (s.trace_port && !has("\"port\":" + std::to_string(*s.trace_port) + ","))
            return false;
        for (const auto &kv : s.fields)
            if (!has("\"" + kv.first + "\":" + kv.second))
                return false;
        if (!s.msg_contains.empty()) {
            size_t m = line.find(",\"msg\":");
            if (m == std::string::npos || line.find(s.msg_contains, m) == std::string::npos)
                return false;
        }
        return true;
    }

    void run(const Step &s);

    Topology &topo;
    PlatformBinding &binding;
    TraceSink &sink;
    RunFailures &failures;
    std::map<std::string, uint64_t> allocs;
    std::vector<std::string> lines;
};

void StepRunner::run(const Step &s) {
    switch (s.kind) {
    case StepKind::MmioWrite: {
        uint32_t v = uint32_t(resolve(s.value));
        binding.mmio_write32(s.offset, v);
        note(s, "mmio_write " + hex32(s.offset) + " = " + hex32(v));
        break;
    }
    case StepKind::MmioRead: {
        uint32_t v = binding.mmio_read32(s.offset);
        if (!s.expect) {
            note(s, "mmio_read " + hex32(s.offset) + " = " + hex32(v));
            break;
        }
        uint32_t want = uint32_t(resolve(*s.expect));
        if ((v & s.mask) != (want & s.mask))
            fail(s, "register " + hex32(s.offset) + " reads " + hex32(v) + ", expected " + hex32(want) +
                        (s.mask != 0xffffffffu ? " under mask " + hex32(s.mask) : ""));
        else
            note(s, "mmio_read " + hex32(s.offset) + " = " + hex32(v) + " (as expected)");
        break;
    }
    case StepKind::WaitIrq: {
        const uint64_t deadline = now_ns() + s.timeout_ns;
        while (topo.irq->level() != s.irq_level && now_ns() < deadline)
            sc_core::wait(ns(deadline - now_ns()), topo.irq->changed_event());
        if (topo.irq->level() != s.irq_level)
            fail(s, std::string("interrupt line not ") + (s.irq_level ? "asserted" : "deasserted") + " within " +
                        std::to_string(s.timeout_ns) + " ns");
        else
            note(s, std::string("interrupt line ") + (s.irq_level ? "asserted" : "deasserted"));
        break;
    }
    case StepKind::Poll: {
        const uint32_t want = uint32_t(resolve(s.value));
        const uint64_t deadline = now_ns() + s.timeout_ns;
        uint32_t v = binding.mmio_read32(s.offset);
        while ((v & s.mask) != (want & s.mask) && now_ns() < deadline) {
            sc_core::wait(ns(std::min(s.interval_ns, deadline - now_ns())));
            v = binding.mmio_read32(s.offset);
        }
        if ((v & s.mask) != (want & s.mask))
            fail(s, "register " + hex32(s.offset) + " still reads " + hex32(v) + " after " +
                        std::to_string(s.timeout_ns) + " ns, waiting for " + hex32(want) + " under mask " +
                        hex32(s.mask));
        else
            note(s, "poll " + hex32(s.offset) + " = " + hex32(v));
        break;
    }
    case StepKind::Delay:
        sc_core::wait(ns(s.delay_ns));
        break;
    case StepKind::Alloc: {
        uint64_t a = topo.mem->alloc(size_t(s.size), size_t(s.align), nullptr);
        allocs[s.name] = a;
        note(s, "alloc " + s.name + " = " + hex32(a) + " (" + std::to_string(s.size) + " bytes)");
        break;
    }
    case StepKind::MemWrite:
    case StepKind::MemExpect: {
        std::vector<uint8_t> data = s.bytes;
        for (const StepValue &d : s.dwords) {
            uint32_t w = uint32_t(resolve(d));
            for (int b = 0; b < 4; ++b)
                data.push_back(uint8_t(w >> (8 * b)));
        }
        uint64_t a = resolve(s.addr);
        if (s.kind == StepKind::MemWrite) {
            if (!topo.mem->write(a, data.data(), data.size()))
                fail(s, "host memory " + hex32(a) + " (+" + std::to_string(data.size()) + ") is not allocated");
            else
                note(s, "mem_write " + hex32(a) + " (" + std::to_string(data.size()) + " bytes)");
            break;
        }
        std::vector<uint8_t> got(data.size());
        if (!topo.mem->read(a, got.data(), got.size())) {
            fail(s, "host memory " + hex32(a) + " (+" + std::to_string(data.size()) + ") is not allocated");
            break;
        }
        size_t bad = data.size();
        for (size_t i = 0; i < data.size(); ++i)
            if ((got[i] & s.byte_mask[i]) != (data[i] & s.byte_mask[i])) {
                bad = i;
                break;
            }
        if (bad == data.size()) {
            note(s, "mem_expect " + hex32(a) + " (" + std::to_string(data.size()) + " bytes) as expected");
            break;
        }
        auto show = [](const std::vector<uint8_t> &v) {
            std::string o;
            char b[4];
            for (uint8_t c : v) {
                std::snprintf(b, sizeof b, "%02x", c);
                o += o.empty() ? "" : " ";
                o += b;
            }
            return o;
        };
        fail(s, "host memory at " + hex32(a + bad) + " (byte " + std::to_string(bad) + "): got [" + show(got) +
                    "], expected [" + show(data) + "]");
        break;
    }
    case StepKind::DeviceFis: {
        auto it = topo.links.find(s.port);
        sata::Fis fis;
        fis.bytes = s.fis;
        auto st = it->second->send_from_device(fis);
        if (st != link::FrameStatus::Ok)
            fail(s, "the FIS was not delivered on link" + std::to_string(s.port) + " (the host did not take it)");
        else
            note(s, "device_fis port " + std::to_string(s.port) + " type " + hex32(s.fis.at(0)));
        break;
    }
    case StepKind::Inject: {
        topo.faults->start_fault(s.fault);
        if (s.wait_fired)
            while (!topo.faults->fired(s.fault))
                sc_core::wait(topo.faults->fired_event());
        note(s, "inject " + topo.faults->plan().at(s.fault).id);
        break;
    }
    case StepKind::ExpectTrace: {
        bool found = false;
        for (const std::string &l : lines)
            if (trace_matches(s, l)) {
                found = true;
                break;
            }
        if (found == s.absent)
            fail(s, std::string(s.absent ? "found" : "no") + " trace record with ev " + s.ev +
                        (s.src.empty() ? "" : " src " + s.src) +
                        (s.trace_port ? " port " + std::to_string(*s.trace_port) : "") +
                        (s.fields.empty() ? "" : " and the given fields") +
                        (s.msg_contains.empty() ? "" : " and a message containing \"" + s.msg_contains + "\"") +
                        (s.absent ? "" : " so far"));
        else
            note(s, "expect_trace " + s.ev + (s.absent ? " absent" : " seen"));
        break;
    }
    }
}

} // namespace

void run_steps(const std::vector<Step> &steps, Topology &topo, PlatformBinding &binding, TraceSink &sink,
               RunFailures &failures) {
    StepRunner r(topo, binding, sink, failures);
    for (const Step &s : steps)
        r.run(s);
}

} // namespace satasim::harness
