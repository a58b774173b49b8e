// One port's far side of the DUT shell: what the SystemC backend has below a host port,
// behind the DUT's per-port PHY interface. The PHY's word gearbox (16-bit PHY words) and,
// for a DUT with PHY clocks, the far end's receive elastic buffer (model/link/phy_lane.h)
// sit between the DUT's PHY words and the cable's dwords. The cable (kWireDelay dwords
// each way, the SataLink's primitive / dword fault hook on every dword) joins the DUT's PHY to our
// link layer RTL in device role (model/link/rtl/sata_link.v, verilated standalone), whose
// transport side serves the port's SataLink device endpoint (disk or port multiplier).
// The SataLink keeps the PHY: COMRESET / offline from the DUT's outputs go to it, its
// PhyRdy, generation and COMINIT come back as the DUT's PHY status inputs. The optional
// PHY pins (electrical idle, COMWAKE detect, rate, PHY reset, sideband) are PhyPins'.
//
// As the SataLink's host endpoint this class only takes PHY events (frames never arrive
// here: the host's link layer is the DUT's); as its ExternalHostWire it sends the
// device's frames over the cable.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>

#include <systemc>

#include "backend/rtl/device_link_rtl.h"
#include "backend/rtl/dut_abi.h"
#include "backend/rtl/phy_pins.h"
#include "model/link/link_rtl.h"
#include "model/link/phy_lane.h"
#include "model/link/sata_link.h"

namespace satasim::harness::rtl {

// signal (profile phy.oob: signal): OOB and the speed negotiation at the signal level
// (PhyPort::LineState); clock_mhz: clk, which times the OOB bursts.
struct PhyOobConfig {
    bool signal = false;
    double clock_mhz = 150;
};

class PhyPort : public link::LinkEndpoint, public link::ExternalHostWire {
  public:
    // wake: start the shell's clock (something for the DUT to do). phy_width: the DUT's PHY
    // words (32 or 16 bits); elastic: the DUT has its own PHY clocks, so the far end's
    // receiver takes the DUT's dwords through an elastic buffer (its clock differs). pins:
    // the optional PHY pins the DUT's top has (their checks report through it).
    using OobConfig = PhyOobConfig;
    PhyPort(unsigned index, unsigned phy_width, bool elastic, std::function<void()> wake, PhyPins pins,
            OobConfig oob = {});

    void connect(link::SataLink *lk);
    bool connected() const { return link_ != nullptr; }

    // Per step of the DUT's clocks (edges: link::kEdge* bits), around the shell's tick: the
    // DUT's PHY inputs, then (outputs sampled) at a transmit edge the DUT's word into the
    // cable, at a receive edge the next word to the DUT (and, per dword, one edge of the
    // device-side link), at a core edge the DUT's PHY requests. edge() returns true when
    // the SystemC side has work (a frame to judge, a frame done, a PHY request): the shell
    // ends its burst of cycles and calls service() once simulated time has caught up.
    void drive(satasim_dut_pins &p, unsigned edges);
    bool edge(const satasim_dut_pins &p, unsigned edges);
    void service();
    // No frame on the device link and nothing pending for the SystemC side.
    bool idle() const;

    // link::LinkEndpoint (host side)
    bool receive_fis(const sata::Fis &) override { return false; }
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void oob_comwake() override;
    void oob_align(link::Gen common, unsigned failed) override;
    // link::ExternalHostWire
    link::FrameStatus send_from_device(const sata::Fis &fis, bool fault, const link::SataLink::DwordFault &df) override;
    void phy_reset() override;
    void receiver_ready_changed() override { wake_(); }
    bool signal_oob() const override { return oob_.signal; }

  private:
    void reset_device_link();
    void watch_host_frame(uint32_t d, bool isk);
    void host_dword(link::LaneDword d, const satasim_dut_pins &p);
    PhyPins::Out pins_out(const satasim_dut_pins &p) const;
    bool device_dword();
    // Signal-level OOB (phy.oob: signal): what the device's transmitter puts on the line
    // toward the DUT while the PHY is not ready, in clk cycles (SATA 3.x 8.4, OOB): silent
    // (electrical idle); 6 OOB bursts of 160 UIoob (ALIGNs) each followed by its gap (480
    // UIoob COMINIT, 160 UIoob COMWAKE), the detection told at the end of the last gap;
    // ALIGNs at rates the host cannot lock to (the host's receiver decodes no symbol:
    // code errors), 2048 Gen1 dwords each; ALIGNs at the common rate until the host's
    // ALIGN, or the attempt times out.
    enum class LineState : uint8_t { Silent, ComInit, ComWake, Unlockable, Align, Sync };
    void line_start(LineState s);
    bool line_cycle(); // one clk cycle of the line; true: the SystemC side has work
    bool in_burst() const;
    link::LaneDword line_dword() const; // the device's dword on the line (not Sync)

    // One direction of the cable: kWireDelay dwords in flight.
    struct Wire {
        std::array<link::LaneDword, link::LinkRtlPair::kWireDelay> d{};
        unsigned pos = 0;
        void fill(const link::LaneDword &x) {
            d.fill(x);
            pos = 0;
        }
        // x goes in, the dword in flight longest comes out.
        link::LaneDword push(const link::LaneDword &x) {
            const link::LaneDword out = d[pos];
            d[pos] = x;
            pos = (pos + 1) % d.size();
            return out;
        }
        const link::LaneDword &oldest() const { return d[pos]; }
    };

    unsigned n_;
    std::function<void()> wake_;
    link::SataLink *link_ = nullptr;
    DeviceLinkRtl dev_;
    link::LinkRtlPair::Side &side_; // the device link's transport state
    Wire h2d_, d2h_;
    link::WordGearbox from_dut_, to_dut_; // the DUT's PHY words <-> the cable's dwords
    bool elastic_;
    link::ElasticQueue dev_rx_;           // the device's receive buffer (elastic_)
    link::LaneDword h2d_out_;             // the cable's dword for the device's next edge
    link::PhyWord rx_;                    // the DUT's PHY receive word and its flags
    // PHY status for the DUT
    bool phy_ready_ = false;
    uint8_t gen_ = 0;
    bool cominit_ = false; // one-cycle COMINIT pulse pending
    PhyPins pins_;
    // the DUT's PHY requests: last seen after an edge / last told the SataLink. The pin is
    // low before power-on (a DUT holding COMRESET from its reset is seen to raise it), and
    // every change between two services is counted: a COMRESET asserted and released
    // before service() (the power-on COMRESET of a DUT whose first MMIO access clocks it
    // through, say) is told as both, a release and a new assert as both.
    bool comreset_seen_ = false, offline_seen_ = false;
    unsigned comreset_changes_ = 0; // changes of phy_comreset since the last service()
    uint8_t spd_seen_ = 0;
    bool comreset_told_ = false, offline_told_ = false;
    const char *drop_why_ = nullptr; // the link must go down (PhyPins::link_drop), for service()
    // device transmitter: one frame at a time
    bool tx_busy_ = false;
    uint64_t tx_cycles_ = 0;
    bool tx_timeout_ = false;
    uint64_t epoch_ = 0;
    sc_core::sc_event tx_ev_;
    // receiver: the frame waiting for the device's verdict, the errors to report
    bool judged_ = false;
    uint64_t bad_prims_told_ = 0;
    link::SataLink::SymbolFlags dev_symbols_; // the device's decoder flagged these, to be told
    // host frame tracking for dword faults: -1 outside a frame, else dwords since SOF
    int host_frame_pos_ = -1;
    // signal-level OOB
    OobConfig oob_;
    unsigned burst_cycles_ = 0, cominit_gap_ = 0, comwake_gap_ = 0, attempt_cycles_ = 0;
    LineState line_ = LineState::Silent;
    uint64_t line_pos_ = 0;       // clk cycles into line_
    unsigned align_failed_ = 0;   // attempts at rates the host cannot lock to, still to go
    link::Gen align_gen_ = link::Gen::None;
    bool align_queued_ = false;   // oob_align() came: the ALIGNs follow the COMWAKE
    bool comwake_seen_ = false;   // phy_comwake at the last core edge
    bool tell_comwake_ = false, tell_aligned_ = false, tell_align_timeout_ = false; // for service()
};

} // namespace satasim::harness::rtl
