// The verdict of one run, apart from the statistics it judges: the runner fills the report
// (trace/report.h) and the backend its statistics (backend/backend_stats.h); evaluate()
// then decides.
#pragma once

#include "trace/report.h"

namespace satasim::harness {

// Applies the scenario's expectations (and the implicit ones: every configured disk found
// with its configured identity, nothing found on other ports, no unexpected I/O errors,
// no data errors, every workload finished) and sets reasons and pass.
void evaluate(RunReport &r);

} // namespace satasim::harness
