// What one run found and did, the expectation checks over it, and its result.json.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "satasim/ata.h"
#include "scenario/scenario.h"
#include "run/workload.h"
#include "trace/eh_rules.h"

namespace satasim::harness {

struct FoundDevice {
    unsigned port = 0;
    std::optional<unsigned> pmp_port; // behind the port multiplier on `port`
    unsigned devno = 0;               // a channel's slave (piix map ich6)
    ata_dev_info info{};

    DevAddr addr() const { return {port, pmp_port, devno}; }
};

struct WorkloadReport {
    unsigned index = 0;
    WorkloadSpec spec;
    WorkloadStats stats;
    bool ran = false;
};

// One scenario fault and how often it fired.
struct FaultReport {
    std::string id, kind;
    unsigned port = 0;
    std::optional<unsigned> pmp_port;
    unsigned devno = 0;
    unsigned fired = 0;
    unsigned repeat = 1;    // its full count (0: fires for ever, no full count)
    unsigned min_fired = 0; // the scenario's `min_fired` (0: the full count)

    // Firings the run needs: min_fired, else the full count (at least once for ever-repeating).
    unsigned needed() const { return min_fired ? min_fired : repeat ? repeat : 1; }
    // Fired fewer times than its full count (whether or not the scenario allows it).
    bool partial() const { return repeat != 0 && fired < repeat; }
};

// One host-port link at the end of the run (backend systemc): its mode and the dword
// clocks it ticked (0 at FIS level; idle cycles are never ticked).
struct LinkReport {
    unsigned port = 0;
    std::string mode;
    uint64_t dword_cycles = 0;
};

struct RunReport {
    const Scenario *sc = nullptr;
    bool host_created = false;
    bool host_started = false;
    int start_rc = 0;
    bool finished = false; // the run reached its end (not hung, not aborted)
    std::vector<FoundDevice> devices; // by port, fan-out devices after their port's PMP
    std::vector<unsigned> empty_ports; // host ports where the probe found no device at all
    std::vector<WorkloadReport> workloads;
    // The end of the run (after faults settled), before the host stops.
    bool after_collected = false;
    std::vector<FoundDevice> devices_after;
    std::vector<DevAddr> absent_after;
    // Disks the stack had (found at the boot probe, or plugged in by a fired `plug` fault)
    // and no longer has at the end: disabled or detached by EH (set by evaluate()).
    std::vector<DevAddr> disabled;
    std::vector<unsigned> frozen_ports; // frozen or with EH pending at the end
    std::vector<FaultReport> faults;
    std::vector<LinkReport> links;
    uint64_t violations = 0;
    std::vector<std::string> violation_messages;
    std::vector<EhRuleViolation> eh_rule_violations; // EH decisions against libata's rules (eh_rules.h)
    RunFailures failures; // reasons found during the run
    // Directed steps the backend skipped ("file:line: steps[i] kind: reason", BackendRules::skips_step)
    std::vector<std::string> steps_skipped;
    std::vector<std::string> reasons; // final list: run problems + failed expectations
    std::string log_text;
    uint64_t sim_time_ns = 0;
    double wall_time_s = 0;
    uint64_t irq_calls = 0, eh_runs = 0, timers_fired = 0, trace_events = 0;
    // The backend's own statistics (Backend::finish), in result.json order.
    std::vector<std::pair<std::string, uint64_t>> backend_stats;
    bool pass = false;

    uint64_t commands() const;    // workload commands completed, prefill included
    uint64_t bytes_moved() const; // by workload commands (prefill excluded)
};

// Applies the scenario's expectations (and the implicit ones: every configured disk found
// with its configured identity, nothing found on other ports, no unexpected I/O errors,
// no data errors, every workload finished) and sets reasons and pass.
void evaluate(RunReport &r);

// What a verdict line shows beyond pass/fail: "io_errors 1204, disabled ata1.02, fault0
// fired 1/3" (empty when there were no I/O errors, no disabled disks and every fault with
// a full count fired it). satasim.report writes the same text from summary.json.
std::string observed_text(uint64_t io_errors, const std::vector<std::string> &disabled,
                          const std::vector<std::string> &partial_faults);

// result.json text (pretty-printed).
std::string result_json(const RunReport &r);

} // namespace satasim::harness
