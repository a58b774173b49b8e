#include "topology.h"

#include <string>

#include "prng.h"

namespace satasim::harness {

link::Gen to_gen(unsigned gen) {
    switch (gen) {
    case 1: return link::Gen::Gen1;
    case 2: return link::Gen::Gen2;
    case 3: return link::Gen::Gen3;
    default: return link::Gen::None;
    }
}

device::NcqOrder to_ncq_order(NcqOrderSpec o) {
    switch (o) {
    case NcqOrderSpec::InOrder: return device::NcqOrder::InOrder;
    case NcqOrderSpec::Reverse: return device::NcqOrder::Reverse;
    case NcqOrderSpec::Random: return device::NcqOrder::Random;
    case NcqOrderSpec::ShortestSeek: return device::NcqOrder::ShortestSeek;
    }
    return device::NcqOrder::InOrder;
}

device::DiskConfig disk_config(const Scenario &sc, const DeviceSpec &d) {
    device::DiskConfig c;
    c.model = d.model;
    c.serial = d.serial;
    c.firmware = d.firmware;
    c.sectors = d.capacity;
    c.lba48 = d.lba48;
    c.ncq = d.ncq;
    c.ncq_depth = d.ncq_depth;
    c.max_gen = to_gen(d.gen);
    c.udma_max = d.udma;
    c.pio_max = d.pio;
    c.multi_max = d.multi;
    c.ata_major = d.ata_major;
    c.write_cache = d.write_cache;
    c.ncq_order = to_ncq_order(d.ncq_order);
    c.seed = derive_seed(sc.seed, "disk" + std::to_string(d.port));
    c.timing.ssd = d.timing.ssd;
    c.timing.rpm = d.timing.rpm;
    c.timing.avg_seek_ms = d.timing.seek_ms;
    c.timing.flat_latency_us = d.timing.latency_us;
    c.timing.media_mb_s = d.timing.rate_mb_s;
    c.timing.cmd_overhead_us = d.timing.overhead_us;
    c.timing.reset_ready_ms = d.timing.reset_ready_ms;
    c.ncq_sdb_coalesce_ns = d.ncq_sdb_coalesce_ns;
    return c;
}

namespace {

// The one controller factory: everything else in the topology is controller-neutral.
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

void make_controller(const Scenario &sc, Topology &t, ModelTrace *trace) {
    const ControllerSpec &c = sc.controller;
    std::string name = controller_name(c);
    if (c.type == "sil24") {
        sil24::Sil24Config sc24;
        sc24.n_ports = 4; // a SiI3124 (the stack's sil24 LLD): `ports` limits the port mask
        sc24.max_gen = to_gen(c.gen);
        sc24.pcix = true;
        sc24.pcix_irq_loss = c.pcix_irq_loss;
        sc24.pcix_ack_window_ns = double(c.pcix_ack_window_ns);
        adopt(t, std::make_unique<sil24::Sil24Hba>(name.c_str(), sc24, *t.mem, *t.irq, trace));
        return;
    }
    ahci::AhciConfig hc;
    hc.n_ports = c.ports;
    hc.n_slots = c.slots;
    hc.iss = to_gen(c.gen);
    hc.ncq = c.ncq;
    adopt(t, std::make_unique<ahci::AhciHba>(name.c_str(), hc, *t.mem, *t.irq, trace));
}

} // namespace

std::string controller_name(const ControllerSpec &c) {
    return c.type == "sil24" ? "sil24_0" : c.type + "0";
}

std::unique_ptr<Topology> build_topology(const Scenario &sc, ModelTrace *trace) {
    auto t = std::make_unique<Topology>();
    t->mem = std::make_unique<bus::HostMemory>();
    t->irq = std::make_unique<bus::IrqLine>();

    make_controller(sc, *t, trace);
    for (const DeviceSpec &d : sc.devices) { // file order; names depend on the port only
        std::string ln = "link" + std::to_string(d.port);
        std::string dn = "disk" + std::to_string(d.port);
        link::SataLink::Config lc;
        lc.host_max = to_gen(sc.controller.gen);
        lc.device_max = to_gen(d.gen);
        lc.device_present = d.present; // present: false = the cable starts unplugged
        auto lk = std::make_unique<link::SataLink>(ln.c_str(), lc, trace);
        auto disk = std::make_unique<device::SataDisk>(dn.c_str(), disk_config(sc, d), trace);
        lk->attach(t->port_endpoint(d.port), disk.get());
        t->connect_port(d.port, lk.get());
        disk->connect(lk.get());
        disk->set_fis_trace(sc.trace_fis);
        t->links[d.port] = std::move(lk);
        t->disks[d.port] = std::move(disk);
    }
    if (!sc.faults.empty()) {
        t->faults = std::make_unique<fault::FaultInjector>("fault", sc.faults, trace);
        Topology *tp = t.get();
        for (const DeviceSpec &d : sc.devices) {
            fault::PortHooks hk;
            hk.disk = t->disks[d.port].get();
            hk.link = t->links[d.port].get();
            unsigned port = d.port;
            hk.lost_irq = [tp, port](unsigned count, uint64_t window_ns, const std::string &id) {
                tp->lost_irq(port, count, window_ns, id);
            };
            hk.clear_hba = tp->clear_hba_faults;
            t->faults->bind_port(d.port, hk);
        }
    }
    return t;
}

} // namespace satasim::harness
