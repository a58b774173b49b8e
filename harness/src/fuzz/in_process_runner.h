// The persistent in-process runner: many inputs in one process, each elaborated in a
// fresh SystemC context and torn down after it (fuzz/sim_context.h), judged by the fuzz
// oracles. An input's bytes are decoded (fuzz/fuzz_input.h), written as scenario text
// (fuzz/scenario_yaml.h) and read back by the scenario reader, so what runs is exactly
// what `satasim run` of the printed YAML runs.
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
};

struct InputResult {
    std::string yaml;  // the decoded scenario as a file
    std::string name;
    std::vector<Finding> findings;
    uint64_t steps = 0;
    uint64_t sim_time_ns = 0;
    bool pass = false; // the scenario's own verdict (expectations included)
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
