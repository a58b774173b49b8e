// The QEMU backend's rules (backend/rules.h): what QEMU's AHCI cannot model. Plain
// functions over the scenario, no SystemC.
#pragma once

#include <string>
#include <vector>

#include "backend/rules.h"

namespace satasim::harness::qemu {

const char *refuses_key(ScenarioKey key);
// What the scenario asks for that QEMU cannot model; empty if it can run on QEMU.
// Each entry names the feature and the scenario key.
std::vector<Refusal> refusals(const Scenario &sc);
unsigned hardware_ports(const Scenario &sc);
// The directed steps it skips, with the reason (backend/rules.h).
std::string skips_step(const Step &s);

} // namespace satasim::harness::qemu
