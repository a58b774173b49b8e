// The SystemC backend (backend/backend.h): elaborates the models of the scenario's
// controller, links, port multipliers and disks, attaches their waveform probes, and runs
// the stack's platform on the controller's register block, the host memory model and the
// interrupt line. Its statistics: how often each fault fired, each link's mode and clocks.
#include "backend/systemc/systemc_backend.h"

#include "backend/systemc/topology.h"
#include "controller/controller_table.h"
#include "backend/systemc/topology_view.h"
#include "backend/backend_stats.h"
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
        binding_ = std::make_unique<PlatformBinding>("platform", *topo_->mmio, *topo_->mem, topo_->host_line(),
                                                     ctx.sink, ctx.fail);
        attach_pci(*binding_, *topo_, 0);
        if (ctx.sc.multi())
            build_more_platforms(ctx);
        view_ = std::make_unique<TopologyView>(*topo_);
    }
    PlatformBinding *platform() override { return binding_.get(); }
    std::vector<PlatformBinding *> platforms() override {
        std::vector<PlatformBinding *> out = {binding_.get()};
        for (const auto &b : more_)
            out.push_back(b.get());
        return out;
    }
    HardwareView *view() override { return view_.get(); }
    void finish(const Scenario &sc, BackendStats &report) override {
        if (!topo_)
            return;
        report_topology(*topo_, sc, report);
    }

  private:
    // The stack's configuration cycles go to the controller's function; its MSI messages to
    // the binding (the first MSI number above the 24 IOAPIC inputs, one per controller).
    static void attach_pci(PlatformBinding &b, ControllerHookup &h, size_t index) {
        if (!h.pci)
            return;
        b.set_pci(h.pci);
        bus::IrqLine *cond = h.irq.get();
        b.enable_msi_delivery([cond] { return cond->level(); }, 24u + unsigned(index));
        PlatformBinding *bp = &b;
        h.pci->set_msi_sink([bp](uint64_t address, uint32_t data) { bp->msi_message(address, data); });
    }

    // controllers: one platform per further controller, each on its register window and pin;
    // a controller on an interrupt line an earlier one has shares that one's line.
    void build_more_platforms(const Context &ctx) {
        const Scenario &sc = ctx.sc;
        auto address = [&](PlatformBinding &b, size_t i) {
            const ControllerSpec &c = sc.controller_at(i);
            b.set_host_address(c.first_port, c.ports, controller_log_prefix(controller_desc(c.type), c.pci));
            b.set_irq_number(c.irq);
            for (size_t j = 0; j < i; ++j)
                if (sc.controller_at(j).irq == c.irq) {
                    b.share_irq_line(j == 0 ? *binding_ : *more_[j - 1]);
                    break;
                }
        };
        address(*binding_, 0);
        for (size_t i = 1; i < sc.n_controllers(); ++i) {
            ControllerHookup &h = topo_->hba(i);
            more_.push_back(std::make_unique<PlatformBinding>(("platform" + std::to_string(i)).c_str(), *h.mmio,
                                                              *topo_->mem, h.host_line(), ctx.sink, ctx.fail));
            attach_pci(*more_.back(), h, i);
            address(*more_.back(), i);
        }
    }

    std::unique_ptr<Topology> topo_;
    std::unique_ptr<PlatformBinding> binding_;
    std::vector<std::unique_ptr<PlatformBinding>> more_;
    std::unique_ptr<TopologyView> view_;
};

} // namespace

std::unique_ptr<Backend> make_backend() { return std::make_unique<SystemcBackend>(); }

} // namespace satasim::harness::systemc
