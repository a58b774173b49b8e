#include "scenario/units.h"

#include <cctype>
#include <cstdio>

namespace satasim::harness {

namespace {

std::string lower(std::string s) {
    for (char &c : s)
        c = char(std::tolower(static_cast<unsigned char>(c)));
    return s;
}


// An exact decimal: value = mant / 10^frac_digits.
struct Decimal {
    uint64_t mant = 0;
    unsigned frac_digits = 0;
};

// Parses the leading decimal number of s; rest receives the remainder (the unit).
bool split_number(const std::string &s, Decimal *d, std::string *rest, std::string *why) {
    size_t i = 0;
    bool any = false, dot = false;
    d->mant = 0;
    d->frac_digits = 0;
    for (; i < s.size(); ++i) {
        char c = s[i];
        if (c >= '0' && c <= '9') {
            if (d->mant > (UINT64_MAX - 9) / 10) {
                *why = "number too large";
                return false;
            }
            d->mant = d->mant * 10 + uint64_t(c - '0');
            if (dot)
                ++d->frac_digits;
            any = true;
        } else if (c == '.' && !dot) {
            dot = true;
        } else {
            break;
        }
    }
    if (!any) {
        *why = "expected a number";
        return false;
    }
    if (d->frac_digits > 9) {
        *why = "too many decimal places";
        return false;
    }
    *rest = trim(s.substr(i));
    return true;
}

uint64_t pow10u(unsigned n) {
    uint64_t v = 1;
    while (n--)
        v *= 10;
    return v;
}

// mant * factor / 10^frac exactly, or false (not whole, or overflow).
bool scale_exact(const Decimal &d, uint64_t factor, uint64_t *out, std::string *why) {
    unsigned __int128 v = static_cast<unsigned __int128>(d.mant) * factor;
    uint64_t div = pow10u(d.frac_digits);
    if (v % div != 0) {
        *why = "not a whole number of the base unit";
        return false;
    }
    v /= div;
    if (v > UINT64_MAX) {
        *why = "value too large";
        return false;
    }
    *out = uint64_t(v);
    return true;
}

} // namespace

std::optional<uint64_t> parse_uint(const std::string &text) {
    std::string s = trim(text);
    if (s.empty())
        return std::nullopt;
    uint64_t v = 0;
    if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        for (size_t i = 2; i < s.size(); ++i) {
            char c = char(std::tolower(static_cast<unsigned char>(s[i])));
            unsigned dgt;
            if (c >= '0' && c <= '9')
                dgt = unsigned(c - '0');
            else if (c >= 'a' && c <= 'f')
                dgt = unsigned(c - 'a' + 10);
            else
                return std::nullopt;
            if (v > (UINT64_MAX >> 4))
                return std::nullopt;
            v = v << 4 | dgt;
        }
        return v;
    }
    for (char c : s) {
        if (c < '0' || c > '9')
            return std::nullopt;
        if (v > (UINT64_MAX - 9) / 10)
            return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    return v;
}

namespace {

struct UnitFactor {
    const char *unit; // lower case
    uint64_t factor;  // base units per unit
};

// What one kind of quantity accepts, for parse_scaled and its messages.
struct QuantityKind {
    const char *kind;         // "size", "time": named in messages
    const char *base;         // "bytes", "nanoseconds"
    const char *unit_help;    // the units listed when one is unknown
    const UnitFactor *units;
    size_t n_units;
};

// A decimal number with a unit, scaled exactly to whole base units. bare_factor applies
// to a number without a unit; without one a unit is required.
std::optional<uint64_t> parse_scaled(const std::string &text, const QuantityKind &q,
                                     std::optional<uint64_t> bare_factor, std::string *why) {
    Decimal d;
    std::string unit;
    if (!split_number(trim(text), &d, &unit, why))
        return std::nullopt;
    unit = lower(unit);
    std::optional<uint64_t> factor;
    if (unit.empty()) {
        factor = bare_factor;
        if (!factor) {
            *why = std::string("a ") + q.kind + " needs a unit (" + q.unit_help + ")";
            return std::nullopt;
        }
    }
    for (size_t i = 0; !factor && i < q.n_units; ++i)
        if (unit == q.units[i].unit)
            factor = q.units[i].factor;
    if (!factor) {
        *why = std::string("unknown ") + q.kind + " unit '" + unit + "' (use " + q.unit_help + ")";
        return std::nullopt;
    }
    uint64_t out;
    if (!scale_exact(d, *factor, &out, why)) {
        if (*why == "not a whole number of the base unit")
            *why = std::string("not a whole number of ") + q.base;
        return std::nullopt;
    }
    return out;
}

const UnitFactor kSizeUnits[] = {
    {"b", 1},           {"s", kSectorBytes},
    {"k", 1ull << 10},  {"kib", 1ull << 10}, {"m", 1ull << 20}, {"mib", 1ull << 20},
    {"g", 1ull << 30},  {"gib", 1ull << 30}, {"t", 1ull << 40}, {"tib", 1ull << 40},
    {"kb", 1000ull},    {"mb", 1000ull * 1000}, {"gb", 1000ull * 1000 * 1000},
    {"tb", 1000ull * 1000 * 1000 * 1000},
};
const QuantityKind kSize = {"size", "bytes", "b, s, k/KiB, m/MiB, g/GiB, t/TiB, kB, MB, GB, TB",
                            kSizeUnits, sizeof kSizeUnits / sizeof kSizeUnits[0]};

const UnitFactor kTimeUnits[] = {
    {"ns", 1}, {"us", 1000}, {"\xc2\xb5s", 1000}, {"ms", 1000 * 1000},
    {"s", 1000ull * 1000 * 1000}, {"min", 60ull * 1000 * 1000 * 1000},
};
const QuantityKind kTime = {"time", "nanoseconds", "ns, us, ms, s, min", kTimeUnits,
                            sizeof kTimeUnits / sizeof kTimeUnits[0]};

} // namespace

std::optional<uint64_t> parse_size_bytes(const std::string &text, uint64_t bare_unit,
                                         std::string *why) {
    return parse_scaled(text, kSize, bare_unit, why);
}

std::optional<uint64_t> parse_size_sectors(const std::string &text, std::string *why) {
    auto bytes = parse_size_bytes(text, kSectorBytes, why);
    if (!bytes)
        return std::nullopt;
    if (*bytes % kSectorBytes != 0) {
        *why = "size " + trim(text) + " is not a multiple of 512 bytes";
        return std::nullopt;
    }
    return *bytes / kSectorBytes;
}

std::optional<uint64_t> parse_time_ns(const std::string &text, std::string *why) {
    return parse_scaled(text, kTime, std::nullopt, why);
}

std::optional<double> parse_rate_mb_s(const std::string &text, std::string *why) {
    std::string s = trim(text);
    Decimal d;
    std::string unit;
    if (!split_number(s, &d, &unit, why))
        return std::nullopt;
    std::string u = lower(unit);
    double factor; // bytes per second per unit
    if (u == "b/s")
        factor = 1;
    else if (u == "kb/s")
        factor = 1e3;
    else if (u == "mb/s")
        factor = 1e6;
    else if (u == "gb/s")
        factor = 1e9;
    else if (u == "kib/s")
        factor = 1024.0;
    else if (u == "mib/s")
        factor = 1024.0 * 1024;
    else if (u == "gib/s")
        factor = 1024.0 * 1024 * 1024;
    else {
        *why = unit.empty() ? std::string("a rate needs a unit (e.g. 550MB/s)")
                            : "unknown rate unit '" + unit + "' (use B/s, kB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s)";
        return std::nullopt;
    }
    double v = double(d.mant) / double(pow10u(d.frac_digits)) * factor / 1e6;
    if (!(v > 0)) {
        *why = "a rate must be positive";
        return std::nullopt;
    }
    return v;
}

std::string format_seconds(uint64_t ns, int decimals) {
    // Fixed formatting from integers: no floating point reaches deterministic output.
    uint64_t sec = ns / 1000000000ull, frac = ns % 1000000000ull;
    if (decimals <= 0)
        return std::to_string(sec);
    if (decimals > 9)
        decimals = 9;
    uint64_t div = pow10u(unsigned(9 - decimals));
    frac /= div;
    char buf[64];
    std::snprintf(buf, sizeof buf, "%llu.%0*llu", (unsigned long long)sec, decimals,
                  (unsigned long long)frac);
    return buf;
}

std::string trim(const std::string &s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b])))
        ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1])))
        --e;
    return s.substr(b, e - b);
}

} // namespace satasim::harness
