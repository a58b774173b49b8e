#include "backend/systemc/controller_models.h"

#include "controller/controller_table.h"

namespace satasim::harness {

namespace {

// Hands a controller model to the topology: everything past it is controller-neutral.
// The function's register window as the host reaches it (decoded only while the function's
// Command register enables its space), its interrupt logic between the model's condition line
// and the INTx pin.
template <class Hba>
void adopt(ControllerHookup &t, std::unique_ptr<Hba> hba, bus::PciWindow::Space space = bus::PciWindow::Space::Memory) {
    Hba *h = hba.get();
    bus::PciFunction *f = &h->pci();
    t.pci = f;
    t.window = std::make_unique<bus::PciWindow>(*h, *f, space);
    t.pin = std::make_unique<bus::IrqLine>();
    bus::IrqLine *pin = t.pin.get();
    f->set_intx_sink([pin](bool level) { pin->set(level); });
    t.irq->set_observer([f](bool level) { f->interrupt(level); });
    f->interrupt(t.irq->level()); // a condition the model raised while it was built
    t.mmio = t.window.get();
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
                                : c.part == "ich8"  ? piix::PiixPart::Ich8Sata
                                                    : piix::PiixPart::IchSata;
    auto hba = std::make_unique<piix::PiixIde>(b.name.c_str(), b.mem, *b.t.irq, b.trace,
                                               c.map == "ich6" ? piix::PiixMap::Ich6 : piix::PiixMap::Ich5, part);
    piix::PiixIde *h = hba.get();
    b.t.sff_channel = [h](unsigned port) { return &h->channel(port); };
    adopt(b.t, std::move(hba), bus::PciWindow::Space::Io); // the legacy ports and BAR4: I/O space
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
    hc.sds = c.devsleep;
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
    b.t.hba_error = [h](unsigned port, unsigned error, unsigned irq, const std::string &id) {
        h->inject_hba_error(port, ahci::HbaErrorKind(error), ahci::HbaErrorIrq(irq), id);
    };
    adopt(b.t, std::move(hba));
}

using ModelBuilder = void (*)(const Build &);
// In ControllerId order (one per row of controller_descs()).
constexpr ModelBuilder kBuilders[] = {build_ahci, build_sil24, build_sil3112, build_piix};
static_assert(sizeof kBuilders / sizeof kBuilders[0] == kControllerCount, "one model builder per controller row");

} // namespace

// What the machine's firmware does before the OS probes (docs/hardware.md 12.7): every BAR
// gets an address (memory BARs naturally aligned in the controller's own 1 MiB below
// 0xfec00000, I/O BARs from 0xd000 + 0x100 per controller; a PIIX's bus-master BAR4 at the
// I/O base its window maps, 0xc000), Interrupt Line the controller's IRQ. Decode stays off:
// enabling the function is the driver's (the stack's PCI probe).
void firmware_assign(ControllerHookup &h, const ControllerSpec &c, size_t index) {
    bus::PciFunction &f = *h.pci;
    uint64_t mem_next = 0xfe000000ull + 0x100000ull * index;
    uint32_t io_next = 0xd000u + 0x100u * unsigned(index);
    const bool piix = controller_desc(c.type).id == ControllerId::Piix;
    for (unsigned n = 0; n < 6; ++n) {
        const bus::PciBar &b = f.spec().bars[n];
        const unsigned off = bus::pci::kBar0 + 4 * n;
        if (b.kind == bus::PciBar::Kind::None)
            continue;
        if (b.kind == bus::PciBar::Kind::Io) {
            uint32_t at = (io_next + b.size - 1) & ~(b.size - 1);
            if (piix && n == 4)
                at = piix::PiixIde::kBmdmaBase;
            else if (piix && n == 5)
                at = piix::reg::kSidpr; // the ICH8's SIDPR: where the model's window decodes it
            else
                io_next = at + b.size;
            f.config_write(off, 4, at);
            continue;
        }
        const uint64_t at = (mem_next + b.size - 1) & ~uint64_t(b.size - 1);
        mem_next = at + b.size;
        f.config_write(off, 4, uint32_t(at));
        if (b.kind == bus::PciBar::Kind::Mem64) {
            f.config_write(off + 4, 4, uint32_t(at >> 32));
            ++n;
        }
    }
    f.config_write(bus::pci::kIntLine, 1, piix ? 14u : c.irq);
}

void build_controller_model(const Scenario &sc, size_t index, bus::HostMemory &mem, ControllerHookup &h,
                            ModelTrace *trace) {
    const ControllerSpec &c = sc.controller_at(index);
    kBuilders[size_t(controller_desc(c.type).id)]({sc, c, controller_name(sc, index), mem, h, trace});
    firmware_assign(h, c, index);
    if (!sc.host.stack) // the directed steps are the driver: the function is enabled for them
        bus::pci_enable_for_test(*h.pci);
}

} // namespace satasim::harness
