// Runs the directed low-level steps of a scenario (scenario/steps.h, key `steps:`) in the
// harness's process context (an SC_THREAD), MMIO through the controller's bus target as
// the stack's goes. Every failed expectation is a reason naming the step's file:line and
// the actual value. Documented in scenarios/README.md, section `steps[]`.
#pragma once

#include <vector>

#include "scenario/steps.h"

namespace satasim::harness {

struct Topology;
class TraceSink;
struct RunFailures;
class PlatformBinding;

// Runs the steps (call from an SC_THREAD); failures go to `failures`.
void run_steps(const std::vector<Step> &steps, Topology &topo, PlatformBinding &binding, TraceSink &sink,
               RunFailures &failures);

} // namespace satasim::harness
