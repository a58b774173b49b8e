// Findings as files: each is a replayable scenario (`satasim run X.yaml`), its input
// bytes, and a header naming oracle, bucket and the run's own words; one folder per
// bucket so that one bug is one entry (docs/fuzzing.md, "Findings").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/in_process_runner.h"

namespace satasim::harness::fuzz {

// The bucket's folder name: the oracle and a hash of the location.
std::string bucket_dir_name(const Finding &f);

// The finding's scenario file: a header naming oracle, bucket and the run's words, the
// scenario the runner ran, and `oracles: {fuzz: true, max_steps: N}`, so that `satasim run`
// judges it as the runner did (fails while the defect is there, passes once it is fixed).
std::string finding_yaml(const InputResult &r, uint64_t max_steps);

// DIR/<bucket>/<name>.yaml and .bin for the first finding of r (r.findings not empty).
void write_finding(const std::string &dir, const std::vector<uint8_t> &bytes, const InputResult &r,
                   uint64_t max_steps);

// Scenario-level reduction in the input format: drop faults, drop workloads, shorten
// them, empty the disk places, while a run still has a finding in `bucket`. Returns the
// reduced bytes (the input itself when nothing could be dropped). runs: inputs tried.
std::vector<uint8_t> reduce_input(InProcessRunner &runner, const std::vector<uint8_t> &input,
                                  const std::string &bucket, unsigned *runs);

} // namespace satasim::harness::fuzz
