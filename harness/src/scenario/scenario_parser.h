// YAML scenario file -> Scenario, with validation. Every error names the file, the line
// and the key: "scenarios/x.yaml:12: devices[1].port: port 5 does not exist on a 4-port
// ahci controller".
#pragma once

#include <stdexcept>
#include <string>

#include "backend/rules.h"
#include "scenario/overrides.h"
#include "scenario/scenario.h"

namespace satasim::harness {

// Control characters, DEL, bytes that are not UTF-8 (\x00, \n, \t, \xff) and the code
// points a terminal acts on instead of showing (C1 controls, U+2028/9, bidi and
// zero-width format characters: \u202e) written as visible escapes: a
// scenario's text echoed in a message never cuts it short (NUL) nor reaches the terminal raw.
std::string escape_controls(const std::string &s);

// Its message is escaped with escape_controls().
class ScenarioError : public std::runtime_error {
  public:
    explicit ScenarioError(const std::string &what) : std::runtime_error(escape_controls(what)) {}
};

// Throws ScenarioError (the message is the whole diagnostic line). `backends`: the names
// the `backend` key takes and what each refuses (backend/registry.h: backend_rules();
// the first is the default).
// `overrides` (satasim run --set, --seed, a matrix point) are set after `include:` is
// resolved (scenario/overrides.h); Scenario::overrides lists them.
Scenario parse_scenario_file(const std::string &path, const BackendList &backends, const Overrides &overrides = {});
Scenario parse_scenario_text(const std::string &text, const std::string &file, const BackendList &backends,
                             const Overrides &overrides = {});

// The file's matrix (its `matrix:` key, scenarios/README.md) with `extra` axes (satasim run
// --matrix) after its own: what the runner expands into one run per point. Throws
// ScenarioError at the key if malformed.
std::vector<MatrixAxis> scenario_matrix(const std::string &path, const std::vector<MatrixAxis> &extra);

} // namespace satasim::harness
