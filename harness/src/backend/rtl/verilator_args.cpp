// What a DUT profile may hand to Verilator (verilator_args.h). The options are Verilator
// 5's (verilator(1), "Arguments"); an allow-list, so that an option added to Verilator
// later is refused until someone has read what it does. The forms are matched by hand
// (std::regex is slow and, under GCC 12's sanitizers, not warning-free).
#include "backend/rtl/verilator_args.h"

#include <cctype>
#include <cstring>
#include <utility>

namespace satasim::harness::rtl {

namespace {

constexpr size_t kMaxOptionChars = 128;
constexpr size_t kMaxConstantChars = 256;

using Form = bool (*)(const std::string &);

bool all_of(const std::string &s, size_t from, const char *chars, bool alnum = false) {
    for (size_t i = from; i < s.size(); ++i) {
        const unsigned char c = static_cast<unsigned char>(s[i]);
        if (!(alnum && std::isalnum(c)) && !std::strchr(chars, c))
            return false;
    }
    return true;
}
bool digits(const std::string &s, size_t from = 0) { return from < s.size() && all_of(s, from, "0123456789"); }
bool starts(const std::string &s, const char *prefix) { return s.rfind(prefix, 0) == 0; }

// -Wall, -Wno-WIDTH, -Wwarn-X, -Werror-X, -Wfuture-X: a warning's name after the prefix
bool warning_option(const std::string &s) {
    if (!starts(s, "-W"))
        return false;
    size_t at = 2;
    for (const char *p : {"no-", "warn-", "error-", "future-"})
        if (s.compare(2, std::strlen(p), p) == 0) {
            at += std::strlen(p);
            break;
        }
    return at < s.size() && std::isalpha(static_cast<unsigned char>(s[at])) && all_of(s, at, "_", true);
}
// -fno-NAME: switches one of Verilator's optimisations off
bool optimisation_off(const std::string &s) {
    return s.size() > 5 && starts(s, "-fno-") && std::islower(static_cast<unsigned char>(s[5])) &&
           all_of(s, 5, "abcdefghijklmnopqrstuvwxyz0123456789-");
}
// +libext+.v+.sv
bool libext(const std::string &s) {
    if (!starts(s, "+libext") || s.size() == 7)
        return false;
    for (size_t at = 7; at < s.size();) {
        if (s.compare(at, 2, "+.") != 0)
            return false;
        size_t end = at + 2;
        while (end < s.size() && std::isalnum(static_cast<unsigned char>(s[end])))
            ++end;
        if (end == at + 2)
            return false;
        at = end;
    }
    return true;
}
bool one_of(const std::string &s, std::initializer_list<const char *> names) {
    for (const char *n : names)
        if (s == n)
            return true;
    return false;
}
bool x_assign(const std::string &s) { return one_of(s, {"0", "1", "fast", "unique"}); }
bool x_initial(const std::string &s) { return one_of(s, {"0", "unique", "fast"}); }
bool small_number(const std::string &s) { return s.size() <= 7 && digits(s); }
bool language(const std::string &s) {
    return one_of(s, {"1364-1995", "1364-2001", "1364-2005", "1800-2005", "1800-2009", "1800-2012", "1800-2017",
                      "1800-2023"});
}
// 1ns/1ps: a number and a unit, twice
bool timescale(const std::string &s) {
    const size_t slash = s.find('/');
    if (slash == std::string::npos)
        return false;
    auto part = [](const std::string &p) {
        size_t n = 0;
        while (n < p.size() && std::isdigit(static_cast<unsigned char>(p[n])))
            ++n;
        return n > 0 && one_of(p.substr(n), {"s", "ms", "us", "ns", "ps", "fs"});
    };
    return part(s.substr(0, slash)) && part(s.substr(slash + 1));
}

// Options that stand alone: exact names, then patterns (a warning's name, an
// optimisation's -fno-NAME).
const char *const kPlainOptions[] = {
    "-O0", "-O1", "-O2", "-O3", "-Os", "-sv", "-Wall", "-Wpedantic", "-Wno-fatal", "-Wno-lint", "-Wno-style",
    "--assert", "--no-assert", "--timing", "--no-timing", "--bbox-sys", "--bbox-unsup", "--relative-includes",
    "--no-relative-includes", "--x-initial-edge", "--no-decoration", "--public", "--public-flat-rw",
    "--no-skip-identical", "--timescale-override"};
const Form kPlainForms[] = {warning_option, optimisation_off, libext};

// Options that take the next entry as their value, and the values each takes.
struct ValueOption {
    const char *name;
    Form value;
    const char *values; // for the message
};
const ValueOption kValueOptions[] = {
    {"--x-assign", x_assign, "0, 1, fast or unique"},
    {"--x-initial", x_initial, "0, unique or fast"},
    {"--timescale", timescale, "a time unit / precision such as 1ns/1ps"},
    {"--default-language", language, "a standard such as 1800-2017"},
    {"--language", language, "a standard such as 1800-2017"},
    {"--unroll-count", small_number, "a number"},
    {"--unroll-stmts", small_number, "a number"},
    {"--inline-mult", small_number, "a number"},
    {"--output-split", small_number, "a number"},
    {"--output-split-cfuncs", small_number, "a number"},
    {"--converge-limit", small_number, "a number"},
    {"--max-num-width", small_number, "a number"},
};

// The forms of a Verilog constant a profile may give.
bool decimal(const std::string &s) { return digits(s, s[0] == '-' ? 1 : 0) && s.back() != '_' && s[s[0] == '-'] != '_'; }
bool based(const std::string &s) { // [size]'[s]base digits: 8'hFF, 'b1x0z, 16'sd5
    const size_t q = s.find('\'');
    if (q == std::string::npos || (q > 0 && !digits(s.substr(0, q))))
        return false;
    size_t at = q + 1;
    if (at < s.size() && (s[at] == 's' || s[at] == 'S'))
        ++at;
    if (at >= s.size() || !std::strchr("bBoOdDhH", s[at]))
        return false;
    return at + 1 < s.size() && all_of(s, at + 1, "abcdefABCDEF0123456789xXzZ?_");
}
bool real(const std::string &s) { // -1.5, 2.0e-3
    size_t at = s[0] == '-' ? 1 : 0, e = s.find_first_of("eE");
    const std::string mant = s.substr(at, e == std::string::npos ? std::string::npos : e - at);
    const size_t dot = mant.find('.');
    if (dot == std::string::npos || !digits(mant.substr(0, dot)) || !digits(mant.substr(dot + 1)))
        return false;
    if (e == std::string::npos)
        return true;
    const std::string ex = s.substr(e + 1);
    return digits(ex, !ex.empty() && (ex[0] == '-' || ex[0] == '+') ? 1 : 0);
}
bool identifier(const std::string &s) {
    return (std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_') && all_of(s, 1, "_", true);
}
bool plain_string(const std::string &s) { // "...", no '/'
    return s.size() >= 2 && s.front() == '"' && s.back() == '"' && all_of(s.substr(1, s.size() - 2), 0, "_.,:-", true);
}

} // namespace

std::optional<std::string> refused_verilator_option(const std::string &opt, bool *takes_value) {
    *takes_value = false;
    if (opt.size() > kMaxOptionChars)
        return "longer than any option Verilator has (" + std::to_string(opt.size()) + " characters)";
    for (const ValueOption &o : kValueOptions)
        if (opt == o.name) {
            *takes_value = true;
            return std::nullopt;
        }
    for (const char *name : kPlainOptions)
        if (opt == name)
            return std::nullopt;
    for (Form form : kPlainForms)
        if (form(opt))
            return std::nullopt;
    return std::string("not an option a profile may give: verilator_flags takes optimisation (-O3, -fno-*), "
                       "warning (-Wall, -Wno-*), X-handling (--x-assign, --x-initial), language, timescale and "
                       "unrolling options; one that reads or writes files or sets what the shell sets is refused "
                       "(docs/rtl-controller.md, what a profile may say)");
}

std::optional<std::string> refused_option_value(const std::string &opt, const std::string &value) {
    for (const ValueOption &o : kValueOptions)
        if (opt == o.name) {
            if (value.size() <= kMaxOptionChars && o.value(value))
                return std::nullopt;
            return "not a value " + opt + " takes (" + o.values + ")";
        }
    return "'" + opt + "' takes no value";
}

std::optional<std::string> refused_constant(const std::string &value, bool is_define) {
    if (value.size() > kMaxConstantChars)
        return "longer than " + std::to_string(kMaxConstantChars) + " characters";
    if (value.empty())
        return is_define ? std::nullopt : std::optional<std::string>("empty (a parameter needs a value)");
    for (Form form : {decimal, based, real, identifier, plain_string})
        if (form(value))
            return std::nullopt;
    return std::string("not a Verilog constant a profile may give: a number (42, -3, 8'hFF, 1.5), an identifier, "
                       "or a string \"...\" of letters, digits and _ . , : - (docs/rtl-controller.md)");
}

} // namespace satasim::harness::rtl
