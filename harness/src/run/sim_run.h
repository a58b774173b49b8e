// One scenario in this process (the hidden `run-one` subcommand): elaborate the topology,
// run the stack and the workloads under SystemC, check expectations, and write
// OUT/<name>/{trace.jsonl,satasim.log,result.json} through a temporary folder renamed
// into place at the end. SystemC elaborates once per process, hence one scenario each.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace satasim::harness {

struct RunOneOptions {
    std::string out_dir = "out";
    std::optional<bool> trace_cmds; // overrides the scenario's trace_cmds
    std::optional<std::string> backend; // overrides the scenario's backend
    // Waveform (satasim run --vcd / --vcd-signals / --vcd-ports): any of them switches it on.
    std::string vcd_file;                           // write it here instead of OUT/<name>/waveform.vcd
    std::optional<unsigned> vcd_groups;             // overrides waveform.signals (group mask)
    std::optional<std::vector<unsigned>> vcd_ports; // overrides waveform.ports
};

// Returns the process exit code: 0 pass, 1 fail.
int run_one(const Scenario &sc, const RunOneOptions &opt);

// Temporary folder name used for scenario `name` by process `pid` (the runner renames
// it into place if the child dies before doing so).
std::string temp_dir_name(const std::string &name, long pid);

} // namespace satasim::harness
