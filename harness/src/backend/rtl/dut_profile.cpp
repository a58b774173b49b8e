// The DUT profile reader (dut_profile.h), on the scenario reader's YAML toolkit so that
// every message has its form: "file:line: key.path: what is wrong".
#include "backend/rtl/dut_profile.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include "scenario/yaml_walk.h"

namespace satasim::harness::rtl {

namespace fs = std::filesystem;

namespace {

std::string absolute_in(const Parser &p, const Field &f, const fs::path &dir, bool want_dir) {
    const std::string s = as_string(p, f);
    if (s.empty())
        p.fail(f, "empty path");
    fs::path q = fs::path(s).is_absolute() ? fs::path(s) : dir / s;
    std::error_code ec;
    q = fs::weakly_canonical(q, ec);
    if (want_dir ? !fs::is_directory(q, ec) : !fs::is_regular_file(q, ec))
        p.fail(f, std::string("no such ") + (want_dir ? "folder" : "file") + " '" + q.string() + "'");
    return q.string();
}

// A flag, define or parameter name as Verilator takes it on its command line.
bool plain_name(const std::string &s) {
    if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0])))
        return false;
    for (unsigned char c : s)
        if (!std::isalnum(c) && c != '_')
            return false;
    return true;
}

std::map<std::string, std::string> name_values(const Parser &p, const Field &f) {
    if (!f.node.IsMap())
        p.fail(f, std::string("expected a mapping of NAME: value, got ") + kind_name(f.node));
    std::map<std::string, std::string> out;
    for (auto it = f.node.begin(); it != f.node.end(); ++it) {
        YAML::Node k = it->first;
        Field v;
        v.node = YAML::Node(it->second);
        v.key_line = line_of(k, f.line);
        v.path = f.path + "." + (k.IsScalar() ? k.Scalar() : "?");
        v.line = line_of(v.node, v.key_line);
        if (!k.IsScalar() || !plain_name(k.Scalar()))
            p.fail(v.key_line, f.path, "names must be letters, digits and _ (not starting with a digit)");
        const std::string val = as_string(p, v);
        for (unsigned char c : val)
            if (c < 0x21 || c > 0x7e || c == '\'' || c == '"' || c == '\\')
                p.fail(v, "values must be printable without spaces, quotes or backslashes");
        out[k.Scalar()] = val;
    }
    return out;
}

// The line of every key of map m, under its path, for later messages (dut_caps.cpp).
void note_lines(const MapView &m, const std::string &path, int map_line, std::initializer_list<const char *> keys,
                DutProfile &d) {
    d.lines[path] = map_line;
    for (const char *k : keys)
        if (auto *x = m.find(k))
            d.lines[path + "." + k] = x->line;
}

void read_interface(const Parser &p, const Field &f, DutProfile &d) {
    MapView m(p, f.node, f.path, f.line,
              {"ports", "data_width", "addr_width", "clock_mhz", "idle_cycles", "phy_width", "phy_clocks"});
    note_lines(m, "interface", f.line, {"ports", "data_width", "addr_width", "phy_width", "phy_clocks"}, d);
    if (auto *x = m.find("ports"))
        d.ports = unsigned(as_uint(p, *x, 1, 8));
    if (auto *x = m.find("data_width")) {
        d.data_width = unsigned(as_uint(p, *x, 32, 128));
        if (d.data_width != 32 && d.data_width != 64 && d.data_width != 128)
            p.fail(*x, "the shell's AXI4 data width is 32, 64 or 128");
    }
    if (auto *x = m.find("addr_width")) {
        d.addr_width = unsigned(as_uint(p, *x, 32, 64));
        if (d.addr_width != 32 && d.addr_width != 64)
            p.fail(*x, "the shell's AXI4 address width is 32 or 64");
    }
    if (auto *x = m.find("clock_mhz"))
        d.clock_mhz = double(as_uint(p, *x, 10, 1000));
    if (auto *x = m.find("idle_cycles"))
        d.idle_cycles = unsigned(as_uint(p, *x, 64, 1u << 24));
    if (auto *x = m.find("phy_clocks"))
        d.phy_clocks = as_bool(p, *x);
    if (auto *x = m.find("phy_width")) {
        d.phy_width = unsigned(as_uint(p, *x, 16, 32));
        if (d.phy_width != 16 && d.phy_width != 32)
            p.fail(*x, "the shell's PHY interface is 32 or 16 bits (8-bit symbols with a K flag each)");
        if (d.phy_width == 16 && !d.phy_clocks)
            p.fail(*x, "16-bit PHY words move at twice the dword rate on the PHY's clocks: say "
                       "interface.phy_clocks: true (the top has phy_tx_clk and phy_rx_clk)");
    }
}

// phy: the shell's PHY settings (not part of the DUT's build).
void read_phy(const Parser &p, const Field &f, DutProfile &d) {
    MapView m(p, f.node, f.path, f.line, {"rx_ppm"});
    if (auto *x = m.find("rx_ppm")) {
        // A signed integer: the scenario toolkit's readers take none.
        const std::string s = as_string(p, *x);
        const bool neg = !s.empty() && s[0] == '-';
        const auto v = parse_uint(neg ? s.substr(1) : s);
        if (!v || *v > 1000)
            p.fail(*x, "expected an integer from -1000 to 1000 (ppm), got '" + s + "'");
        d.rx_ppm = neg ? -int(*v) : int(*v);
        if (d.rx_ppm != 0 && !d.phy_clocks)
            p.fail(*x, "a receive clock offset needs the DUT's own receive clock: interface.phy_clocks: true "
                       "(the top has phy_rx_clk and an elastic buffer behind it)");
    }
}

void read_quirks(const Parser &p, const Field &f, DutProfile &d) {
    DutQuirks &q = d.quirks;
    MapView m(p, f.node, f.path, f.line,
              {"single_slot", "no_ncq", "no_64bit_dma", "only_gen", "onchip_cmd_area", "no_pmp"});
    note_lines(m, "quirks", f.line, {"single_slot", "no_ncq", "no_64bit_dma", "only_gen", "no_pmp"}, d);
    if (auto *x = m.find("single_slot"))
        q.single_slot = as_bool(p, *x);
    if (auto *x = m.find("no_ncq"))
        q.no_ncq = as_bool(p, *x);
    if (auto *x = m.find("no_64bit_dma"))
        q.no_64bit_dma = as_bool(p, *x);
    if (auto *x = m.find("only_gen"))
        q.only_gen = unsigned(as_uint(p, *x, 0, 3)); // 0: any Gen up to CAP.ISS (checked there)
    if (auto *x = m.find("onchip_cmd_area")) {
        q.onchip_cmd_area = as_bool(p, *x);
        if (q.onchip_cmd_area)
            p.fail(*x, "not supported yet: the stack's AHCI driver keeps the command list and received-FIS "
                       "area in system memory (docs/rtl-controller.md, quirks)");
    }
    if (auto *x = m.find("no_pmp"))
        q.no_pmp = as_bool(p, *x);
}

void read_axi(const Parser &p, const Field &f, AxiSlaveConfig &a) {
    MapView m(p, f.node, f.path, f.line,
              {"read_latency", "write_latency", "backpressure_pct", "max_reads", "max_writes"});
    if (auto *x = m.find("read_latency"))
        a.read_latency = unsigned(as_uint(p, *x, 0, 10000));
    if (auto *x = m.find("write_latency"))
        a.write_latency = unsigned(as_uint(p, *x, 0, 10000));
    if (auto *x = m.find("backpressure_pct"))
        a.backpressure_pct = unsigned(as_uint(p, *x, 0, 90));
    if (auto *x = m.find("max_reads"))
        a.max_reads = unsigned(as_uint(p, *x, 1, 64));
    if (auto *x = m.find("max_writes"))
        a.max_writes = unsigned(as_uint(p, *x, 1, 64));
}

} // namespace

DutProfile parse_dut_profile(const std::string &path) {
    std::error_code ec;
    const fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
    Parser p(path);
    std::ifstream in(abs);
    if (!in || !fs::is_regular_file(abs, ec))
        p.fail(1, "", "cannot read the DUT profile");
    std::stringstream ss;
    ss << in.rdbuf();
    YAML::Node root;
    try {
        root = YAML::Load(ss.str());
    } catch (const YAML::Exception &e) {
        p.fail(e.mark.line + 1, "", "YAML syntax error: " + e.msg);
    }
    DutProfile d;
    d.file = abs.string();
    const fs::path dir = abs.parent_path();
    MapView m(p, root, "", 1,
              {"name", "top", "files", "include_dirs", "defines", "parameters", "verilator_flags", "interface",
               "quirks", "axi", "phy"});
    for (const char *k : {"name", "top", "files", "interface"})
        if (!m.has(k))
            p.fail(m.line(), k, "missing (a profile names the DUT, its top module, its files and its interface)");
    d.name = as_string(p, m.get("name"));
    if (!plain_name(d.name))
        p.fail(m.get("name"), "letters, digits and _ only (it names the build's cache folder)");
    d.top = as_string(p, m.get("top"));
    if (!plain_name(d.top))
        p.fail(m.get("top"), "not a Verilog module name");
    for_each_element(p, m.get("files"), [&](const Field &e, size_t) { d.files.push_back(absolute_in(p, e, dir, false)); });
    if (d.files.empty())
        p.fail(m.get("files"), "no RTL files");
    if (auto *x = m.find("include_dirs"))
        for_each_element(p, *x, [&](const Field &e, size_t) { d.include_dirs.push_back(absolute_in(p, e, dir, true)); });
    if (auto *x = m.find("defines"))
        d.defines = name_values(p, *x);
    if (auto *x = m.find("parameters"))
        d.parameters = name_values(p, *x);
    if (auto *x = m.find("verilator_flags"))
        for_each_element(p, *x, [&](const Field &e, size_t) {
            const std::string s = as_string(p, e);
            // An option, or the value of the option before it (--x-assign fast).
            const bool value = !d.verilator_flags.empty() && d.verilator_flags.back()[0] == '-' &&
                               !s.empty() && s[0] != '-' && s[0] != '+';
            if (s.empty() || (s[0] != '-' && !value))
                p.fail(e, "a Verilator option (starting with '-') or its value, got '" + s + "'");
            for (const char *bad : {"--sc", "--cc", "--exe", "--build", "--prefix", "--top-module", "-Mdir", "--Mdir"})
                if (s == bad)
                    p.fail(e, "'" + s + "' is the shell's to set (docs/rtl-controller.md)");
            for (unsigned char c : s)
                if (c < 0x21 || c > 0x7e || c == '\'' || c == '"' || c == '\\')
                    p.fail(e, "options must be printable without spaces, quotes or backslashes");
            d.verilator_flags.push_back(s);
        });
    read_interface(p, m.get("interface"), d);
    d.lines["quirks"] = m.has("quirks") ? m.get("quirks").key_line : 1;
    if (auto *x = m.find("quirks"))
        read_quirks(p, *x, d);
    if (auto *x = m.find("axi"))
        read_axi(p, *x, d.axi);
    if (auto *x = m.find("phy"))
        read_phy(p, *x, d);
    return d;
}

} // namespace satasim::harness::rtl
