// The RTL backend's rules (backend/rules.h): what a controller's RTL behind the DUT shell
// cannot be asked for, from the shell's limits and the DUT profile's interface and quirks
// (dut_profile.h: active_profile()). Plain functions over the scenario, no SystemC.
#pragma once

#include <string>
#include <vector>

#include "backend/rules.h"

namespace satasim::harness::rtl {

const char *refuses_key(ScenarioKey key);
std::vector<Refusal> refusals(const Scenario &sc);
unsigned hardware_ports(const Scenario &sc);
// The directed steps it skips, with the reason (backend/rules.h).
std::string skips_step(const Step &s);

} // namespace satasim::harness::rtl
