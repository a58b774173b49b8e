// Reading a YAML file that someone else wrote (a scenario, an included fragment, a DUT
// profile) with every cost bounded: the file's size, what it is (a regular file, never a
// FIFO or a device, whose open or read may block or act), how deep it nests and how many
// documents it holds. yaml-cpp's LoadAll is not used: on a stray ',' at the top level it
// makes empty documents forever (memory without bound); one document is loaded and a
// second is only looked for.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

#include <yaml-cpp/yaml.h>

namespace satasim::harness {

// The largest scenario file (and DUT profile) read; an included fragment has its own,
// smaller bound (scenario_include.h).
constexpr size_t kScenarioMaxBytes = 4u << 20;
// How deep lists and mappings may nest, the top-level mapping counted (yaml-cpp itself
// gives up, with a less useful message, somewhat beyond).
constexpr int kYamlDepthLimit = 499;

// How many values (scalars, lists, mappings) the document may hold once its aliases are
// expanded: an alias names a value again without copying it, so ten lines of aliases of
// aliases make billions of values for any reader that walks the tree.
constexpr size_t kYamlMaxValues = 1u << 20;

// A regular file's whole text, or why not: "cannot read ...", "not a regular file ...",
// "too large (N bytes; ... at most M)". `what` names the file's kind in the message ("the
// scenario file").
struct FileText {
    bool ok = false;
    std::string text;
    std::string why;
};
FileText read_bounded_file(const std::filesystem::path &path, size_t max_bytes, const std::string &what);

// The one YAML document of `text`, read from `file`. Throws ScenarioError "file:line: ..." for
// a syntax error ("YAML syntax error: ..."; with other_errors_as_syntax false, the errors
// that are not the parser's read "YAML error: ..."), nesting deeper than kYamlDepthLimit,
// more than kYamlMaxValues values with aliases expanded, and a second document (`what`: "a scenario file", "a DUT profile", in that message).
YAML::Node load_yaml_document(const std::string &text, const std::string &file, bool other_errors_as_syntax,
                              const std::string &what = "a scenario file");

} // namespace satasim::harness
