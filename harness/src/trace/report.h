// What one run found and did, and its result.json.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "backend/backend_stats.h"
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

// The run's report: what the stack found and did (filled by the runner), the backend's
// statistics (BackendStats, filled by Backend::finish) and the verdict over them
// (run/verdict.h: reasons, pass).
struct RunReport : BackendStats {
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
    // and no longer has at the end: disabled or detached by EH (set by the verdict).
    std::vector<DevAddr> disabled;
    std::vector<unsigned> frozen_ports; // frozen or with EH pending at the end
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
    bool pass = false;

    uint64_t commands() const;    // workload commands completed, prefill included
    uint64_t bytes_moved() const; // by workload commands (prefill excluded)
};

// What a verdict line shows beyond pass/fail: "io_errors 1204, disabled ata1.02, fault0
// fired 1/3" (empty when there were no I/O errors, no disabled disks and every fault with
// a full count fired it). satasim.report writes the same text from summary.json.
std::string observed_text(uint64_t io_errors, const std::vector<std::string> &disabled,
                          const std::vector<std::string> &partial_faults);

// result.json text (pretty-printed).
std::string result_json(const RunReport &r);

} // namespace satasim::harness
