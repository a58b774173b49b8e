// One SATA cable between a host-side endpoint (HBA port, later a PMP host side) and a
// device-side endpoint (disk, later a PMP device port): PHY state, OOB, speed
// negotiation, and frame delivery with the X_RDY/R_RDY ... R_OK/R_ERR handshake timing.
//
// This is the FIS-level wire: a frame costs the time its dwords take at the negotiated
// dword clock, without ticking them. The dword-level link (Verilog, Verilator) will
// replace the inside of this class; endpoints only ever see this interface.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>

#include "model/common/trace.h"
#include "model/sata/fis.h"

namespace satasim::link {

enum class Gen : uint8_t { None = 0, Gen1 = 1, Gen2 = 2, Gen3 = 3 };

// Dword period at a generation: 26.667 / 13.333 / 6.667 ns (hardware.md 2.1).
sc_core::sc_time dword_period(Gen gen);

// Result of one frame transmission, as the transmitter sees it.
enum class FrameStatus {
    Ok,     // R_OK
    Error,  // R_ERR (receiver rejected: bad CRC, refused FIS)
    NoLink, // PHY not ready: nothing was sent
};

// Implemented by each side of a link. Callbacks run inside the link's or the peer's
// process and must not block: queue the work and notify your own process.
class LinkEndpoint {
  public:
    virtual ~LinkEndpoint() = default;
    // A whole frame arrived with good CRC. Return false to answer R_ERR.
    virtual bool receive_fis(const sata::Fis &fis) = 0;
    // Flow control: while false, the transmitter keeps X_RDY up and waits; call
    // SataLink::receiver_ready_changed() when it becomes true.
    virtual bool ready_to_receive() const { return true; }
    // PhyRdy changed: up at gen, or down (gen == Gen::None).
    virtual void phy_changed(bool ready, Gen gen) = 0;
    // OOB reset signal from the peer: on the device side a COMRESET (hard reset starts),
    // on the host side a COMINIT (device-initiated, e.g. after power-on or hotplug).
    virtual void oob_reset() {}
};

class SataLink : public sc_core::sc_module {
  public:
    struct Config {
        Gen host_max = Gen::Gen3;   // fastest the host PHY supports
        Gen device_max = Gen::Gen3; // fastest the device PHY supports
        bool device_present = true;
        // Device's COMINIT answer delay after the COMRESET burst sequence ends (spec: within
        // 10 ms). Model choice (MEM): 20 us.
        double cominit_response_us = 20;
    };

    // Link overhead around the FIS dwords of one frame, in dwords at the negotiated rate:
    // X_RDY -> R_RDY round trip (4), SOF (1), CRC (1), EOF (1), WTRM -> R_OK round trip (4),
    // SYNC back to idle (2); plus one ALIGN pair per started 256 dwords of the frame.
    static constexpr unsigned kFrameOverheadDwords = 13;
    static unsigned frame_dwords(size_t fis_dwords);
    // Wire time of one frame carrying fis_dwords FIS dwords (header included) at gen.
    static sc_core::sc_time frame_time(Gen gen, size_t fis_dwords);
    // OOB durations (hardware.md 2.5), for tests and the harness.
    static sc_core::sc_time comreset_time();  // 6 x (160 + 480) UIoob
    static sc_core::sc_time comwake_time();   // 6 x (160 + 160) UIoob
    static sc_core::sc_time align_attempt();  // 54.6 us = 2048 Gen1 dwords

    SataLink(sc_core::sc_module_name name, const Config &cfg, ModelTrace *trace = nullptr);

    void attach(LinkEndpoint *host, LinkEndpoint *device);

    // Transmit one FIS. Blocks the calling SC_THREAD for arbitration (the device wins a
    // collision), the receiver's R_RDY, the frame's dwords (SOF, FIS, CRC, EOF) and the
    // R_OK/R_ERR return, then reports the receiver's verdict.
    FrameStatus send_from_host(const sata::Fis &fis);
    FrameStatus send_from_device(const sata::Fis &fis);
    // A receiver whose ready_to_receive() turned true calls this to release waiters.
    void receiver_ready_changed();

    // Host PHY control (SControl.DET): assert = DET 1 (COMRESET held, link down, the
    // device sees oob_reset()); release = DET 0: OOB and speed negotiation from the
    // fastest common rate not above spd_limit (Gen::None = no limit), then PhyRdy on both
    // sides. offline = DET 4 (PHY off until the next release).
    void host_comreset(bool assert, Gen spd_limit = Gen::None);
    void host_offline();

    // Device presence (cable plugged). Used by hotplug later; reset() restores config.
    void set_device_present(bool present);

    // SStatus view for the host: DET (0, 1, 3, 4), SPD (negotiated gen), IPM (1 active).
    uint8_t det() const;
    Gen gen() const { return gen_; }
    bool phy_ready() const { return det() == 3; }
    uint32_t sstatus() const;

    // Power-on state: PHY down, no frame in flight, config restored.
    void reset();

    const Config &config() const { return cfg_; }

  private:
    FrameStatus send(bool from_host, const sata::Fis &fis);
    void negotiation_thread();
    void link_down(const char *why, bool tell_device);
    void bump_epoch();
    void emit(const char *name, Gen gen, const std::string &msg = {});
    LinkEndpoint *peer(bool from_host) const { return from_host ? device_ : host_; }

    Config cfg_;
    ModelTrace *trace_;
    LinkEndpoint *host_ = nullptr;
    LinkEndpoint *device_ = nullptr;
    bool present_;
    bool comreset_held_ = false;
    bool offline_ = false;
    bool negotiating_ = false;
    bool negotiation_requested_ = false;
    bool cominit_requested_ = false;
    Gen gen_ = Gen::None;
    Gen spd_limit_ = Gen::None;
    bool busy_ = false;          // a frame owns the wire
    uint64_t busy_owner_ = 0;    // frame id owning the wire
    uint64_t next_frame_id_ = 1;
    int device_waiting_ = 0;     // device transmitters waiting (they win arbitration)
    uint64_t phy_epoch_ = 0;     // bumps on every PHY change; aborts stale frames
    sc_core::sc_event wire_free_;
    sc_core::sc_event rx_ready_;
    sc_core::sc_event phy_event_;
    sc_core::sc_event start_negotiation_;
};

} // namespace satasim::link
