// `include:` in scenario files: a scenario (or an included file) may name other YAML files,
// relative to itself, whose keys are merged under its own. The including file wins per key;
// maps merge deep, lists and scalars are replaced whole. Include cycles are refused. Every
// map key of the merged tree remembers the file it came from, so that an error names the
// right file (its line numbers are that file's). An included file must lie in the scenario's
// folder tree (after symlinks and `..` are resolved), be a regular file and at most
// kIncludeMaxBytes long; errors never show more of it than the offending key. Documented in
// scenarios/README.md.
#pragma once

#include <map>
#include <string>

#include <yaml-cpp/yaml.h>

#include "scenario/yaml_load.h"

namespace satasim::harness {

// The largest included file read.
constexpr size_t kIncludeMaxBytes = 1u << 20;
// A folder holding a file of this name is the root of the folder tree of every scenario
// below it (scenarios/ has one, so that scenarios/field/x.yaml may include ../common/y.yaml);
// without one, a scenario's tree is its own folder and what is below it.
constexpr const char *kIncludeRootMarker = ".satasim-include-root";
struct IncludeResult {
    YAML::Node root;                           // the merged scenario, without `include`
    std::map<std::string, std::string> origin; // key path ("controller.ports") -> file
};

// root was loaded from `file`. Throws ScenarioError ("file:line: include[0]: ...").
IncludeResult resolve_includes(const YAML::Node &root, const std::string &file);

// The file a key path of an error message ("devices[1].port") comes from; `main` if none.
std::string origin_file(const IncludeResult &r, const std::string &path, const std::string &main);

} // namespace satasim::harness
