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

#include "run/prng.h"
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

// A command's standard output (first line), or "" if it cannot run.
std::string first_line_of(const std::string &cmd) {
    std::string out;
    if (FILE *f = popen((cmd + " 2>/dev/null").c_str(), "r")) {
        char buf[512];
        if (std::fgets(buf, sizeof buf, f))
            out = buf;
        pclose(f);
    }
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r'))
        out.pop_back();
    return out;
}

std::string quote(const std::string &s) {
    if (s.find('\'') != std::string::npos)
        throw std::runtime_error("a path with a single quote cannot be passed to Verilator: " + s);
    return "'" + s + "'";
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

std::string compiler() {
    const char *e = std::getenv("CXX");
    return e && *e ? e : "c++";
}

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
    all += first_line_of("verilator --version") + "\n" + first_line_of(compiler() + " --version") + "\n";
    char hex[17];
    std::snprintf(hex, sizeof hex, "%016llx", (unsigned long long)fnv1a64(all));
    return hex;
}

void run(const std::string &cmd, const fs::path &log, const char *what) {
    const std::string full = "(" + cmd + ") >> " + quote(log.string()) + " 2>&1";
    {
        std::ofstream(log, std::ios::app) << "$ " << cmd << "\n";
    }
    if (std::system(full.c_str()) != 0)
        throw std::runtime_error(std::string(what) + " failed; see " + log.string());
}

// Runs the compile commands on as many threads as the machine has cores; throws after
// all have ended if any failed.
void compile_all(const std::vector<std::string> &commands, const fs::path &tmp, const fs::path &log) {
    std::atomic<size_t> next{0};
    std::atomic<bool> failed{false};
    auto worker = [&] {
        for (size_t i = next++; i < commands.size(); i = next++) {
            const fs::path own = tmp / ("compile" + std::to_string(i) + ".log");
            try {
                run(commands[i], own, "compiling the DUT");
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
        throw std::runtime_error("compiling the DUT failed; see " + log.string());
}

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
    const fs::path tmp = root / (dir.filename().string() + ".tmp." + std::to_string(getpid()));
    fs::remove_all(tmp, ec);
    fs::create_directories(tmp / "obj", ec);
    if (ec)
        throw std::runtime_error("cannot create the DUT build folder '" + tmp.string() + "': " + ec.message());
    const fs::path log = tmp / "build.log";
    const std::string vroot = first_line_of("verilator --getenv VERILATOR_ROOT");
    if (vroot.empty())
        throw std::runtime_error("verilator is not installed (tools/install_deps.sh)");

    std::string v = "verilator --cc -Mdir " + quote((tmp / "obj").string()) + " --prefix Vdut --top-module " +
                    p.top + " -CFLAGS -fPIC" + (wave ? " --trace" : "") +
                    (coverage ? " --coverage-line --coverage-toggle" : "");
    for (const std::string &f : p.verilator_flags)
        v += " " + f;
    for (const auto &[k, val] : p.parameters)
        v += " -G" + k + "=" + val;
    for (const auto &[k, val] : p.defines)
        v += " +define+" + k + "=" + val;
    for (const std::string &d : p.include_dirs)
        v += " -I" + quote(d);
    for (const std::string &f : p.files)
        v += " " + quote(f);
    run(v, log, "verilating the DUT");
    try {
        check_top_ports(p, tmp / "obj" / "Vdut.h");
    } catch (const ScenarioError &) {
        fs::remove_all(tmp, ec);
        throw;
    }

    // Compiled file by file (ccache takes one source per call), then linked with its own
    // Verilator runtime bound inside (-Bsymbolic).
    const std::string ccache = first_line_of("command -v ccache");
    const std::string cxx = (ccache.empty() ? "" : ccache + " ") + compiler();
    const std::string flags = "-std=c++17 -fPIC -O1 -w -DSATASIM_DUT_PORTS=" + std::to_string(p.ports) +
                              " -DSATASIM_DUT_DW=" + std::to_string(p.data_width) +
                              " -DSATASIM_DUT_AW=" + std::to_string(p.addr_width) +
                              " -DSATASIM_DUT_PHY_W=" + std::to_string(p.phy_width) +
                              " -DSATASIM_DUT_PHY_CLOCKS=" + (p.phy_clocks ? "1" : "0") +
                              " -DSATASIM_DUT_RAW=" + std::to_string(p.reg_addr_width) +
                              " -DSATASIM_DUT_PHY_PINS=" + std::to_string(p.phy_pins) +
                              " -DSATASIM_DUT_PHY_SBW=" + std::to_string(p.phy_sideband_width) +
                              " -DSATASIM_DUT_REG_CLOCK=" + (p.reg_clock_mhz > 0 ? "1" : "0") +
                              " -DSATASIM_DUT_DMA_CLOCK=" + (p.dma_clock_mhz > 0 ? "1" : "0") +
                              " -DVM_TRACE=" + (wave ? "1" : "0") +
                              " -DVM_COVERAGE=" + (coverage ? "1" : "0") + " -I" + quote((tmp / "obj").string()) + " -I" +
                              quote(vroot + "/include") + " -I" + quote(vroot + "/include/vltstd") + " -I" +
                              quote(shell);
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
    std::string objs;
    std::vector<std::string> commands;
    for (size_t i = 0; i < sources.size(); ++i) {
        const std::string o = (tmp / ("o" + std::to_string(i) + ".o")).string();
        commands.push_back(cxx + " " + flags + " -c " + quote(sources[i]) + " -o " + quote(o));
        objs += " " + quote(o);
    }
    compile_all(commands, tmp, log);
    run(compiler() + " -shared -Wl,-Bsymbolic -pthread -o " + quote((tmp / "dut.so").string()) + objs, log,
        "linking the DUT");
    for (size_t i = 0; i < sources.size(); ++i)
        fs::remove(tmp / ("o" + std::to_string(i) + ".o"), ec);
    fs::rename(tmp, dir, ec);
    if (ec) {
        // Another process finished the same build first: use its result.
        fs::remove_all(tmp, ec);
        if (!fs::is_regular_file(b.so_path, ec))
            throw std::runtime_error("cannot move the DUT build into '" + dir.string() + "'");
    }
    b.build_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return b;
}

} // namespace satasim::harness::rtl
