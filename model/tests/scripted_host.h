// A SataDisk behind a real SataLink, driven at FIS level by a scripted host endpoint that
// plays the HBA's part (disk_sata_test, fault_disk_test): the test thread sends FISes and
// takes the drive's answers from a queue; everything traces into a RecordingTrace.
#pragma once

#include <deque>
#include <optional>

#include "model/device/sata_disk.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/tests/recording_trace.h"

namespace satasim::test {

struct ScriptedHost : link::LinkEndpoint {
    link::SataLink *link = nullptr;
    std::deque<sata::Fis> q;
    sc_core::sc_event ev;
    sc_core::sc_time next_timeout; // how long next() waits for a FIS unless told

    explicit ScriptedHost(sc_core::sc_time next_timeout) : next_timeout(next_timeout) {}
    bool receive_fis(const sata::Fis &f) override {
        q.push_back(f);
        ev.notify(sc_core::SC_ZERO_TIME);
        return true;
    }
    void phy_changed(bool, link::Gen) override {}
    // The next FIS from the drive, or nothing if none arrives within `timeout`.
    std::optional<sata::Fis> next(sc_core::sc_time timeout) {
        if (q.empty())
            sc_core::wait(timeout, ev);
        if (q.empty())
            return std::nullopt;
        sata::Fis f = q.front();
        q.pop_front();
        return f;
    }
    std::optional<sata::Fis> next() { return next(next_timeout); }
    void send(const sata::Fis &f) { link->send_from_host(f); }
};

// Trace first, so it exists before the link and the disk that trace into it.
struct ScriptedHostBench {
    RecordingTrace tr;
    ScriptedHost host;
    link::SataLink link;
    device::SataDisk disk;
    ScriptedHostBench(const char *link_name, const char *disk_name, const device::DiskConfig &cfg,
                      sc_core::sc_time host_timeout)
        : host(host_timeout), link(link_name, link::SataLink::Config{}, &tr),
          disk(disk_name, cfg, &tr) {
        link.attach(&host, &disk);
        disk.connect(&link);
        host.link = &link;
    }

    // COMRESET held for 1 ms (stale FISes dropped first); the drive's first FIS after it,
    // waited for up to 50 ms.
    std::optional<sata::Fis> comreset() {
        host.q.clear();
        link.host_comreset(true);
        sc_core::wait(1, sc_core::SC_MS);
        link.host_comreset(false);
        return host.next(sc_core::sc_time(50, sc_core::SC_MS));
    }
};

} // namespace satasim::test
