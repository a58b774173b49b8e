// The SystemC backend (backend/backend.h): elaborates the models of the scenario's
// controller, links, port multipliers and disks, attaches their waveform probes, and runs
// the stack's platform on the controller's register block, the host memory model and the
// interrupt line. Its statistics: how often each fault fired, each link's mode and clocks.
#include "backend/systemc/systemc_backend.h"

#include "backend/systemc/topology.h"
#include "backend/systemc/topology_view.h"
#include "trace/report.h"
#include "trace/vcd_writer.h"

namespace satasim::harness::systemc {

namespace {

// The models' waveform probes into the VCD writer: the interrupt line, the controller's
// port registers, then every link by host port (declaration order = VCD order).
void attach_waveform(Topology &t, const Scenario &sc, VcdWriter &vcd) {
    const std::string ctl = controller_name(sc.controller);
    t.irq->wave().attach(&vcd, {ctl, "irq", 1, wave::Group::Irq, -1, 0});
    if (auto *h = dynamic_cast<ahci::AhciHba *>(t.hba_module.get()))
        h->set_wave(&vcd);
    if (auto *h = dynamic_cast<sil24::Sil24Hba *>(t.hba_module.get()))
        h->set_wave(&vcd);
    for (const auto &[port, lk] : t.links) {
        lk->set_wave(&vcd, "link" + std::to_string(port), int(port));
        for (const auto &[addr, flk] : t.fanout_links)
            if (addr.first == port)
                flk->set_wave(&vcd, "link" + std::to_string(port) + "_" + std::to_string(addr.second), int(port));
    }
    vcd.start();
}

class SystemcBackend : public Backend {
  public:
    void build(const Context &ctx) override {
        topo_ = build_topology(ctx.sc, &ctx.sink);
        if (ctx.vcd)
            attach_waveform(*topo_, ctx.sc, *ctx.vcd);
        binding_ = std::make_unique<PlatformBinding>("platform", *topo_->mmio, *topo_->mem, *topo_->irq, ctx.sink,
                                                     ctx.fail);
        view_ = std::make_unique<TopologyView>(*topo_);
    }
    PlatformBinding *platform() override { return binding_.get(); }
    HardwareView *view() override { return view_.get(); }
    void finish(const Scenario &sc, RunReport &report) override {
        if (!topo_)
            return;
        report_topology(*topo_, sc, report);
    }

  private:
    std::unique_ptr<Topology> topo_;
    std::unique_ptr<PlatformBinding> binding_;
    std::unique_ptr<TopologyView> view_;
};

} // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<SystemcBackend>(); }

} // namespace satasim::harness::systemc
