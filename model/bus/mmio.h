// A register block reachable by MMIO through a PCI BAR.
#pragma once

#include <cstdint>

namespace satasim::bus {

class MmioTarget {
  public:
    virtual ~MmioTarget() = default;
    // off is the byte offset inside the BAR, 4-byte aligned. Reads of unimplemented
    // offsets return 0 and writes to them are ignored, as on real PCI devices.
    virtual uint32_t mmio_read32(uint32_t off) = 0;
    virtual void mmio_write32(uint32_t off, uint32_t val) = 0;
};

} // namespace satasim::bus
