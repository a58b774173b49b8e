// RFC 8259 by recursive descent over the text; the grammar's sections are named where the
// code follows them (7 strings, 6 numbers, 4 objects, 5 arrays).
#include "trace/json_reader.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace satasim::harness {

namespace {
constexpr int kMaxDepth = 256;
} // namespace

class JsonParser {
  public:
    explicit JsonParser(const std::string &t) : s_(t) {}

    JsonValue document() {
        JsonValue v = value(0);
        space();
        if (i_ != s_.size())
            fail("content after the JSON value");
        return v;
    }

  private:
    const std::string &s_;
    size_t i_ = 0;

    [[noreturn]] void fail(const std::string &what) const {
        int line = 1;
        for (size_t k = 0; k < i_ && k < s_.size(); ++k)
            line += s_[k] == '\n';
        throw JsonError(line, what);
    }

    void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r'))
            ++i_;
    }

    bool literal(const char *word) {
        const size_t n = std::strlen(word);
        if (s_.compare(i_, n, word) != 0)
            return false;
        i_ += n;
        return true;
    }

    JsonValue value(int depth) {
        space();
        if (i_ >= s_.size())
            fail("a value expected, the text ended");
        JsonValue v;
        const char c = s_[i_];
        if (c == '{' || c == '[') {
            if (depth >= kMaxDepth)
                fail("nested more than " + std::to_string(kMaxDepth) + " levels");
            return c == '{' ? object(depth + 1) : array(depth + 1);
        }
        if (c == '"') {
            v.type_ = JsonValue::Type::String;
            v.text_ = string();
        } else if (literal("true")) {
            v.type_ = JsonValue::Type::Bool;
            v.b_ = true;
        } else if (literal("false")) {
            v.type_ = JsonValue::Type::Bool;
        } else if (literal("null")) {
            v.type_ = JsonValue::Type::Null;
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            v.type_ = JsonValue::Type::Number;
            v.text_ = number();
        } else {
            fail(std::string("unexpected '") + c + "'");
        }
        return v;
    }

    // 4: '{' [ string ':' value *( ',' string ':' value ) ] '}'
    JsonValue object(int depth) {
        JsonValue v;
        v.type_ = JsonValue::Type::Object;
        ++i_;
        space();
        if (i_ < s_.size() && s_[i_] == '}') {
            ++i_;
            return v;
        }
        for (;;) {
            space();
            if (i_ >= s_.size() || s_[i_] != '"')
                fail("an object member's name (a string) expected");
            v.keys_.push_back(string());
            space();
            if (i_ >= s_.size() || s_[i_] != ':')
                fail("':' expected after an object member's name");
            ++i_;
            v.items_.push_back(value(depth));
            space();
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (i_ < s_.size() && s_[i_] == '}') {
                ++i_;
                return v;
            }
            fail("',' or '}' expected in an object");
        }
    }

    // 5: '[' [ value *( ',' value ) ] ']'
    JsonValue array(int depth) {
        JsonValue v;
        v.type_ = JsonValue::Type::Array;
        ++i_;
        space();
        if (i_ < s_.size() && s_[i_] == ']') {
            ++i_;
            return v;
        }
        for (;;) {
            v.items_.push_back(value(depth));
            space();
            if (i_ < s_.size() && s_[i_] == ',') {
                ++i_;
                continue;
            }
            if (i_ < s_.size() && s_[i_] == ']') {
                ++i_;
                return v;
            }
            fail("',' or ']' expected in an array");
        }
    }

    // 6: [ '-' ] int [ frac ] [ exp ]; int has no leading zero
    std::string number() {
        const size_t start = i_;
        auto digits = [&] {
            const size_t from = i_;
            while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9')
                ++i_;
            return i_ > from;
        };
        if (s_[i_] == '-')
            ++i_;
        if (i_ < s_.size() && s_[i_] == '0')
            ++i_;
        else if (!digits())
            fail("a digit expected in a number");
        if (i_ < s_.size() && s_[i_] == '.') {
            ++i_;
            if (!digits())
                fail("a digit expected after a number's '.'");
        }
        if (i_ < s_.size() && (s_[i_] == 'e' || s_[i_] == 'E')) {
            ++i_;
            if (i_ < s_.size() && (s_[i_] == '+' || s_[i_] == '-'))
                ++i_;
            if (!digits())
                fail("a digit expected in a number's exponent");
        }
        return s_.substr(start, i_ - start);
    }

    unsigned hex4() {
        unsigned u = 0;
        for (int k = 0; k < 4; ++k, ++i_) {
            if (i_ >= s_.size())
                fail("the text ended inside a \\u escape");
            const char h = s_[i_];
            u <<= 4;
            if (h >= '0' && h <= '9')
                u |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f')
                u |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F')
                u |= unsigned(h - 'A' + 10);
            else
                fail("four hex digits expected after \\u");
        }
        return u;
    }

    static void put_utf8(std::string &out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    // 7: '"' *char '"', control characters escaped, \uXXXX with surrogate pairs
    std::string string() {
        std::string out;
        ++i_;
        for (;;) {
            const size_t run = i_;
            while (i_ < s_.size() && s_[i_] != '"' && s_[i_] != '\\' && (unsigned char)s_[i_] >= 0x20)
                ++i_;
            out.append(s_, run, i_ - run);
            if (i_ >= s_.size())
                fail("the text ended inside a string");
            const char c = s_[i_++];
            if (c == '"')
                return out;
            if (c != '\\') {
                --i_; // the line of the character itself
                fail("a control character inside a string (it must be escaped)");
            }
            if (i_ >= s_.size())
                fail("the text ended inside a string");
            switch (s_[i_++]) {
            case '"': out += '"'; break;
            case '\\': out += '\\'; break;
            case '/': out += '/'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'n': out += '\n'; break;
            case 'r': out += '\r'; break;
            case 't': out += '\t'; break;
            case 'u': {
                unsigned cp = hex4();
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    if (!literal("\\u"))
                        fail("a high surrogate without its low surrogate");
                    const unsigned lo = hex4();
                    if (lo < 0xDC00 || lo > 0xDFFF)
                        fail("a high surrogate without its low surrogate");
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    fail("a low surrogate without its high surrogate");
                }
                put_utf8(out, cp);
                break;
            }
            default:
                --i_;
                fail(std::string("unknown escape '\\") + s_[i_] + "'");
            }
        }
    }
};

JsonValue parse_json(const std::string &text) { return JsonParser(text).document(); }

const JsonValue *JsonValue::find(const std::string &key) const {
    if (type_ != Type::Object)
        return nullptr;
    for (size_t k = 0; k < keys_.size(); ++k)
        if (keys_[k] == key)
            return &items_[k];
    return nullptr;
}

namespace {
[[noreturn]] void wrong(const char *want) { throw JsonError(0, std::string("not ") + want); }
} // namespace

const std::string &JsonValue::as_string() const {
    if (type_ != Type::String)
        wrong("a string");
    return text_;
}

bool JsonValue::as_bool() const {
    if (type_ != Type::Bool)
        wrong("true or false");
    return b_;
}

uint64_t JsonValue::as_uint() const {
    if (type_ != Type::Number || text_.find_first_not_of("0123456789") != std::string::npos)
        wrong("an unsigned integer");
    errno = 0;
    const unsigned long long v = std::strtoull(text_.c_str(), nullptr, 10);
    if (errno == ERANGE)
        wrong("an unsigned integer of 64 bits");
    return uint64_t(v);
}

int64_t JsonValue::as_int() const {
    if (type_ != Type::Number || text_.find_first_of(".eE") != std::string::npos)
        wrong("an integer");
    errno = 0;
    const long long v = std::strtoll(text_.c_str(), nullptr, 10);
    if (errno == ERANGE)
        wrong("an integer of 64 bits");
    return int64_t(v);
}

double JsonValue::as_double() const {
    if (type_ != Type::Number)
        wrong("a number");
    return std::strtod(text_.c_str(), nullptr);
}

} // namespace satasim::harness
