// What a backend reports after the run (Backend::finish): how often each fault fired, each
// link's mode and clocks, and its own counters. Plain data; the run's report (trace/report.h)
// carries it into result.json and the verdict (run/verdict.h) reads the fault counts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace satasim::harness {

// One scenario fault and how often it fired.
struct FaultReport {
    std::string id, kind;
    unsigned port = 0;
    std::optional<unsigned> pmp_port;
    unsigned devno = 0;
    unsigned fired = 0;
    unsigned repeat = 1;    // its full count (0: fires for ever, no full count)
    unsigned min_fired = 0; // the scenario's `min_fired` (0: the full count)

    // Firings the run needs: min_fired, else the full count (at least once for ever-repeating).
    unsigned needed() const { return min_fired ? min_fired : repeat ? repeat : 1; }
    // Fired fewer times than its full count (whether or not the scenario allows it).
    bool partial() const { return repeat != 0 && fired < repeat; }
};

// One host-port link at the end of the run (backend systemc): its mode and the dword
// clocks it ticked (0 at FIS level; idle cycles are never ticked).
struct LinkReport {
    unsigned port = 0;
    std::string mode;
    uint64_t dword_cycles = 0;
};

struct BackendStats {
    std::vector<FaultReport> faults;
    std::vector<LinkReport> links;
    // The backend's own counters, in result.json order.
    std::vector<std::pair<std::string, uint64_t>> backend_stats;
};

} // namespace satasim::harness
