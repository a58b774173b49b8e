// A decoded fuzz scenario as a scenario file (scenarios/README.md): what `satasim
// fuzz-decode` prints and every finding is written as, so `satasim run x.yaml` replays it.
// Writes the keys the fuzz input format carries (fuzz/fuzz_input.h); every other key is at
// its default in a decoded scenario and is left out.
#pragma once

#include <string>

#include "scenario/scenario.h"

namespace satasim::harness::fuzz {

// header: comment lines put at the top (each prefixed "# ").
std::string scenario_yaml(const Scenario &sc, const std::string &header = {});

} // namespace satasim::harness::fuzz
