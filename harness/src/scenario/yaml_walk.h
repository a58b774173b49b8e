// The YAML validation toolkit every part of the scenario reader uses (the sections of
// scenario_parser.cpp and the directed steps alike), so that every message has one form:
// "file:line: key.path: what is wrong". A Parser knows the file (and, with `include:`, the
// file of each key path); a Field is one value with its key path and line; a MapView checks
// a mapping's keys against the allowed list (unknown and duplicate keys are errors); the
// as_*() readers convert a scalar (integers in a range, flags, names from a list, sizes,
// times, rates, IDENTIFY strings) or fail at the value naming what was expected and what
// was given. Every failure throws ScenarioError.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "scenario/scenario_parser.h"
#include "scenario/scenario_schema.h"
#include "scenario/suggest.h"
#include "scenario/units.h"

namespace satasim::harness {

// The backend's rules live in the Parser (set once the `backend` key is read).
struct BackendRules;

// The line of a node (1-based), or fallback where it has none.
inline int line_of(const YAML::Node &n, int fallback) {
    if (!n.IsDefined())
        return fallback;
    YAML::Mark m = n.Mark();
    return m.line >= 0 ? m.line + 1 : fallback;
}

// One key's value, with where it is.
struct Field {
    YAML::Node node;
    std::string path; // "devices[1].port"
    int key_line = 0;
    int line = 0; // the value's line (the key's when the value has no position)
};

class Parser {
  public:
    explicit Parser(std::string file) : file_(std::move(file)) {}

    [[noreturn]] void fail(int line, const std::string &path, const std::string &msg) const {
        std::ostringstream os;
        os << file_for(path) << ":" << (line > 0 ? line : 1) << ": ";
        if (!path.empty())
            os << path << ": ";
        os << msg;
        throw ScenarioError(os.str());
    }
    [[noreturn]] void fail(const Field &f, const std::string &msg) const { fail(f.line, f.path, msg); }
    // Something valid that likely does not mean what it says: kept for `satasim check`
    // (Scenario::warnings), in the form of fail()'s message.
    void warn(int line, const std::string &path, const std::string &msg) const {
        warnings_.push_back(file_for(path) + ":" + std::to_string(line > 0 ? line : 1) + ": " +
                            (path.empty() ? "" : path + ": ") + msg);
    }
    const std::vector<std::string> &warnings() const { return warnings_; }

    const std::string &file() const { return file_; }
    // The file a key path is in (with `include:`, maybe an included one).
    std::string file_for(const std::string &path) const { return file_for_ ? file_for_(path) : file_; }
    // "file:line" of a line at a key path (directed steps name their place so).
    std::string where(int line, const std::string &path) const { return file_for(path) + ":" + std::to_string(line); }
    // The rules of the scenario's backend (backend/rules.h): set once `backend` is read.
    const BackendRules *backend = nullptr;
    // With `include:`, the file a key path came from (errors name it).
    std::function<std::string(const std::string &path)> file_for_;

  private:
    std::string file_;
    mutable std::vector<std::string> warnings_;
};

inline const char *kind_name(const YAML::Node &n) {
    switch (n.Type()) {
    case YAML::NodeType::Map: return "a mapping";
    case YAML::NodeType::Sequence: return "a list";
    case YAML::NodeType::Null: return "nothing";
    case YAML::NodeType::Scalar: return "a scalar";
    default: return "an undefined value";
    }
}

// A mapping whose keys are checked against an allowed list on construction.
class MapView {
  public:
    MapView(const Parser &p, const YAML::Node &node, std::string path, int line,
            std::vector<std::string> allowed)
        : p_(p), path_(std::move(path)), line_(line_of(node, line)) {
        if (SchemaRecorder *r = SchemaRecorder::active())
            r->object(path_, allowed);
        if (!node.IsMap())
            p_.fail(line_, path_, std::string("expected a mapping, got ") + kind_name(node));
        for (auto it = node.begin(); it != node.end(); ++it) {
            YAML::Node k = it->first; // by value: the iterator hands out a temporary pair
            int kline = line_of(k, line_);
            if (!k.IsScalar())
                p_.fail(kline, path_, "keys must be plain names");
            std::string key = k.Scalar();
            std::string kpath = join(key);
            if (std::find(allowed.begin(), allowed.end(), key) == allowed.end()) {
                std::string list;
                for (const auto &a : allowed)
                    list += (list.empty() ? "" : ", ") + a;
                p_.fail(kline, kpath, "unknown key" + did_you_mean(key, allowed) + " (expected one of: " + list + ")");
            }
            if (fields_.count(key))
                p_.fail(kline, kpath, "duplicate key (first on line " +
                                          std::to_string(fields_[key].key_line) + ")");
            Field f;
            f.node = YAML::Node(it->second);
            f.path = kpath;
            f.key_line = kline;
            f.line = line_of(f.node, kline);
            fields_[key] = f;
        }
    }

    bool has(const std::string &k) const { return fields_.count(k) != 0; }
    const Field &get(const std::string &k) const { return fields_.at(k); }
    const Field *find(const std::string &k) const {
        auto it = fields_.find(k);
        return it == fields_.end() ? nullptr : &it->second;
    }
    int line() const { return line_; }
    const std::string &path() const { return path_; }
    std::string join(const std::string &k) const { return path_.empty() ? k : path_ + "." + k; }

  private:
    const Parser &p_;
    std::string path_;
    int line_;
    std::map<std::string, Field> fields_;
};

// ---------------------------------------------------------------------------------------
// Typed values

inline std::string scalar(const Parser &p, const Field &f, const char *what) {
    if (!f.node.IsScalar())
        p.fail(f, std::string("expected ") + what + ", got " + kind_name(f.node));
    return f.node.Scalar();
}

inline std::string as_string(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->string(f.path);
    return scalar(p, f, "a string");
}

inline uint64_t as_uint(const Parser &p, const Field &f, uint64_t lo, uint64_t hi) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->integer(f.path, lo, hi);
    std::string s = scalar(p, f, "an integer");
    auto v = parse_uint(s);
    if (!v)
        p.fail(f, "expected a non-negative integer, got '" + s + "'");
    if (*v < lo || *v > hi)
        p.fail(f, s + " is out of range (" + std::to_string(lo) + ".." + std::to_string(hi) + ")");
    return *v;
}

inline bool as_bool(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->boolean(f.path);
    std::string s = scalar(p, f, "true or false");
    std::string l;
    for (char c : s)
        l.push_back(char(std::tolower(static_cast<unsigned char>(c))));
    if (l == "true" || l == "yes" || l == "on")
        return true;
    if (l == "false" || l == "no" || l == "off")
        return false;
    p.fail(f, "expected true or false, got '" + s + "'");
}

template <typename E>
E as_enum(const Parser &p, const Field &f, const std::vector<std::pair<const char *, E>> &names) {
    if (SchemaRecorder *r = SchemaRecorder::active()) {
        std::vector<std::string> all;
        for (const auto &n : names)
            all.push_back(n.first);
        r->enumeration(f.path, all);
    }
    std::string s = scalar(p, f, "a name");
    for (const auto &n : names)
        if (s == n.first)
            return n.second;
    std::string list;
    std::vector<std::string> all;
    for (const auto &n : names) {
        list += (list.empty() ? "" : ", ") + std::string(n.first);
        all.push_back(n.first);
    }
    p.fail(f, "unknown value '" + s + "'" + did_you_mean(s, all) + " (expected one of: " + list + ")");
}

// A scalar in units: parse() returns nullopt and says why for anything it cannot take.
template <typename T, typename Parse>
T as_quantity(const Parser &p, const Field &f, const std::string &what, Parse parse) {
    std::string s = scalar(p, f, ("a " + what).c_str());
    std::string why;
    std::optional<T> v = parse(s, &why);
    if (!v)
        p.fail(f, "bad " + what + " '" + s + "': " + why);
    return *v;
}

inline uint64_t as_sectors(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->quantity(f.path, "sectors");
    return as_quantity<uint64_t>(p, f, "size", parse_size_sectors);
}

// A size in a drive's logical sectors of 512 << log2 bytes (a 4Kn drive's 4096): a bare
// integer counts them, a size with a unit is bytes and a whole number of them.
inline uint64_t as_sectors_of(const Parser &p, const Field &f, unsigned log2) {
    if (!log2)
        return as_sectors(p, f);
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->quantity(f.path, "sectors");
    const uint64_t ss = 512ull << log2;
    return as_quantity<uint64_t>(p, f, "size", [ss](const std::string &s, std::string *why) -> std::optional<uint64_t> {
        auto bytes = parse_size_bytes(s, ss, why);
        if (!bytes)
            return std::nullopt;
        if (*bytes % ss) {
            *why = "not a whole number of the drive's " + std::to_string(ss) + "-byte logical sectors";
            return std::nullopt;
        }
        return *bytes / ss;
    });
}

inline uint64_t as_bytes(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->quantity(f.path, "bytes");
    return as_quantity<uint64_t>(p, f, "size", [](const std::string &s, std::string *why) {
        return parse_size_bytes(s, 1, why);
    });
}

inline uint64_t as_time_ns(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->quantity(f.path, "time");
    return as_quantity<uint64_t>(p, f, "time", parse_time_ns);
}

inline double as_rate(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->quantity(f.path, "rate");
    return as_quantity<double>(p, f, "rate", parse_rate_mb_s);
}

inline std::string as_ident_string(const Parser &p, const Field &f, size_t max_len) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->string(f.path, max_len);
    std::string s = as_string(p, f);
    if (s.size() > max_len)
        p.fail(f, "'" + s + "' is longer than " + std::to_string(max_len) + " characters");
    for (unsigned char c : s)
        if (c < 0x20 || c > 0x7e)
            p.fail(f, "only printable ASCII is allowed in IDENTIFY strings");
    return s;
}

inline const YAML::Node &as_list(const Parser &p, const Field &f) {
    if (SchemaRecorder *r = SchemaRecorder::active())
        r->array(f.path);
    if (!f.node.IsSequence())
        p.fail(f, std::string("expected a list, got ") + kind_name(f.node));
    return f.node;
}

// Element i of a list, as a Field.
inline Field element(const Field &list, size_t i) {
    Field e;
    e.node = list.node[i];
    e.path = list.path + "[" + std::to_string(i) + "]";
    e.key_line = list.line;
    e.line = line_of(e.node, list.line);
    return e;
}

// Calls each(element, index) for every element of the list f (anything else is an error).
template <class Each> void for_each_element(const Parser &p, const Field &f, Each &&each) {
    const YAML::Node &l = as_list(p, f);
    for (size_t i = 0; i < l.size(); ++i)
        each(element(f, i), i);
}

inline std::vector<std::string> as_string_list(const Parser &p, const Field &f) {
    std::vector<std::string> out;
    for_each_element(p, f, [&](const Field &e, size_t) { out.push_back(as_string(p, e)); });
    return out;
}

} // namespace satasim::harness
