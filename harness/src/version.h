// satasim's version and the versions of the formats it writes (docs/formats.md): a reader
// of a result, a trace or a golden checks the format version before it reads the rest.
#pragma once

#include <string>

namespace satasim::harness {

// The release (CMake's project version).
const char *satasim_version();

// Format versions: bumped when a reader of the old format would misread the new one.
constexpr int kResultFormat = 1; // OUT/<name>/result.json, OUT/summary.json
constexpr int kTraceFormat = 1;  // OUT/<name>/trace.jsonl
constexpr int kGoldenFormat = 1; // golden/*.golden ("# format: 1")

// "satasim 0.3.0 (result format 1, trace format 1, golden format 1)"
std::string version_text();

} // namespace satasim::harness
