// A ModelTrace that keeps every record, for model tests that assert on trace events
// (counts by name, by violation rule, any violation at all).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "model/common/trace.h"

namespace satasim::test {

struct RecordingTrace : ModelTrace {
    std::vector<TraceRecord> recs;
    void emit(const TraceRecord &r) override { recs.push_back(r); }
    // Records named `name`; with `rule`, only those whose "rule" field is `rule`.
    size_t count(const std::string &name, const std::string &rule = {}) const {
        size_t n = 0;
        for (const auto &r : recs) {
            if (r.name != name)
                continue;
            bool hit = rule.empty();
            for (const auto &f : r.fields)
                hit = hit || (f.first == "rule" && f.second.s == rule);
            n += hit;
        }
        return n;
    }
    // Every `*.violation` record, whichever block emitted it.
    size_t violations() const {
        size_t n = 0;
        for (const auto &r : recs)
            n += r.name.size() > 10 && r.name.compare(r.name.size() - 10, 10, ".violation") == 0;
        return n;
    }
};

// Base class for a bench whose models trace into `tr`: listed first among the bases, so the
// trace exists before the models that keep a pointer to it are built.
struct RecordingTraceHolder {
    RecordingTrace tr;
};

} // namespace satasim::test
