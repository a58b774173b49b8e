#include "backend/systemc/topology.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "backend/systemc/controller_models.h"
#include "controller/controller_table.h"
#include "util/prng.h"
#include "backend/backend_stats.h"

namespace satasim::harness {

link::Gen to_gen(unsigned gen) {
    switch (gen) {
    case 1: return link::Gen::Gen1;
    case 2: return link::Gen::Gen2;
    case 3: return link::Gen::Gen3;
    default: return link::Gen::None;
    }
}

// Precedence: SATASIM_LINK_MODE=dword|fis (experiments) > the device's link.mode > the
// scenario's link.mode (default dword).
link::SataLink::Mode link_mode(const Scenario &sc, const DeviceSpec &d) {
    const char *env = std::getenv("SATASIM_LINK_MODE");
    if (env && (std::strcmp(env, "dword") == 0 || std::strcmp(env, "fis") == 0))
        return link::SataLink::Mode::Default; // the link reads the environment
    LinkModeSpec m = d.link_mode ? *d.link_mode : sc.link_mode;
    return m == LinkModeSpec::Fis ? link::SataLink::Mode::Fis : link::SataLink::Mode::Dword;
}

device::NcqOrder to_ncq_order(NcqOrderSpec o) {
    switch (o) {
    case NcqOrderSpec::InOrder: return device::NcqOrder::InOrder;
    case NcqOrderSpec::Reverse: return device::NcqOrder::Reverse;
    case NcqOrderSpec::Random: return device::NcqOrder::Random;
    case NcqOrderSpec::ShortestSeek: return device::NcqOrder::ShortestSeek;
    case NcqOrderSpec::ShortestAccess: return device::NcqOrder::ShortestAccess;
    }
    return device::NcqOrder::InOrder;
}

atapi::AtapiConfig atapi_config(const DeviceSpec &d) {
    atapi::AtapiConfig c;
    const AtapiSpec &a = *d.atapi;
    c.model = d.model;
    c.firmware = d.firmware;
    c.serial = d.serial;
    c.disc = atapi::Disc{a.disc_blocks, a.disc_seed};
    c.medium = a.medium;
    c.cdb_drq = atapi::CdbDrq(a.cdb_drq);
    c.dmadir = a.dmadir;
    c.dma = a.dma;
    c.udma_max = a.udma;
    c.pio_max = a.pio;
    return c;
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
    c.status_dsc = d.status_dsc;
    c.hpa_sectors = d.hpa;
    c.hipm = d.hipm;
    c.dipm = d.dipm;
    c.devsleep = d.devsleep;
    c.trim = d.trim == TrimSpec::Zeroes          ? device::DiskConfig::Trim::Zeroes
             : d.trim == TrimSpec::Deterministic ? device::DiskConfig::Trim::Deterministic
             : d.trim == TrimSpec::Indeterminate ? device::DiskConfig::Trim::Indeterminate
                                                 : device::DiskConfig::Trim::None;
    c.ncq_order = to_ncq_order(d.ncq_order);
    c.seed = derive_seed(sc.seed, d.addr().trace_name("disk"));
    c.media_seed = derive_seed(sc.seed, d.addr().trace_name("media"));
    c.timing.ssd = d.timing.ssd;
    c.timing.rpm = d.timing.rpm;
    c.timing.avg_seek_ms = d.timing.seek_ms;
    c.timing.flat_latency_us = d.timing.latency_us;
    c.timing.media_mb_s = d.timing.rate_mb_s;
    c.timing.cmd_overhead_us = d.timing.overhead_us;
    c.timing.reset_ready_ms = d.timing.reset_ready_ms;
    c.timing.units = d.timing.units;
    c.ncq_sdb_coalesce_ns = d.ncq_sdb_coalesce_ns;
    c.mod15write = d.mod15write;
    c.ncq_trim = d.ncq_trim;
    c.ncq_trim_erratum = d.ncq_trim_erratum;
    c.logical_log2 = d.logical_log2;
    c.physical_log2 = d.physical_log2 - d.logical_log2; // logical sectors per physical, as IDENTIFY 106
    c.align_offset = d.align_offset;
    c.smart = d.smart == SmartSpec::Good                ? device::DiskConfig::Smart::Good
              : d.smart == SmartSpec::ThresholdExceeded ? device::DiskConfig::Smart::ThresholdExceeded
                                                        : device::DiskConfig::Smart::None;
    c.ncq_log_count = d.ncq_log_count == NcqLogCountSpec::LowByte ? device::DiskConfig::NcqLogCount::LowByte
                      : d.ncq_log_count == NcqLogCountSpec::None  ? device::DiskConfig::NcqLogCount::None
                                                                  : device::DiskConfig::NcqLogCount::Full;
    c.d2h_regs = d.d2h_regs == D2hRegsSpec::Echo      ? device::DiskConfig::D2hRegs::Echo
                 : d.d2h_regs == D2hRegsSpec::LbaBits ? device::DiskConfig::D2hRegs::LbaBits
                                                      : device::DiskConfig::D2hRegs::Cleared;
    // a drive on a PIIX3/PIIX4 cable is a parallel ATA drive (docs/hardware.md 10.5)
    if (const ControllerSpec &ctl = sc.controller_of(d.port); ctl.parallel_ata() && !d.pmp_port) {
        c.pata = true;
        c.pata_devno = d.devno;
        c.pata_cable80 = ctl.cable == 80;
        c.pata_pair = sc.device_at(DevAddr{d.port, std::nullopt, 1 - d.devno}) != nullptr;
    }
    return c;
}

namespace {

// Trace records of a model behind a port multiplier: SystemC names cannot hold '.', so the
// model is built as "link0_2" and its records are renamed "link0.2" and addressed
// (host port, fan-out link, device).
class FanoutTraceName : public ModelTrace {
  public:
    FanoutTraceName(ModelTrace *inner, std::string name, int port, int link, int dev)
        : inner_(inner), name_(std::move(name)), port_(port), link_(link), dev_(dev) {}
    void emit(const TraceRecord &rec) override {
        TraceRecord r = rec;
        r.src = name_;
        if (r.port == -1)
            r.port = port_;
        if (r.link == -1)
            r.link = link_;
        if (r.dev == -1)
            r.dev = dev_;
        inner_->emit(r);
    }

  private:
    ModelTrace *inner_;
    std::string name_;
    int port_, link_, dev_;
};

ModelTrace *fanout_trace(Topology &t, ModelTrace *inner, const std::string &name, unsigned port,
                         int fan, int dev) {
    if (!inner)
        return nullptr;
    t.trace_names.push_back(std::make_unique<FanoutTraceName>(inner, name, int(port), fan, dev));
    return t.trace_names.back().get();
}

// The records of a further controller's model: its own port numbers made host-wide.
class PortOffsetTrace : public ModelTrace {
  public:
    PortOffsetTrace(ModelTrace *inner, int offset) : inner_(inner), offset_(offset) {}
    void emit(const TraceRecord &rec) override {
        if (rec.port < 0) {
            inner_->emit(rec);
            return;
        }
        TraceRecord r = rec;
        r.port += offset_;
        inner_->emit(r);
    }

  private:
    ModelTrace *inner_;
    int offset_;
};

// The controller a host-wide port is on, and the port on it (for a taskfile channel's slave,
// the SATA port its position maps: sata_port()).
struct HbaPort {
    ControllerHookup &hba;
    unsigned port;
};
HbaPort hba_port(Topology &t, const Scenario &sc, const DevAddr &a) {
    const unsigned i = sc.controller_index(a.port);
    return {t.hba(i), sata_port({a.port - sc.controller_at(i).first_port, a.pmp_port, a.devno})};
}

pmp::PmpConfig pmp_config(const PmpSpec &x) {
    pmp::PmpConfig c;
    if (!pmp::product_config(x.product, x.ports, c))
        c = pmp::sii3726(x.ports); // (the reader accepts only the parts the model knows)
    c.fbs = x.fbs;
    c.async_notify = x.async_notify;
    return c;
}

// The port multipliers and the disks behind them (devices[] with pmp_port).
void make_pmps(const Scenario &sc, Topology &t, ModelTrace *trace) {
    for (const PmpSpec &x : sc.pmps) {
        const std::string pn = "pmp" + std::to_string(x.port);
        const std::string ln = "link" + std::to_string(x.port);
        auto pm = std::make_unique<pmp::PortMultiplier>(pn.c_str(), pmp_config(x), trace, int(x.port));
        link::SataLink::Config lc;
        lc.host_max = to_gen(sc.controller_of(x.port).gen);
        lc.device_max = pm->config().max_gen;
        lc.mode = link_mode(sc, DeviceSpec{});
        auto lk = std::make_unique<link::SataLink>(ln.c_str(), lc, trace);
        const HbaPort hp = hba_port(t, sc, {x.port, std::nullopt});
        lk->attach(hp.hba.port_endpoint(hp.port), pm.get());
        hp.hba.connect_port(hp.port, lk.get());
        pm->connect_host(lk.get());
        t.links[x.port] = std::move(lk);
        t.pmps[x.port] = std::move(pm);
    }
    for (const DeviceSpec &d : sc.devices) {
        if (!d.pmp_port)
            continue;
        pmp::PortMultiplier &pm = *t.pmps.at(d.port);
        const unsigned f = *d.pmp_port;
        const std::string suffix = std::to_string(d.port) + "_" + std::to_string(f); // SystemC names: no dots
        link::SataLink::Config lc;
        lc.host_max = pm.config().max_gen;
        lc.device_max = to_gen(d.gen);
        lc.device_present = d.present;
        lc.mode = link_mode(sc, d);
        auto lk = std::make_unique<link::SataLink>(("link" + suffix).c_str(), lc,
                                                   fanout_trace(t, trace, d.addr().trace_name("link"), d.port, int(f), -1));
        auto disk = std::make_unique<device::SataDisk>(("disk" + suffix).c_str(), disk_config(sc, d),
                                                       fanout_trace(t, trace, d.addr().trace_name("disk"), d.port, int(f), 0));
        lk->attach(pm.port_endpoint(f), disk.get());
        pm.connect_port(f, lk.get());
        disk->connect(lk.get());
        disk->set_fis_trace(sc.trace_fis);
        t.fanout_links[{d.port, f}] = std::move(lk);
        t.fanout_disks[{d.port, f}] = std::move(disk);
    }
}

} // namespace

namespace {
// The element at `a`: in `direct` by host port, in `fanout` by (host port, fan-out port), or
// in `slave` by host port for a channel's device 1.
template <class T>
T *element_at(const std::map<unsigned, std::unique_ptr<T>> &direct,
              const std::map<std::pair<unsigned, unsigned>, std::unique_ptr<T>> &fanout,
              const std::map<unsigned, std::unique_ptr<T>> &slave, const DevAddr &a) {
    if (a.pmp_port) {
        auto it = fanout.find({a.port, *a.pmp_port});
        return it == fanout.end() ? nullptr : it->second.get();
    }
    if (a.devno) {
        auto it = slave.find(a.port);
        return it == slave.end() ? nullptr : it->second.get();
    }
    auto it = direct.find(a.port);
    return it == direct.end() ? nullptr : it->second.get();
}
} // namespace

device::SataDisk *Topology::disk_at(const DevAddr &a) const { return element_at(disks, fanout_disks, slave_disks, a); }
link::SataLink *Topology::link_at(const DevAddr &a) const { return element_at(links, fanout_links, slave_links, a); }

unsigned sata_port(const DevAddr &a) { return a.port + (a.devno ? sff::SffController::kChannels : 0); }

std::string controller_name(const ControllerSpec &c) { return controller_desc(c.type).model_instance; }

std::string controller_name(const Scenario &sc, size_t index) {
    const ControllerSpec &c = sc.controller_at(index);
    std::string name = controller_name(c);
    unsigned same = 0; // controllers of its type before it
    for (size_t i = 0; i < index; ++i)
        same += sc.controller_at(i).type == c.type;
    if (same) // the table's instance ends in 0
        name = name.substr(0, name.size() - 1) + std::to_string(same);
    return name;
}

std::unique_ptr<Topology> build_topology(const Scenario &sc, ModelTrace *trace,
                                         const ControllerFactory &make_ctl) {
    auto t = std::make_unique<Topology>();
    t->mem = std::make_unique<bus::HostMemory>();
    t->irq = std::make_unique<bus::IrqLine>();

    if (make_ctl)
        make_ctl(sc, *t, trace);
    else
        build_controller_model(sc, 0, *t->mem, *t, trace);
    for (size_t i = 1; i < sc.n_controllers(); ++i) { // controllers: (the SystemC models only)
        auto h = std::make_unique<ControllerHookup>();
        h->first_port = sc.controller_at(i).first_port;
        h->irq = std::make_unique<bus::IrqLine>();
        t->trace_names.push_back(std::make_unique<PortOffsetTrace>(trace, int(h->first_port)));
        build_controller_model(sc, i, *t->mem, *h, trace ? t->trace_names.back().get() : nullptr);
        t->more.push_back(std::move(h));
    }
    make_pmps(sc, *t, trace);
    for (const DeviceSpec &d : sc.devices) { // file order; names depend on the address only
        if (d.pmp_port)
            continue; // behind a port multiplier: make_pmps()
        // a slave's SystemC names cannot hold '.': "link0_1", renamed "link0.1" in the trace
        std::string ln = "link" + std::to_string(d.port) + (d.devno ? "_1" : "");
        std::string dn = "disk" + std::to_string(d.port) + (d.devno ? "_1" : "");
        ModelTrace *mt = d.devno ? fanout_trace(*t, trace, d.addr().trace_name("link"), d.port, -1, 1) : trace;
        ModelTrace *dt = d.devno ? fanout_trace(*t, trace, d.addr().trace_name("disk"), d.port, -1, 1) : trace;
        link::SataLink::Config lc;
        lc.host_max = to_gen(sc.controller_of(d.port).gen);
        lc.device_max = to_gen(d.gen);
        lc.device_present = d.present; // present: false = the cable starts unplugged
        lc.mode = link_mode(sc, d);
        auto lk = std::make_unique<link::SataLink>(ln.c_str(), lc, mt);
        if (d.atapi) { // an ATAPI drive ("cd<port>") instead of a disk
            auto cd = std::make_unique<atapi::AtapiDevice>(("cd" + std::to_string(d.port)).c_str(), atapi_config(d), dt);
            const HbaPort hp = hba_port(*t, sc, d.addr());
            lk->attach(hp.hba.port_endpoint(hp.port), cd.get());
            hp.hba.connect_port(hp.port, lk.get());
            cd->connect(lk.get());
            cd->set_fis_trace(sc.trace_fis);
            t->links[d.port] = std::move(lk);
            t->atapis[d.port] = std::move(cd);
            continue;
        }
        auto disk = std::make_unique<device::SataDisk>(dn.c_str(), disk_config(sc, d), dt);
        const HbaPort hp = hba_port(*t, sc, d.addr());
        lk->attach(hp.hba.port_endpoint(hp.port), disk.get());
        hp.hba.connect_port(hp.port, lk.get());
        disk->connect(lk.get());
        disk->set_fis_trace(sc.trace_fis);
        (d.devno ? t->slave_links : t->links)[d.port] = std::move(lk);
        (d.devno ? t->slave_disks : t->disks)[d.port] = std::move(disk);
    }
    if (!sc.faults.empty()) {
        t->faults = std::make_unique<fault::FaultInjector>("fault", sc.faults, trace);
        // The hooks of the controller a port is on, on its own port number.
        auto port_hooks = [&t, &sc](const DevAddr &a) {
            const HbaPort hp = hba_port(*t, sc, a);
            ControllerHookup *tp = &hp.hba;
            const unsigned port = hp.port;
            fault::PortHooks hk;
            hk.lost_irq = [tp, port](unsigned count, uint64_t window_ns, const std::string &id) {
                tp->lost_irq(port, count, window_ns, id);
            };
            hk.clear_hba = tp->clear_hba_faults;
            if (tp->host_bus_error)
                hk.host_bus_error = [tp, port](const bus::BusErrorParams &bus, const std::string &id) {
                    tp->host_bus_error(port, bus, id);
                };
            if (tp->hba_error)
                hk.hba_error = [tp, port](unsigned error, unsigned irq, const std::string &id) {
                    tp->hba_error(port, error, irq, id);
                };
            if (tp->sff_channel)
                hk.channel = tp->sff_channel(port);
            return hk;
        };
        for (const DeviceSpec &d : sc.devices) {
            fault::PortHooks hk = port_hooks(d.addr());
            if (d.atapi) // an ATAPI drive on a host port's device 0 (the link to it: links[port])
                hk.atapi = t->atapis.at(d.port).get();
            else
                hk.disk = t->disk_at(d.addr());
            hk.link = t->link_at(d.addr());
            t->faults->bind_port({d.port, d.addr().link(), d.devno}, hk);
        }
        // A port multiplier's port: its host link and its control port.
        for (auto &[port, pm] : t->pmps) {
            fault::PortHooks hk = port_hooks({port, std::nullopt});
            hk.link = t->links[port].get();
            pmp::PortMultiplier *pmp = pm.get();
            hk.pmp_hang = [pmp](const std::string &id) { pmp->hang(id); };
            hk.pmp_reg_abort = [pmp](unsigned port, unsigned reg, const std::string &id) {
                pmp->abort_pscr_read(port, reg, id);
            };
            hk.clear_pmp = [pmp] { pmp->clear_faults(); };
            t->faults->bind_port({port, -1}, hk);
        }
    }
    return t;
}

void report_topology(const Topology &t, const Scenario &sc, BackendStats &report) {
    if (t.faults)
        for (size_t i = 0; i < sc.faults.size(); ++i) {
            const fault::Fault &f = sc.faults[i];
            FaultReport fr;
            fr.id = f.id;
            fr.kind = fault::to_string(f.kind);
            fr.port = f.port;
            fr.pmp_port = f.pmp_port;
            fr.devno = f.devno;
            fr.fired = t.faults->fired(i);
            fr.repeat = f.trigger.repeat;
            fr.min_fired = f.min_fired;
            report.faults.push_back(fr);
        }
    for (const auto &[port, lk] : t.links)
        lk->append_fast_path_stats();
    for (const auto &[addr, lk] : t.fanout_links)
        lk->append_fast_path_stats();
    for (const auto &[port, lk] : t.slave_links)
        lk->append_fast_path_stats();
    for (const auto &[port, lk] : t.links)
        report.links.push_back({port, lk->mode() == link::SataLink::Mode::Dword ? "dword" : "fis",
                                lk->dword_cycles()});
}

} // namespace satasim::harness
