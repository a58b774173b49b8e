// Scenario keys set from outside the file: `satasim run --set key.path=value` and `--seed N`,
// and the points of a `matrix:` (scenarios/README.md, "matrix"). An override replaces the
// value at its key path after `include:` is resolved and before the scenario is read, so it
// is checked like a value written in the file; a message about it names the override
// instead of a line of the file.
#pragma once

#include <string>
#include <vector>

#include <yaml-cpp/yaml.h>

namespace satasim::harness {

struct ScenarioOverride {
    std::string path;  // "controller.ports", "devices[0].timing.kind"
    std::string value; // YAML: "4", "sil24", "[1, 2]", "{kind: hdd}"
    std::string text() const { return path + "=" + value; }
};
using Overrides = std::vector<ScenarioOverride>;

// "key.path=value" -> an override; "" or why it is malformed.
std::string parse_override(const std::string &arg, ScenarioOverride *out);

// Sets each override in root (a mapping): maps along the path are made where missing, a
// list index must exist (or be the list's length: appended). Throws ScenarioError
// "(--set PATH=VALUE): what is wrong" for a path that does not fit the tree.
void apply_overrides(YAML::Node &root, const Overrides &ov);

// The override whose path is `path` or contains it ("devices[0].port" is inside
// "devices"), else null: the source of a key's value for messages.
const ScenarioOverride *override_at(const Overrides &ov, const std::string &path);

// One axis of a matrix: a key path and the values it takes.
struct MatrixAxis {
    std::string path;
    std::vector<std::string> values; // YAML text of each
};

// The axes of root's `matrix:` key (a mapping of key path -> list of values), in file order;
// throws ScenarioError "file:line: matrix...: ..." if malformed.
std::vector<MatrixAxis> read_matrix(const YAML::Node &root, const std::string &file);

// Every point of the axes (their cartesian product, the first axis slowest): the overrides
// of each. No axes: one point without overrides.
std::vector<Overrides> matrix_points(const std::vector<MatrixAxis> &axes);

// The suffix that names a point: its values joined with '.', each reduced to letters,
// digits, '-' and '_' ("sil24.3" for controller.type=sil24, seed=3).
std::string point_suffix(const Overrides &point);

} // namespace satasim::harness
