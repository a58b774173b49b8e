// A small streaming JSON writer with deterministic formatting: keys in call order,
// integers as decimal, strings escaped to ASCII, floats only through fixed().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace satasim::harness {

// Appends s as a JSON string literal (quotes included) to out. Bytes >= 0x80 and control
// characters are written as \u00XX, so the output is always ASCII.
void json_escape(std::string &out, const std::string &s);
void json_escape(std::string &out, const char *s);

class JsonWriter {
  public:
    explicit JsonWriter(bool pretty = false) : pretty_(pretty) {}

    JsonWriter &begin_object();
    JsonWriter &end_object();
    JsonWriter &begin_array();
    JsonWriter &end_array();
    JsonWriter &key(const std::string &k);

    JsonWriter &value(const std::string &s);
    JsonWriter &value(const char *s);
    JsonWriter &value(int64_t v);
    JsonWriter &value(uint64_t v);
    JsonWriter &value(int v) { return value(int64_t(v)); }
    JsonWriter &value(unsigned v) { return value(uint64_t(v)); }
    JsonWriter &value(bool v);
    JsonWriter &null();
    // An array of strings (the reasons and name lists of result.json and summary.json).
    JsonWriter &value(const std::vector<std::string> &items);
    // A number with a fixed count of decimals (wall-clock figures only).
    JsonWriter &fixed(double v, int decimals);

    template <typename T> JsonWriter &kv(const std::string &k, const T &v) {
        key(k);
        return value(v);
    }

    const std::string &str() const { return out_; }
    std::string take() { return std::move(out_); }

  private:
    void before_value();
    void newline();
    bool pretty_;
    std::string out_;
    struct Level {
        bool array;
        bool empty;
    };
    std::vector<Level> stack_;
    bool after_key_ = false;
};

} // namespace satasim::harness
