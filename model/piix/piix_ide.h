// An Intel ICH/PIIX-like SATA controller in IDE (legacy) mode: two taskfile channels
// (model/sff) with SFF-8038i bus-master DMA (model/bmdma), no SCR access but through the
// ICH8's SATA index/data pair (PiixPart::Ich8Sata, reg::kSidpr), and legacy interrupts (the
// primary channel on IRQ14, the secondary on IRQ15, Intel 82371AB 2.x / ICH datasheets
// "Interrupts").
//
// Which SATA port is which device of which channel is the ICH's port mapping (the MAP
// register, PCI configuration offset 90h; values as Linux's ata_piix port maps list them,
// read for the facts):
//   PiixMap::Ich5  ICH5 MAP.MV 000b: P0 primary master, P1 secondary master, no slaves
//                  (the default; satasim's only layout before master/slave emulation)
//   PiixMap::Ich6  ICH6 MAP.MV 00b: P0 primary master, P2 primary slave, P1 secondary
//                  master, P3 secondary slave: master/slave emulation, two SATA ports per
//                  channel told apart by the Device register's DEV bit (sff_decoder.h)
// Combined mode (one channel SATA, the other a parallel ATA channel: ICH5 100b-111b, ICH6
// 01b/10b) is not modelled. The PIIX3/PIIX4 IDE function (PiixPart below) has parallel ATA
// channels only.
//
// Register window (the platform gives the stack one window; the I/O ports are mapped into it
// at their legacy port numbers, the bus-master BAR4 at a fixed I/O base):
//   primary    Command Block 0x1F0-0x1F7, Control Block 0x3F6, bus master 0xC000-0xC007
//   secondary  Command Block 0x170-0x177, Control Block 0x376, bus master 0xC008-0xC00F
// The two legacy lines are OR'ed into the platform's one interrupt line: the stack's
// handler services both channels, as it would with a shared line.
// With PiixMap::Ich5 there is no device select emulation: Device bit 4 (DEV1) is stored,
// the one device answers.
#pragma once

#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"
#include "model/common/trace.h"
#include "model/sff/sff_controller.h"

namespace satasim::piix {

namespace reg {
constexpr uint32_t kCmd[2] = {0x1F0, 0x170}, kCtl[2] = {0x3F6, 0x376}, kBmdma[2] = {0xC000, 0xC008};
// The IDE function's timing registers in its PCI configuration space (docs/hardware.md 10.2,
// 12.6; Intel 82371AB (PIIX4) 4.x, ICH5 SATA function 12.1): IDETIM per channel (40h, 42h),
// SIDETIM (44h), and on the PIIX4 and the ICH UDMACTL / SDMA_CNT (48h) and UDMATIM / SDMA_TIM
// (4Ah); the ICH's IDE_CONFIG (54h).
constexpr uint32_t kIdetim = 0x40, kSidetim = 0x44, kUdmactl = 0x48, kUdmatim = 0x4A, kIdeConfig = 0x54;
constexpr uint16_t kIdetimIde = 0x8000, kIdetimSitre = 0x4000;
// The ICH8's SATA index/data pair (SIDPR, docs/hardware.md 10.8): BAR5, 16 bytes of I/O, mapped
// at kSidpr of the window (model choice, as the bus-master block's base): the index at +0
// (bits 15:8 the port, channel * 2 + device; bits 7:0 the SCR: 0 SStatus, 1 SControl,
// 2 SError), the data at +4, 32-bit accesses (ata_piix's piix_sidpr_sel / scr_read / scr_write).
constexpr uint32_t kSidpr = 0xC400, kSidprIdx = 0x0, kSidprData = 0x4, kSidprLen = 16;
} // namespace reg

enum class PiixMap { Ich5, Ich6 };

// Which part (docs/hardware.md 10): the ICH's SATA function in IDE mode (the links to SATA
// ports, map as above), or the PIIX3 (82371SB) / PIIX4 (82371AB) IDE function: two parallel
// ATA cables with a master and a slave each (device 0 and 1 of each channel, the ports
// numbered as the ICH6 map numbers them: 0/2 primary, 1/3 secondary), the timing registers
// IDETIM/SIDETIM (and UDMACTL/UDMATIM on the PIIX4) in configuration space. IDETIM's decode enable
// gates the channel's registers (the bus-master block with them: model simplification); the
// selected device's timing sets the cable's word time of its DMA bursts. The drives behind
// the cable reach the channel through the model's transport (the link model) as on the ICH:
// the parallel bus's signals are not modelled, its register semantics and timing are.
// Ich8Sata: the ICH8's SATA function in IDE mode, as IchSata plus the SIDPR window that
// gives the driver each SATA port's SCRs (ata_piix tries it on its ich8_sata /
// ich8_2port_sata rows only; not on the ICH5/ICH6 the IchSata part is).
enum class PiixPart { IchSata, Piix3, Piix4, Ich8Sata };

class PiixIde : public sff::SffController {
  public:
    PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace = nullptr,
            PiixMap map = PiixMap::Ich5, PiixPart part = PiixPart::IchSata);

    void power_on_reset();
    // The part's configuration space at power-on (piix_pci.cpp, docs/hardware.md 12.6).
    static bus::PciSpec pci_spec(PiixPart part);
    // Where firmware puts the bus-master block (BAR4): the I/O base the window maps it at.
    static constexpr uint32_t kBmdmaBase = reg::kBmdma[0];
    PiixPart part() const { return part_; }
    bool parallel() const { return part_ == PiixPart::Piix3 || part_ == PiixPart::Piix4; }
    // The word time on the cable of device `devno` of `channel` at the programmed timing
    // (ns, 30 ns per PCI clock): UDMA one word per CT clocks, fast timing one per ISP + RTC
    // clocks, else the compatible timing's 600 ns (docs/hardware.md 10.2).
    double word_ns(unsigned channel, unsigned devno, bool dma) const;

  private:
    void update_irq() override;
    bool decodes(unsigned channel) const override;
    // Outside the channels' blocks: the ICH8's SIDPR window (32-bit), else a floating ISA bus
    // (all ones), writes go nowhere.
    uint8_t other_read8(uint32_t) override { return 0xff; }
    uint16_t other_read16(uint32_t) override { return 0xffff; }
    uint32_t other_read32(uint32_t off) override;
    void other_write8(uint32_t, uint8_t) override {}
    void other_write16(uint32_t, uint16_t) override {}
    void other_write32(uint32_t off, uint32_t v) override;
    // The SIDPR data register's SCR (Ich8Sata): the port and SCR sidpr_idx_ selects; nullptr
    // for a port the controller does not have (its reads 0, writes dropped: model choice).
    sff::SffChannel *sidpr_port();
    uint16_t idetim(unsigned channel) const;
    uint32_t cfg(uint32_t reg, unsigned size) const;
    void retime(); // the devices' cable word times from the registers

    PiixPart part_;
    uint32_t sidpr_idx_ = 0;
};

} // namespace satasim::piix
