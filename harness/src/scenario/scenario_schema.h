// The JSON Schema of scenario files (docs/scenario-schema.md), read off the reader itself:
// while a recorder is active, every mapping the reader checks (MapView: its allowed keys)
// and every value it converts (as_uint's range, as_enum's names, sizes, times, booleans,
// lists) is noted under its key path, lists' indices folded ("devices[].port"). Parsing
// the project's scenarios with it on gives a schema whose keys, ranges and names are the
// reader's own: it cannot drift from what `satasim check` accepts.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace satasim::harness {

class SchemaRecorder {
  public:
    // The recorder the reader reports to (nullptr: none, the normal case).
    static SchemaRecorder *active();
    // Makes this recorder the active one for its lifetime.
    SchemaRecorder();
    ~SchemaRecorder();
    SchemaRecorder(const SchemaRecorder &) = delete;
    SchemaRecorder &operator=(const SchemaRecorder &) = delete;

    void object(const std::string &path, const std::vector<std::string> &allowed);
    void array(const std::string &path);
    void integer(const std::string &path, uint64_t lo, uint64_t hi);
    void boolean(const std::string &path);
    void string(const std::string &path, size_t max_len = 0);
    void enumeration(const std::string &path, const std::vector<std::string> &names);
    void pattern(const std::string &path, const std::string &regex); // a string of this form
    void quantity(const std::string &path, const std::string &what); // "sectors", "bytes", "time", "rate"

    // The schema (draft 2020-12) of what was recorded, as JSON text.
    std::string json_schema() const;

  private:
    struct Node {
        std::set<std::string> kinds; // object, array, integer, boolean, string, pattern, enum, sectors, bytes, time, rate
        std::vector<std::string> keys; // object: allowed keys, in the reader's order, merged
        uint64_t lo = UINT64_MAX, hi = 0;
        size_t max_len = 0;
        std::vector<std::string> names;
        std::string pattern;
    };
    Node &at(const std::string &path);
    void emit(std::string &out, const std::string &path, int indent) const;
    std::map<std::string, Node> nodes_;
    SchemaRecorder *previous_;
};

} // namespace satasim::harness
