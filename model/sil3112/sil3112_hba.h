// A Silicon Image SiI3112-like PCI SATA controller: two taskfile channels (model/sff) with
// bus-master DMA (model/bmdma), everything in its MMIO BAR (BAR5), which is the window the
// stack's platform sees. Register offsets as the Linux sata_sil driver uses them (facts,
// checked against drivers/ata/sata_sil.c; the SiI3112A data sheet DS-0095 is the source):
//   channel            0       1
//   BMDMA (SFF-8038i)  0x00    0x08     command, status, PRD table pointer
//   BMDMA2             0x10    0x18     dword: bit 0 Start, bit 3 direction (mirrors),
//                                       bit 4 SATA interrupt (SError.N with SIEN), bit 16
//                                       Active, bit 17 Error, bit 18 interrupt pending
//                                       (the channel's INTRQ)
//   FIFO config        0x40    0x44     16 bit: read threshold (7:0), write threshold (15:8),
//                                       in 8-byte units: the bus-master burst size
//   Command Block      0x80    0xC0     (sff_regs.h)
//   Control Block      0x8A    0xCA     Alternate Status / Device Control
//   transfer mode      0xB4    0xF4     plain storage (the driver records PIO/UDMA)
//   SCRs               0x100   0x180    SControl +0, SStatus +4, SError +8
//   SIEN               0x148   0x1C8    bit 16: SError.N raises the SATA interrupt
//   SFIS config        0x14C   0x1CC    plain storage
//   SYSCFG             0x48             bits 22/23 mask channel 0/1's interrupt
// The one PCI interrupt line is the OR of both channels' (INTRQ unless masked in SYSCFG)
// and (SATA interrupt).
#pragma once

#include <array>
#include <cstdint>

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/common/trace.h"
#include "model/sff/sff_controller.h"

namespace satasim::sil3112 {

namespace reg {
constexpr uint32_t kBmdma[2] = {0x00, 0x08}, kBmdma2[2] = {0x10, 0x18}, kFifoCfg[2] = {0x40, 0x44},
                   kTf[2] = {0x80, 0xC0}, kCtl[2] = {0x8A, 0xCA}, kXferMode[2] = {0xB4, 0xF4},
                   kScr[2] = {0x100, 0x180}, kSien[2] = {0x148, 0x1C8}, kSfisCfg[2] = {0x14C, 0x1CC};
constexpr uint32_t kSysCfg = 0x48, kWindowSize = 0x200;
constexpr uint32_t SYSCFG_MASK_IDE0_INT = 1u << 22;
constexpr uint32_t BMDMA2_SATA_IRQ = 1u << 4, BMDMA2_ACTIVE = 1u << 16, BMDMA2_ERROR = 1u << 17,
                   BMDMA2_COMPLETE = 1u << 18;
constexpr uint32_t SIEN_N = 1u << 16, SERR_DIAG_N = 1u << 16;
} // namespace reg

struct Sil3112Config {
    link::Gen max_gen = link::Gen::Gen1; // SiI3112: 1.5 Gb/s
};

class Sil3112Hba : public sff::SffController {
  public:
    Sil3112Hba(sc_core::sc_module_name name, const Sil3112Config &cfg, bus::HostMemory &mem, bus::IrqLine &irq,
               ModelTrace *trace = nullptr);

    void power_on_reset();
    // The part's configuration space at power-on (sil3112_pci.cpp, docs/hardware.md 12.5).
    static bus::PciSpec pci_spec();

  private:
    void update_irq() override;
    uint8_t other_read8(uint32_t off) override { return MmioTarget::mmio_read8(off); }
    uint16_t other_read16(uint32_t off) override;
    uint32_t other_read32(uint32_t off) override;
    void other_write8(uint32_t off, uint8_t val) override { MmioTarget::mmio_write8(off, val); }
    void other_write16(uint32_t off, uint16_t val) override;
    void other_write32(uint32_t off, uint32_t val) override;
    uint32_t bmdma2(unsigned c) const;
    bool sata_irq(unsigned c) const;
    void set_burst(unsigned c);

    Sil3112Config cfg_;
    uint32_t syscfg_ = 0;
    std::array<uint32_t, kChannels> sien_{}, xfer_mode_{}, sfis_cfg_{};
    std::array<uint16_t, kChannels> fifo_cfg_{};
};

} // namespace satasim::sil3112
