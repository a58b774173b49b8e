// What every two-channel taskfile controller model has alike (the SiI3112 and ICH/PIIX
// personalities derive from it): its channels, their link hookup, the decode of the
// channels' register blocks in the window (sff_decoder.h) before the personality's own
// registers, and the fault hooks. The personality says where the blocks are, what the rest
// of its window holds (the other_* accesses) and how the channels' interrupts reach its line.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/bus/pci_function.h"
#include "model/common/trace.h"
#include "model/sff/sff_channel.h"
#include "model/sff/sff_decoder.h"

namespace satasim::sff {

class SffController : public sc_core::sc_module, public bus::MmioTarget {
  public:
    static constexpr unsigned kChannels = 2;

    // SATA port p: device 0 of channel p (p < kChannels), or with master/slave emulation
    // device 1 of channel p - kChannels (ports 2 and 3: the ICH6 port numbering of MAP 00b,
    // P0/P2 primary master/slave, P1/P3 secondary master/slave).
    link::LinkEndpoint *port_endpoint(unsigned port) { return &channel(port); }
    void connect_port(unsigned port, link::SataLink *link) { channel(port).connect(link); }
    SffChannel &channel(unsigned port);
    unsigned n_ports() const { return sl_[0] ? 2 * kChannels : kChannels; }

    uint8_t mmio_read8(uint32_t off) final;
    uint16_t mmio_read16(uint32_t off) final;
    uint32_t mmio_read32(uint32_t off) final;
    void mmio_write8(uint32_t off, uint8_t val) final;
    void mmio_write16(uint32_t off, uint16_t val) final;
    void mmio_write32(uint32_t off, uint32_t val) final;

    // Fault hooks (model/fault): the next `count` interrupts of the channel are not raised
    // (window_ns: not modelled on these controllers, count only).
    void inject_lost_irq(unsigned port, unsigned count, uint64_t window_ns, const std::string &id);
    void clear_faults();

    // The controller's PCI function (docs/hardware.md 12): its Bus Master Enable gates the
    // channels' bus-master engines.
    bus::PciFunction &pci() { return pci_; }
    const bus::PciFunction &pci() const { return pci_; }

  protected:
    // master_slave: each channel has a device 1 (a second SATA port) next to its device 0.
    SffController(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace,
                  const std::array<ChannelWindow, kChannels> &windows, const bus::PciSpec &pci,
                  bool master_slave = false);
    // The personality's line from the channels' INTRQ (and whatever else it ORs in).
    virtual void update_irq() = 0;
    // Whether the channel's register blocks are decoded at all (a PIIX's IDETIM decode
    // enable); an undecoded channel's accesses go to the other_* accesses.
    virtual bool decodes(unsigned /*channel*/) const { return true; }
    // Accesses outside the channels' blocks.
    virtual uint8_t other_read8(uint32_t off) = 0;
    virtual uint16_t other_read16(uint32_t off) = 0;
    virtual uint32_t other_read32(uint32_t off) = 0;
    virtual void other_write8(uint32_t off, uint8_t val) = 0;
    virtual void other_write16(uint32_t off, uint16_t val) = 0;
    virtual void other_write32(uint32_t off, uint32_t val) = 0;

    bus::IrqLine &irq_;
    ModelTrace *trace_;
    std::array<std::unique_ptr<SffChannel>, kChannels> ch_;
    std::array<std::unique_ptr<SffChannel>, kChannels> sl_; // device 1 of each channel, or none

  private:
    SC_HAS_PROCESS(SffController);
    void power_on_thread(); // the controller's own COMRESET on every port at power-on
    std::array<ChannelWindow, kChannels> win_;
    bus::PciFunction pci_;
};

} // namespace satasim::sff
