#include "backend/systemc/controller_models.h"

#include "controller/controller_table.h"

namespace satasim::harness {

namespace {

// Hands a controller model to the topology: everything past it is controller-neutral.
template <class Hba>
void adopt(ControllerHookup &t, std::unique_ptr<Hba> hba) {
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
// What a builder gets: the scenario, the controller (its entry and its name), the machine's
// memory and the hookup to fill.
struct Build {
    const Scenario &sc;
    const ControllerSpec &c;
    std::string name;
    bus::HostMemory &mem;
    ControllerHookup &t;
    ModelTrace *trace;
};

void build_sil24(const Build &b) {
    const ControllerSpec &c = b.c;
    sil24::Sil24Config sc24;
    sc24.n_ports = controller_desc(ControllerId::Sil24).hardware_ports;
    sc24.max_gen = to_gen(c.gen);
    sc24.pcix = true;
    sc24.pcix_irq_loss = c.pcix_irq_loss;
    sc24.pcix_ack_window_ns = double(c.pcix_ack_window_ns);
    adopt(b.t, std::make_unique<sil24::Sil24Hba>(b.name.c_str(), sc24, b.mem, *b.t.irq, b.trace));
}

void build_sil3112(const Build &b) {
    const ControllerSpec &c = b.c;
    sil3112::Sil3112Config s;
    s.max_gen = to_gen(c.gen);
    auto hba = std::make_unique<sil3112::Sil3112Hba>(b.name.c_str(), s, b.mem, *b.t.irq, b.trace);
    sil3112::Sil3112Hba *h = hba.get();
    b.t.sff_channel = [h](unsigned port) { return &h->channel(port); };
    adopt(b.t, std::move(hba));
}

void build_piix(const Build &b) {
    const ControllerSpec &c = b.c;
    const piix::PiixPart part = c.part == "piix3"   ? piix::PiixPart::Piix3
                                : c.part == "piix4" ? piix::PiixPart::Piix4
                                                    : piix::PiixPart::IchSata;
    auto hba = std::make_unique<piix::PiixIde>(b.name.c_str(), b.mem, *b.t.irq, b.trace,
                                               c.map == "ich6" ? piix::PiixMap::Ich6 : piix::PiixMap::Ich5, part);
    piix::PiixIde *h = hba.get();
    b.t.sff_channel = [h](unsigned port) { return &h->channel(port); };
    adopt(b.t, std::move(hba));
}

void build_ahci(const Build &b) {
    const ControllerSpec &c = b.c;
    ahci::AhciConfig hc;
    hc.n_ports = c.ports;
    hc.n_slots = c.slots;
    hc.iss = to_gen(c.gen);
    hc.ncq = c.ncq;
    hc.sss = c.staggered_spinup;
    hc.salp = hc.psc = hc.ssc = c.lpm;
    // CAP.SPM (and PxCMD.PMA) when a port multiplier is on one of its ports; CAP.FBSS from
    // the scenario; PxCMD.FBSCP on the ports whose PMP can switch per FIS (pmps[].fbs), so
    // the stack turns FBS on only where both ends support it.
    hc.spm = false;
    hc.fbscp_ports = 0;
    for (const PmpSpec &x : b.sc.pmps) {
        if (x.port < c.first_port || x.port >= c.first_port + c.ports)
            continue;
        hc.spm = true;
        if (x.fbs && x.port - c.first_port < 32)
            hc.fbscp_ports |= 1u << (x.port - c.first_port);
    }
    hc.fbss = c.fbs && hc.spm;
    auto hba = std::make_unique<ahci::AhciHba>(b.name.c_str(), hc, b.mem, *b.t.irq, b.trace);
    ahci::AhciHba *h = hba.get();
    b.t.host_bus_error = [h](unsigned port, const bus::BusErrorParams &bus, const std::string &id) {
        h->inject_host_bus_error(port, bus, id);
    };
    adopt(b.t, std::move(hba));
}

using ModelBuilder = void (*)(const Build &);
// In ControllerId order (one per row of controller_descs()).
constexpr ModelBuilder kBuilders[] = {build_ahci, build_sil24, build_sil3112, build_piix};
static_assert(sizeof kBuilders / sizeof kBuilders[0] == kControllerCount, "one model builder per controller row");

} // namespace

void build_controller_model(const Scenario &sc, size_t index, bus::HostMemory &mem, ControllerHookup &h,
                            ModelTrace *trace) {
    const ControllerSpec &c = sc.controller_at(index);
    kBuilders[size_t(controller_desc(c.type).id)]({sc, c, controller_name(sc, index), mem, h, trace});
}

} // namespace satasim::harness
