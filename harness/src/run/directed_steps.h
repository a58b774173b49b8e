// Runs the directed low-level steps of a scenario (scenario/steps.h, key `steps:`) in the
// harness's process context (an SC_THREAD): MMIO through the stack's platform, as the
// stack's goes; the interrupt line, host memory, the device's FISes and faults through the
// backend's HardwareView. Every failed expectation is a reason naming the step's file:line
// and the actual value. Documented in scenarios/README.md, section `steps[]`.
#pragma once

#include <string>
#include <vector>

#include "scenario/steps.h"

namespace satasim::harness {

struct Scenario;
class HardwareView;
class TraceSink;
struct RunFailures;
struct BackendRules;
class PlatformBinding;

// Runs the scenario's steps (call from an SC_THREAD) on the hardware the backend shows
// (MMIO through the stack's platform); failures go to `failures`. A step the backend's
// rules skip (BackendRules::skips_step) is not run: a `step.skip` record, and
// "file:line: steps[i] kind: reason" in `skipped`.
void run_steps(const Scenario &sc, const BackendRules &rules, HardwareView &hw, PlatformBinding &binding,
               TraceSink &sink, RunFailures &failures, std::vector<std::string> &skipped);

} // namespace satasim::harness
