// The SiI3112's PCI function (docs/hardware.md 12.5): 1095:3112 revision 02, class 01/04/00
// (the RAID class, as with Silicon Image's RAID option ROM), subsystem 1095:6112. BAR0-BAR3 the
// IDE-compatible command and control blocks of both channels (I/O, 8/4/8/4 bytes), BAR4 the
// bus-master block (I/O, 16 bytes) -- the model decodes the I/O BARs not: sata_sil uses BAR5 --
// BAR5 every register in memory (512 bytes, the window of sil3112_hba.h), a 512 KiB expansion
// ROM. One capability, PCI Power Management at 60h (PM 1.1 with D1 and D2); no MSI. INTA#.
#include "model/sil3112/sil3112_hba.h"

namespace satasim::sil3112 {

bus::PciSpec Sil3112Hba::pci_spec() {
    using bus::PciBar;
    bus::PciSpec s;
    s.vendor = 0x1095;
    s.device = 0x3112;
    s.revision = 0x02;
    s.class_code = 0x010400;
    s.subsys_vendor = 0x1095;
    s.subsys_id = 0x6112;
    s.interrupt_pin = 1;
    s.status_66mhz = true;
    s.bars[0] = {PciBar::Kind::Io, 8, false};
    s.bars[1] = {PciBar::Kind::Io, 4, false};
    s.bars[2] = {PciBar::Kind::Io, 8, false};
    s.bars[3] = {PciBar::Kind::Io, 4, false};
    s.bars[4] = {PciBar::Kind::Io, 16, false};
    s.bars[5] = {PciBar::Kind::Mem32, reg::kWindowSize, false};
    s.rom_size = 512 * 1024;
    s.pm_offset = 0x60;
    s.pmc = bus::pci::PMC_VERSION_1_1 | bus::pci::PMC_D1 | bus::pci::PMC_D2;
    s.order = {0x60};
    return s;
}

} // namespace satasim::sil3112
