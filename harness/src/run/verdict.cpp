// The verdict of one run: the scenario's expectations and the run invariants over what
// the run found (trace/report.h) and what the backend counted (backend/backend_stats.h).
#include "run/verdict.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "fuzz/oracles.h"

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
        for (unsigned p = 0; p < sc.total_ports(); ++p) {
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
            cmp(out, p, "class", std::string(cfg->atapi ? "atapi" : "ata"), std::string(dev_class_name(i.cls)));
            cmp(out, p, "model", cfg->model, std::string(i.model));
            cmp(out, p, "serial", cfg->serial, std::string(i.serial));
            cmp(out, p, "firmware", cfg->firmware, std::string(i.firmware));
            if (cfg->atapi)
                continue; // a packet device has no sectors or LBA48 of its own (the disc's capacity is READ CAPACITY's)
            cmp(out, p, "sectors", cfg->configured_sectors(sc.host.ignore_hpa), uint64_t(i.n_sectors));
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

} // namespace satasim::harness
