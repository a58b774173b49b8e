// A PCI function's register window as the host reaches it: the controller's register block
// answers only while the function decodes the space its BARs are in (PCI 3.0 6.2.2: Memory
// Space or I/O Space enable in Command, and the function in D0, PCI PM 1.2 5.3). Otherwise
// the cycle goes unclaimed: the host bridge ends it with a master abort, reads return all
// ones, writes go nowhere.
#pragma once

#include "model/bus/mmio.h"
#include "model/bus/pci_function.h"

namespace satasim::bus {

class PciWindow : public MmioTarget {
  public:
    enum class Space { Memory, Io };
    PciWindow(MmioTarget &regs, const PciFunction &f, Space space) : regs_(regs), f_(f), space_(space) {}

    bool decodes() const { return space_ == Space::Memory ? f_.memory_decode() : f_.io_decode(); }

    uint32_t mmio_read32(uint32_t off) override { return decodes() ? regs_.mmio_read32(off) : 0xffffffffu; }
    void mmio_write32(uint32_t off, uint32_t val) override {
        if (decodes())
            regs_.mmio_write32(off, val);
    }
    uint8_t mmio_read8(uint32_t off) override { return decodes() ? regs_.mmio_read8(off) : 0xff; }
    uint16_t mmio_read16(uint32_t off) override { return decodes() ? regs_.mmio_read16(off) : 0xffff; }
    void mmio_write8(uint32_t off, uint8_t val) override {
        if (decodes())
            regs_.mmio_write8(off, val);
    }
    void mmio_write16(uint32_t off, uint16_t val) override {
        if (decodes())
            regs_.mmio_write16(off, val);
    }

  private:
    MmioTarget &regs_;
    const PciFunction &f_;
    Space space_;
};

} // namespace satasim::bus
