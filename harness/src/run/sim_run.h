// One scenario in this process (the hidden `run-one` subcommand): elaborate the topology,
// run the stack and the workloads under SystemC, check expectations, and write
// OUT/<name>/{trace.jsonl,satasim.log,result.json} through a temporary folder renamed
// into place at the end. One scenario per process here; the fuzz runner runs many in
// one process with a fresh SystemC context each (docs/fuzzing.md).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "scenario/scenario.h"
#include "trace/report.h"

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

struct SimLimits {
    // A watchdog on simulator steps (delta cycles and time advances): more than this
    // many ends the run as a hang. 0: none (one sc_start up to the time limit). With a
    // step limit the run never calls sc_stop: the simulation is left paused.
    uint64_t max_steps = 0;
};

// What one simulation leaves: the report (after evaluate()) and the objects that ran it.
// Destroying it destroys the models, the stack's platform and the trace writers; the
// SystemC context they were elaborated in is the caller's to reset (fuzz/sim_context.h).
struct SimRun {
    Scenario scenario; // as run (report.sc points here)
    RunReport report;
    std::string error; // the output could not be written (nothing ran)
    bool aborted = false;   // a simulation error or a hardware failure stopped the run
    bool sim_error = false; // an exception (SystemC error report, model error) stopped it
    bool step_watchdog = false;
    uint64_t steps = 0;     // simulator steps taken (with a step watchdog)
    std::string hang_phase; // where the controller was when a hang stopped it
    struct Objects;
    std::unique_ptr<Objects> objects;
    SimRun();
    ~SimRun();
};

// Elaborates the scenario in the current SystemC context and runs it to its end,
// writing work_dir/{trace.jsonl,satasim.log} (and the waveform). run_one() is this plus
// result.json, the rename into place and the process exit.
std::unique_ptr<SimRun> simulate(const Scenario &sc, const RunOneOptions &opt, const std::string &work_dir,
                                 const SimLimits &limits);

// Temporary folder name used for scenario `name` by process `pid` (the runner renames
// it into place if the child dies before doing so).
std::string temp_dir_name(const std::string &name, long pid);

} // namespace satasim::harness
