// Our link layer RTL (model/link/rtl/sata_link.v) in device role, verilated standalone:
// the device end of a DUT port's cable. Its transport side is a LinkRtlPair::Side, as in
// the SataLink's own pair. Kept apart from SystemC: verilated headers change meaning when
// SystemC is included first.
#pragma once

#include <cstdint>
#include <memory>

#include "model/link/link_rtl.h"

class VerilatedContext;
class Vsata_link;

namespace satasim::harness::rtl {

class DeviceLinkRtl {
  public:
    DeviceLinkRtl();
    ~DeviceLinkRtl();
    DeviceLinkRtl(const DeviceLinkRtl &) = delete;
    DeviceLinkRtl &operator=(const DeviceLinkRtl &) = delete;

    // Synchronous reset (PHY change); clears the transport side.
    void reset();
    // One dword clock: rx is the cable's dword into the link; tx what it puts out next.
    void tick(bool phy_rdy, uint32_t rx, bool rx_isk, uint32_t &tx, bool &tx_isk);
    link::RtlState state() const;
    link::LinkRtlPair::Side &side() { return side_; }
    const link::LinkRtlPair::Side &side() const { return side_; }

  private:
    std::unique_ptr<VerilatedContext> ctx_;
    std::unique_ptr<Vsata_link> m_;
    link::LinkRtlPair::Side side_;
};

} // namespace satasim::harness::rtl
