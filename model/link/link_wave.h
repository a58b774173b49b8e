// Waveform probes of one SataLink (model/wave): PhyRdy and generation, and per direction
// the primitive on the wire (dword level only), the frame (SOF..EOF) and its FIS type.
// Created by SataLink::set_wave(); the link calls it from three places (PHY change, frame
// start, every wire dword in dword mode), each behind one pointer test.
#pragma once

#include <cstdint>

#include "model/link/sata_link.h"
#include "model/wave/wave_probe.h"

namespace satasim::link {

class LinkWave {
  public:
    // scope: the link's waveform scope name ("link0", "link0_2"); port: host port.
    LinkWave(SataLink &link, wave::Sink *sink, const std::string &scope, int port);

    // PhyRdy / generation may have changed (from SataLink::emit()).
    void phy();
    // A frame owns the wire from now on (SataLink::send()).
    void frame(bool from_host, const sata::Fis &fis);
    // A dword goes out on the wire at dword mode (the Wire hook, after fault rewriting).
    void dword(bool from_host, uint32_t d, bool isk);

  private:
    struct Dir {
        wave::Signal prim, frame, fis;
        uint8_t pending_type = 0; // FIS type of the frame being sent (dword mode)
        uint8_t continued = wave::prim_code::kSync; // primitive a CONT run continues
        bool in_cont = false;
        uint64_t last_t = 0; // latest time reported (bursts and FIS-level frames run ahead)
        // Changes of one direction never go back in time.
        void at(wave::Signal &s, uint64_t t, uint64_t v) {
            if (t < last_t)
                t = last_t;
            last_t = t;
            s.set_at(t, v);
        }
        // The PHY went down at t: what a burst or frame reported ahead of t never went out.
        void cut(uint64_t t) {
            last_t = t;
            prim.cut_at(t, wave::prim_code::kNone);
            frame.cut_at(t, 0);
            fis.cut_at(t, 0);
        }
    };
    uint64_t dword_time(); // time of the dword being ticked now
    SataLink &link_;
    wave::Signal phy_rdy_, gen_;
    Dir dir_[2]; // [0] host->device, [1] device->host
    // Dword-mode time base: the rtl cycle count at the start of the burst being ticked,
    // and the simulated time of that start.
    uint64_t base_cycle_ = 0;
    uint64_t base_time_ = ~uint64_t(0);
};

} // namespace satasim::link
