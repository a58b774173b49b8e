// The ICH/PIIX IDE function's PCI configuration space (docs/hardware.md 12.6), by part:
//   IchSata  the ICH5's SATA function in IDE mode, 8086:24d1 revision 02, class 01/01/8a (IDE,
//            both channels in compatibility mode, their mode programmable, bus master); BAR0-3
//            the native-mode blocks (I/O 8/4/8/4, unused in compatibility mode), BAR4 the
//            bus-master block (I/O, 16 bytes); PCI Power Management at 70h (PM 1.1); INTA#.
//   Ich8Sata the ICH8's SATA function in IDE mode, 8086:2820 (the 4-port part; device ID as
//            ata_piix's PCI table lists it for ich8_sata), otherwise as IchSata, plus BAR5: the
//            SATA index/data pair (I/O, 16 bytes). Revision and subsystem as IchSata's (MEM).
//   Piix3    82371SB function 1, 8086:7010 revision 00, class 01/01/80 (compatibility mode
//            only, bus master); BAR4 alone (I/O, 16 bytes); no capabilities.
//   Piix4    82371AB function 1, 8086:7111 revision 01, class 01/01/80; as the PIIX3.
// The PIIX3/4 report Interrupt Pin 0: in compatibility mode the channels use IRQ 14 and 15,
// not a PCI pin. The legacy ports (1F0h/3F6h, 170h/376h) decode with I/O space enable, as
// BAR4 does (82371AB 2.x: IOSE gates both).
// The IDE timing registers (device-specific, docs/hardware.md 10.2): IDETIM 40h/42h (16 bit:
// 15 IDE decode enable, 14 SITRE, 13:12 ISP, 9:8 RTC, 7:0 DTE/PPE/IE/TIME of device 1 and 0;
// 11:10 reserved), SIDETIM 44h (8 bit: the slaves' ISP/RTC); PIIX4 and ICH: UDMACTL/SDMA_CNT
// 48h (bits 3:0, one per device), UDMATIM/SDMA_TIM 4Ah (CT in bits 1:0 of each nibble; the
// ICH's 2-bit field likewise); ICH: IDE_CONFIG 54h (16 bit here: 3:0 66 MHz base clock, 7:4
// 80-conductor cable reported, 10 write ping-pong, 15:12 100 MHz fast clock, per device).
// Reset values 0 except the decode enables, which the BIOS sets (satasim runs none; model
// choice). The PIIX3 (82371SB) has IDETIM and SIDETIM only. Facts from the 82371AB datasheet's
// register list and the ICH5 SATA function's as Linux's ata_piix uses them.
#include "model/piix/piix_ide.h"

namespace satasim::piix {

bus::PciSpec PiixIde::pci_spec(PiixPart part) {
    using bus::PciBar;
    bus::PciSpec s;
    s.vendor = 0x8086;
    s.bars[4] = {PciBar::Kind::Io, 16, false};
    s.legacy_irq = true; // compatibility mode: IRQ 14 and 15
    switch (part) {
    case PiixPart::IchSata:
    case PiixPart::Ich8Sata:
        s.device = part == PiixPart::Ich8Sata ? 0x2820 : 0x24d1;
        s.revision = 0x02;
        s.class_code = 0x01018a;
        s.subsys_vendor = 0x8086;
        s.subsys_id = s.device;
        s.interrupt_pin = 1;
        s.bars[0] = {PciBar::Kind::Io, 8, false};
        s.bars[1] = {PciBar::Kind::Io, 4, false};
        s.bars[2] = {PciBar::Kind::Io, 8, false};
        s.bars[3] = {PciBar::Kind::Io, 4, false};
        s.pm_offset = 0x70;
        s.pmc = bus::pci::PMC_VERSION_1_1;
        s.order = {0x70};
        s.dev_regs = {{0x40, 2, 0x8000, 0xf3ff}, {0x42, 2, 0x8000, 0xf3ff}, {0x44, 1, 0, 0xff},
                      {0x48, 1, 0, 0x0f},        {0x4a, 2, 0, 0x3333},        {0x54, 2, 0, 0xf4ff}};
        if (part == PiixPart::Ich8Sata)
            s.bars[5] = {PciBar::Kind::Io, reg::kSidprLen, false}; // SIDPR (ata_piix: PIIX_SIDPR_LEN 16)
        break;
    case PiixPart::Piix3:
        s.device = 0x7010;
        s.revision = 0x00;
        s.class_code = 0x010180;
        s.interrupt_pin = 0;
        s.dev_regs = {{0x40, 2, 0x8000, 0xf3ff}, {0x42, 2, 0x8000, 0xf3ff}, {0x44, 1, 0, 0xff}};
        break;
    case PiixPart::Piix4:
        s.device = 0x7111;
        s.revision = 0x01;
        s.class_code = 0x010180;
        s.interrupt_pin = 0;
        s.dev_regs = {{0x40, 2, 0x8000, 0xf3ff}, {0x42, 2, 0x8000, 0xf3ff}, {0x44, 1, 0, 0xff},
                      {0x48, 1, 0, 0x0f},        {0x4a, 2, 0, 0x3333}};
        break;
    }
    return s;
}

} // namespace satasim::piix
