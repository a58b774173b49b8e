#define SC_INCLUDE_DYNAMIC_PROCESSES // sc_spawn for the workload threads
#include "run/sim_run.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <systemc>

#include "controller/controller_table.h"
#include "run/directed_steps.h"
#include "satasim/ata_proto.h"
#include "backend/hardware_view.h"
#include "backend/platform_binding.h"
#include "backend/registry.h"
#include "model/device/media_store.h"
#include "model/fault/fault_kind_spec.h"
#include "run/verdict.h"
#include "trace/report.h"
#include "version.h"
#include "trace/eh_rules.h"
#include "trace/trace_sink.h"
#include "trace/vcd_writer.h"
#include "run/workload.h"

namespace fs = std::filesystem;

// Present when built with --coverage: coverage counters are otherwise only written by a
// normal exit, and a scenario process ends with _exit().
extern "C" void __gcov_dump(void) __attribute__((weak));

namespace satasim::harness {

namespace {

constexpr int kThreadStack = 4 << 20; // the stack's code runs on these (ASan needs room)

// host.force into the stack's entries (the packed transfer-mode bit of ata_proto.h).
std::vector<ata_force_param> to_stack_force(const std::vector<ForceOption> &opts) {
    std::vector<ata_force_param> out;
    for (const ForceOption &o : opts) {
        ata_force_param e{};
        e.port = o.port;
        e.device = o.device;
        e.spd_limit = o.spd_limit;
        e.ncq = o.ncq;
        e.dma = o.dma;
        e.lpm = o.lpm;
        e.ncq_trim = o.ncq_trim;
        switch (o.xfer) {
        case ForceOption::Xfer::None: break;
        case ForceOption::Xfer::Pio: e.xfer_mask = 1u << (ATA_SHIFT_PIO + o.xfer_mode); break;
        case ForceOption::Xfer::Mwdma: e.xfer_mask = 1u << (ATA_SHIFT_MWDMA + o.xfer_mode); break;
        case ForceOption::Xfer::Udma: e.xfer_mask = 1u << (ATA_SHIFT_UDMA + o.xfer_mode); break;
        }
        std::snprintf(e.name, sizeof e.name, "%s", o.name.c_str());
        out.push_back(e);
    }
    return out;
}

} // namespace

// The process context that owns the run: creates and starts the host, runs the
// workloads (honouring barriers), stops the host, and ends the simulation. Outside the
// anonymous namespace: SimRun::Objects holds one (-Wsubobject-linkage).
class SimController : public sc_core::sc_module {
  public:
    SC_HAS_PROCESS(SimController);
    // stop_at_end: the run's end stops the simulation (sc_stop); else the caller's step
    // loop sees finished() and the simulation stays paused (its processes can still be
    // ended, fuzz/sim_context.h).
    // bindings: one per controller of the host, in PCI order (the first: binding).
    SimController(sc_core::sc_module_name name, const Scenario &sc, std::vector<PlatformBinding *> bindings,
                  TraceSink &sink, RunReport &report, HardwareView &hw, bool stop_at_end)
        : sc_core::sc_module(name), sc_(sc), binding_(*bindings.front()), bindings_(std::move(bindings)),
          sink_(sink), report_(report), hw_(hw), stop_at_end_(stop_at_end) {
        SC_THREAD(main_thread);
        set_stack_size(kThreadStack);
    }

    bool finished() const { return finished_; }
    const std::string &phase() const { return phase_; }
    const std::vector<std::unique_ptr<WorkloadRunner>> &runners() const { return runners_; }

  private:
    void main_thread();
    bool create_hosts();
    int start_hosts();
    void run_workloads();
    void apply_device_settings();
    void attach_reads();
    void settle();
    std::vector<FoundDevice> devices_on_port(unsigned p);
    // The host a host-wide port is on, and the port on it.
    ata_host *host_of(unsigned p) const { return hosts_[sc_.controller_index(p)]; }
    PlatformBinding &binding_of(unsigned p) const { return *bindings_[sc_.controller_index(p)]; }
    bool eh_busy() const;
    void collect_end_state();
    void check_media();
    unsigned media_swaps(const DevAddr &a) const;
    // Faults that cut the drive's power at this place (their rows' cuts_power): whether the
    // scenario has any, and how many fired so far.
    bool has_power_cuts(const DevAddr &a) const;
    unsigned power_losses(const DevAddr &a) const;
    void end() {
        finished_ = true;
        report_.sim_time_ns = binding_.now_ns();
        if (stop_at_end_)
            sc_core::sc_stop();
    }

    const Scenario &sc_;
    PlatformBinding &binding_; // the first controller's (time, the directed steps)
    std::vector<PlatformBinding *> bindings_;
    TraceSink &sink_;
    RunReport &report_;
    HardwareView &hw_; // what the backend's hardware shows beyond the platform
    const bool stop_at_end_;
    bool finished_ = false;
    std::string phase_ = "elaboration";
    std::vector<ata_host *> hosts_; // one per controller, in PCI order
    ata_disk_names disk_names_{};   // the block layer's names, shared by the hosts
    std::vector<std::unique_ptr<DeviceState>> devs_;
    std::vector<std::unique_ptr<WorkloadRunner>> runners_;
    std::vector<std::unique_ptr<WorkloadRunner>> attach_readers_;
};

void SimController::main_thread() {
    std::vector<std::pair<std::string, TraceValue>> start_fields = {
        {"trace_format", TraceValue::integer(kTraceFormat)},
        {"satasim_version", TraceValue::str(satasim_version())},
        {"scenario", TraceValue::str(sc_.name)},
        {"seed", TraceValue::integer(int64_t(sc_.seed))},
        {"controller", TraceValue::str(sc_.controller.type)},
        {"log_prefix", TraceValue::str(controller_desc(sc_.controller.type).log_prefix)},
        {"ports", TraceValue::integer(sc_.total_ports())},
        {"disks", TraceValue::integer(int64_t(sc_.devices.size()))}};
    if (sc_.multi()) { // "ahci@00:1f.2/19,sil24@03:00.0/19": type, PCI address and IRQ line of each
        std::string all;
        for (const ControllerSpec &c : sc_.controllers)
            all += (all.empty() ? "" : ",") + c.type + "@" + c.pci + "/" + std::to_string(c.irq);
        start_fields.push_back({"controllers", TraceValue::str(all)});
    }
    sink_.emit_harness("run.start", SATA_TC_INFO, -1, start_fields);
    if (!sc_.host.stack) {
        // Directed steps instead of the stack.
        phase_ = "steps";
        run_steps(sc_, backend_of(sc_).rules, hw_, binding_, sink_, report_.failures, report_.steps_skipped);
        sink_.emit_harness("run.end", SATA_TC_INFO, -1, {{"steps", TraceValue::integer(int64_t(sc_.steps.size()))}});
        end();
        return;
    }
    if (!create_hosts()) {
        end();
        return;
    }
    report_.host_created = true;
    for (size_t i = 0; i < hosts_.size(); ++i)
        bindings_[i]->set_host(hosts_[i]);

    phase_ = "ata_host_start (probe)";
    int rc = start_hosts();
    report_.start_rc = rc;
    if (rc != 0) {
        report_.failures.add("ata_host_start returned " + std::to_string(rc));
    } else {
        report_.host_started = true;
        for (unsigned p = 0; p < sc_.total_ports(); ++p) {
            std::vector<FoundDevice> found = devices_on_port(p);
            if (found.empty())
                report_.empty_ports.push_back(p);
            for (FoundDevice &fd : found) {
                auto st = std::make_unique<DeviceState>();
                st->port = fd.port;
                st->pmp_port = fd.pmp_port;
                st->devno = fd.devno;
                st->name = fd.addr().trace_name("disk");
                st->dev = ata_host_device(host_of(fd.port), sc_.local_port(fd.port), fd.addr().link(), fd.devno);
                st->info = fd.info;
                // Never-written sectors: the model disk's blank pattern; zeros without a
                // model disk (QEMU's sparse image).
                if (const device::MediaStore *media = hw_.media(fd.addr())) {
                    st->shadow.set_blank(media->seed());
                    const DevAddr a = fd.addr();
                    st->media_swaps = [this, a] { return media_swaps(a); };
                    st->durability.reset(st->shadow.blank_seed());
                    if (has_power_cuts(a))
                        st->power_losses = [this, a] { return power_losses(a); };
                    // the drive's media now (a replaced drive's is another store)
                    st->media_seed = [this, a]() -> std::optional<uint64_t> {
                        if (const device::MediaStore *m = hw_.media(a))
                            return m->seed();
                        return std::nullopt;
                    };
                }
                if (fd.info.cls == ATA_DEV_ATAPI) {
                    const DevAddr a = fd.addr();
                    st->name = "cd" + std::to_string(a.port);
                    st->atapi_event = [this, a](const std::string &action, uint64_t seed, uint32_t blocks) {
                        return hw_.atapi_event(a, action, seed, blocks);
                    };
                    st->atapi_disc_seed = [this, a] { return hw_.atapi_disc_seed(a); };
                }
                devs_.push_back(std::move(st));
                report_.devices.push_back(fd);
            }
        }
        sink_.emit_harness("probe.done", SATA_TC_INFO, -1,
                           {{"devices", TraceValue::integer(int64_t(report_.devices.size()))},
                            {"empty_ports", TraceValue::integer(int64_t(report_.empty_ports.size()))}});
        apply_device_settings();
        phase_ = "workload";
        if (FaultEngine *faults = hw_.faults()) // fault times count from here unless from_power_on
            faults->workload_started();
        attach_reads(); // the first reads of the workload: the kernel's, before anyone else's
        run_workloads();
        phase_ = "settle (faults still to fire, EH still running)";
        settle();
        collect_end_state();
        check_media();
    }

    phase_ = "ata_host_stop";
    for (size_t i = 0; i < hosts_.size(); ++i) {
        bindings_[i]->set_host(nullptr);
        ata_host_stop(hosts_[i]);
        ata_host_destroy(hosts_[i]);
    }
    hosts_.clear();
    sink_.emit_harness("run.end", SATA_TC_INFO, -1,
                       {{"commands", TraceValue::integer(int64_t(report_.commands()))},
                        {"io_errors", TraceValue::integer(int64_t(report_.failures.io_errors))},
                        {"data_errors", TraceValue::integer(int64_t(report_.failures.data_errors))}});
    end();
}

// Every controller's driver, in PCI order: the stack's create function of its row, on the
// controller's platform. False (the run's failure added) if one fails.
bool SimController::create_hosts() {
    std::vector<ata_force_param> force = to_stack_force(sc_.host.force);
    for (size_t i = 0; i < bindings_.size(); ++i) {
        const ControllerSpec &c = sc_.controller_at(i);
        const ControllerDesc &ctl = controller_desc(c.type);
        PlatformBinding &b = *bindings_[i];
        phase_ = ctl.driver;
        ata_host_config cfg{};
        cfg.eh_policy = sc_.host.eh_policy.empty() ? nullptr : sc_.host.eh_policy.c_str();
        cfg.no_ncq = sc_.host.no_ncq;
        cfg.port_mask = sc_.host.port_mask;
        cfg.no_irq_loss_fix = !sc_.host.irq_loss_fix;
        cfg.pio_polling = sc_.host.pio_polling;
        cfg.fua = sc_.host.fua;
        cfg.atapi_dmadir = sc_.host.atapi_dmadir;
        cfg.ignore_hpa = sc_.host.ignore_hpa;
        cfg.lpm_policy = ata_lpm_policy_from_name(sc_.host.lpm_policy.c_str());
        cfg.spd_down_unknown = ata_spd_down_unknown_from_name(sc_.host.spd_down_unknown.c_str());
        cfg.piix_map = c.map == "ich6"   ? ATA_PIIX_MAP_ICH6
                       : c.map == "ich5" ? ATA_PIIX_MAP_ICH5
                                         : ATA_PIIX_MAP_NONE;
        cfg.piix_part = c.part == "piix3"   ? ATA_PIIX_PIIX3
                        : c.part == "piix4" ? ATA_PIIX_PIIX4
                        : c.part == "ich8"  ? ATA_PIIX_ICH8_SATA
                                            : ATA_PIIX_ICH_SATA;
        cfg.dma_off = ~sc_.host.dma & 0x7u;
        cfg.spd_limit = sc_.host.spd_limit;
        cfg.force = force.empty() ? nullptr : force.data();
        cfg.n_force = unsigned(force.size());
        cfg.quirks = b.host_quirks().flags;
        cfg.only_gen = b.host_quirks().only_gen;
        cfg.onchip = b.host_quirks().onchip;
        cfg.disk_names = &disk_names_; // sd's index is the machine's: sda.. across the hosts
        if (sc_.multi())
            sink_.emit_harness("host.create", SATA_TC_INFO, -1,
                               {{"controller", TraceValue::integer(int64_t(i))},
                                {"type", TraceValue::str(c.type)},
                                {"pci", TraceValue::str(c.pci)},
                                {"irq", TraceValue::integer(c.irq)},
                                {"first_port", TraceValue::integer(c.first_port)},
                                {"ports", TraceValue::integer(c.ports)}},
                               "controller " + std::to_string(i) + ": " + c.type + " at " + c.pci + ", irq " +
                                   std::to_string(c.irq) + ", ata" + std::to_string(c.first_port + 1) + "-ata" +
                                   std::to_string(c.first_port + c.ports));
        cfg.no_msi = sc_.host.no_msi;
        // A PCI function: the stack's PCI layer identifies it and picks the driver by its ID
        // tables (which must be this row's). A backend without configuration space (the RTL
        // DUT on its AXI bus) gets the row's driver directly.
        ata_host *h = nullptr;
        if (b.has_pci()) {
            const char *chosen = nullptr;
            h = ata_pci_probe(b.platform(), PlatformBinding::ops(), &cfg, &chosen);
            if (h && (!chosen || std::string(chosen) != ctl.driver)) {
                ata_host_destroy(h);
                h = nullptr;
                report_.failures.add(std::string("the PCI probe bound ") + (chosen ? chosen : "no driver") +
                                     ", not " + ctl.driver);
            }
        } else {
            h = ctl.create(b.platform(), PlatformBinding::ops(), &cfg);
        }
        if (!h) {
            report_.failures.add(std::string(ctl.driver) + " failed" +
                                 (sc_.multi() ? " (controller " + std::to_string(i) + ")" : std::string()));
            for (ata_host *made : hosts_)
                ata_host_destroy(made);
            hosts_.clear();
            return false;
        }
        hosts_.push_back(h);
    }
    return true;
}

// The hosts' probes in PCI order, as the kernel's driver probes meet the functions: with
// libata's asynchronous port probe a host's ports are probed while the next controller is
// brought up (ata_hosts_start). The first failure's code.
int SimController::start_hosts() {
    return ata_hosts_start(hosts_.data(), unsigned(hosts_.size()));
}

bool SimController::eh_busy() const {
    for (const PlatformBinding *b : bindings_)
        if (b->eh_busy())
            return true;
    return false;
}

// devices[].timeout: the request timeout, set as a udev rule or sysfs write would, once
// the disk is there.
void SimController::apply_device_settings() {
    for (const auto &d : devs_) {
        const DeviceSpec *spec = sc_.device_at(d->addr());
        if (spec && spec->timeout_ns)
            ata_dev_set_timeout(d->dev, unsigned(spec->timeout_ns / 1000000ull));
    }
}

// devices[].attach_read: the kernel reads the partition table of a disk that appears
// (one 4 KiB page at LBA 0: the MBR, and the GPT header in the same page) before anything
// else touches it; the disks' reads run together, as each disk's probe does.
void SimController::attach_reads() {
    std::vector<std::unique_ptr<WorkloadRunner>> readers;
    for (const auto &d : devs_) {
        const DeviceSpec *spec = sc_.device_at(d->addr());
        if (!spec || !spec->attach_read)
            continue;
        WorkloadSpec w;
        w.kind = WorkloadKind::Request;
        w.attach_read = true;
        w.device = d->port;
        w.pmp_port = d->pmp_port;
        w.devno = d->devno;
        w.op = OpSpec::Read;
        w.lba = 0;
        w.sectors = 8;
        w.count = 1;
        readers.push_back(std::make_unique<WorkloadRunner>(unsigned(sc_.workload.size() + readers.size()), w, d.get(),
                                                           binding_of(d->port), sink_, report_.failures, sc_.seed));
        WorkloadRunner *rp = readers.back().get();
        sc_core::sc_spawn_options opts;
        opts.set_stack_size(kThreadStack);
        sc_core::sc_spawn([rp] { rp->run(); }, sc_core::sc_gen_unique_name("attach_read"), &opts);
    }
    for (const auto &r : readers)
        while (!r->stats().done)
            sc_core::wait(r->done_event());
    for (auto &r : readers)
        attach_readers_.push_back(std::move(r)); // done() callbacks are over; keep the buffers' owner alive
}

void SimController::run_workloads() {
    // Runners are null for workloads that could not run (no device on their port). One
    // runner after the other: all of them done is the same instant whatever the order, and
    // an event list over every unfinished runner, rebuilt at each finish, cost O(runners²)
    // (8 % of the CPU with 1,000 disks, BENCHMARKS.md).
    auto wait_all = [&] {
        for (const auto &r : runners_)
            while (r && !r->stats().done)
                sc_core::wait(r->done_event());
    };
    for (size_t i = 0; i < sc_.workload.size(); ++i) {
        const WorkloadSpec &w = sc_.workload[i];
        WorkloadReport wr;
        wr.index = unsigned(i);
        wr.spec = w;
        wr.stats.requested = w.count;
        DeviceState *dev = nullptr;
        const DevAddr want = w.addr();
        for (auto &d : devs_)
            if (d->addr() == want)
                dev = d.get();
        if (!dev && !w.warmplug()) { // warm-plug steps address the port, found or not
            report_.failures.add("workload[" + std::to_string(i) + "]: no device found on " + want.str() +
                                 ", workload not run");
            report_.workloads.push_back(wr);
            runners_.push_back(nullptr);
            continue;
        }
        if (w.barrier)
            wait_all();
        wr.ran = true;
        report_.workloads.push_back(wr);
        auto runner = std::make_unique<WorkloadRunner>(unsigned(i), w, dev, binding_of(w.device), sink_,
                                                       report_.failures, sc_.seed);
        WorkloadRunner *rp = runner.get();
        runners_.push_back(std::move(runner));
        sc_core::sc_spawn_options opts;
        opts.set_stack_size(kThreadStack);
        sc_core::sc_spawn([rp] { rp->run(); }, sc_core::sc_gen_unique_name("workload"), &opts);
    }
    wait_all();
    for (size_t i = 0; i < runners_.size(); ++i)
        if (runners_[i])
            report_.workloads[i].stats = runners_[i]->stats();
}

// After the workloads: let the remaining time-triggered faults fire, then let EH finish
// what they started (bounded), so the end state says how the stack left each port. The
// bound is past libata's longest legitimate recovery, so a port still in EH after it is
// stuck: two probe rounds of three device tries, each a reset that uses every deadline
// (10 + 10 + 35 + 5 s, 5 s cool-downs), a 30 s IDENTIFY timeout and the 5 s retry delay,
// about 690 s (docs/libata-eh.md). Idle simulated time costs no wall time. EH counts as
// done only once the hardware is quiet too: a controller whose interrupt trails the event
// that caused it (the RTL shell clocks a PHY change into the DUT, which raises PxIS.PRCS a
// few cycles later) would otherwise end the run between the two.
void SimController::settle() {
    if (FaultEngine *faults = hw_.faults())
        while (faults->time_firings_pending())
            sc_core::wait(faults->fired_event());
    const uint64_t kSettleNs = 900ull * 1000000000ull;
    const uint64_t deadline = binding_.now_ns() + kSettleNs;
    unsigned moving_polls = 0;
    for (;;) {
        bool busy = eh_busy();
        for (size_t i = 0; i < hosts_.size() && !busy; ++i)
            for (unsigned p = 0; p < ata_host_n_ports(hosts_[i]) && !busy; ++p)
                busy = ata_port_is_frozen(hosts_[i], p);
        const bool moving = !busy && !hw_.quiet();
        moving_polls = moving ? moving_polls + 1 : 0;
        uint64_t now = binding_.now_ns();
        if ((!busy && !moving) || now >= deadline)
            return;
        // 100 ms while EH runs (it signals its end); 1 us while the hardware settles, and 1 ms
        // once it has been settling for 1 ms: an OOB that goes on that long (a host link
        // whose drive is powered off answers no COMRESET) would otherwise cost a poll per
        // microsecond of it
        const uint64_t settle_poll = moving_polls > 1000 ? 1000000ull : 1000ull;
        uint64_t step = std::min<uint64_t>(moving ? settle_poll : 100000000ull, deadline - now);
        const sc_core::sc_time t = sc_core::sc_time::from_value(
            sc_dt::uint64(step) * sc_dt::uint64(sc_core::sc_time(1, sc_core::SC_NS).value()));
        if (bindings_.size() == 1) {
            sc_core::wait(t, binding_.eh_idle_event());
        } else {
            sc_core::sc_event_or_list idle;
            for (const PlatformBinding *b : bindings_)
                idle |= b->eh_idle_event();
            sc_core::wait(t, idle);
        }
    }
}

constexpr unsigned kMaxFanoutPorts = 15; // fan-out links of a port multiplier (port 15: its control port)

// The devices the stack has on host port `p`: the one on the host link, or those on the
// fan-out links of the port multiplier there.
std::vector<FoundDevice> SimController::devices_on_port(unsigned p) {
    std::vector<FoundDevice> out;
    ata_host *host = host_of(p);
    const unsigned lp = sc_.local_port(p);
    if (lp >= ata_host_n_ports(host))
        return out;
    // the host link's devices (device 1: a taskfile channel's slave), then the fan-out links'
    for (int link = -1; link < int(kMaxFanoutPorts); ++link) {
        for (unsigned devno = 0; devno < (link < 0 ? 2u : 1u); ++devno) {
            ata_device *d = ata_host_device(host, lp, link, devno);
            if (!d)
                continue;
            FoundDevice fd;
            fd.port = p;
            fd.devno = devno;
            if (link >= 0)
                fd.pmp_port = unsigned(link);
            if (ata_dev_get_info(d, &fd.info) != 0) {
                report_.failures.add(fd.addr().str() + ": ata_dev_get_info failed");
                continue;
            }
            out.push_back(fd);
        }
    }
    return out;
}

void SimController::collect_end_state() {
    for (unsigned p = 0; p < sc_.total_ports(); ++p) {
        const unsigned lp = sc_.local_port(p);
        if (lp < ata_host_n_ports(host_of(p)) && ata_port_is_frozen(host_of(p), lp))
            report_.frozen_ports.push_back(p);
        std::vector<FoundDevice> found = devices_on_port(p);
        // Every place a disk could sit without a device there is absent.
        for (const DevAddr &a : sc_.disk_places(p)) {
            bool there = false;
            for (const FoundDevice &fd : found)
                there = there || fd.addr() == a;
            if (!there)
                report_.absent_after.push_back(a);
        }
        report_.devices_after.insert(report_.devices_after.end(), found.begin(), found.end());
    }
    report_.after_collected = true;
    if (!report_.frozen_ports.empty()) {
        std::string ports;
        for (unsigned p : report_.frozen_ports)
            ports += (ports.empty() ? "" : ",") + std::to_string(p);
        sink_.emit_harness("run.frozen", SATA_TC_INFO, -1, {{"ports", TraceValue::str(ports)}},
                           "port(s) " + ports + " still frozen or with EH pending at the end of the run");
    }
}

// Drives plugged in with new media (`plug` with blank_media) at this place so far.
unsigned SimController::media_swaps(const DevAddr &a) const {
    unsigned n = 0;
    const FaultEngine *faults = hw_.faults();
    for (size_t i = 0; faults && i < sc_.faults.size(); ++i) {
        const fault::Fault &f = sc_.faults[i];
        if (f.kind == fault::Kind::Plug && f.plug.blank_media && f.port == a.port && f.pmp_port == a.pmp_port &&
            f.devno == a.devno)
            n += faults->fired(i);
    }
    return n;
}

bool SimController::has_power_cuts(const DevAddr &a) const {
    for (const fault::Fault &f : sc_.faults)
        if (fault::kind_spec(f.kind)->cuts_power && f.port == a.port && f.pmp_port == a.pmp_port && f.devno == a.devno)
            return true;
    return false;
}

unsigned SimController::power_losses(const DevAddr &a) const {
    unsigned n = 0;
    const FaultEngine *faults = hw_.faults();
    for (size_t i = 0; faults && i < sc_.faults.size(); ++i) {
        const fault::Fault &f = sc_.faults[i];
        if (fault::kind_spec(f.kind)->cuts_power && f.port == a.port && f.pmp_port == a.pmp_port &&
            f.devno == a.devno)
            n += faults->fired(i);
    }
    return n;
}

// No data loss: every sector a write reported complete must be on the drive's media, read
// back through the model's backdoor (a later read through the stack checks it too, but only
// where the workload reads again). A failed write left its sectors unknown in the shadow; a
// drive replaced by one with new media is checked for what was written to the new one.
void SimController::check_media() {
    for (const auto &ds : devs_) {
        const device::MediaStore *media = hw_.media(ds->addr());
        if (!media)
            continue;
        ds->follow_media(); // a replaced drive: what was written to the new one since
        ds->follow_losses();
        std::vector<uint8_t> buf;
        uint64_t bad = 0;
        std::vector<std::string> first;
        std::vector<ReadCheck::Lost> lost; // a power loss took them: never durable
        for (const auto &[lba, count] : ds->shadow.extents()) {
            for (uint64_t off = 0; off < count; off += 2048) {
                uint32_t n = uint32_t(std::min<uint64_t>(2048, count - off));
                buf.resize(size_t(n) * 512);
                media->read(lba + off, n, buf.data());
                ReadCheck c = check_read(buf.data(), lba + off, n, ds->shadow, sc_.seed, 5 - std::min<size_t>(5, first.size()),
                                         ds->tracks_durability() ? &ds->durability : nullptr);
                bad += c.bad_sectors;
                lost.insert(lost.end(), c.lost.begin(), c.lost.end());
                first.insert(first.end(), c.first.begin(), c.first.end());
            }
        }
        report_.failures.not_durable += lost.size();
        for (const std::string &d : describe_lost(lost))
            sink_.emit_harness("data.not_durable", SATA_TC_INFO, int(ds->port),
                               {{"sectors", TraceValue::integer(int64_t(lost.size()))}},
                               "lost, not durable, on " + ds->addr().str() + " (" + ds->name + ") at the end of the run: " + d);
        if (!bad)
            continue;
        report_.failures.data_errors += bad;
        for (const std::string &d : first) {
            std::string msg = "data lost on " + ds->addr().str() + " (" + ds->name +
                              "): a write reported complete is not on the media: " + d;
            report_.failures.add(msg);
            sink_.emit_harness("data.lost", SATA_TC_INFO, int(ds->port),
                               {{"bad_sectors", TraceValue::integer(int64_t(bad))}}, msg);
        }
    }
}

namespace {

std::string fmt_time(uint64_t ns) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu.%09llus", (unsigned long long)(ns / 1000000000ull),
                  (unsigned long long)(ns % 1000000000ull));
    return buf;
}

bool write_file(const fs::path &p, const std::string &text) {
    std::ofstream o(p, std::ios::binary | std::ios::trunc);
    o << text;
    o.close();
    return bool(o);
}

} // namespace

std::string temp_dir_name(const std::string &name, long pid) {
    return "." + name + ".tmp-" + std::to_string(pid);
}

// The objects that ran a simulation, in the order they are torn down (the controller
// thread's module first, then the models and the platform, then the trace writers).
struct SimRun::Objects {
    std::unique_ptr<EhRules> eh_rules; // observes the sink's records (outlives it)
    std::unique_ptr<TraceSink> sink;
    std::unique_ptr<VcdWriter> vcd;
    std::unique_ptr<Backend> backend;
    std::unique_ptr<SimController> ctl;
    ~Objects() {
        ctl.reset();
        backend.reset();
        vcd.reset();
        sink.reset();
    }
};

SimRun::SimRun() = default;
SimRun::~SimRun() = default;

namespace {

// sc_start in single steps (one delta cycle, or one advance of time to the next event),
// counting them: a run that takes more than max_steps is stopped (a livelock, also one in
// zero simulated time). The same processes run in the same order as under one sc_start.
void run_stepped(uint64_t limit_ps, uint64_t max_steps, SimController &ctl, const bool &aborted, SimRun &run) {
    using namespace sc_core;
    sc_simcontext *ctx = sc_get_curr_simcontext();
    while (!ctl.finished() && !aborted && sc_get_status() != SC_STOPPED) {
        if (run.steps >= max_steps) {
            run.step_watchdog = true;
            return;
        }
        ++run.steps;
        const uint64_t now = uint64_t(sc_time_stamp().value());
        if (sc_get_status() == SC_ELABORATION || sc_pending_activity_at_current_time(ctx)) {
            sc_start(SC_ZERO_TIME);
        } else if (sc_pending_activity_at_future_time(ctx)) {
            const uint64_t next = now + uint64_t(sc_time_to_pending_activity(ctx).value());
            if (next > limit_ps) {
                sc_start(sc_time::from_value(sc_dt::uint64(limit_ps - now)));
                return;
            }
            sc_start(sc_time::from_value(sc_dt::uint64(next - now)));
        } else {
            return; // nothing left to simulate
        }
    }
}

} // namespace

std::unique_ptr<SimRun> simulate(const Scenario &sc_in, const RunOneOptions &opt, const std::string &work_dir,
                                 const SimLimits &limits) {
    auto run = std::make_unique<SimRun>();
    run->objects = std::make_unique<SimRun::Objects>();
    SimRun::Objects &obj = *run->objects;
    // Hardware with a fixed number of ports (QEMU's AHCI: 6, a SiI3124: 4): a scenario's
    // smaller controller is its first `ports` ports, so the stack is limited to those
    // (unless the scenario sets a mask).
    run->scenario = sc_in;
    Scenario &sc = run->scenario;
    const BackendRules &rules = backend_of(sc).rules;
    const unsigned fixed_ports = rules.hardware_ports(sc);
    if (!sc.multi() && sc.host.port_mask == 0 && sc.controller.ports < fixed_ports)
        sc.host.port_mask = (1u << sc.controller.ports) - 1;
    auto wall_start = std::chrono::steady_clock::now();
    const fs::path tmp(work_dir);

    RunReport &report = run->report;
    report.sc = &sc;
    uint64_t ps_per_ns = uint64_t(sc_core::sc_time(1, sc_core::SC_NS).value());
    obj.sink = std::make_unique<TraceSink>(
        [ps_per_ns] { return uint64_t(sc_core::sc_time_stamp().value()) / ps_per_ns; },
        opt.trace_cmds.value_or(sc.trace_cmds));
    TraceSink &sink = *obj.sink;
    obj.eh_rules = std::make_unique<EhRules>();
    sink.set_observer(obj.eh_rules.get());
    if (!sink.open((tmp / "trace.jsonl").string(), (tmp / "satasim.log").string())) {
        run->error = "cannot write into " + tmp.string();
        return run;
    }

    sink.set_host_name(controller_desc(sc.controller.type).log_prefix);
    for (const DeviceSpec &d : sc.devices) {
        sink.set_component_address("link" + std::to_string(d.port), int(d.port), -1);
        sink.set_component_address("disk" + std::to_string(d.port), int(d.port), 0);
    }

    // Waveform: the scenario's `waveform` key or satasim run --vcd*.
    std::unique_ptr<VcdWriter> &vcd = obj.vcd;
    const bool vcd_cli = !opt.vcd_file.empty() || opt.vcd_groups || opt.vcd_ports;
    if (sc.waveform.on || vcd_cli) {
        if (!rules.takes(ScenarioKey::Waveform)) {
            if (vcd_cli) // the scenario key is refused by the parser
                std::fprintf(stderr, "satasim: %s: no waveform on the %s backend (SystemC models only)\n",
                             sc.name.c_str(), rules.name);
        } else {
            VcdOptions vo;
            vo.groups = opt.vcd_groups.value_or(sc.waveform.groups);
            vo.ports = opt.vcd_ports.value_or(sc.waveform.ports);
            vo.comment = "satasim waveform: scenario " + sc.name + ", seed " + std::to_string(sc.seed) +
                         ", controller " + sc.controller.type;
            if (opt.vcd_file.empty() && !opt.out_dir.empty())
                vo.final_path = (fs::path(opt.out_dir) / sc.name / "waveform.vcd").string();
            vcd = std::make_unique<VcdWriter>(opt.vcd_file.empty() ? (tmp / "waveform.vcd").string() : opt.vcd_file,
                                              vo);
            std::string err;
            if (!vcd->open(&err)) {
                run->error = err;
                return run;
            }
        }
    }

    bool aborted = false;
    obj.backend = backend_of(sc).make();
    Backend *backend = obj.backend.get();
    PlatformBinding *binding = nullptr;
    std::unique_ptr<SimController> &ctl = obj.ctl;
    try {
        const bool stepped = limits.max_steps != 0; // the step loop stops on `aborted` itself
        auto fail_fn = [&report, &aborted, stepped](const std::string &reason) {
            report.failures.add(reason);
            aborted = true;
            if (!stepped)
                sc_core::sc_stop();
        };
        for (const Refusal &r : rules.refusals(sc))
            throw std::runtime_error("the " + sc.backend + " backend cannot model " + r.what);
        backend->build({sc, tmp.string(), sink, vcd.get(), fail_fn});
        binding = backend->platform();
        ctl = std::make_unique<SimController>("harness", sc, backend->platforms(), sink, report, *backend->view(),
                                              !stepped);
        const uint64_t limit_ps = sc.time_limit_ns * ps_per_ns;
        if (limits.max_steps)
            run_stepped(limit_ps, limits.max_steps, *ctl, aborted, *run);
        else
            sc_core::sc_start(sc_core::sc_time::from_value(sc_dt::uint64(limit_ps)));
    } catch (const std::exception &e) {
        report.failures.add(std::string("simulation error: ") + e.what());
        aborted = true;
        run->sim_error = true;
    }
    run->aborted = aborted;

    if (ctl && !ctl->finished() && !aborted) {
        uint64_t now = binding->now_ns();
        bool starved = now < sc.time_limit_ns;
        std::string why = run->step_watchdog
                              ? "hang: not finished within " + std::to_string(limits.max_steps) +
                                    " simulator steps at t=" + fmt_time(now)
                          : starved ? "hang: nothing left to simulate at t=" + fmt_time(now)
                                    : "hang: not finished within the time limit of " + fmt_time(sc.time_limit_ns);
        why += " (in " + ctl->phase() + ")";
        run->hang_phase = ctl->phase();
        report.failures.add(why);
        for (const auto &r : ctl->runners())
            if (r && !r->stats().done) {
                report.failures.add("hang: " + r->progress());
                for (const std::string &q : r->pending_requests())
                    report.failures.add("request pending at the end: " + q);
            }
        sink.emit_harness("run.hang", SATA_TC_INFO, -1, {{"phase", TraceValue::str(ctl->phase())}}, why);
    }
    if (ctl && !ctl->finished()) {
        report.sim_time_ns = binding ? binding->now_ns() : 0;
        // Copy what the runners got so far.
        for (size_t i = 0; i < ctl->runners().size() && i < report.workloads.size(); ++i)
            if (ctl->runners()[i])
                report.workloads[i].stats = ctl->runners()[i]->stats();
    }
    backend->finish(sc, report);
    report.finished = ctl && ctl->finished() && !aborted;
    if (binding)
        for (const PlatformBinding *b : backend->platforms()) {
            report.irq_calls += b->irq_calls();
            report.eh_runs += b->eh_runs();
            report.timers_fired += b->timers_fired();
        }
    if (vcd) {
        std::string err;
        if (!vcd->finish(uint64_t(sc_core::sc_time_stamp().value()), &err))
            report.failures.add("waveform: " + err);
    }
    report.violations = sink.violations();
    report.violation_messages = sink.violation_messages();
    sink.set_observer(nullptr);
    obj.eh_rules->finish();
    report.eh_rule_violations = obj.eh_rules->violations();
    report.log_text = sink.log_text();
    evaluate(report);
    sink.emit_harness("run.verdict", SATA_TC_INFO, -1, {{"verdict", TraceValue::str(report.pass ? "pass" : "fail")},
                                                            {"reasons", TraceValue::integer(int64_t(report.reasons.size()))}});
    report.trace_events = sink.events();
    sink.close();

    report.wall_time_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return run;
}

int run_one(const Scenario &sc_in, const RunOneOptions &opt) {
    fs::path out(opt.out_dir);
    fs::path final_dir = out / sc_in.name;
    fs::path tmp = out / temp_dir_name(sc_in.name, long(getpid()));
    std::error_code ec;
    fs::create_directories(out, ec);
    fs::remove_all(tmp, ec);
    if (!fs::create_directories(tmp, ec)) {
        std::fprintf(stderr, "satasim: cannot create %s: %s\n", tmp.c_str(), ec.message().c_str());
        return 1;
    }
    // The models and the stack's threads are torn down with the process: released, never
    // destroyed (the in-process fuzz runner, fuzz/in_process_runner.h, does tear them down).
    // A fuzz finding's scenario brings the runner's step watchdog (oracles.max_steps).
    SimRun &run = *simulate(sc_in, opt, tmp.string(), {sc_in.oracles.max_steps}).release();
    if (!run.error.empty()) {
        std::fprintf(stderr, "satasim: %s\n", run.error.c_str());
        return 1;
    }
    if (!write_file(tmp / "result.json", result_json(run.report))) {
        std::fprintf(stderr, "satasim: cannot write %s\n", (tmp / "result.json").c_str());
        return 1;
    }
    fs::remove_all(final_dir, ec);
    fs::rename(tmp, final_dir, ec);
    if (ec) {
        std::fprintf(stderr, "satasim: cannot rename %s to %s: %s\n", tmp.c_str(), final_dir.c_str(),
                     ec.message().c_str());
        return 1;
    }
    // SystemC does not support destroying a simulated hierarchy with suspended threads in
    // it at exit: the process ends here.
    std::fflush(stdout);
    std::fflush(stderr);
    if (__gcov_dump)
        __gcov_dump();
    _exit(run.report.pass ? 0 : 1);
}

} // namespace satasim::harness
