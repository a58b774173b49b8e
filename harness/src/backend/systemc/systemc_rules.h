// The SystemC backend's rules (backend/rules.h): what the satasim models cannot model.
// Plain functions over the scenario, no SystemC.
#pragma once

#include <string>
#include <vector>

#include "backend/rules.h"

namespace satasim::harness::systemc {

const char *refuses_key(ScenarioKey key);
// The keys only another backend implements (blkdebug: QEMU's block layer).
std::vector<Refusal> refusals(const Scenario &sc);
unsigned hardware_ports(const Scenario &sc);
// Every directed step runs on the models.
std::string skips_step(const Step &s);

} // namespace satasim::harness::systemc
