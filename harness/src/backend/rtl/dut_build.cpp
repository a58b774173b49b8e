// Verilating a DUT profile into its cached shared object (dut_build.h).
#include "backend/rtl/dut_build.h"

#include "backend/rtl/dut_abi.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

#include "backend/rtl/tool_process.h"
#include "util/prng.h"
#include "scenario/yaml_walk.h"

#ifndef SATASIM_RTL_SHELL_DIR
#error "SATASIM_RTL_SHELL_DIR: the folder of dut_abi.h and shell/ (harness/CMakeLists.txt sets it)"
#endif

namespace satasim::harness::rtl {

namespace fs = std::filesystem;

namespace {

std::string read_all(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    if (!in)
        throw std::runtime_error("cannot read '" + path + "'");
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::string shell_dir() {
    const char *e = std::getenv("SATASIM_RTL_SHELL_DIR");
    return e && *e ? e : SATASIM_RTL_SHELL_DIR;
}

fs::path cache_root() {
    if (const char *e = std::getenv("SATASIM_RTL_CACHE"); e && *e)
        return e;
    if (const char *e = std::getenv("XDG_CACHE_HOME"); e && *e)
        return fs::path(e) / "satasim" / "rtl";
    const char *home = std::getenv("HOME");
    return fs::path(home && *home ? home : "/tmp") / ".cache" / "satasim" / "rtl";
}

// The C++ compiler as an argument vector: $CXX (the user's own environment, split at
// spaces, e.g. "ccache g++"), else c++.
Argv compiler() {
    const char *e = std::getenv("CXX");
    std::istringstream words(e && *e ? e : "c++");
    Argv argv;
    for (std::string w; words >> w;)
        argv.push_back(w);
    return argv.empty() ? Argv{"c++"} : argv;
}

// What identifies the installed tools without running them: each program's resolved path,
// size and modification time ("" if one is not on PATH).
std::string tool_stamp(const Argv &programs) {
    std::string s;
    for (const std::string &name : programs) {
        const std::string path = find_in_path(name);
        std::error_code ec;
        const auto size = path.empty() ? 0 : fs::file_size(path, ec);
        const auto mtime = path.empty() ? fs::file_time_type{} : fs::last_write_time(path, ec);
        if (path.empty() || ec)
            return "";
        s += path + " " + std::to_string(size) + " " + std::to_string(mtime.time_since_epoch().count()) + "\n";
    }
    return s;
}

// The tools' versions (part of every build key). Asking them costs two process starts
// (`verilator --version`, `c++ --version`), so the answer is kept in the build cache under
// the tools' stamp (tool_stamp: asked again once a tool is replaced or updated) and asked
// once per installation, not per run; the parent `satasim run` also leaves it in its
// environment for every scenario process it starts.
const std::string &tool_versions() {
    static const std::string v = [] {
        const char *env = std::getenv("SATASIM_RTL_TOOL_VERSIONS");
        if (env && *env)
            return std::string(env);
        Argv cxx = compiler();
        Argv programs = {"verilator"};
        programs.insert(programs.end(), cxx.begin(), cxx.end());
        const std::string stamp = tool_stamp(programs);
        char hex[17];
        std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a64(stamp));
        const fs::path cached = cache_root() / ("tool-versions-" + std::string(hex));
        std::string known;
        if (!stamp.empty()) {
            std::ifstream in(cached, std::ios::binary);
            std::stringstream ss;
            ss << in.rdbuf();
            // the stamp first (a hash collision reads as not cached), then the versions
            if (in && ss.str().compare(0, stamp.size(), stamp) == 0)
                known = ss.str().substr(stamp.size());
        }
        if (known.empty()) {
            cxx.push_back("--version");
            known = tool_first_line({"verilator", "--version"}) + "\n" + tool_first_line(cxx) + "\n";
            std::error_code ec;
            fs::create_directories(cached.parent_path(), ec);
            const fs::path tmp = cached.string() + ".tmp." + std::to_string(getpid());
            if (!stamp.empty() && std::ofstream(tmp, std::ios::binary) << stamp << known)
                fs::rename(tmp, cached, ec); // atomic: a reader sees all of it or nothing
            fs::remove(tmp, ec);
        }
        setenv("SATASIM_RTL_TOOL_VERSIONS", known.c_str(), 1);
        return known;
    }();
    return v;
}

// The optimisation the verilated model and the glue are compiled with. -O1: measured against
// -O2 and -Os on the reference (docs/rtl-controller.md, "Speed and build time"; traces
// identical), neither ran faster: dma-rw-verify on a Release satasim took 10.3 s of CPU at
// -O1, 12.8 s at -O2, 11.0 s at -Os (median of 3). Part of the build key, so a change here
// rebuilds every DUT.
constexpr const char *kDutCxxOpt = "-O1";

// Everything the build's result depends on, hashed: the profile's build keys (not its
// quirks or AXI slave settings, which are the shell's and the driver's, nor its comments).
std::string build_key(const DutProfile &p, bool wave, bool coverage, const std::string &shell) {
    std::string all = "satasim-dut-abi-" + std::to_string(SATASIM_DUT_ABI_VERSION) + (wave ? "-wave" : "") +
                      (coverage ? "-coverage\n" : "\n");
    auto add_file = [&](const std::string &path) { all += path + "\n" + read_all(path) + "\n"; };
    all += "top " + p.top + "\n";
    for (const auto &[k, v] : p.defines)
        all += "define " + k + "=" + v + "\n";
    for (const auto &[k, v] : p.parameters)
        all += "param " + k + "=" + v + "\n";
    for (const std::string &f : p.verilator_flags)
        all += "flag " + f + "\n";
    all += "interface " + std::to_string(p.ports) + " " + std::to_string(p.data_width) + " " +
           std::to_string(p.addr_width) + " " + std::to_string(p.phy_width) + (p.phy_clocks ? " phy_clocks" : "") +
           " " + std::to_string(p.reg_addr_width) + " " + std::to_string(p.phy_pins) + " " +
           std::to_string(p.phy_sideband_width) + (p.reg_clock_mhz > 0 ? " reg_clock" : "") +
           (p.dma_clock_mhz > 0 ? " dma_clock" : "") + "\n";
    for (const std::string &d : p.include_dirs)
        all += "include " + d + "\n";
    for (const std::string &f : p.files)
        add_file(f);
    for (const std::string &d : p.include_dirs) {
        std::vector<std::string> in_dir;
        for (const auto &e : fs::directory_iterator(d))
            if (e.is_regular_file())
                in_dir.push_back(e.path().string());
        std::sort(in_dir.begin(), in_dir.end());
        for (const std::string &f : in_dir)
            add_file(f);
    }
    add_file(shell + "/dut_abi.h");
    add_file(shell + "/shell/dut_glue.cpp");
    all += std::string("cxx ") + kDutCxxOpt + "\n";
    all += tool_versions();
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a64(all));
    return hex;
}

// Runs one tool of the build, its command line and output appended to `log`; throws
// "<what> failed; see <log>" (the log's final place, `shown_log`) if it fails.
void run(const Argv &argv, const fs::path &log, const fs::path &shown_log, const char *what) {
    {
        std::ofstream(log, std::ios::app) << "$ " << argv_text(argv) << "\n";
    }
    if (run_tool(argv, log) != 0)
        throw std::runtime_error(std::string(what) + " failed; see " + shown_log.string());
}

// Runs the compile commands on as many threads as the machine has cores; throws after
// all have ended if any failed.
void compile_all(const std::vector<Argv> &commands, const fs::path &tmp, const fs::path &log,
                 const fs::path &shown_log) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (size_t i = next++; i < commands.size(); i = next++) {
            const fs::path own = tmp / ("compile" + std::to_string(i) + ".log");
            try {
                run(commands[i], own, shown_log, "compiling the DUT");
            } catch (const std::runtime_error &) {
                failed = true;
            }
        }
    };
    const unsigned n = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), commands.size()));
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < n; ++t)
        pool.emplace_back(worker);
    for (std::thread &t : pool)
        t.join();
    std::ofstream all(log, std::ios::app);
    std::error_code ec;
    for (size_t i = 0; i < commands.size(); ++i) {
        const fs::path own = tmp / ("compile" + std::to_string(i) + ".log");
        std::stringstream text;   // (an empty log would set the stream's failbit)
        text << std::ifstream(own).rdbuf();
        all << text.str();
        fs::remove(own, ec);
    }
    if (failed)
        throw std::runtime_error("compiling the DUT failed; see " + shown_log.string());
}

// The build's temporary folder: removed when the build fails, whatever the cause, with its
// build.log kept beside the cache folder (<key>.failed.log, the last failure's) for the
// error message to point at.
class TmpBuildFolder {
  public:
    TmpBuildFolder(fs::path dir, fs::path failed_log) : dir_(std::move(dir)), failed_log_(std::move(failed_log)) {}
    ~TmpBuildFolder() {
        if (done_)
            return;
        std::error_code ec;
        fs::rename(dir_ / "build.log", failed_log_, ec);
        fs::remove_all(dir_, ec);
    }
    void done() { done_ = true; }
    // Removes the folder without keeping its log (another process's build won the race).
    void discard() {
        std::error_code ec;
        fs::remove_all(dir_, ec);
        done_ = true;
    }
    const fs::path &path() const { return dir_; }
    TmpBuildFolder(const TmpBuildFolder &) = delete;
    TmpBuildFolder &operator=(const TmpBuildFolder &) = delete;

  private:
    fs::path dir_, failed_log_;
    bool done_ = false;
};

// An exclusive flock(2) on a file beside the build folder, held for the object's life;
// the kernel drops it if the process dies mid-build.
class BuildLock {
  public:
    explicit BuildLock(const fs::path &path) : fd_(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644)) {
        if (fd_ < 0)
            throw std::runtime_error("cannot open the DUT build lock '" + path.string() + "'");
        while (::flock(fd_, LOCK_EX) != 0)
            if (errno != EINTR)
                throw std::runtime_error("cannot lock '" + path.string() + "'");
    }
    ~BuildLock() { ::close(fd_); }
    BuildLock(const BuildLock &) = delete;
    BuildLock &operator=(const BuildLock &) = delete;

  private:
    int fd_;
};

// The separate bus clocks the profile names are one-bit inputs of the top, the per-port
// interrupt lines an output one bit per port wide (the verilated model's header declares a
// port VL_IN8(&name,msb,lsb); before Verilator 5 VL_IN8(name,msb,lsb)): else a
// ScenarioError at the profile's key, before the glue would fail to compile or misread it.
// The ports shell/dut_glue.cpp reads and writes for this profile (docs/rtl-controller.md's
// signal table): the fixed groups, then the optional ones the profile turns on. The
// interrupt outputs and the receive error flags are optional to the glue, checked above.
std::vector<std::string> shell_ports(const DutProfile &p) {
    std::vector<std::string> ports = {
        "clk", "rst",
        // register slave
        "s_awaddr", "s_awvalid", "s_awready", "s_wdata", "s_wstrb", "s_wvalid", "s_wready", "s_bresp", "s_bvalid",
        "s_bready", "s_araddr", "s_arvalid", "s_arready", "s_rdata", "s_rresp", "s_rvalid", "s_rready",
        // DMA master
        "m_awaddr", "m_awlen", "m_awsize", "m_awburst", "m_awvalid", "m_awready", "m_wdata", "m_wstrb", "m_wlast",
        "m_wvalid", "m_wready", "m_bresp", "m_bvalid", "m_bready", "m_araddr", "m_arlen", "m_arsize", "m_arburst",
        "m_arvalid", "m_arready", "m_rdata", "m_rresp", "m_rlast", "m_rvalid", "m_rready",
        // PHY
        "phy_tx_data", "phy_tx_isk", "phy_rx_data", "phy_rx_isk", "phy_ready", "phy_gen", "phy_dev_present",
        "phy_cominit", "phy_comreset", "phy_comwake", "phy_offline", "phy_spd_limit"};
    const auto add = [&](std::initializer_list<const char *> names) { ports.insert(ports.end(), names.begin(), names.end()); };
    if (p.phy_clocks)
        add({"phy_tx_clk", "phy_rx_clk"});
    if (p.phy_pins & SATASIM_DUT_PHY_ELECIDLE)
        add({"phy_tx_elecidle", "phy_rx_elecidle"});
    if (p.phy_pins & SATASIM_DUT_PHY_COMWAKE_DET)
        add({"phy_comwake_det"});
    if (p.phy_pins & SATASIM_DUT_PHY_RATE)
        add({"phy_rate", "phy_rate_ack"});
    if (p.phy_pins & SATASIM_DUT_PHY_RESET)
        add({"phy_reset", "phy_reset_done"});
    if (p.phy_pins & SATASIM_DUT_PHY_REFCLK)
        add({"phy_refclk"});
    if (p.phy_sideband_width > 0)
        add({"phy_sb_ctrl", "phy_sb_status"});
    return ports;
}

void check_top_ports(const DutProfile &p, const fs::path &header) {
    const std::string h = read_all(header.string());
    const auto has = [&](const char *dir, const std::string &name, unsigned bits) {
        const std::string range = "," + std::to_string(bits - 1) + ",0)";
        return h.find(std::string(dir) + "(&" + name + range) != std::string::npos ||
               h.find(std::string(dir) + "(" + name + range) != std::string::npos;
    };
    const auto has_input = [&](const std::string &name) { return has("VL_IN8", name, 1); };
    const Parser err(p.file);
    const struct {
        double mhz;
        const char *key, *clk, *rst, *what;
    } clocks[] = {{p.reg_clock_mhz, "interface.reg_clock_mhz", "reg_clk", "reg_rst", "register slave"},
                  {p.dma_clock_mhz, "interface.dma_clock_mhz", "dma_clk", "dma_rst", "DMA master"}};
    for (const auto &c : clocks)
        if (c.mhz > 0)
            for (const char *port : {c.clk, c.rst})
                if (!has_input(port))
                    err.fail(profile_line(p, c.key), c.key,
                             "a separate " + std::string(c.what) + " clock, but the top module '" + p.top +
                                 "' has no input " + port + " (docs/rtl-controller.md, clocks)");
    if (p.irq_per_port && !has("VL_OUT8", "irq_port", p.ports))
        err.fail(profile_line(p, "interface.irq_per_port"), "interface.irq_per_port",
                 "one interrupt line per port, but the top module '" + p.top + "' has no output irq_port[" +
                     std::to_string(p.ports - 1) + ":0] (docs/rtl-controller.md, interrupts)");
    // The optional receive error inputs (the glue finds them): when there, of their width,
    // and the per-byte flags as a pair.
    const auto input_macro = [](unsigned bits) { return bits <= 8 ? "VL_IN8" : bits <= 16 ? "VL_IN16" : "VL_IN"; };
    const auto declared = [&](const std::string &name) {
        return h.find("(&" + name + ",") != std::string::npos || h.find("(" + name + ",") != std::string::npos;
    };
    const unsigned byte_bits = p.phy_width / 8 * p.ports;
    const char *rx_key = "top";
    const std::string rx_doc = " (docs/rtl-controller.md, PHY)";
    for (const char *name : {"phy_rx_codeerr", "phy_rx_disperr"})
        if (declared(name) && !has(input_macro(byte_bits), name, byte_bits))
            err.fail(profile_line(p, rx_key), rx_key,
                     "the top module '" + p.top + "' has " + name + ", but not as an input of " +
                         std::to_string(byte_bits) + " bits (one per byte of each port's PHY word)" + rx_doc);
    if (declared("phy_rx_codeerr") != declared("phy_rx_disperr"))
        err.fail(profile_line(p, rx_key), rx_key,
                 "the top module '" + p.top + "' has only one of phy_rx_codeerr and phy_rx_disperr: a PHY's "
                 "decoder flags both kinds of symbol error, so the top takes both or neither" + rx_doc);
    if (declared("phy_rx_err") && !has(input_macro(p.ports), "phy_rx_err", p.ports))
        err.fail(profile_line(p, rx_key), rx_key,
                 "the top module '" + p.top + "' has phy_rx_err, but not as an input of " +
                     std::to_string(p.ports) + " bits (one per port)" + rx_doc);
    // Last, every port the shell's glue drives or samples for this profile: a top without
    // one would only fail to compile (dozens of compiler errors, after the whole build);
    // named here, before anything is compiled. Widths are the compiler's to check.
    std::vector<std::string> missing;
    for (const std::string &name : shell_ports(p))
        if (!declared(name))
            missing.push_back(name);
    if (!missing.empty()) {
        std::string list;
        for (const std::string &name : missing)
            list += (list.empty() ? "" : ", ") + name;
        err.fail(profile_line(p, "top"), "top",
                 "the top module '" + p.top + "' lacks the shell's " + (missing.size() == 1 ? "port " : "ports ") +
                     list + " (docs/rtl-controller.md, the signals)");
    }
}

} // namespace

bool rtl_coverage_on() {
    const char *e = std::getenv("SATASIM_RTL_COVERAGE");
    return e && *e;
}

DutBuild build_dut(const DutProfile &p, bool wave, bool coverage) {
    const std::string shell = shell_dir();
    DutBuild b;
    const fs::path root = cache_root();
    const fs::path dir = root / (p.name + "-" + build_key(p, wave, coverage, shell));
    b.dir = dir.string();
    b.so_path = (dir / "dut.so").string();
    std::error_code ec;
    if (fs::is_regular_file(b.so_path, ec)) {
        b.cached = true;
        return b;
    }
    // One build per key at a time: a second process (a parallel test, another CI job on
    // the same cache) waits for the first and takes its result instead of building the
    // same DUT again beside it.
    fs::create_directories(root, ec);
    const BuildLock lock(root / (dir.filename().string() + ".lock"));
    if (fs::is_regular_file(b.so_path, ec)) {
        b.cached = true;
        return b;
    }
    const auto t0 = std::chrono::steady_clock::now();
    const fs::path failed_log = root / (dir.filename().string() + ".failed.log");
    TmpBuildFolder tmp_folder(root / (dir.filename().string() + ".tmp." + std::to_string(getpid())), failed_log);
    const fs::path &tmp = tmp_folder.path();
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp / "obj", ec);
    if (ec)
        throw std::runtime_error("cannot create the DUT build folder '" + tmp.string() + "': " + ec.message());
    const fs::path log = tmp / "build.log";
    const std::string vroot = tool_first_line({"verilator", "--getenv", "VERILATOR_ROOT"});
    if (vroot.empty())
        throw std::runtime_error("verilator is not installed (tools/install_deps.sh)");

    // Every argument its own: the profile's values were checked against what Verilator
    // takes (dut_profile.cpp) and no shell ever reads them.
    Argv v = {"verilator", "--cc", "-Mdir", (tmp / "obj").string(), "--prefix", "Vdut", "--top-module", p.top,
              "-CFLAGS", "-fPIC"};
    if (wave)
        v.push_back("--trace");
    if (coverage)
        v.insert(v.end(), {"--coverage-line", "--coverage-toggle"});
    v.insert(v.end(), p.verilator_flags.begin(), p.verilator_flags.end());
    for (const auto &[k, val] : p.parameters)
        v.push_back("-G" + k + "=" + val);
    for (const auto &[k, val] : p.defines)
        v.push_back("+define+" + k + "=" + val);
    for (const std::string &d : p.include_dirs)
        v.push_back("-I" + d);
    v.insert(v.end(), p.files.begin(), p.files.end()); // absolute: never read as an option
    run(v, log, failed_log, "verilating the DUT");
    check_top_ports(p, tmp / "obj" / "Vdut.h");

    // Compiled file by file (ccache takes one source per call), then linked with its own
    // Verilator runtime bound inside (-Bsymbolic).
    Argv cxx;
    if (const std::string ccache = find_in_path("ccache"); !ccache.empty())
        cxx.push_back(ccache);
    for (const std::string &w : compiler())
        cxx.push_back(w);
    const Argv flags = {"-std=c++17", "-fPIC", kDutCxxOpt, "-w",
                        "-DSATASIM_DUT_PORTS=" + std::to_string(p.ports),
                        "-DSATASIM_DUT_DW=" + std::to_string(p.data_width),
                        "-DSATASIM_DUT_AW=" + std::to_string(p.addr_width),
                        "-DSATASIM_DUT_PHY_W=" + std::to_string(p.phy_width),
                        std::string("-DSATASIM_DUT_PHY_CLOCKS=") + (p.phy_clocks ? "1" : "0"),
                        "-DSATASIM_DUT_RAW=" + std::to_string(p.reg_addr_width),
                        "-DSATASIM_DUT_PHY_PINS=" + std::to_string(p.phy_pins),
                        "-DSATASIM_DUT_PHY_SBW=" + std::to_string(p.phy_sideband_width),
                        std::string("-DSATASIM_DUT_REG_CLOCK=") + (p.reg_clock_mhz > 0 ? "1" : "0"),
                        std::string("-DSATASIM_DUT_DMA_CLOCK=") + (p.dma_clock_mhz > 0 ? "1" : "0"),
                        std::string("-DVM_TRACE=") + (wave ? "1" : "0"),
                        std::string("-DVM_COVERAGE=") + (coverage ? "1" : "0"),
                        "-I" + (tmp / "obj").string(),
                        "-I" + vroot + "/include",
                        "-I" + vroot + "/include/vltstd",
                        "-I" + shell};
    std::vector<std::string> sources;
    for (const auto &e : fs::directory_iterator(tmp / "obj"))
        if (e.path().extension() == ".cpp")
            sources.push_back(e.path().string());
    std::sort(sources.begin(), sources.end());
    sources.push_back(shell + "/shell/dut_glue.cpp");
    sources.push_back(vroot + "/include/verilated.cpp");
    sources.push_back(vroot + "/include/verilated_threads.cpp");
    if (wave)
        sources.push_back(vroot + "/include/verilated_vcd_c.cpp");
    if (coverage)
        sources.push_back(vroot + "/include/verilated_cov.cpp");
    // One compiler per core; each source logs into its own file, appended to build.log
    // in source order afterwards so the log reads the same however the jobs interleaved.
    Argv link = compiler();
    link.insert(link.end(), {"-shared", "-Wl,-Bsymbolic", "-pthread", "-o", (tmp / "dut.so").string()});
    std::vector<Argv> commands;
    for (size_t i = 0; i < sources.size(); ++i) {
        const std::string o = (tmp / ("o" + std::to_string(i) + ".o")).string();
        Argv c = cxx;
        c.insert(c.end(), flags.begin(), flags.end());
        c.insert(c.end(), {"-c", sources[i], "-o", o});
        commands.push_back(std::move(c));
        link.push_back(o);
    }
    compile_all(commands, tmp, log, failed_log);
    run(link, log, failed_log, "linking the DUT");
    for (size_t i = 0; i < sources.size(); ++i)
        fs::remove(tmp / ("o" + std::to_string(i) + ".o"), ec);
    fs::rename(tmp, dir, ec);
    if (ec) {
        // Another process finished the same build first: use its result (the folder is
        // removed as a failed one would be).
        if (!fs::is_regular_file(b.so_path, ec))
            throw std::runtime_error("cannot move the DUT build into '" + dir.string() + "'");
        tmp_folder.discard();
        return b;
    }
    tmp_folder.done();
    fs::remove(failed_log, ec);
    b.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return b;
}

} // namespace satasim::harness::rtl
