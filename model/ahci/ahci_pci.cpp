// The AHCI model's PCI function (docs/hardware.md 12.3): an ICH9's SATA function in AHCI mode,
// device 31 function 2 (82801IR, 8086:2922, revision 02), class 01/06/01 (mass storage, SATA,
// AHCI 1.0 programming interface). BAR0-BAR3 are the legacy-compatible command and control
// blocks and BAR4 the bus-master block that AHCI mode keeps (I/O, 8/4/8/4/32 bytes; the model
// decodes none of them), BAR5 the ABAR (memory, non-prefetchable): 2 KiB as on the ICH9, more
// when a configuration has so many ports that their registers pass 2 KiB (0x100 + 0x80 per
// port, rounded up to a power of two). Capabilities as the ICH9 lists them from 34h = 80h:
// MSI (80h; one message, 32-bit address: the model's choice of a single-message function, as
// satasim's AHCI drives every port from one vector) -> PCI Power Management (70h; PM 1.2, PME
// from D3hot) -> SATA (A8h; revision 1.0). Interrupt pin INTB#, the ICH9 D31:F2 default.
#include "model/ahci/ahci_hba.h"

namespace satasim::ahci {

uint32_t AhciHba::abar_size(unsigned n_ports) {
    uint32_t need = 0x100 + 0x80 * n_ports, size = 2048;
    while (size < need)
        size <<= 1;
    return size;
}

bus::PciSpec AhciHba::pci_spec(const AhciConfig &cfg) {
    using bus::PciBar;
    bus::PciSpec s;
    s.vendor = 0x8086;
    s.device = 0x2922;
    s.revision = 0x02;
    s.class_code = 0x010601;
    s.subsys_vendor = 0x8086; // the board's IDs: none modelled, the chip's own kept
    s.subsys_id = 0x2922;
    s.interrupt_pin = 2;
    s.status_66mhz = true;
    s.bars[0] = {PciBar::Kind::Io, 8, false};
    s.bars[1] = {PciBar::Kind::Io, 4, false};
    s.bars[2] = {PciBar::Kind::Io, 8, false};
    s.bars[3] = {PciBar::Kind::Io, 4, false};
    s.bars[4] = {PciBar::Kind::Io, 32, false};
    s.bars[5] = {PciBar::Kind::Mem32, abar_size(cfg.n_ports), false};
    s.msi_offset = 0x80;
    s.msi_log2_vectors = 0;
    s.msi_64bit = false;
    s.pm_offset = 0x70;
    s.pmc = bus::pci::PMC_VERSION_1_2 | 0x4000; // PME# from D3hot
    s.opaque.push_back({bus::pci::CAP_SATA, 0xa8, 8, {0x10, 0x00, 0x48, 0x00, 0x00, 0x00}});
    s.order = {0x80, 0x70, 0xa8};
    return s;
}

} // namespace satasim::ahci
