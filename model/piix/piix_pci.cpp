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
        if (part == PiixPart::Ich8Sata)
            s.bars[5] = {PciBar::Kind::Io, reg::kSidprLen, false}; // SIDPR (ata_piix: PIIX_SIDPR_LEN 16)
        break;
    case PiixPart::Piix3:
        s.device = 0x7010;
        s.revision = 0x00;
        s.class_code = 0x010180;
        s.interrupt_pin = 0;
        break;
    case PiixPart::Piix4:
        s.device = 0x7111;
        s.revision = 0x01;
        s.class_code = 0x010180;
        s.interrupt_pin = 0;
        break;
    }
    return s;
}

} // namespace satasim::piix
