#include "backend/systemc/controller_models.h"

#include "controller/controller_table.h"

namespace satasim::harness {

namespace {

// Hands a controller model to the topology: everything past it is controller-neutral.
template <class Hba>
void adopt(Topology &t, std::unique_ptr<Hba> hba) {
    Hba *h = hba.get();
    t.mmio = h;
    t.port_endpoint = [h](unsigned port) { return h->port_endpoint(port); };
    t.connect_port = [h](unsigned port, link::SataLink *lk) { h->connect_port(port, lk); };
    t.lost_irq = [h](unsigned port, unsigned count, uint64_t window_ns, const std::string &id) {
        h->inject_lost_irq(port, count, window_ns, id);
    };
    t.clear_hba_faults = [h] { h->clear_faults(); };
    t.hba_module = std::move(hba);
}

// A SiI3124 (the stack's sil24 LLD): `ports` limits the port mask, the chip has its row's ports.
void build_sil24(const Scenario &sc, Topology &t, ModelTrace *trace) {
    const ControllerSpec &c = sc.controller;
    sil24::Sil24Config sc24;
    sc24.n_ports = controller_desc(ControllerId::Sil24).hardware_ports;
    sc24.max_gen = to_gen(c.gen);
    sc24.pcix = true;
    sc24.pcix_irq_loss = c.pcix_irq_loss;
    sc24.pcix_ack_window_ns = double(c.pcix_ack_window_ns);
    adopt(t, std::make_unique<sil24::Sil24Hba>(controller_name(c).c_str(), sc24, *t.mem, *t.irq, trace));
}

void build_sil3112(const Scenario &sc, Topology &t, ModelTrace *trace) {
    const ControllerSpec &c = sc.controller;
    sil3112::Sil3112Config s;
    s.max_gen = to_gen(c.gen);
    auto hba = std::make_unique<sil3112::Sil3112Hba>(controller_name(c).c_str(), s, *t.mem, *t.irq, trace);
    sil3112::Sil3112Hba *h = hba.get();
    t.sff_channel = [h](unsigned port) { return &h->channel(port); };
    adopt(t, std::move(hba));
}

void build_piix(const Scenario &sc, Topology &t, ModelTrace *trace) {
    const ControllerSpec &c = sc.controller;
    auto hba = std::make_unique<piix::PiixIde>(controller_name(c).c_str(), *t.mem, *t.irq, trace,
                                               c.slave_positions() ? piix::PiixMap::Ich6 : piix::PiixMap::Ich5);
    piix::PiixIde *h = hba.get();
    t.sff_channel = [h](unsigned port) { return &h->channel(port); };
    adopt(t, std::move(hba));
}

void build_ahci(const Scenario &sc, Topology &t, ModelTrace *trace) {
    const ControllerSpec &c = sc.controller;
    ahci::AhciConfig hc;
    hc.n_ports = c.ports;
    hc.n_slots = c.slots;
    hc.iss = to_gen(c.gen);
    hc.ncq = c.ncq;
    hc.sss = c.staggered_spinup;
    hc.spm = !sc.pmps.empty(); // CAP.SPM (and PxCMD.PMA) when the scenario has a port multiplier
    // CAP.FBSS from the scenario; PxCMD.FBSCP on the ports whose PMP can switch per FIS
    // (pmps[].fbs), so the stack turns FBS on only where both ends support it.
    hc.fbss = c.fbs && hc.spm;
    hc.fbscp_ports = 0;
    for (const PmpSpec &x : sc.pmps)
        if (x.fbs && x.port < 32)
            hc.fbscp_ports |= 1u << x.port;
    auto hba = std::make_unique<ahci::AhciHba>(controller_name(c).c_str(), hc, *t.mem, *t.irq, trace);
    ahci::AhciHba *h = hba.get();
    t.host_bus_error = [h](unsigned port, const bus::BusErrorParams &bus, const std::string &id) {
        h->inject_host_bus_error(port, bus, id);
    };
    adopt(t, std::move(hba));
}

using ModelBuilder = void (*)(const Scenario &, Topology &, ModelTrace *);
// In ControllerId order (one per row of controller_descs()).
constexpr ModelBuilder kBuilders[] = {build_ahci, build_sil24, build_sil3112, build_piix};
static_assert(sizeof kBuilders / sizeof kBuilders[0] == kControllerCount, "one model builder per controller row");

} // namespace

void build_controller_model(const Scenario &sc, Topology &t, ModelTrace *trace) {
    kBuilders[size_t(controller_desc(sc.controller.type).id)](sc, t, trace);
}

} // namespace satasim::harness
