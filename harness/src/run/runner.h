// `satasim run` and `satasim check`: expand paths, validate every scenario up front
// (any malformed file: report it, exit 2, write nothing), then run each scenario in its
// own child process (`run-one`), up to --jobs at a time, print one verdict line per
// scenario in input order and a summary, and write OUT/summary.json.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "scenario/overrides.h"

namespace satasim::harness {

struct RunOptions {
    std::vector<std::string> paths;
    std::string out_dir = "out";
    unsigned jobs = 0; // 0 = number of CPUs
    std::optional<bool> trace_cmds;
    // Per scenario: CPU seconds (the fair limit on a loaded machine: RLIMIT_CPU, SIGXCPU),
    // and wall seconds as a backstop for a run that waits without computing (a QEMU that
    // stopped answering); the child is killed past either.
    unsigned cpu_limit_s = 300;
    unsigned wall_limit_s = 1200;
    std::optional<std::string> backend; // overrides the scenarios' backend (a name in backend/registry.cpp)
    std::vector<std::string> child_args; // more options for each `run-one` (waveform: cli.cpp)
    std::string vcd_file; // the absolute --vcd target among them, if any (nothing left there on a crash)
    // --skip-refused: a scenario the backend cannot model is listed as skipped, with the
    // reason, instead of failing the whole run before anything runs (a suite on a DUT).
    bool skip_refused = false;
    // --set / --seed: scenario keys set from outside the files, for every scenario
    Overrides overrides;
    // --matrix: axes added to every scenario's own `matrix:` (one run per point)
    std::vector<MatrixAxis> matrix;
    // --shard K/N: only the K-th of every N runs (1-based), in file and point order
    unsigned shard_k = 0, shard_n = 0;
    // --no-total: no closing "N passed, M failed" line (the main job prints one grand total
    // over its parts, tools/run_suite.sh)
    bool no_total = false;
};

// Exit codes: 0 every scenario passed, 1 a scenario failed, 2 bad input.
int run_scenarios(const RunOptions &opt, const std::string &self_exe);
int check_scenarios(const std::vector<std::string> &paths, const Overrides &overrides = {},
                    const std::vector<MatrixAxis> &matrix = {});

// Files named by paths: folders expand to their *.yaml files (sorted, not recursive).
// Returns false (message on stderr) if a path does not exist or nothing is found.
bool expand_paths(const std::vector<std::string> &paths, std::vector<std::string> *files);

} // namespace satasim::harness
