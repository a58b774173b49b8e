// A JSON reader (RFC 8259) for the files satasim writes and reads back, result.json first:
// the runner reads every run's verdict from it, and at a thousand disks the file is a
// megabyte that yaml-cpp (JSON is YAML) took a quarter of a CPU second to read.
// One value per text; numbers keep their literal so that 64-bit counters read back exact.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace satasim::harness {

// A malformed text: the line (1-based) and what was wrong there.
struct JsonError : std::runtime_error {
    JsonError(int line, const std::string &what)
        : std::runtime_error("line " + std::to_string(line) + ": " + what), line(line) {}
    int line;
};

class JsonValue {
  public:
    enum class Type { Null, Bool, Number, String, Array, Object };

    Type type() const { return type_; }
    bool is_null() const { return type_ == Type::Null; }
    bool is_string() const { return type_ == Type::String; }
    bool is_array() const { return type_ == Type::Array; }
    bool is_object() const { return type_ == Type::Object; }

    // An object's member, nullptr if absent (or if this is not an object).
    const JsonValue *find(const std::string &key) const;
    // An array's elements, an object's members' values in order (empty otherwise).
    const std::vector<JsonValue> &items() const { return items_; }
    // An object's member names, in the order of items() (empty otherwise).
    const std::vector<std::string> &keys() const { return keys_; }
    size_t size() const { return items_.size(); }

    // The value as a type; JsonError (line 0) if it is another type or out of range.
    const std::string &as_string() const;
    bool as_bool() const;
    uint64_t as_uint() const;
    int64_t as_int() const;
    double as_double() const;

  private:
    friend class JsonParser;
    Type type_ = Type::Null;
    bool b_ = false;
    std::string text_;                 // a string's value, a number's literal
    std::vector<std::string> keys_;    // an object's keys, in order
    std::vector<JsonValue> items_;     // an array's elements, an object's values
};

// Reads one JSON value (surrounding white space allowed, nothing else); JsonError names the
// line of the first fault. Nesting is limited to 256 levels.
JsonValue parse_json(const std::string &text);

} // namespace satasim::harness
