// Unit tests of the JSON reader (harness/src/trace/json_reader.h) against RFC 8259's grammar:
// what it must accept (with the values it must give) and what it must refuse, with the line.
#include <cstdint>
#include <string>

#include "model/tests/plain_check.h"
#include "trace/json_reader.h"

using namespace satasim::harness;

namespace {

int refused_line(const std::string &text) {
    try {
        parse_json(text);
    } catch (const JsonError &e) {
        return e.line;
    }
    return -1;
}

void values_read_back() {
    const JsonValue v = parse_json(
        " {\"verdict\": \"pass\", \"n\": 18446744073709551615, \"neg\": -42, \"f\": 2.5e-3,\n"
        "  \"t\": true, \"no\": false, \"z\": null, \"list\": [1, [], {}, \"x\"],\n"
        "  \"esc\": \"a\\\"b\\\\c\\/d\\n\\t\\u00e9\\ud83d\\ude00\"}\r\n");
    CHECK(v.is_object());
    CHECK(v.find("verdict")->as_string() == "pass");
    CHECK(v.find("n")->as_uint() == UINT64_MAX); // exact: a double would round it
    CHECK(v.find("neg")->as_int() == -42);
    CHECK(v.find("f")->as_double() == 2.5e-3);
    CHECK(v.find("t")->as_bool() && !v.find("no")->as_bool());
    CHECK(v.find("z")->is_null());
    CHECK(v.find("list")->size() == 4 && v.find("list")->items()[1].is_array() &&
          v.find("list")->items()[2].is_object() && v.find("list")->items()[3].as_string() == "x");
    CHECK(v.find("esc")->as_string() == "a\"b\\c/d\n\t\xC3\xA9\xF0\x9F\x98\x80");
    CHECK(v.find("absent") == nullptr);
}

void wrong_types_are_refused() {
    const JsonValue v = parse_json("{\"s\": \"1\", \"neg\": -1, \"big\": 18446744073709551616, \"f\": 1.5}");
    bool threw = false;
    try { v.find("s")->as_uint(); } catch (const JsonError &) { threw = true; }
    CHECK(threw);
    threw = false;
    try { v.find("neg")->as_uint(); } catch (const JsonError &) { threw = true; }
    CHECK(threw);
    threw = false;
    try { v.find("big")->as_uint(); } catch (const JsonError &) { threw = true; }
    CHECK(threw);
    threw = false;
    try { v.find("f")->as_int(); } catch (const JsonError &) { threw = true; }
    CHECK(threw);
}

void malformed_texts_are_refused_with_their_line() {
    CHECK(refused_line("") == 1);
    CHECK(refused_line("{\"a\": 1,\n}") == 2);            // trailing comma
    CHECK(refused_line("{\"a\" 1}") == 1);                 // no colon
    CHECK(refused_line("[1, 2\n\n") == 3);                 // unterminated array
    CHECK(refused_line("01") == 1);                        // leading zero
    CHECK(refused_line("1.") == 1);
    CHECK(refused_line("-") == 1);
    CHECK(refused_line("\"a\nb\"") == 1);                  // raw control character
    CHECK(refused_line("\"\\x\"") == 1);                   // unknown escape
    CHECK(refused_line("\"\\ud83d\"") == 1);               // lone high surrogate
    CHECK(refused_line("{} {}") == 1);                     // a second value
    CHECK(refused_line("{'a': 1}") == 1);                  // single quotes are not JSON
    CHECK(refused_line("[nan]") == 1);
    CHECK(refused_line(std::string(300, '[') + std::string(300, ']')) == 1); // nested too deeply
    CHECK(refused_line(std::string(256, '[') + std::string(256, ']')) == -1);
}

} // namespace

int main() {
    static const PlainCase cases[] = {
        {"values read back", values_read_back},
        {"wrong types are refused", wrong_types_are_refused},
        {"malformed texts are refused with their line", malformed_texts_are_refused_with_their_line},
    };
    return run_plain_cases(cases);
}
