// The persistent in-process runner: many inputs in one process, each elaborated in a
// fresh SystemC context and torn down after it (fuzz/sim_context.h), judged by the fuzz
// oracles. An input's bytes are decoded (fuzz/fuzz_input.h) and run; its scenario text
// (fuzz/scenario_yaml.h) is what `satasim run` of a finding runs, the same scenario: the
// format's check (fuzz-smoke --decode-only) proves that reading it back loses nothing, and
// test_fuzz_reset that both give the same trace. (Reading every input's YAML back took a
// fifth of a campaign's time.)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "fuzz/oracles.h"
#include "run/sim_run.h"

namespace satasim::harness::fuzz {

// The step watchdog's default: a decoded input's run takes well under a million steps at
// FIS level (docs/fuzzing.md has the measured spread); ten times more is a livelock.
constexpr uint64_t kDefaultMaxSteps = 10000000;
// The fuzz targets' default at FIS level (their default link mode): at most ~300,000 steps
// in 800 smoke inputs, 7 times that is a livelock. About 1.1 million steps take a second on
// an idle core of the AFL++ build, so the watchdog reports a hang well before the fuzzer's
// own 10 s timeout kills the input unreported, also on a loaded machine.
constexpr uint64_t kFisMaxSteps = 2000000;

struct RunnerOptions {
    std::string work_dir;  // each input's trace.jsonl and satasim.log (overwritten by the next)
    SimLimits limits{kDefaultMaxSteps};
    DecodeOptions decode;
    // Write trace.jsonl and satasim.log (fuzz-run --out, triage); off, the run formats no
    // records: the oracles read the report (the targets: faster).
    bool write_files = true;
    // Run the scenario read back from its YAML (what satasim run of a finding runs) instead
    // of the decoded one: the same run, since the format check holds (reading the YAML back
    // loses nothing); kept to show that (fuzz-run --via-yaml, test_fuzz_reset).
    bool via_yaml = false;
};

struct InputResult {
    std::string yaml;  // the decoded scenario as a file
    std::string name;
    std::vector<Finding> findings;
    uint64_t steps = 0;
    uint64_t sim_time_ns = 0;
    bool pass = false; // the scenario's own verdict (expectations included)
    std::string log_text; // the run's satasim.log text (the libFuzzer smoke target's feedback)
};

class InProcessRunner {
  public:
    explicit InProcessRunner(RunnerOptions opt) : opt_(std::move(opt)) {}
    // Decodes and runs one input. A decoded scenario the reader refuses is a finding of
    // oracle `decoder` (the format promises it never happens).
    InputResult run_bytes(const uint8_t *data, size_t size);
    // Runs a parsed scenario (its file name in messages: sc.file).
    InputResult run_scenario(const Scenario &sc);
    const RunnerOptions &options() const { return opt_; }

  private:
    RunnerOptions opt_;
};

} // namespace satasim::harness::fuzz
