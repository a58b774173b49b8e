#include "trace/json_writer.h"

#include <cmath>
#include <cstdio>

namespace satasim::harness {

void json_escape(std::string &out, const char *s) {
    static const char hex[] = "0123456789abcdef";
    out.push_back('"');
    for (const unsigned char *p = reinterpret_cast<const unsigned char *>(s); *p; ++p) {
        unsigned char c = *p;
        switch (c) {
        case '"': out += "\\\""; break;
        case '\\': out += "\\\\"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        default:
            if (c < 0x20 || c >= 0x7f) {
                out += "\\u00";
                out.push_back(hex[c >> 4]);
                out.push_back(hex[c & 15]);
            } else {
                out.push_back(char(c));
            }
        }
    }
    out.push_back('"');
}

void json_escape(std::string &out, const std::string &s) {
    // Strings may hold NULs in theory; treat them as terminators like the C side does.
    json_escape(out, s.c_str());
}

void JsonWriter::newline() {
    if (!pretty_)
        return;
    out_.push_back('\n');
    out_.append(2 * stack_.size(), ' ');
}

void JsonWriter::before_value() {
    if (after_key_) {
        after_key_ = false;
        return;
    }
    if (!stack_.empty()) {
        if (!stack_.back().empty)
            out_.push_back(',');
        stack_.back().empty = false;
        newline();
    }
}

JsonWriter &JsonWriter::begin_object() {
    before_value();
    out_.push_back('{');
    stack_.push_back({false, true});
    return *this;
}

JsonWriter &JsonWriter::end_object() {
    bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty)
        newline();
    out_.push_back('}');
    if (stack_.empty() && pretty_)
        out_.push_back('\n');
    return *this;
}

JsonWriter &JsonWriter::begin_array() {
    before_value();
    out_.push_back('[');
    stack_.push_back({true, true});
    return *this;
}

JsonWriter &JsonWriter::end_array() {
    bool empty = stack_.back().empty;
    stack_.pop_back();
    if (!empty)
        newline();
    out_.push_back(']');
    return *this;
}

JsonWriter &JsonWriter::key(const std::string &k) {
    before_value();
    json_escape(out_, k);
    out_ += pretty_ ? ": " : ":";
    after_key_ = true;
    return *this;
}

JsonWriter &JsonWriter::value(const std::string &s) {
    before_value();
    json_escape(out_, s);
    return *this;
}

JsonWriter &JsonWriter::value(const char *s) {
    before_value();
    json_escape(out_, s ? s : "");
    return *this;
}

JsonWriter &JsonWriter::value(int64_t v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter &JsonWriter::value(uint64_t v) {
    before_value();
    out_ += std::to_string(v);
    return *this;
}

JsonWriter &JsonWriter::value(bool v) {
    before_value();
    out_ += v ? "true" : "false";
    return *this;
}

JsonWriter &JsonWriter::null() {
    before_value();
    out_ += "null";
    return *this;
}

JsonWriter &JsonWriter::value(const std::vector<std::string> &items) {
    begin_array();
    for (const std::string &s : items)
        value(s);
    return end_array();
}

JsonWriter &JsonWriter::fixed(double v, int decimals) {
    before_value();
    if (!std::isfinite(v)) {
        out_ += "null";
        return *this;
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    out_ += buf;
    return *this;
}

} // namespace satasim::harness
