// The SiI3124's PCI function (docs/hardware.md 12.4): 1095:3124 revision 02, class 01/04/00
// (mass storage, RAID: the class the part reports with Silicon Image's RAID option ROM, the
// common board), subsystem 1095:7124. BAR0 the global registers (64-bit memory, 128 bytes),
// BAR2 the port registers (64-bit memory, 8 KiB per port, 32 KiB), BAR4 an I/O window onto
// them (16 bytes; the model decodes it not), a 512 KiB expansion ROM. Capabilities from 34h =
// 64h: PCI Power Management (64h; PM 1.1 with D1 and D2) -> PCI-X (40h) -> MSI (54h; one
// message, 64-bit address). Interrupt pin INTA#; a 66 MHz-capable PCI-X function.
#include "model/sil24/sil24_hba.h"

namespace satasim::sil24 {

bus::PciSpec Sil24Hba::pci_spec() {
    using bus::PciBar;
    bus::PciSpec s;
    s.vendor = 0x1095;
    s.device = 0x3124;
    s.revision = 0x02;
    s.class_code = 0x010400;
    s.subsys_vendor = 0x1095;
    s.subsys_id = 0x7124;
    s.interrupt_pin = 1;
    s.status_66mhz = true;
    s.bars[0] = {PciBar::Kind::Mem64, 128, false};
    s.bars[2] = {PciBar::Kind::Mem64, 4 * 0x2000, false};
    s.bars[4] = {PciBar::Kind::Io, 16, false};
    s.rom_size = 512 * 1024;
    s.pm_offset = 0x64;
    s.pmc = bus::pci::PMC_VERSION_1_1 | bus::pci::PMC_D1 | bus::pci::PMC_D2;
    s.opaque.push_back({bus::pci::CAP_PCIX, 0x40, 8, {}});
    s.msi_offset = 0x54;
    s.msi_log2_vectors = 0;
    s.msi_64bit = true;
    s.order = {0x64, 0x40, 0x54};
    return s;
}

} // namespace satasim::sil24
