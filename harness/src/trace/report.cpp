#include "trace/report.h"

#include <algorithm>
#include <cstdio>

#include "controller/controller_table.h"
#include "trace/json_writer.h"
#include "version.h"

namespace satasim::harness {

namespace {

std::string xfer_hex(uint8_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", unsigned(m));
    return buf;
}

} // namespace

uint64_t RunReport::commands() const {
    uint64_t n = 0;
    for (const auto &w : workloads)
        n += w.stats.completed + w.stats.prefill_commands;
    return n;
}

uint64_t RunReport::bytes_moved() const {
    uint64_t n = 0;
    for (const auto &w : workloads)
        n += w.stats.bytes;
    return n;
}

std::string observed_text(uint64_t io_errors, const std::vector<std::string> &disabled,
                          const std::vector<std::string> &partial_faults) {
    std::string s;
    auto add = [&](const std::string &part) { s += (s.empty() ? "" : ", ") + part; };
    if (io_errors)
        add("io_errors " + std::to_string(io_errors));
    if (!disabled.empty()) {
        std::string names;
        for (const std::string &d : disabled)
            names += (names.empty() ? "" : " ") + d;
        add("disabled " + names);
    }
    for (const std::string &f : partial_faults)
        add(f);
    return s;
}

// A device behind a port multiplier has its fan-out port; a taskfile slave its device
// number: each is written only where it is set, so the common case reads as before.
static void put_pmp_port_and_devno(JsonWriter &j, const std::optional<unsigned> &pmp_port, unsigned devno) {
    if (pmp_port)
        j.kv("pmp_port", *pmp_port);
    if (devno)
        j.kv("devno", devno);
}

// With several controllers: which one a host-wide port is on, and its port there.
static void put_controller(JsonWriter &j, const Scenario &sc, unsigned port) {
    if (!sc.multi())
        return;
    j.kv("controller", sc.controller_index(port));
    j.kv("controller_port", sc.local_port(port));
}

std::string result_json(const RunReport &r) {
    const Scenario &sc = *r.sc;
    JsonWriter j(true);
    j.begin_object();
    j.kv("result_format", kResultFormat);
    j.kv("satasim_version", satasim_version());
    j.kv("name", sc.name);
    j.kv("file", sc.file);
    j.kv("description", sc.description);
    j.kv("seed", sc.seed);
    {
        std::vector<std::string> set; // --set, --seed and the matrix point, as applied
        for (const ScenarioOverride &o : sc.overrides)
            set.push_back(o.text());
        j.kv("overrides", set);
    }
    j.kv("backend", sc.backend);
    j.kv("verdict", r.pass ? "pass" : "fail");
    j.kv("reasons", r.reasons);
    {
        // what the verdict line shows beyond pass/fail (runner, satasim.report)
        std::vector<std::string> disabled, partial;
        for (const DevAddr &p : r.disabled)
            disabled.push_back(p.ata_name());
        for (const FaultReport &f : r.faults)
            if (f.partial())
                partial.push_back(f.id + " fired " + std::to_string(f.fired) + "/" + std::to_string(f.repeat));
        j.kv("observed", observed_text(r.failures.io_errors, disabled, partial));
    }
    if (!r.steps_skipped.empty()) // only a backend that cannot observe a step skips one
        j.kv("steps_skipped", r.steps_skipped);
    j.key("controller").begin_object();
    j.kv("type", sc.controller.type);
    j.kv("ports", sc.controller.ports);
    j.kv("slots", sc.controller.slots);
    j.kv("ncq", sc.controller.ncq);
    j.kv("gen", sc.controller.gen);
    if (controller_desc(sc.controller.type).takes_key("pcix_irq_loss")) { // the erratum and its workaround
        j.kv("pcix_irq_loss", sc.controller.pcix_irq_loss);
        j.kv("irq_loss_fix", sc.host.irq_loss_fix);
    }
    j.end_object();
    j.kv("ports", sc.total_ports());
    if (sc.multi()) {
        j.key("controllers").begin_array();
        for (size_t i = 0; i < sc.controllers.size(); ++i) {
            const ControllerSpec &c = sc.controllers[i];
            j.begin_object();
            j.kv("index", unsigned(i));
            j.kv("type", c.type);
            j.kv("pci", c.pci);
            j.kv("irq", c.irq);
            j.kv("first_port", c.first_port);
            j.kv("ports", c.ports);
            j.kv("ata", "ata" + std::to_string(c.first_port + 1) + "-ata" + std::to_string(c.first_port + c.ports));
            j.end_object();
        }
        j.end_array();
    }
    j.kv("host_started", r.host_started);
    j.kv("start_rc", r.start_rc);
    j.key("devices").begin_array();
    for (const FoundDevice &d : r.devices) {
        const ata_dev_info &i = d.info;
        j.begin_object();
        j.kv("port", d.port);
        put_pmp_port_and_devno(j, d.pmp_port, d.devno);
        put_controller(j, sc, d.port);
        j.kv("name", d.addr().ata_name());
        j.kv("class", dev_class_name(i.cls));
        j.kv("model", std::string(i.model));
        j.kv("serial", std::string(i.serial));
        j.kv("firmware", std::string(i.firmware));
        j.kv("sectors", uint64_t(i.n_sectors));
        j.kv("lba48", bool(i.lba48));
        j.kv("ncq", bool(i.ncq));
        j.kv("ncq_depth", unsigned(i.ncq_depth));
        j.kv("max_sectors", unsigned(i.max_sectors));
        j.kv("multi", unsigned(i.multi_count));
        j.kv("xfer", std::string(i.xfer_name));
        j.kv("xfer_mode", xfer_hex(i.xfer_mode));
        j.kv("link_gen", unsigned(i.sata_spd));
        j.kv("link_speed", link_speed_name(i.sata_spd));
        j.end_object();
    }
    j.end_array();
    j.key("empty_ports").begin_array();
    for (unsigned p : r.empty_ports)
        j.value(p);
    j.end_array();
    if (r.after_collected) {
        j.key("devices_after").begin_array();
        for (const FoundDevice &d : r.devices_after) {
            j.begin_object();
            j.kv("port", d.port);
            put_pmp_port_and_devno(j, d.pmp_port, d.devno);
            put_controller(j, sc, d.port);
            j.kv("model", std::string(d.info.model));
            j.kv("serial", std::string(d.info.serial));
            j.kv("sectors", uint64_t(d.info.n_sectors));
            j.kv("ncq", bool(d.info.ncq));
            j.kv("ncq_depth", unsigned(d.info.ncq_depth));
            j.kv("xfer", std::string(d.info.xfer_name));
            j.kv("link_gen", unsigned(d.info.sata_spd));
            j.end_object();
        }
        j.end_array();
        j.key("absent_after").begin_array();
        for (const DevAddr &p : r.absent_after) {
            if (!p.pmp_port && !p.devno) {
                j.value(p.port);
                continue;
            }
            j.begin_object();
            j.kv("port", p.port);
            put_pmp_port_and_devno(j, p.pmp_port, p.devno);
            j.end_object();
        }
        j.end_array();
    }
    if (r.after_collected) {
        j.key("disabled").begin_array();
        for (const DevAddr &p : r.disabled) {
            j.begin_object();
            j.kv("port", p.port);
            put_pmp_port_and_devno(j, p.pmp_port, p.devno);
            j.kv("name", p.ata_name());
            j.end_object();
        }
        j.end_array();
    }
    j.key("frozen_ports").begin_array();
    for (unsigned p : r.frozen_ports)
        j.value(p);
    j.end_array();
    j.kv("violations", r.violations);
    if (!r.faults.empty()) {
        j.key("faults").begin_array();
        for (const FaultReport &f : r.faults) {
            j.begin_object();
            j.kv("id", f.id);
            j.kv("kind", f.kind);
            j.kv("port", f.port);
            j.kv("fired", f.fired);
            put_pmp_port_and_devno(j, f.pmp_port, f.devno);
            put_controller(j, sc, f.port);
            j.kv("repeat", f.repeat);
            j.kv("needed", f.needed());
            j.end_object();
        }
        j.end_array();
    }
    if (!r.links.empty()) {
        j.key("links").begin_array();
        for (const LinkReport &l : r.links) {
            j.begin_object();
            j.kv("port", l.port);
            j.kv("mode", l.mode);
            j.kv("dword_cycles", l.dword_cycles);
            j.end_object();
        }
        j.end_array();
    }
    j.key("workloads").begin_array();
    for (const WorkloadReport &w : r.workloads) {
        const WorkloadStats &s = w.stats;
        j.begin_object();
        j.kv("index", w.index);
        j.kv("device", w.spec.device);
        put_pmp_port_and_devno(j, w.spec.pmp_port, w.spec.devno);
        put_controller(j, sc, w.spec.device);
        j.kv("kind", workload_kind_name(w.spec.kind));
        j.kv("op", op_name(w.spec.op));
        j.kv("mode", mode_name(w.spec.mode));
        j.kv("requested", s.requested);
        j.kv("issued", s.issued);
        j.kv("completed", s.completed);
        j.kv("errors", s.errors);
        j.kv("submit_errors", s.submit_errors);
        j.kv("reads", s.reads);
        j.kv("writes", s.writes);
        j.kv("flushes", s.flushes);
        if (s.trims) // (only for a workload that trimmed: other results as before)
            j.kv("trims", s.trims);
        j.kv("bytes", s.bytes);
        j.kv("data_errors", s.data_errors);
        if (s.not_durable) // (only where a power loss took unflushed data: other results as before)
            j.kv("not_durable", s.not_durable);
        j.kv("prefill_commands", s.prefill_commands);
        j.kv("finished", s.done);
        j.kv("start_ns", s.start_ns);
        j.kv("end_ns", s.end_ns);
        if (s.submit_rc)
            j.kv("submit_rc", *s.submit_rc);
        if (s.err_mask)
            j.kv("err_mask", *s.err_mask);
        j.end_object();
    }
    j.end_array();
    j.kv("commands", r.commands());
    j.kv("bytes_moved", r.bytes_moved());
    j.kv("io_errors", r.failures.io_errors);
    j.kv("data_errors", r.failures.data_errors);
    if (r.failures.not_durable)
        j.kv("not_durable", r.failures.not_durable);
    j.kv("irq_calls", r.irq_calls);
    j.kv("eh_runs", r.eh_runs);
    j.kv("timers_fired", r.timers_fired);
    j.kv("trace_events", r.trace_events);
    for (const auto &[key, value] : r.backend_stats)
        j.kv(key, value);
    j.kv("sim_time_ns", r.sim_time_ns);
    j.key("wall_time_s").fixed(r.wall_time_s, 6);
    double cps = r.wall_time_s > 0 ? double(r.commands()) / r.wall_time_s : 0.0;
    j.key("commands_per_wall_second").fixed(cps, 1);
    j.end_object();
    return j.take();
}

} // namespace satasim::harness
