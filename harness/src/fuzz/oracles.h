// The fuzz oracles: what makes one run a finding. They judge the run's structured report
// (run/sim_run.h), not its expectations: I/O errors, a disk EH gave up on, a fault that
// never fired are what faults cause, not bugs. A finding is one of
//   sim-error       an exception stopped the simulation (a model's or SystemC's error)
//   aborted         the hardware failed the run (PlatformBinding's fail)
//   watchdog-steps  more simulator steps than the limit (a livelock, also in zero time)
//   hang            not finished: nothing left to simulate, or the simulated-time limit
//   request-unfinished  the run ended with a workload's request not ended
//   frozen-port     a port still frozen or with EH pending after the settle time
//   protocol-violation  a model saw the host break a protocol rule
//   data            a sector read back wrong, or a completed write not on the media
//   host-start      the stack could not create or start the host
//   unprovoked-eh   EH handled a timeout, HSM, bus or system error in a run where no fault
//                   fired and no erratum was enabled: the hardware did nothing wrong
//   eh-rule         an EH decision broke one of libata's rules (trace/eh_rules.h); the
//                   location is the rule's id, so one rule is one bucket
// Crashes and sanitizer reports end the process; the fuzzers and `tools/fuzz triage`
// bucket those from the report's frames.
#pragma once

#include <string>
#include <vector>

#include "trace/report.h"

namespace satasim::harness::fuzz {

struct Finding {
    std::string oracle;
    std::string where;  // normalized location: the stack's last log line on the port, the phase
    std::string detail; // the first reason, as the run said it
    // oracle + location: one bug, one bucket
    std::string bucket() const { return oracle + ": " + where; }
};

// The findings of a run, from its report alone (after the run ended): the fuzz runner and
// a scenario with `oracles: {fuzz: true}` (run/verdict.cpp's evaluate) judge alike, so a
// finding's scenario file fails `satasim run` exactly when the runner found it.
std::vector<Finding> judge(const RunReport &r);

// A message with its numbers, addresses and timestamps replaced by '#' (stable buckets).
std::string normalize(const std::string &msg);

} // namespace satasim::harness::fuzz
