// Where models report hardware events (state changes, resets, injected faults).
// The harness owns the one sink that turns these and the stack's events into the
// JSON-lines trace and the human log; models only see this interface.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace satasim {

struct TraceValue {
    enum class Kind { Int, Hex, Str, Bool } kind = Kind::Int;
    int64_t i = 0;
    std::string s;
    static TraceValue integer(int64_t v) { return {Kind::Int, v, {}}; }
    static TraceValue hex(uint64_t v) { return {Kind::Hex, int64_t(v), {}}; }
    static TraceValue str(std::string v) { return {Kind::Str, 0, std::move(v)}; }
    static TraceValue boolean(bool v) { return {Kind::Bool, v ? 1 : 0, {}}; }
};

struct TraceRecord {
    std::string src;  // model instance name, e.g. "ahci0", "disk1", "link0"
    std::string name; // dotted event name, e.g. "phy.up", "ahci.port_reset"
    int port = -1;    // host port the event belongs to, -1 if none
    int link = -1;    // PMP fan-out port, -1 for the host link
    int dev = -1;
    std::vector<std::pair<std::string, TraceValue>> fields;
    std::string msg;  // optional human text (model events are not in libata's log)
};

class ModelTrace {
  public:
    virtual ~ModelTrace() = default;
    // Timestamped by the sink with the current simulated time.
    virtual void emit(const TraceRecord &rec) = 0;
};

// One record from model instance src about a host port (-1: the whole controller); a
// model built without a sink traces nothing.
inline void emit_port_event(ModelTrace *sink, std::string src, const char *event, int port,
                            std::vector<std::pair<std::string, TraceValue>> fields,
                            std::string msg) {
    if (!sink)
        return;
    TraceRecord r;
    r.src = std::move(src);
    r.name = event;
    r.port = port;
    r.fields = std::move(fields);
    r.msg = std::move(msg);
    sink->emit(r);
}

} // namespace satasim
