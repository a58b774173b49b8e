// The RTL backend (rtl_backend.h): the DUT's shared object (built or found in the cache),
// the shell around it as the topology's controller, the stack's platform on the shell's
// register master, the host memory and the DUT's interrupt line. Its statistics: DUT
// clock cycles (all, and those clocked through MMIO accesses), AXI bursts and
// protocol violations.
#include "backend/rtl/rtl_backend.h"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "backend/rtl/dut_build.h"
#include "backend/rtl/dut_caps.h"
#include "backend/rtl/dut_library.h"
#include "backend/rtl/dut_shell.h"
#include "backend/systemc/topology.h"
#include "backend/systemc/topology_view.h"
#include "util/prng.h"
#include "backend/backend_stats.h"
#include "trace/trace_sink.h"

namespace satasim::harness::rtl {

namespace {

// The profile's quirks as the stack's driver contract carries them (ata_host_config).
PlatformBinding::HostQuirks host_quirks(const DutQuirks &q) {
    PlatformBinding::HostQuirks h;
    const auto bit = [](bool on, uint32_t flag) { return on ? flag : 0u; };
    h.flags = bit(q.no_ncq, ATA_HQ_NO_NCQ) | bit(q.no_64bit_dma, ATA_HQ_32BIT_ONLY) |
              bit(q.single_slot, ATA_HQ_SINGLE_SLOT) | bit(q.no_pmp, ATA_HQ_NO_PMP) |
              bit(q.onchip_cmd_area, ATA_HQ_ONCHIP_CMD_AREA);
    h.only_gen = q.only_gen;
    h.onchip = {q.onchip.command_list, q.onchip.fis_area, q.onchip.port_stride};
    return h;
}

// The models around the DUT (its device side, host memory, faults) and the shell's clock:
// the DUT is at rest once the clock has stopped (nothing moved for idle_cycles, no
// interrupt on its way).
class RtlView : public TopologyView {
  public:
    RtlView(Topology &t, const DutShell &shell) : TopologyView(t), shell_(shell) {}
    bool quiet() const override { return shell_.quiet(); }

  private:
    const DutShell &shell_;
};

class RtlBackend : public Backend {
  public:
    void build(const Context &ctx) override {
        const DutProfile *p = active_profile();
        if (!p)
            throw std::runtime_error("backend rtl needs a DUT profile: satasim run --controller-rtl PROFILE.yaml");
        // SATASIM_RTL_VCD=FILE: a build with tracing, the DUT's signals dumped into FILE.
        const char *vcd = std::getenv("SATASIM_RTL_VCD");
        const DutBuild b = build_dut(*p, vcd && *vcd, rtl_coverage_on());
        lib_ = std::make_unique<DutLibrary>(b.so_path, *p);
        ctx.sink.emit_harness("rtl.dut", SATA_TC_INFO, -1,
                              {{"name", TraceValue::str(p->name)}, {"top", TraceValue::str(p->top)},
                               {"ports", TraceValue::integer(p->ports)}},
                              "DUT " + p->name + " (top " + p->top + ", " + std::to_string(p->ports) + " port" +
                                  (p->ports == 1 ? "" : "s") + ", " + std::to_string(p->data_width) +
                                  "-bit AXI)");
        DutShell *shell = nullptr;
        const DutLibrary &lib = *lib_;
        const uint64_t seed = derive_seed(ctx.sc.seed, "axi");
        PlatformBinding::FailFn fail = ctx.fail;
        topo_ = build_topology(ctx.sc, &ctx.sink, [&](const Scenario &, Topology &t, ModelTrace *trace) {
            auto s = std::make_unique<DutShell>("dut", *p, lib, *t.mem, *t.irq, trace, seed, fail,
                                                vcd && *vcd ? vcd : nullptr);
            shell = s.get();
            t.mmio = shell;
            t.port_endpoint = [shell](unsigned port) { return shell->port_endpoint(port); };
            t.connect_port = [shell](unsigned port, link::SataLink *lk) { shell->connect_port(port, lk); };
            t.lost_irq = [](unsigned, unsigned, uint64_t, const std::string &) {}; // refused (rtl_rules.cpp)
            t.clear_hba_faults = [shell] { shell->clear_faults(); };
            t.host_bus_error = [shell](unsigned port, const bus::BusErrorParams &bus, const std::string &id) {
                shell->inject_host_bus_error(port, bus, id);
            };
            t.hba_module = std::move(s);
        });
        shell_ = shell;
        binding_ = std::make_unique<PlatformBinding>("platform", *topo_->mmio, *topo_->mem, *topo_->irq, ctx.sink,
                                                     ctx.fail);
        binding_->set_host_quirks(host_quirks(p->quirks));
        view_ = std::make_unique<RtlView>(*topo_, *shell_);
    }
    PlatformBinding *platform() override { return binding_.get(); }
    HardwareView *view() override { return view_.get(); }
    void finish(const Scenario &sc, BackendStats &report) override {
        if (!topo_)
            return;
        report_topology(*topo_, sc, report);
        for (LinkReport &l : report.links) {
            l.mode = "rtl";
            l.dword_cycles = shell_->cycles();
        }
        report.backend_stats = {{"dut_cycles", shell_->cycles()},
                                {"dut_mmio_cycles", shell_->mmio_cycles()},
                                {"axi_bursts", shell_->axi_bursts()},
                                {"axi_violations", shell_->axi_violations()}};
        if (shell_->has_phy_pins()) // only then: results of a top without them stay as they were
            report.backend_stats.push_back({"phy_violations", shell_->phy_violations()});
        if (shell_->irq_per_port())
            report.backend_stats.push_back({"irq_violations", shell_->irq_violations()});
        shell_->stop(); // the process ends with _exit(): the DUT's final blocks and coverage now
    }

  private:
    std::unique_ptr<DutLibrary> lib_;
    std::unique_ptr<Topology> topo_;
    DutShell *shell_ = nullptr;
    std::unique_ptr<PlatformBinding> binding_;
    std::unique_ptr<RtlView> view_;
};

} // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<RtlBackend>(); }

const DutProfile &use_controller_rtl(const std::string &path, bool build) {
    static DutProfile profile; // the process's one DUT (rtl_rules.cpp reads it)
    profile = parse_dut_profile(path);
    profile.features = profile_features(profile);
    set_active_profile(&profile);
    // The DUT's own CAP decides with the quirks what the stack and the rules take it to
    // have: the build is needed for that (a scenario process finds the parent's in the cache).
    const DutBuild b = build_dut(profile, false);
    if (b.cached) {
        if (build)
            std::fprintf(stderr, "satasim: DUT %s: cached build %s\n", profile.name.c_str(), b.dir.c_str());
    } else {
        std::fprintf(stderr, "satasim: DUT %s: verilated and compiled in %.1f s into %s\n", profile.name.c_str(),
                     b.build_seconds, b.dir.c_str());
    }
    const DutLibrary lib(b.so_path, profile);
    profile.features = dut_features(profile, read_dut_cap(lib));
    profile.features.rx_symbol_errors = lib.api().rx_error_inputs != 0;
    // SATASIM_RTL_VCD: the scenarios run on the tracing build; made here once, so its
    // minutes of verilating never count against a scenario's --wall-limit.
    if (const char *vcd = std::getenv("SATASIM_RTL_VCD"); build && vcd && *vcd) {
        const DutBuild w = build_dut(profile, true);
        if (!w.cached)
            std::fprintf(stderr, "satasim: DUT %s: waveform build verilated and compiled in %.1f s into %s\n",
                         profile.name.c_str(), w.build_seconds, w.dir.c_str());
    }
    // SATASIM_RTL_COVERAGE: the scenarios run on the coverage build; made here once.
    if (build && rtl_coverage_on()) {
        const DutBuild c = build_dut(profile, false, true);
        if (!c.cached)
            std::fprintf(stderr, "satasim: DUT %s: coverage build verilated and compiled in %.1f s into %s\n",
                         profile.name.c_str(), c.build_seconds, c.dir.c_str());
    }
    return profile;
}

} // namespace satasim::harness::rtl
