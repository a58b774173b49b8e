// The DUT profile reader (dut_profile.h), on the scenario reader's YAML toolkit so that
// every message has its form: "file:line: key.path: what is wrong".
#include "backend/rtl/dut_profile.h"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "backend/rtl/dut_abi.h"
#include "backend/rtl/verilator_args.h"
#include "scenario/path_within.h"
#include "scenario/yaml_load.h"
#include "scenario/yaml_walk.h"

namespace satasim::harness::rtl {

namespace fs = std::filesystem;

namespace {

// The longest DUT or top-module name (the name is part of the cache folder's name).
constexpr size_t kMaxNameChars = 64;

// The folder of satasim's own RTL (model/: the link layer, the register-bus adapters) that
// a profile may use beside its own files; SATASIM_RTL_LIBRARY_DIR overrides it (an
// installed copy).
fs::path rtl_library_dir() {
    const char *e = std::getenv("SATASIM_RTL_LIBRARY_DIR");
    std::error_code ec;
    return fs::weakly_canonical(e && *e ? e : SATASIM_RTL_LIBRARY_DIR, ec);
}

// A source file or include folder of the profile: absolute, symlinks and '..' resolved, and
// inside the profile's folder or satasim's own RTL, so that a profile handed over as data
// cannot make Verilator read (and print into build.log) any other file of the machine.
std::string source_path(const Parser &p, const Field &f, const fs::path &dir, bool want_dir) {
    const std::string s = as_string(p, f);
    if (s.empty())
        p.fail(f, "empty path");
    fs::path q = fs::path(s).is_absolute() ? fs::path(s) : dir / s;
    std::error_code ec;
    q = fs::weakly_canonical(q, ec);
    const fs::path lib = rtl_library_dir();
    if (!path_within(q, dir) && !path_within(q, lib))
        p.fail(f, "'" + s + "' is outside the profile's folder " + dir.string() + " and satasim's RTL " + lib.string() +
                      ": a profile's files and include folders lie in one of them (after symlinks and '..')");
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

std::map<std::string, std::string> name_values(const Parser &p, const Field &f, bool is_define) {
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
        if (auto why = refused_constant(val, is_define))
            p.fail(v, "'" + val + "': " + *why);
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

std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
    return b;
}

void read_interface(const Parser &p, const Field &f, DutProfile &d) {
    MapView m(p, f.node, f.path, f.line,
              {"ports", "data_width", "addr_width", "reg_addr_width", "clock_mhz", "idle_cycles", "phy_width",
               "phy_clocks", "phy_pins", "phy_sideband_width", "reg_clock_mhz", "dma_clock_mhz", "irq_per_port"});
    note_lines(m, "interface", f.line,
               {"ports", "data_width", "addr_width", "reg_addr_width", "phy_width", "phy_clocks", "phy_pins",
                "phy_sideband_width", "reg_clock_mhz", "dma_clock_mhz", "irq_per_port"},
               d);
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
    if (auto *x = m.find("reg_addr_width"))
        d.reg_addr_width = unsigned(as_uint(p, *x, 12, 32)); // 12: the AHCI map 0-FFFh
    if (auto *x = m.find("clock_mhz"))
        d.clock_mhz = double(as_uint(p, *x, 10, 1000));
    // The bus side's own clocks (the same range as clk's; absent: the bus side is on clk)
    if (auto *x = m.find("reg_clock_mhz"))
        d.reg_clock_mhz = double(as_uint(p, *x, 10, 1000));
    if (auto *x = m.find("dma_clock_mhz"))
        d.dma_clock_mhz = double(as_uint(p, *x, 10, 1000));
    if (auto *x = m.find("idle_cycles"))
        d.idle_cycles = unsigned(as_uint(p, *x, 64, 1u << 24));
    if (auto *x = m.find("phy_clocks"))
        d.phy_clocks = as_bool(p, *x);
    if (auto *x = m.find("irq_per_port"))
        d.irq_per_port = as_bool(p, *x);
    if (auto *x = m.find("phy_width")) {
        d.phy_width = unsigned(as_uint(p, *x, 16, 32));
        if (d.phy_width != 16 && d.phy_width != 32)
            p.fail(*x, "the shell's PHY interface is 32 or 16 bits (8-bit symbols with a K flag each)");
        if (d.phy_width == 16 && !d.phy_clocks)
            p.fail(*x, "16-bit PHY words move at twice the dword rate on the PHY's clocks: say "
                       "interface.phy_clocks: true (the top has phy_tx_clk and phy_rx_clk)");
    }
    if (auto *x = m.find("phy_pins"))
        for_each_element(p, *x, [&](const Field &e, size_t) {
            const unsigned bit = as_enum<unsigned>(p, e, {{"elecidle", SATASIM_DUT_PHY_ELECIDLE},
                                                          {"comwake_det", SATASIM_DUT_PHY_COMWAKE_DET},
                                                          {"rate", SATASIM_DUT_PHY_RATE},
                                                          {"reset", SATASIM_DUT_PHY_RESET},
                                                          {"refclk", SATASIM_DUT_PHY_REFCLK}});
            if (d.phy_pins & bit)
                p.fail(e, "'" + e.node.Scalar() + "' is named twice");
            if (bit == SATASIM_DUT_PHY_REFCLK && !d.phy_clocks)
                p.fail(e, "the PHY derives its parallel clocks from the reference clock: say interface.phy_clocks: "
                          "true (the top has phy_tx_clk and phy_rx_clk)");
            d.phy_pins |= bit;
        });
    if (auto *x = m.find("phy_sideband_width"))
        d.phy_sideband_width = unsigned(as_uint(p, *x, 0, SATASIM_DUT_MAX_SIDEBAND));
}

// A per-port setting: one value for every port, or a list of exactly one per port (`what`:
// the value's name in the error, e.g. "offset").
template <class T, class Value>
std::vector<T> one_or_per_port(const Parser &p, const Field &f, unsigned ports, const std::string &what, Value value) {
    std::vector<T> v;
    if (!f.node.IsSequence()) {
        v.assign(ports, value(f));
        return v;
    }
    for_each_element(p, f, [&](const Field &e, size_t) { v.push_back(value(e)); });
    if (v.size() != ports)
        p.fail(f, std::to_string(v.size()) + " " + what + "s for " + std::to_string(ports) + " port" +
                      (ports == 1 ? "" : "s") + " (one " + what + ", or one per port)");
    return v;
}

// A phy.* setting for a pin group the top does not have is refused at its key.
void need_pins(const Parser &p, const Field &f, const DutProfile &d, unsigned bit, const char *group) {
    if (!(d.phy_pins & bit))
        p.fail(f, std::string("the shell drives this only on a top with the '") + group +
                      "' pins: list it in interface.phy_pins (docs/rtl-controller.md, the PHY pins)");
}

// phy: the shell's PHY settings (not part of the DUT's build).
void read_phy(const Parser &p, const Field &f, DutProfile &d) {
    MapView m(p, f.node, f.path, f.line,
              {"rx_ppm", "ssc", "rate_ack_clocks", "reset_done_clocks", "sideband_status", "refclk_mhz", "oob"});
    if (auto *x = m.find("oob")) {
        // events: OOB as timed events (the pulses only); signal: bursts, their detection
        // whoever starts, the device waiting for the host's COMWAKE and ALIGN.
        const std::string v = as_string(p, *x);
        if (v != "events" && v != "signal")
            p.fail(*x, "expected 'events' or 'signal', got '" + v + "'");
        d.signal_oob = v == "signal";
        if (d.signal_oob)
            need_pins(p, *x, d, SATASIM_DUT_PHY_COMWAKE_DET, "comwake_det");
    }
    if (auto *x = m.find("refclk_mhz")) {
        // The transceiver's PLL multiplies the reference by an integer N up to the line rate:
        // 8b/10b symbols at clock_mhz dwords per microsecond, 40 bits per dword.
        d.refclk_mhz = unsigned(as_uint(p, *x, 10, 1000));
        need_pins(p, *x, d, SATASIM_DUT_PHY_REFCLK, "refclk");
        const uint64_t line = uint64_t(d.clock_mhz) * 40; // Mbps
        if (line % d.refclk_mhz)
            p.fail(*x, "the PHY's PLL makes the " + std::to_string(line) + " Mbps line rate (interface.clock_mhz x 40) "
                       "as an integer multiple of its reference clock, and " + std::to_string(line) + " / " +
                       std::to_string(d.refclk_mhz) + " is not an integer");
        d.pll_n = unsigned(line / d.refclk_mhz);
    }
    if (auto *x = m.find("rx_ppm")) {
        // A signed integer (the scenario toolkit's readers take none) for every port, or a
        // list of one per port.
        auto ppm = [&](const Field &e) {
            const std::string s = as_string(p, e);
            const bool neg = !s.empty() && s[0] == '-';
            const auto v = parse_uint(neg ? s.substr(1) : s);
            if (!v || *v > 1000)
                p.fail(e, "expected an integer from -1000 to 1000 (ppm), got '" + s + "'");
            const int r = neg ? -int(*v) : int(*v);
            if (r != 0 && !d.phy_clocks)
                p.fail(e, "a receive clock offset needs the DUT's own receive clock: interface.phy_clocks: true "
                          "(the top has phy_rx_clk and an elastic buffer behind it)");
            return r;
        };
        d.rx_ppm = one_or_per_port<int>(p, *x, d.ports, "offset", ppm);
    }
    if (auto *x = m.find("ssc")) {
        // Spread-spectrum clocking of the receive clocks (the far ends' transmitters):
        // a triangular down-spread, SATA 3.x 7 (?): 0 to -5000 ppm at 30-33 kHz.
        MapView s(p, x->node, x->path, x->line, {"spread_ppm", "freq_hz"});
        d.ssc_ppm = 5000;
        if (auto *y = s.find("spread_ppm"))
            d.ssc_ppm = unsigned(as_uint(p, *y, 0, 5000));
        if (auto *y = s.find("freq_hz"))
            d.ssc_hz = unsigned(as_uint(p, *y, 30000, 33000));
        if (d.ssc_ppm && !d.phy_clocks)
            p.fail(*x, "spread-spectrum receive clocks need the DUT's own receive clock: interface.phy_clocks: "
                       "true (the top has phy_rx_clk and an elastic buffer behind it)");
    }
    if (auto *x = m.find("rate_ack_clocks")) {
        d.rate_ack_clocks = unsigned(as_uint(p, *x, 1, 1u << 20));
        need_pins(p, *x, d, SATASIM_DUT_PHY_RATE, "rate");
    }
    if (auto *x = m.find("reset_done_clocks")) {
        d.reset_done_clocks = unsigned(as_uint(p, *x, 1, 1u << 20));
        need_pins(p, *x, d, SATASIM_DUT_PHY_RESET, "reset");
    }
    if (auto *x = m.find("sideband_status")) {
        // One value for every port, or a list of one per port; each fits the width.
        if (d.phy_sideband_width == 0)
            p.fail(*x, "the top has no sideband: set interface.phy_sideband_width (1..32)");
        const uint64_t max = (uint64_t(1) << d.phy_sideband_width) - 1;
        auto value = [&](const Field &e) {
            const uint64_t v = as_uint(p, e, 0, 0xFFFFFFFFu);
            if (v > max)
                p.fail(e, hex(v) + " does not fit the " + std::to_string(d.phy_sideband_width) +
                              "-bit sideband (interface.phy_sideband_width)");
            return uint32_t(v);
        };
        d.sideband_status = one_or_per_port<uint32_t>(p, *x, d.ports, "value", value);
    }
}

// quirks.onchip_cmd_area: false, or where the areas are (a mapping of their offsets),
// checked against the register map, the window (interface.*, read before) and each other.
void read_onchip(const Parser &p, const Field &f, DutProfile &d) {
    DutQuirks &q = d.quirks;
    if (!f.node.IsMap()) {
        q.onchip_cmd_area = as_bool(p, f);
        if (q.onchip_cmd_area)
            p.fail(f, "say where the areas are: a mapping {command_list, fis_area, port_stride} of byte offsets "
                      "in the register window (docs/rtl-controller.md, quirks)");
        return;
    }
    MapView m(p, f.node, f.path, f.line, {"command_list", "fis_area", "port_stride"});
    for (const char *k : {"command_list", "fis_area"})
        if (!m.has(k))
            p.fail(f.key_line, f.path + "." + k, "missing (port 0's byte offset in the register window)");
    if (d.ports > 1 && !m.has("port_stride"))
        p.fail(f.key_line, f.path + ".port_stride", "missing (the DUT has " + std::to_string(d.ports) + " ports)");
    auto offset = [&](const char *k) -> uint32_t {
        const Field &x = m.get(k);
        const uint64_t v = as_uint(p, x, 0, 0xFFFFFFFFu);
        if (v & 3)
            p.fail(x, hex(v) + " is not dword aligned");
        return uint32_t(v);
    };
    OnchipArea &a = q.onchip;
    a.command_list = offset("command_list");
    a.fis_area = offset("fis_area");
    if (m.has("port_stride"))
        a.port_stride = offset("port_stride");
    const uint64_t regs_end = 0x100 + 0x80ull * d.ports; // the port registers (AHCI 1.3.1 3.3)
    const uint64_t window = 1ull << d.reg_addr_width;
    struct Area {
        const char *key, *what;
        uint64_t base, size;
    };
    const Area areas[] = {{"command_list", "command list", a.command_list, 1024}, {"fis_area", "FIS area", a.fis_area, 256}};
    for (const Area &x : areas) {
        if (x.base < regs_end)
            p.fail(m.get(x.key), hex(x.base) + " is inside the register map (0.." + hex(regs_end - 1) +
                                     " with " + std::to_string(d.ports) + " port" + (d.ports == 1 ? "" : "s") + ")");
        const uint64_t end = x.base + uint64_t(d.ports - 1) * a.port_stride + x.size;
        if (end > window)
            p.fail(m.get(x.key), std::string("port ") + std::to_string(d.ports - 1) + "'s " + x.what + " ends at " +
                                     hex(end) + ", beyond the register window (interface.reg_addr_width " +
                                     std::to_string(d.reg_addr_width) + ": " + hex(window) + " bytes)");
    }
    for (unsigned i = 0; i < d.ports; ++i)
        for (unsigned j = 0; j < d.ports; ++j)
            for (const Area &x : areas)
                for (const Area &y : areas) {
                    if (i > j || (i == j && &x >= &y))
                        continue; // each pair once
                    const uint64_t xb = x.base + uint64_t(i) * a.port_stride, yb = y.base + uint64_t(j) * a.port_stride;
                    if (xb < yb + y.size && yb < xb + x.size)
                        p.fail(m.get(i == j ? y.key : "port_stride"),
                               "port " + std::to_string(i) + "'s " + x.what + " (" + hex(xb) + ") overlaps port " +
                                   std::to_string(j) + "'s " + y.what + " (" + hex(yb) + ")");
                }
    q.onchip_cmd_area = true;
}

void read_quirks(const Parser &p, const Field &f, DutProfile &d) {
    DutQuirks &q = d.quirks;
    MapView m(p, f.node, f.path, f.line,
              {"single_slot", "no_ncq", "no_64bit_dma", "only_gen", "onchip_cmd_area", "no_pmp"});
    note_lines(m, "quirks", f.line, {"single_slot", "no_ncq", "no_64bit_dma", "only_gen", "onchip_cmd_area", "no_pmp"},
               d);
    if (auto *x = m.find("single_slot"))
        q.single_slot = as_bool(p, *x);
    if (auto *x = m.find("no_ncq"))
        q.no_ncq = as_bool(p, *x);
    if (auto *x = m.find("no_64bit_dma"))
        q.no_64bit_dma = as_bool(p, *x);
    if (auto *x = m.find("only_gen"))
        q.only_gen = unsigned(as_uint(p, *x, 0, 3)); // 0: any Gen up to CAP.ISS (checked there)
    if (auto *x = m.find("onchip_cmd_area"))
        read_onchip(p, *x, d);
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

int profile_line(const DutProfile &p, const std::string &key) {
    auto it = p.lines.find(key);
    if (it != p.lines.end())
        return it->second;
    it = p.lines.find(key.substr(0, key.find('.')));
    return it != p.lines.end() ? it->second : 1;
}

DutProfile parse_dut_profile(const std::string &path) {
    std::error_code ec;
    const fs::path abs = fs::weakly_canonical(fs::absolute(path, ec), ec);
    Parser p(path);
    FileText text = read_bounded_file(abs, kScenarioMaxBytes, "a DUT profile");
    if (!text.ok)
        p.fail(1, "", text.why);
    const YAML::Node root = load_yaml_document(text.text, path, true, "a DUT profile");
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
    if (!plain_name(d.name) || d.name.size() > kMaxNameChars)
        p.fail(m.get("name"), "letters, digits and _ only, at most " + std::to_string(kMaxNameChars) +
                                  " (it names the build's cache folder)");
    d.top = as_string(p, m.get("top"));
    d.lines["top"] = m.get("top").line; // what the top lacks is told at this key (dut_build.cpp)
    if (!plain_name(d.top) || d.top.size() > kMaxNameChars)
        p.fail(m.get("top"), "not a Verilog module name");
    for_each_element(p, m.get("files"), [&](const Field &e, size_t) { d.files.push_back(source_path(p, e, dir, false)); });
    if (d.files.empty())
        p.fail(m.get("files"), "no RTL files");
    if (auto *x = m.find("include_dirs"))
        for_each_element(p, *x, [&](const Field &e, size_t) { d.include_dirs.push_back(source_path(p, e, dir, true)); });
    if (auto *x = m.find("defines"))
        d.defines = name_values(p, *x, true);
    if (auto *x = m.find("parameters"))
        d.parameters = name_values(p, *x, false);
    if (auto *x = m.find("verilator_flags")) {
        bool value_next = false; // the entry before was an option that takes a value
        for_each_element(p, *x, [&](const Field &e, size_t) {
            const std::string s = as_string(p, e);
            std::optional<std::string> why;
            if (value_next) {
                why = refused_option_value(d.verilator_flags.back(), s);
                value_next = false;
            } else {
                why = refused_verilator_option(s, &value_next);
            }
            if (why)
                p.fail(e, "'" + s + "': " + *why);
            d.verilator_flags.push_back(s);
        });
        if (value_next)
            p.fail(*x, "'" + d.verilator_flags.back() + "' needs a value after it");
    }
    read_interface(p, m.get("interface"), d);
    d.lines["quirks"] = m.has("quirks") ? m.get("quirks").key_line : 1;
    if (auto *x = m.find("quirks"))
        read_quirks(p, *x, d);
    if (auto *x = m.find("axi"))
        read_axi(p, *x, d.axi);
    d.rx_ppm.assign(d.ports, 0);
    if (auto *x = m.find("phy"))
        read_phy(p, *x, d);
    if ((d.phy_pins & SATASIM_DUT_PHY_REFCLK) && !d.refclk_mhz)
        p.fail(d.lines.at("interface.phy_pins"), "interface.phy_pins",
               "the 'refclk' pin needs its frequency: phy.refclk_mhz (a divisor of the line rate, interface.clock_mhz x 40)");
    return d;
}

} // namespace satasim::harness::rtl
