// An Intel ICH/PIIX-like SATA controller in IDE (legacy) mode: two taskfile channels
// (model/sff) with SFF-8038i bus-master DMA (model/bmdma), no SCR access (an ICH in IDE mode
// has none without combined-mode SIDPR, which is not modelled), and legacy interrupts (the
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
// 01b/10b) is not modelled: there is no PATA device model.
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
} // namespace reg

enum class PiixMap { Ich5, Ich6 };

class PiixIde : public sff::SffController {
  public:
    PiixIde(sc_core::sc_module_name name, bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace = nullptr,
            PiixMap map = PiixMap::Ich5);

    void power_on_reset();

  private:
    SC_HAS_PROCESS(PiixIde);
    void power_on_thread(); // the controller's own COMRESET on every port at power-on
    void update_irq() override;
    // Outside the channels' blocks: a floating ISA bus (all ones), writes go nowhere.
    uint8_t other_read8(uint32_t) override { return 0xff; }
    uint16_t other_read16(uint32_t) override { return 0xffff; }
    uint32_t other_read32(uint32_t) override { return 0xffffffffu; }
    void other_write8(uint32_t, uint8_t) override {}
    void other_write16(uint32_t, uint16_t) override {}
    void other_write32(uint32_t, uint32_t) override {}
};

} // namespace satasim::piix
