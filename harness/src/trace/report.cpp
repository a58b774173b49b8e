#include "trace/report.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "fuzz/oracles.h"
#include "trace/json_writer.h"
#include "version.h"

namespace satasim::harness {

namespace {


std::string q(const std::string &s) { return "\"" + s + "\""; }

template <typename T> std::string str(const T &v) { return std::to_string(v); }
std::string str(const std::string &v) { return q(v); }
std::string str(bool v) { return v ? "true" : "false"; }

template <typename T>
void cmp(std::vector<std::string> &out, const DevAddr &at, const char *what, const T &want, const T &got) {
    if (want == got)
        return;
    out.push_back(at.str() + ": " + what + " is " + str(got) + ", expected " + str(want));
}

// A property the scenario may or may not ask for.
template <typename T>
void cmp(std::vector<std::string> &out, const DevAddr &at, const char *what, const std::optional<T> &want,
         const T &got) {
    if (want)
        cmp(out, at, what, *want, got);
}

std::string xfer_hex(uint8_t m) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", unsigned(m));
    return buf;
}


const FoundDevice *find_in(const std::vector<FoundDevice> &v, const DevAddr &at) {
    for (const auto &d : v)
        if (d.addr() == at)
            return &d;
    return nullptr;
}

// expect.devices / expect.devices_after against what was found (when: "" or " at the end").
void check_expected_devices(std::vector<std::string> &out, const std::vector<ExpectDevice> &want,
                            const std::vector<FoundDevice> &have, const std::string &when,
                            const std::vector<FoundDevice> *probe = nullptr) {
    for (const ExpectDevice &x : want) {
        const DevAddr p = x.addr();
        const FoundDevice *found = find_in(have, p);
        if (!found) {
            out.push_back(p.str() + ": expected a device" + when + " (line " + std::to_string(x.line) +
                          "), found none");
            continue;
        }
        const ata_dev_info &i = found->info;
        std::vector<std::string> diffs;
        cmp(diffs, p, "class", x.cls, std::string(dev_class_name(i.cls)));
        cmp(diffs, p, "model", x.model, std::string(i.model));
        cmp(diffs, p, "serial", x.serial, std::string(i.serial));
        cmp(diffs, p, "firmware", x.firmware, std::string(i.firmware));
        cmp(diffs, p, "sectors", x.sectors, uint64_t(i.n_sectors));
        cmp(diffs, p, "lba48", x.lba48, bool(i.lba48));
        cmp(diffs, p, "ncq", x.ncq, bool(i.ncq));
        cmp(diffs, p, "ncq_depth", x.ncq_depth, unsigned(i.ncq_depth));
        cmp(diffs, p, "max_sectors", x.max_sectors, unsigned(i.max_sectors));
        cmp(diffs, p, "multi", x.multi, unsigned(i.multi_count));
        cmp(diffs, p, "xfer", x.xfer, std::string(i.xfer_name));
        cmp(diffs, p, "link gen", x.gen, unsigned(i.sata_spd));
        if (x.gen_probe) {
            // gen: probe: the speed this port's probe negotiated
            const FoundDevice *at_probe = probe ? find_in(*probe, p) : nullptr;
            if (!at_probe)
                diffs.push_back(p.str() + ": link gen: probe: the probe found no device here (line " +
                                std::to_string(x.line) + ")");
            else
                cmp(diffs, p, "link gen (the probe's)", std::optional<unsigned>(at_probe->info.sata_spd),
                    unsigned(i.sata_spd));
        }
        for (std::string &d : diffs)
            out.push_back(d + when);
    }
}

// The SError values libata's EH reported for a port: each exception line's `SErr 0x...`
// and each `SError: { ... }` line (names as stack/eh/analyze.c prints them).
std::vector<uint32_t> logged_serrors(const std::string &log, unsigned port) {
    const std::string ata = "ata" + std::to_string(port + 1);
    std::vector<uint32_t> out;
    size_t pos = 0;
    while (pos < log.size()) {
        size_t end = log.find('\n', pos);
        if (end == std::string::npos)
            end = log.size();
        const std::string line = log.substr(pos, end - pos);
        pos = end + 1;
        const size_t at = line.find(ata);
        if (at == std::string::npos)
            continue;
        const char next = at + ata.size() < line.size() ? line[at + ata.size()] : '\0';
        if (next != '.' && next != ':')
            continue; // ata1 is not ata10
        if (size_t s = line.find(" SErr 0x", at); s != std::string::npos) {
            out.push_back(uint32_t(std::strtoul(line.c_str() + s + 8, nullptr, 16)));
        } else if (size_t b = line.find("SError: { ", at); b != std::string::npos) {
            uint32_t v = 0;
            const size_t close = line.find('}', b);
            const std::string body = line.substr(b + 10, close == std::string::npos ? std::string::npos : close - b - 10);
            size_t w = 0;
            while (w < body.size()) {
                size_t sp = body.find(' ', w);
                if (sp == std::string::npos)
                    sp = body.size();
                const std::string word = body.substr(w, sp - w);
                if (auto it = serror_bit_names().find(word); it != serror_bit_names().end())
                    v |= 1u << it->second;
                w = sp + 1;
            }
            out.push_back(v);
        }
    }
    return out;
}

// expect.serror: one of the port's reports has every must bit and none outside must + may.
void check_serror(std::vector<std::string> &out, const ExpectSerror &x, const std::string &log) {
    const std::vector<uint32_t> seen = logged_serrors(log, x.port);
    for (uint32_t v : seen)
        if ((v & x.must) == x.must && (v & ~(x.must | x.may)) == 0)
            return;
    char buf[160];
    std::snprintf(buf, sizeof buf, "port %u: no SError report with bits 0x%x set and none outside 0x%x (line %d); seen:",
                  x.port, x.must, x.must | x.may, x.line);
    std::string msg = buf;
    if (seen.empty())
        msg += " none";
    for (uint32_t v : seen) {
        std::snprintf(buf, sizeof buf, " 0x%x", v);
        msg += buf;
    }
    out.push_back(msg);
}

// expect.io_errors (or io_errors_min/max) against the failed requests.
void evaluate_io_errors(RunReport &r) {
    const ExpectSpec &e = r.sc->expect;
    bool io_ok;
    std::string io_want;
    if (e.io_errors_min || e.io_errors_max) {
        uint64_t lo = e.io_errors_min.value_or(0), hi = e.io_errors_max.value_or(UINT64_MAX);
        io_ok = r.failures.io_errors >= lo && r.failures.io_errors <= hi;
        io_want = e.io_errors_max ? std::to_string(lo) + ".." + std::to_string(hi) : "at least " + std::to_string(lo);
    } else {
        io_ok = r.failures.io_errors == e.io_errors;
        io_want = std::to_string(e.io_errors);
    }
    if (!io_ok) {
        r.reasons.push_back(std::to_string(r.failures.io_errors) + " I/O error(s), expected " + io_want);
        for (const std::string &s : r.failures.io_reasons)
            r.reasons.push_back(s);
    }
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

void evaluate(RunReport &r) {
    const Scenario &sc = *r.sc;
    const ExpectSpec &e = sc.expect;
    std::vector<std::string> &out = r.reasons;
    // oracles.fuzz: the fuzz oracles judge the run (how it ended, its invariants, data, EH
    // rules, unprovoked EH) in place of the implicit expectations, which they excuse (a disk
    // EH gave up on, a fault that fired less than its count); the explicit keys still count.
    const bool fuzz = sc.oracles.fuzz;
    out.clear();
    if (fuzz)
        for (const fuzz::Finding &f : fuzz::judge(r))
            out.push_back("fuzz oracle " + f.bucket() + ": " + f.detail);
    else
        out = r.failures.reasons;

    if (r.host_started && e.all_devices_found && !fuzz) {
        // Every place a disk could sit, and the host link of a PMP's port (nothing may show there).
        std::vector<DevAddr> places;
        for (unsigned p = 0; p < sc.controller.ports; ++p) {
            if (sc.pmp_on_port(p))
                places.push_back({p, std::nullopt});
            for (const DevAddr &a : sc.disk_places(p))
                places.push_back(a);
        }
        for (const DevAddr &p : places) {
            bool in_mask = sc.host.port_mask == 0 || (sc.host.port_mask >> p.port & 1u);
            const DeviceSpec *cfg = sc.device_at(p);
            if (cfg && !cfg->present)
                cfg = nullptr; // starts unplugged: the probe must find the port empty
            const FoundDevice *found = find_in(r.devices, p);
            if (cfg && in_mask && !found) {
                out.push_back(p.str() + ": disk configured (line " + std::to_string(cfg->line) + ") but not found");
                continue;
            }
            if (found && (!cfg || !in_mask)) {
                out.push_back(p.str() + ": found a " + dev_class_name(found->info.cls) +
                              " device where no disk is configured");
                continue;
            }
            if (!found)
                continue;
            const ata_dev_info &i = found->info;
            cmp(out, p, "class", std::string("ata"), std::string(dev_class_name(i.cls)));
            cmp(out, p, "model", cfg->model, std::string(i.model));
            cmp(out, p, "serial", cfg->serial, std::string(i.serial));
            cmp(out, p, "firmware", cfg->firmware, std::string(i.firmware));
            cmp(out, p, "sectors", uint64_t(cfg->addressable()), uint64_t(i.n_sectors));
            cmp(out, p, "lba48", cfg->lba48, bool(i.lba48));
        }
    }

    if (r.host_started) {
        check_expected_devices(out, e.devices, r.devices, "");
        for (const DevAddr &p : e.empty_ports)
            if (const FoundDevice *found = find_in(r.devices, p))
                out.push_back(p.str() + ": expected empty, found a " + dev_class_name(found->info.cls) +
                              " device (" + found->info.model + ")");
    }

    for (const std::string &s : e.log_contains)
        if (r.log_text.find(s) == std::string::npos)
            out.push_back("log does not contain \"" + s + "\"");
    for (const ExpectSerror &x : e.serror)
        check_serror(out, x, r.log_text);
    for (const std::string &s : e.log_not_contains)
        if (r.log_text.find(s) != std::string::npos)
            out.push_back("log contains \"" + s + "\"");

    if (r.after_collected) {
        check_expected_devices(out, e.devices_after, r.devices_after, " at the end of the run", &r.devices);
        for (const DevAddr &p : e.absent_after)
            if (const FoundDevice *found = find_in(r.devices_after, p))
                out.push_back(p.str() + ": expected no device at the end of the run, found " +
                              found->info.model + " (serial " + found->info.serial + ")");
    } else if (!e.devices_after.empty() || !e.absent_after.empty()) {
        out.push_back("the run did not reach its end: expect.devices_after / absent_after not checked");
    }

    // Run invariants (every scenario): the stack leaves no port frozen or with EH pending,
    // and no model saw a protocol violation.
    for (unsigned p : r.frozen_ports)
        if (!fuzz)
            out.push_back("port " + std::to_string(p) + ": still frozen or with EH pending at the end of the run");
    if (r.violations && !fuzz) {
        out.push_back(std::to_string(r.violations) + " protocol violation(s) seen by the models");
        for (const std::string &v : r.violation_messages)
            out.push_back("violation: " + v);
    }
    // ... and EH decided by libata's rules (trace/eh_rules.h, docs/eh-rules.md)
    for (size_t i = 0; i < r.eh_rule_violations.size() && i < 10 && !fuzz; ++i)
        out.push_back("EH rule broken: " + r.eh_rule_violations[i].str());
    for (const FaultReport &f : r.faults) {
        if (!r.finished || fuzz)
            continue;
        if (f.fired == 0) {
            out.push_back("fault " + f.id + " (" + f.kind + " on port " + std::to_string(f.port) +
                          ") never fired: its trigger was not met");
        } else if (f.fired < f.needed()) {
            // A fault that fired only part of its count tests less than the scenario says.
            const std::string where = DevAddr{f.port, f.pmp_port, f.devno}.str();
            if (f.min_fired)
                out.push_back("fault " + f.id + " (" + f.kind + " on " + where + ") fired " + std::to_string(f.fired) +
                              " time(s), min_fired is " + std::to_string(f.min_fired));
            else
                out.push_back("fault " + f.id + " (" + f.kind + " on " + where + ") fired " + std::to_string(f.fired) +
                              " of its " + std::to_string(f.repeat) +
                              " times (repeat): its trigger was not met again (min_fired: N on the fault if "
                              "fewer firings are expected)");
        }
    }

    // A disk the stack had and lost (disabled or detached by EH) fails the run unless the
    // scenario lists its place in expect.absent_after.
    r.disabled.clear();
    if (r.after_collected) {
        std::vector<DevAddr> had;
        for (const FoundDevice &d : r.devices)
            had.push_back(d.addr());
        for (size_t i = 0; i < r.faults.size() && i < sc.faults.size(); ++i)
            if (sc.faults[i].kind == fault::Kind::Plug && r.faults[i].fired)
                had.push_back({sc.faults[i].port, sc.faults[i].pmp_port, sc.faults[i].devno});
        for (const DevAddr &a : r.absent_after) {
            if (std::find(had.begin(), had.end(), a) == had.end())
                continue;
            r.disabled.push_back(a);
            if (!fuzz && std::find(e.absent_after.begin(), e.absent_after.end(), a) == e.absent_after.end())
                out.push_back(a.ata_name() + " (" + a.str() +
                              "): disabled: the stack had a disk there and has none at the end of the run "
                              "(expect.absent_after lists the places where that is expected)");
        }
    }

    evaluate_io_errors(r);
    if (r.failures.data_errors && !fuzz)
        out.push_back(std::to_string(r.failures.data_errors) + " sector(s) read back wrong");
    if (r.finished && !fuzz)
        for (const WorkloadReport &w : r.workloads)
            if (w.ran && !w.stats.done)
                out.push_back("workload[" + std::to_string(w.index) + "] did not finish");
    r.pass = out.empty();
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
    if (sc.controller.type == "sil24") {
        j.kv("pcix_irq_loss", sc.controller.pcix_irq_loss);
        j.kv("irq_loss_fix", sc.host.irq_loss_fix);
    }
    j.end_object();
    j.kv("ports", sc.controller.ports);
    j.kv("host_started", r.host_started);
    j.kv("start_rc", r.start_rc);
    j.key("devices").begin_array();
    for (const FoundDevice &d : r.devices) {
        const ata_dev_info &i = d.info;
        j.begin_object();
        j.kv("port", d.port);
        put_pmp_port_and_devno(j, d.pmp_port, d.devno);
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
        j.kv("bytes", s.bytes);
        j.kv("data_errors", s.data_errors);
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
