// YAML scenario file -> Scenario: the top-level keys, then each section in the order one
// depends on the next (controller, host, link, pmps, devices, workload, faults, waveform,
// steps, expect); each section is its own file (section_*.cpp) on the one toolkit of
// yaml_walk.h.
#include "scenario/scenario_parser.h"

#include <fstream>
#include <map>
#include <sstream>

#include "scenario/scenario_include.h"
#include "scenario/sections.h"
#include "scenario/yaml_load.h"

namespace satasim::harness {

namespace {

void hex_escape(std::string &out, const char *prefix, uint32_t v, int digits) {
    static const char hex[] = "0123456789abcdef";
    out += prefix;
    for (int i = digits - 1; i >= 0; --i)
        out.push_back(hex[(v >> (4 * i)) & 15]);
}

// The code point of the UTF-8 sequence at s[i] and its length, or length 0 where the bytes
// are not valid UTF-8 (overlong, surrogate, beyond U+10FFFF, cut short).
std::pair<uint32_t, size_t> utf8_at(const std::string &s, size_t i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    const size_t n = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (c >= 0xf5 || n == 0 || i + n > s.size())
        return {0, 0};
    uint32_t cp = c & (0x7f >> n);
    for (size_t k = 1; k < n; ++k) {
        const unsigned char x = static_cast<unsigned char>(s[i + k]);
        if ((x & 0xc0) != 0x80)
            return {0, 0};
        cp = cp << 6 | (x & 0x3f);
    }
    static const uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kMin[n] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return {0, 0};
    return {cp, n};
}

// Code points a terminal acts on instead of showing: C1 controls (U+0085 is a line break
// to some), the line and paragraph separators, and the bidirectional and zero-width
// format characters (U+202E turns the rest of the line around).
bool invisible(uint32_t cp) {
    return (cp >= 0x80 && cp <= 0x9f) || cp == 0x61c || (cp >= 0x200b && cp <= 0x200f) ||
           (cp >= 0x2028 && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2069) || cp == 0xfeff;
}

} // namespace

std::string escape_controls(const std::string &s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c < 0x7f) {
            out.push_back(char(c));
            ++i;
            continue;
        }
        switch (c) {
        case '\n': out += "\\n"; ++i; continue;
        case '\r': out += "\\r"; ++i; continue;
        case '\t': out += "\\t"; ++i; continue;
        default: break;
        }
        if (c < 0x80) { // the other C0 controls and DEL
            hex_escape(out, "\\x", c, 2);
            ++i;
            continue;
        }
        const auto [cp, n] = utf8_at(s, i);
        if (n == 0) { // not UTF-8: each byte shown as it is
            hex_escape(out, "\\x", c, 2);
            ++i;
        } else if (invisible(cp)) {
            hex_escape(out, "\\u", cp, 4);
            i += n;
        } else {
            out.append(s, i, n);
            i += n;
        }
    }
    return out;
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

const char *reserved_name(const std::string &n) {
    // What `satasim run` and the report tools write into the output folder next to the
    // scenarios' folders (names starting with '.', such as the runner's temporary folders
    // and .summary.json.tmp, are refused by valid_name()).
    static const std::pair<const char *, const char *> kReserved[] = {
        {"summary.json", "the runner writes the run summary OUT/summary.json"},
        {"junit.xml", "tools/run_suite.sh writes the JUnit report OUT/junit.xml"},
        {"report.html", "satasim.render writes its HTML report as report.html"},
    };
    for (const auto &[name, why] : kReserved)
        if (n == name)
            return why;
    return nullptr;
}

Scenario parse_scenario_text(const std::string &text, const std::string &file, const BackendList &backends,
                             const Overrides &overrides) {
    Parser p(file);
    YAML::Node root = load_yaml_document(text, file, false);
    if (!root.IsDefined() || root.IsNull())
        p.fail(1, "", "empty scenario file");
    IncludeResult inc = resolve_includes(root, file);
    root = inc.root;
    if (!overrides.empty()) {
        if (!root.IsMap())
            p.fail(1, "", "expected a mapping, got " + std::string(kind_name(root)));
        try {
            apply_overrides(root, overrides);
        } catch (const ScenarioError &e) {
            p.fail(1, "", e.what());
        }
    }
    // A message names the file (or the included file, or the override) its key came from.
    if (!inc.origin.empty() || !overrides.empty())
        p.file_for_ = [inc, file, overrides](const std::string &path) {
            if (const ScenarioOverride *o = override_at(overrides, path))
                return "(--set " + o->text() + ")";
            return inc.origin.empty() ? file : origin_file(inc, path, file);
        };

    Scenario sc;
    sc.file = file;
    Field rootf;
    rootf.node = root;
    rootf.line = 1;
    MapView m(p, root, "", 1,
              {"name", "description", "seed", "time_limit", "trace_cmds", "trace_fis", "controller", "controllers", "host",
               "devices", "workload", "expect", "backend", "faults", "link", "steps", "pmps", "waveform", "matrix",
               "oracles"});
    read_matrix(root, file); // checked here; expanded by the runner (scenario_matrix)
    sc.overrides = overrides;

    sc.name = file_stem(file);
    if (auto *v = m.find("name"))
        sc.name = as_string(p, *v);
    if (!valid_name(sc.name))
        p.fail(m.has("name") ? m.get("name").line : 1, "name",
               "'" + sc.name + "' is not a usable scenario name (letters, digits, '-', '_', '.'; "
                               "it names the output folder)");
    if (const char *why = reserved_name(sc.name))
        p.fail(m.has("name") ? m.get("name").line : 1, "name",
               "'" + sc.name + "' is reserved: " + why + " (pick another name; it names the output folder)");
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
        sc.backend_line = v->line;
    }
    sc.backend = p.backend->name;
    if (auto *v = m.find("controller"))
        parse_controller(p, *v, sc.controller);
    if (auto *v = m.find("controllers")) {
        if (m.has("controller"))
            p.fail(v->key_line, v->path,
                   "give controller: (one) or controllers: (a list), not both (controller: is line " +
                       std::to_string(m.get("controller").key_line) + ")");
        parse_controllers(p, *v, sc);
    } else {
        sc.controllers = {sc.controller};
    }
    if (auto *v = m.find("host"))
        parse_host(p, *v, sc.host);
    // What names a port of the one host (libata.force's ataN, the AHCI driver's port mask)
    // or drives one controller directly is not modelled across several.
    if (sc.multi()) {
        auto one_only = [&](const char *key, int line, const std::string &why) {
            p.fail(line, key, "not with several controllers (controllers:): " + why);
        };
        if (!sc.host.force.empty())
            one_only("host.force", sc.host.force_line, "its ataN port numbers are not mapped across hosts");
        if (sc.host.port_mask)
            one_only("host.port_mask", line_of(m.get("host").node["port_mask"], 1),
                     "the AHCI driver's mask names one controller's ports");
        if (m.has("steps"))
            one_only("steps", m.get("steps").line, "directed steps drive one controller's registers");
        if (m.has("waveform"))
            one_only("waveform", m.get("waveform").line, "the waveform records one controller's signals");
    }
    for (const ForceOption &o : sc.host.force) // libata numbers ports from 1
        if (o.port > int(sc.controller.ports))
            p.fail(sc.host.force_line, "host.force",
                   "'" + std::to_string(o.port) + ":" + o.name + "': port " + std::to_string(o.port) +
                       " is ata" + std::to_string(o.port) + ", controller port " + std::to_string(o.port - 1) +
                       ": not on a " + std::to_string(sc.controller.ports) + "-port controller");
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
    if (auto *v = m.find("oracles"))
        parse_oracles(p, *v, sc);
    if (auto *v = m.find("expect"))
        parse_expect(p, *v, sc);
    if (!sc.steps.empty())
        check_directed_expect(p, m);
    sc.warnings = p.warnings();
    return sc;
}

Scenario parse_scenario_file(const std::string &path, const BackendList &backends, const Overrides &overrides) {
    FileText f = read_bounded_file(path, kScenarioMaxBytes, "a scenario file");
    if (!f.ok)
        throw ScenarioError(path + ":1: " + f.why);
    return parse_scenario_text(f.text, path, backends, overrides);
}

std::vector<MatrixAxis> scenario_matrix(const std::string &path, const std::vector<MatrixAxis> &extra) {
    FileText f = read_bounded_file(path, kScenarioMaxBytes, "a scenario file");
    if (!f.ok)
        throw ScenarioError(path + ":1: " + f.why);
    const YAML::Node root = load_yaml_document(f.text, path, false);
    std::vector<MatrixAxis> axes = read_matrix(resolve_includes(root, path).root, path);
    axes.insert(axes.end(), extra.begin(), extra.end());
    return axes;
}

} // namespace satasim::harness
