// The `satasim fuzz-*` subcommands (docs/fuzzing.md):
//   fuzz-decode INPUT [--fis]             the input's scenario as YAML on stdout
//   fuzz-encode SCENARIO.yaml OUT [--fis] the bytes of a scenario (a seed); what the format
//                                         cannot express is listed on stderr
//   fuzz-run INPUT... [--out DIR] [--fis] [--max-steps N] [--findings DIR]
//                                         every input in this one process (persistent
//                                         runner), one line each; with --out the traces
//                                         go to DIR/<index>/; with --findings each
//                                         finding's scenario is written there
//   fuzz-smoke [--seed S] [--count N] [--fis] [--max-steps N] [--decode-only]
//                                         N seeded random byte strings through decoder,
//                                         runner and oracles; --decode-only checks the
//                                         format's promises on them without running
//   fuzz-reduce INPUT DIR                 the input's first finding reduced (faults,
//                                         workloads, requests, disks dropped while its
//                                         bucket stays) and written into DIR
#pragma once

#include <string>
#include <vector>

namespace satasim::harness::fuzz {

// -1 when cmd is not a fuzz command; else the exit code (0 ok, 1 findings, 2 bad usage).
int fuzz_command(const std::string &cmd, const std::vector<std::string> &args);

} // namespace satasim::harness::fuzz
