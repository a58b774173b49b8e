// YAML scenario file -> Scenario, with validation. Every error names the file, the line
// and the key: "scenarios/x.yaml:12: devices[1].port: port 5 does not exist on a 4-port
// ahci controller".
#pragma once

#include <stdexcept>
#include <string>

#include "scenario.h"

namespace satasim::harness {

class ScenarioError : public std::runtime_error {
  public:
    explicit ScenarioError(const std::string &what) : std::runtime_error(what) {}
};

// Throws ScenarioError (the message is the whole diagnostic line).
Scenario parse_scenario_file(const std::string &path);
Scenario parse_scenario_text(const std::string &text, const std::string &file);

} // namespace satasim::harness
