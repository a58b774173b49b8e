#include "fuzz/oracles.h"

#include <cctype>
#include <cstdlib>
#include <sstream>

#include "model/device/fault_params.h"
#include "model/fault/fault_kind_spec.h"

namespace satasim::harness::fuzz {

namespace {

// The first problem of the run that contains `needle` (else the first problem).
std::string reason_with(const RunReport &r, const std::string &needle) {
    const std::vector<std::string> &v = r.failures.reasons;
    for (const std::string &s : v)
        if (s.find(needle) != std::string::npos)
            return s;
    return v.empty() ? std::string() : v.front();
}

// How the run ended, read back from the problems simulate() recorded (run/sim_run.cpp):
// "simulation error: ..." for an exception, "hang: not finished within N simulator steps
// at t=... (in PHASE)" for the step watchdog, "hang: ... (in PHASE)" for a run that did not
// finish; a run that did not finish without a hang line was failed by the hardware.
struct RunEnd {
    bool sim_error = false, aborted = false, step_watchdog = false;
    std::string hang_phase;
};

RunEnd run_end(const RunReport &r) {
    RunEnd e;
    bool hang = false;
    for (const std::string &s : r.failures.reasons) {
        if (s.rfind("simulation error: ", 0) == 0)
            e.sim_error = true;
        if (s.rfind("hang: ", 0) != 0 || hang)
            continue;
        hang = true;
        e.step_watchdog = s.find(" simulator steps at t=") != std::string::npos;
        const size_t in = s.rfind(" (in ");
        if (in != std::string::npos && s.back() == ')')
            e.hang_phase = s.substr(in + 5, s.size() - in - 6);
    }
    e.aborted = e.sim_error || (!r.finished && !hang);
    return e;
}

// The stack's last log line about host port `port` ("ataN" / "ataN.MM"), normalized.
std::string last_log_on(const std::string &log, unsigned port) {
    const std::string tag = "ata" + std::to_string(port + 1);
    size_t end = log.size();
    while (end > 0) {
        size_t begin = log.rfind('\n', end - 1);
        begin = begin == std::string::npos ? 0 : begin + 1;
        const std::string line = log.substr(begin, end - begin);
        size_t at = line.find(tag);
        if (at != std::string::npos && (at + tag.size() == line.size() || !std::isdigit((unsigned char)line[at + tag.size()])) &&
            line.find("satasim:") == std::string::npos)
            return normalize(line);
        if (begin == 0)
            break;
        end = begin - 1;
    }
    return "(no stack log line on " + tag + ")";
}

} // namespace

std::string normalize(const std::string &msg) {
    std::string s = msg;
    // the log's "[    0.104173] " timestamp
    if (!s.empty() && s[0] == '[') {
        size_t close = s.find("] ");
        if (close != std::string::npos)
            s = s.substr(close + 2);
    }
    std::string out;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '0' && i + 1 < s.size() && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            i += 2;
            while (i < s.size() && std::isxdigit((unsigned char)s[i]))
                ++i;
            --i;
            out += '#';
        } else if (std::isdigit((unsigned char)c)) {
            while (i + 1 < s.size() && (std::isdigit((unsigned char)s[i + 1]) || s[i + 1] == '.'))
                ++i;
            out += '#';
        } else {
            out += c;
        }
    }
    return out;
}

// The first EH report in the log whose error mask says the hardware or the protocol went
// wrong (libata's AC_ERR_HSM, TIMEOUT, ATA_BUS, HOST_BUS, SYSTEM, OTHER), or an internal
// command's timeout; empty if none. Device errors (a read past the end, ABRT) and media
// errors are what the workload asks for.
std::string first_unprovoked_eh(const std::string &log) {
    constexpr unsigned long kHardwareErrors = 0x2 | 0x4 | 0x10 | 0x20 | 0x40 | 0x100;
    std::istringstream in(log);
    for (std::string line; std::getline(in, line);) {
        if (line.find("qc timeout (cmd") != std::string::npos)
            return line;
        // the exception line's link mask and each failed command's ("res ... Emask 0x4 (timeout)")
        const size_t at = line.find(" Emask 0x");
        if (at != std::string::npos && (std::strtoul(line.c_str() + at + 7, nullptr, 16) & kHardwareErrors))
            return line;
    }
    return {};
}

std::vector<Finding> judge(const RunReport &r) {
    const Scenario &sc = *r.sc;
    const RunEnd end = run_end(r);
    std::vector<Finding> out;
    auto add = [&](const char *oracle, const std::string &where, const std::string &detail) {
        out.push_back({oracle, where, detail});
    };
    if (end.sim_error) {
        const std::string d = reason_with(r, "simulation error");
        add("sim-error", normalize(d), d);
    } else if (end.aborted) {
        const std::string d = reason_with(r, "");
        add("aborted", normalize(d), d);
    } else if (end.step_watchdog) {
        add("watchdog-steps", end.hang_phase, reason_with(r, "simulator steps"));
    } else if (!r.finished) {
        add("hang", end.hang_phase, reason_with(r, "hang"));
    }
    if (!r.host_created || (r.host_created && !r.host_started && r.finished))
        add("host-start", normalize(reason_with(r, "ata")), reason_with(r, "ata"));
    if (r.finished)
        for (const WorkloadReport &w : r.workloads)
            if (w.ran && !w.stats.done) {
                add("request-unfinished", std::string("workload ") + op_name(w.spec.op) + " " + mode_name(w.spec.mode),
                    "workload[" + std::to_string(w.index) + "] did not finish");
                break;
            }
    for (unsigned p : r.frozen_ports)
        add("frozen-port", last_log_on(r.log_text, p),
            "port " + std::to_string(p) + ": still frozen or with EH pending at the end of the run");
    if (r.violations) {
        const std::string v = r.violation_messages.empty() ? "" : r.violation_messages.front();
        add("protocol-violation", normalize(v), v);
    }
    if (r.failures.data_errors) {
        // A drive replaced by a fired plug fault with new media reads that media: nothing
        // the stack can tell from a silent swap of the same drive, not a finding. Nor is a
        // drive's stray status (bad_fis unsolicited_d2h or spurious_sdb) while the host had a
        // command out: to every controller that command's completion, its data moved or not
        // (docs/device.md 1: a hazard no host can detect; a fuzz input hit it, a write
        // acknowledged before its data went out).
        std::vector<std::string> replaced;
        for (size_t i = 0; i < sc.faults.size() && i < r.faults.size(); ++i) {
            const fault::Fault &f = sc.faults[i];
            const bool stray = f.kind == fault::Kind::BadFis &&
                               (device::BadFis(fault::param(f, "fis")) == device::BadFis::UnsolicitedD2h ||
                                device::BadFis(fault::param(f, "fis")) == device::BadFis::SpuriousSdb);
            if (((f.kind == fault::Kind::Plug && f.plug.blank_media) || stray) && r.faults[i].fired)
                replaced.push_back(DevAddr{f.port, f.pmp_port}.str() + " (");
        }
        std::string first;
        for (const std::string &s : r.failures.reasons) {
            size_t at = s.rfind("data mismatch on ", 0) == 0 ? 17 : s.rfind("data lost on ", 0) == 0 ? 13 : 0;
            if (!at)
                continue;
            bool excused = false;
            for (const std::string &a : replaced)
                excused = excused || s.compare(at, a.size(), a) == 0;
            if (!excused) {
                first = s;
                break;
            }
        }
        if (replaced.empty() && first.empty())
            first = std::to_string(r.failures.data_errors) + " sector(s) read back wrong";
        if (!first.empty())
            add("data", normalize(first.substr(0, first.find(':'))), first);
    }
    bool provoked = sc.controller.pcix_irq_loss && !sc.host.irq_loss_fix;
    for (const auto &d : sc.devices)
        provoked = provoked || d.mod15write || d.ncq_trim_erratum || d.timeout_ns; // an erratum, a shortened request timeout
    for (const auto &f : r.faults)
        provoked = provoked || f.fired;
    if (!provoked && out.empty())
        if (const std::string line = first_unprovoked_eh(r.log_text); !line.empty()) {
            const size_t t = line.find("] ");
            const std::string msg = t == std::string::npos ? line : line.substr(t + 2);
            add("unprovoked-eh", normalize(msg), "no fault fired, yet EH: " + msg);
        }
    // EH decisions that break a libata rule (trace/eh_rules.h): one bucket per rule
    for (const EhRuleViolation &v : r.eh_rule_violations) {
        bool seen = false;
        for (const Finding &f : out)
            seen = seen || (f.oracle == "eh-rule" && f.where == v.rule);
        if (!seen)
            add("eh-rule", v.rule, v.str());
    }
    return out;
}

} // namespace satasim::harness::fuzz
