// Reading a trace record's fields: what the EH-rule monitors (eh_rules.cpp,
// eh_policy_rules.cpp) ask of every record.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "model/common/trace.h"

namespace satasim::harness::trace_fields {

inline const TraceValue *field(const TraceRecord &r, const char *key) {
    for (const auto &f : r.fields)
        if (f.first == key)
            return &f.second;
    return nullptr;
}
// A numeric field, or dflt when it is missing or a string.
inline int64_t num(const TraceRecord &r, const char *key, int64_t dflt) {
    const TraceValue *f = field(r, key);
    return f && f->kind != TraceValue::Kind::Str ? f->i : dflt;
}
inline std::string str(const TraceRecord &r, const char *key) {
    const TraceValue *f = field(r, key);
    return f && f->kind == TraceValue::Kind::Str ? f->s : std::string();
}
inline std::string hex(uint64_t v) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
    return b;
}
inline bool contains(const std::string &s, const char *w) { return s.find(w) != std::string::npos; }

} // namespace satasim::harness::trace_fields
