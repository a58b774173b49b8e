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

    // Narrow accesses (off aligned to the size), as PCI byte enables. A register block
    // with byte-wide registers (an SFF taskfile, whose status read has a side effect)
    // overrides all four. The defaults serve blocks built of dword registers: a read
    // returns its lanes of the dword read (with that read's side effects), a write merges
    // into the dword read back (fine for plain read/write registers; such blocks' drivers
    // only use dword accesses on registers with write-1-to-clear bits).
    virtual uint8_t mmio_read8(uint32_t off) { return uint8_t(mmio_read32(off & ~3u) >> 8 * (off & 3)); }
    virtual uint16_t mmio_read16(uint32_t off) { return uint16_t(mmio_read32(off & ~3u) >> 8 * (off & 2)); }
    virtual void mmio_write8(uint32_t off, uint8_t val) { merge(off, 0xffu, val); }
    virtual void mmio_write16(uint32_t off, uint16_t val) { merge(off & ~1u, 0xffffu, val); }

  private:
    void merge(uint32_t off, uint32_t mask, uint32_t val) {
        const unsigned sh = 8 * (off & 3);
        const uint32_t old = mmio_read32(off & ~3u);
        mmio_write32(off & ~3u, (old & ~(mask << sh)) | (val & mask) << sh);
    }
};

} // namespace satasim::bus
