// PCI configuration space (model/bus/pci_function.h) against PCI Local Bus 3.0 chapter 6, PCI
// PM 1.2 and MSI (6.8), and every controller model's function against the real part's values
// (docs/hardware.md 12): IDs, class, BAR sizes read back by sizing, the capability list.
#include <cstring>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/bmdma/bmdma.h"
#include "model/bus/pci_function.h"
#include "model/bus/pci_window.h"
#include "model/piix/piix_ide.h"
#include "model/sil24/sil24_hba.h"
#include "model/sil3112/sil3112_hba.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::bus;

namespace {

// Sizing as software does it (6.2.5.1): save, write all ones, read, restore. The size is the
// two's complement of the read value with the flag bits masked (64-bit: both dwords).
uint64_t bar_size(PciFunction &f, unsigned n) {
    const unsigned off = pci::kBar0 + 4 * n;
    const uint32_t saved = f.config_read(off, 4);
    f.config_write(off, 4, 0xffffffffu);
    const uint32_t lo = f.config_read(off, 4);
    f.config_write(off, 4, saved);
    if (lo == 0)
        return 0;
    if (lo & pci::BAR_IO)
        return uint32_t(~(lo & ~3u) + 1);
    uint64_t mask = lo & ~0xfu;
    if ((lo & 6u) == pci::BAR_MEM_64) {
        const uint32_t saved_hi = f.config_read(off + 4, 4);
        f.config_write(off + 4, 4, 0xffffffffu);
        mask |= uint64_t(f.config_read(off + 4, 4)) << 32;
        f.config_write(off + 4, 4, saved_hi);
    } else {
        mask |= 0xffffffff00000000ull;
    }
    return ~mask + 1;
}

// The capability IDs and offsets in list order, walked from Capabilities Pointer (6.7).
std::vector<std::pair<uint8_t, uint8_t>> caps(const PciFunction &f) {
    std::vector<std::pair<uint8_t, uint8_t>> out;
    if (!(f.config_read(pci::kStatus, 2) & pci::STATUS_CAP_LIST))
        return out;
    uint8_t at = uint8_t(f.config_read(pci::kCapPtr, 1) & ~3u);
    while (at && out.size() < 48) {
        out.push_back({uint8_t(f.config_read(at, 1)), at});
        at = uint8_t(f.config_read(at + 1u, 1) & ~3u);
    }
    return out;
}

PciSpec sample() {
    PciSpec s;
    s.vendor = 0x1234;
    s.device = 0x5678;
    s.revision = 0x03;
    s.class_code = 0x010601;
    s.bars[0] = {PciBar::Kind::Mem64, 0x4000, false};
    s.bars[4] = {PciBar::Kind::Io, 16, false};
    s.bars[5] = {PciBar::Kind::Mem32, 0x800, false};
    s.pm_offset = 0x50;
    s.pmc = pci::PMC_VERSION_1_2;
    s.msi_offset = 0x60;
    s.msi_64bit = true;
    s.order = {0x60, 0x50};
    return s;
}

} // namespace

MODEL_TEST(header_identity_is_read_only) {
    PciFunction f(sample());
    EXPECT_EQ(f.config_read(pci::kVendorId, 4), 0x56781234u);
    EXPECT_EQ(f.config_read(pci::kRevision, 4), 0x01060103u); // revision, prog-if, subclass, class
    f.config_write(pci::kVendorId, 4, 0);
    f.config_write(pci::kRevision, 4, 0);
    EXPECT_EQ(f.config_read(pci::kVendorId, 2), 0x1234u);
    EXPECT_EQ(f.config_read(pci::kClass, 1), 0x01u);
    EXPECT_EQ(f.config_read(pci::kIntPin, 1), 1u);
    f.config_write(pci::kIntLine, 1, 19); // Interrupt Line is the firmware's scratch register
    EXPECT_EQ(f.config_read(pci::kIntLine, 1), 19u);
    EXPECT_EQ(f.config_read(0xfc, 4), 0u); // reserved space reads 0
}

MODEL_TEST(bars_size_by_writing_all_ones) {
    PciFunction f(sample());
    EXPECT_EQ(f.config_read(pci::kBar0, 4), pci::BAR_MEM_64); // type bits hardwired
    EXPECT_EQ(bar_size(f, 0), 0x4000u);
    EXPECT_EQ(bar_size(f, 4), 16u);
    EXPECT_EQ(bar_size(f, 5), 0x800u);
    EXPECT_EQ(bar_size(f, 2), 0u); // unimplemented BARs read 0 whatever is written
    f.config_write(pci::kBar0 + 4 * 5, 4, 0xfebf1234u);
    EXPECT_EQ(f.bar_address(5), 0xfebf1000ull); // bits below the size are hardwired 0
    f.config_write(pci::kBar0, 4, 0xd0000000u);
    f.config_write(pci::kBar0 + 4, 4, 0x1u);
    EXPECT_EQ(f.bar_address(0), 0x1d0000000ull);
    f.config_write(pci::kBar0 + 16, 4, 0xc001u);
    EXPECT_EQ(f.config_read(pci::kBar0 + 16, 4), 0xc001u);
    EXPECT_EQ(f.bar_address(4), 0xc000ull);
}

MODEL_TEST(command_enables_decode_and_mastering) {
    PciFunction f(sample());
    EXPECT_EQ(f.command(), 0); // everything off at RST#
    EXPECT_TRUE(!f.memory_decode() && !f.io_decode() && !f.bus_master());
    f.config_write(pci::kCommand, 2, 0xffff);
    // only the implemented bits stick: I/O, memory, master, parity, SERR#, interrupt disable
    EXPECT_EQ(f.command(), uint16_t(pci::CMD_IO | pci::CMD_MEMORY | pci::CMD_MASTER | pci::CMD_PARITY |
                                    pci::CMD_SERR | pci::CMD_INTX_DISABLE));
    EXPECT_TRUE(f.memory_decode() && f.io_decode() && f.bus_master());
    f.reset();
    EXPECT_EQ(f.command(), 0);
}

MODEL_TEST(status_error_bits_are_write_one_to_clear) {
    PciFunction f(sample());
    const uint16_t st = uint16_t(f.config_read(pci::kStatus, 2));
    EXPECT_TRUE(st & pci::STATUS_CAP_LIST);
    f.note_master_abort();
    EXPECT_TRUE(f.config_read(pci::kStatus, 2) & pci::STATUS_REC_MASTER_ABORT);
    f.config_write(pci::kStatus, 2, 0); // writing 0 changes nothing
    EXPECT_TRUE(f.config_read(pci::kStatus, 2) & pci::STATUS_REC_MASTER_ABORT);
    f.config_write(pci::kStatus, 2, 0xffff); // a 1 clears it; the read-only bits stay
    EXPECT_EQ(f.config_read(pci::kStatus, 2), uint32_t(st));
}

MODEL_TEST(capability_list_walks_in_order) {
    PciFunction f(sample());
    auto c = caps(f);
    EXPECT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].first, pci::CAP_MSI);
    EXPECT_EQ(c[0].second, 0x60);
    EXPECT_EQ(c[1].first, pci::CAP_PM);
    EXPECT_EQ(c[1].second, 0x50);
    EXPECT_EQ(f.config_read(0x52, 2), uint32_t(pci::PMC_VERSION_1_2));
    // MSI Message Control: one message capable, 64-bit, off
    EXPECT_EQ(f.config_read(0x62, 2), uint32_t(pci::MSI_64BIT));
}

MODEL_TEST(power_state_d3hot_stops_decode_and_unsupported_states_are_ignored) {
    PciFunction f(sample());
    pci_enable_for_test(f);
    f.config_write(0x54, 2, 1); // D1: not supported by this PMC, the write is dropped (PM 1.2 3.2.4)
    EXPECT_EQ(f.power_state(), 0u);
    f.config_write(0x54, 2, 3); // D3hot: configuration cycles only
    EXPECT_EQ(f.power_state(), 3u);
    EXPECT_TRUE(!f.memory_decode() && !f.bus_master());
    EXPECT_EQ(f.config_read(pci::kVendorId, 2), 0x1234u);
    f.config_write(pci::kIntLine, 1, 11);
    f.config_write(0x54, 2, 0); // back to D0 without No_Soft_Reset: the context is lost
    EXPECT_EQ(f.power_state(), 0u);
    EXPECT_EQ(f.command(), 0);
    EXPECT_EQ(f.config_read(pci::kIntLine, 1), 11u);
}

MODEL_TEST(intx_follows_the_condition_unless_disabled) {
    PciFunction f(sample());
    std::vector<bool> pin;
    f.set_intx_sink([&](bool l) { pin.push_back(l); });
    f.interrupt(true);
    EXPECT_TRUE(f.intx_asserted());
    EXPECT_TRUE(f.config_read(pci::kStatus, 2) & pci::STATUS_INTERRUPT);
    f.config_write(pci::kCommand, 2, pci::CMD_INTX_DISABLE); // the pin drops, Status keeps the condition
    EXPECT_TRUE(!f.intx_asserted());
    EXPECT_TRUE(f.config_read(pci::kStatus, 2) & pci::STATUS_INTERRUPT);
    f.config_write(pci::kCommand, 2, 0);
    f.interrupt(false);
    EXPECT_EQ(pin.size(), 4u);
    EXPECT_TRUE(pin[0] && !pin[1] && pin[2] && !pin[3]);
}

MODEL_TEST(msi_sends_the_message_data_to_the_message_address) {
    PciFunction f(sample());
    std::vector<std::pair<uint64_t, uint32_t>> sent;
    std::vector<bool> pin;
    f.set_msi_sink([&](uint64_t a, uint32_t d) { sent.push_back({a, d}); });
    f.set_intx_sink([&](bool l) { pin.push_back(l); });
    f.config_write(pci::kCommand, 2, pci::CMD_MEMORY | pci::CMD_MASTER);
    f.config_write(0x64, 4, 0xfee0100fu); // Message Address: bits 1:0 reserved
    f.config_write(0x68, 4, 0x1);         // Message Upper Address
    f.config_write(0x6c, 2, 0x4041);      // Message Data
    f.config_write(0x62, 2, pci::MSI_ENABLE | 7u << pci::MSI_MME_SHIFT);
    EXPECT_TRUE(f.msi_enabled());
    EXPECT_EQ(f.msi_address(), 0x1fee0100cull);
    EXPECT_EQ(f.msi_vectors_enabled(), 1u); // MME above MMC: one message
    f.interrupt(true);
    f.interrupt(true); // still asserted: no new edge
    f.interrupt(false);
    f.interrupt(true);
    EXPECT_EQ(sent.size(), 2u);
    EXPECT_EQ(sent[0].first, 0x1fee0100cull);
    EXPECT_EQ(sent[0].second, 0x4041u);
    EXPECT_TRUE(pin.empty()); // INTx stays deasserted while MSI is enabled
    f.config_write(pci::kCommand, 2, pci::CMD_MEMORY); // no bus mastering: no message
    f.interrupt(false);
    f.interrupt(true);
    EXPECT_EQ(sent.size(), 2u);
}

MODEL_TEST(window_answers_only_with_its_space_enabled) {
    struct Regs : MmioTarget {
        uint32_t v = 0x12345678u;
        uint32_t mmio_read32(uint32_t) override { return v; }
        void mmio_write32(uint32_t, uint32_t val) override { v = val; }
    } regs;
    PciFunction f(sample());
    PciWindow mem(regs, f, PciWindow::Space::Memory), io(regs, f, PciWindow::Space::Io);
    EXPECT_EQ(mem.mmio_read32(0), 0xffffffffu); // master abort: all ones
    mem.mmio_write32(0, 0);
    EXPECT_EQ(regs.v, 0x12345678u);
    f.config_write(pci::kCommand, 2, pci::CMD_MEMORY);
    EXPECT_EQ(mem.mmio_read32(0), 0x12345678u);
    EXPECT_EQ(io.mmio_read8(0), 0xffu);
    f.config_write(pci::kCommand, 2, pci::CMD_IO);
    EXPECT_EQ(io.mmio_read8(0), 0x78u);
}

MODEL_TEST(bus_master_engine_needs_bus_master_enable) {
    HostMemory mem;
    uint8_t *cpu = nullptr;
    const uint64_t prd = mem.alloc(8, 8, &cpu);
    uint8_t *data = nullptr;
    const uint64_t buf = mem.alloc(512, 8, &data);
    const uint32_t entry[2] = {uint32_t(buf), 512u | bmdma::reg::PRD_EOT};
    std::memcpy(cpu, entry, 8);
    PciFunction f(piix::PiixIde::pci_spec(piix::PiixPart::Piix4));
    bmdma::BmDma dma(mem);
    dma.set_pci(&f);
    uint8_t src[512];
    std::memset(src, 0xa5, sizeof src);
    dma.write32(bmdma::reg::kPrdTable, uint32_t(prd));
    dma.write8(bmdma::reg::kCommand, bmdma::reg::CMD_START | bmdma::reg::CMD_WRITE_MEM);
    EXPECT_EQ(dma.write_memory(src, sizeof src), 0u); // no bus master enable: a master abort
    EXPECT_TRUE(dma.status() & bmdma::reg::ST_ERROR);
    EXPECT_TRUE(f.config_read(pci::kStatus, 2) & pci::STATUS_REC_MASTER_ABORT);
    EXPECT_EQ(data[0], 0);
    dma.write8(bmdma::reg::kCommand, 0);
    dma.write8(bmdma::reg::kStatus, bmdma::reg::ST_ERROR | bmdma::reg::ST_INTR);
    f.config_write(pci::kCommand, 2, pci::CMD_IO | pci::CMD_MASTER);
    dma.write8(bmdma::reg::kCommand, bmdma::reg::CMD_START | bmdma::reg::CMD_WRITE_MEM);
    EXPECT_EQ(dma.write_memory(src, sizeof src), 512u);
    EXPECT_EQ(data[511], 0xa5);
}

// ---- each controller's function against the real part

MODEL_TEST(ahci_function_is_an_ich9_sata_function_in_ahci_mode) {
    ahci::AhciConfig cfg;
    cfg.n_ports = 6;
    PciFunction f(ahci::AhciHba::pci_spec(cfg));
    EXPECT_EQ(f.config_read(pci::kVendorId, 4), 0x29228086u);
    EXPECT_EQ(f.config_read(pci::kRevision, 4), 0x01060102u); // class 01/06/01, rev 02
    EXPECT_EQ(f.config_read(pci::kIntPin, 1), 2u);              // INTB#
    EXPECT_EQ(bar_size(f, 5), 2048u);                           // ABAR m2048
    EXPECT_EQ(f.config_read(pci::kBar0 + 20, 4) & 0xfu, 0u);    // 32-bit memory, not prefetchable
    EXPECT_EQ(bar_size(f, 4), 32u);
    EXPECT_EQ(f.config_read(pci::kBar0 + 16, 4) & 1u, 1u); // I/O
    auto c = caps(f);
    EXPECT_EQ(c.size(), 3u);
    EXPECT_TRUE(c.size() == 3 && c[0] == std::make_pair(pci::CAP_MSI, uint8_t(0x80)) &&
                c[1] == std::make_pair(pci::CAP_PM, uint8_t(0x70)) &&
                c[2] == std::make_pair(pci::CAP_SATA, uint8_t(0xa8)));
    EXPECT_EQ(f.config_read(0x82, 2), 0u); // MSI: one message, 32-bit, off
    cfg.n_ports = 32;
    PciFunction big(ahci::AhciHba::pci_spec(cfg));
    EXPECT_EQ(bar_size(big, 5), 8192u); // 0x100 + 32 * 0x80 rounded up
}

MODEL_TEST(sil24_function_is_a_sii3124) {
    PciFunction f(sil24::Sil24Hba::pci_spec());
    EXPECT_EQ(f.config_read(pci::kVendorId, 4), 0x31241095u);
    EXPECT_EQ(f.config_read(pci::kRevision, 4), 0x01040002u);
    EXPECT_EQ(f.config_read(pci::kSubsysVendor, 4), 0x71241095u);
    EXPECT_EQ(f.config_read(pci::kBar0, 4), pci::BAR_MEM_64);
    EXPECT_EQ(bar_size(f, 0), 128u);
    EXPECT_EQ(bar_size(f, 2), 0x8000u);
    EXPECT_EQ(bar_size(f, 4), 16u);
    f.config_write(pci::kRomBase, 4, 0xffffffffu);
    EXPECT_EQ(f.config_read(pci::kRomBase, 4), 0xfff80001u); // 512 KiB ROM
    auto c = caps(f);
    EXPECT_TRUE(c.size() == 3 && c[0] == std::make_pair(pci::CAP_PM, uint8_t(0x64)) &&
                c[1] == std::make_pair(pci::CAP_PCIX, uint8_t(0x40)) &&
                c[2] == std::make_pair(pci::CAP_MSI, uint8_t(0x54)));
    EXPECT_EQ(f.config_read(0x56, 2), uint32_t(pci::MSI_64BIT));
    f.config_write(0x68, 2, 2); // D2 is supported here
    EXPECT_EQ(f.power_state(), 2u);
}

MODEL_TEST(sil3112_function_is_a_sii3112) {
    PciFunction f(sil3112::Sil3112Hba::pci_spec());
    EXPECT_EQ(f.config_read(pci::kVendorId, 4), 0x31121095u);
    EXPECT_EQ(f.config_read(pci::kRevision, 4), 0x01040002u);
    EXPECT_EQ(bar_size(f, 5), 512u);
    EXPECT_EQ(bar_size(f, 0), 8u);
    EXPECT_EQ(bar_size(f, 1), 4u);
    auto c = caps(f);
    EXPECT_TRUE(c.size() == 1 && c[0] == std::make_pair(pci::CAP_PM, uint8_t(0x60)));
}

MODEL_TEST(piix_functions_per_part) {
    PciFunction ich(piix::PiixIde::pci_spec(piix::PiixPart::IchSata));
    EXPECT_EQ(ich.config_read(pci::kVendorId, 4), 0x24d18086u);
    EXPECT_EQ(ich.config_read(pci::kRevision, 4), 0x01018a02u);
    EXPECT_EQ(bar_size(ich, 4), 16u);
    EXPECT_EQ(caps(ich).size(), 1u);
    PciFunction p3(piix::PiixIde::pci_spec(piix::PiixPart::Piix3));
    EXPECT_EQ(p3.config_read(pci::kVendorId, 4), 0x70108086u);
    EXPECT_EQ(p3.config_read(pci::kRevision, 4), 0x01018000u);
    EXPECT_EQ(p3.config_read(pci::kIntPin, 1), 0u); // legacy IRQ 14/15, no PCI pin
    EXPECT_EQ(caps(p3).size(), 0u);
    EXPECT_EQ(bar_size(p3, 0), 0u);
    EXPECT_EQ(bar_size(p3, 4), 16u);
    p3.config_write(pci::kCommand, 2, 0xffff); // no pin: Interrupt Disable is hardwired 0
    EXPECT_EQ(p3.command() & pci::CMD_INTX_DISABLE, 0);
    EXPECT_EQ(p3.command() & pci::CMD_MEMORY, 0); // no memory BAR: memory enable hardwired 0
    PciFunction p4(piix::PiixIde::pci_spec(piix::PiixPart::Piix4));
    EXPECT_EQ(p4.config_read(pci::kVendorId, 4), 0x71118086u);
    EXPECT_EQ(p4.config_read(pci::kRevision, 1), 1u);
}

// The IDE timing registers in the device-specific area (docs/hardware.md 10.2, 12.6): IDETIM
// 40h/42h with the decode enable the BIOS sets, reserved bits 11:10; SIDETIM 44h; the PIIX4's
// UDMACTL 48h (bits 3:0) and UDMATIM 4Ah (3333h); none of the PIIX4's UDMA registers on the
// PIIX3; the ICH's IDE_CONFIG 54h; and D3hot -> D0 without No_Soft_Reset back to reset values.
MODEL_TEST(piix_timing_registers_in_config_space) {
    PciFunction p4(piix::PiixIde::pci_spec(piix::PiixPart::Piix4));
    EXPECT_EQ(p4.config_read(0x40, 4), 0x80008000u);
    EXPECT_EQ(p4.config_read(0x44, 1), 0u);
    p4.config_write(0x40, 2, 0xffff);
    EXPECT_EQ(p4.config_read(0x40, 2), 0xf3ffu);
    p4.config_write(0x44, 1, 0xa5);
    EXPECT_EQ(p4.config_read(0x44, 1), 0xa5u);
    p4.config_write(0x48, 1, 0xff);
    EXPECT_EQ(p4.config_read(0x48, 1), 0x0fu);
    p4.config_write(0x4a, 2, 0xffff);
    EXPECT_EQ(p4.config_read(0x4a, 2), 0x3333u);
    EXPECT_EQ(p4.config_read(0x54, 2), 0u); // no IDE_CONFIG on the PIIX4
    p4.config_write(0x54, 2, 0xffff);
    EXPECT_EQ(p4.config_read(0x54, 2), 0u);
    PciFunction p3(piix::PiixIde::pci_spec(piix::PiixPart::Piix3));
    EXPECT_EQ(p3.config_read(0x42, 2), 0x8000u);
    p3.config_write(0x48, 1, 0x0f);
    p3.config_write(0x4a, 2, 0x3333);
    EXPECT_EQ(p3.config_read(0x48, 4), 0u); // no UDMA registers on the PIIX3
    PciFunction ich(piix::PiixIde::pci_spec(piix::PiixPart::IchSata));
    ich.config_write(0x54, 2, 0xffff);
    EXPECT_EQ(ich.config_read(0x54, 2), 0xf4ffu);
    ich.config_write(0x40, 2, 0x0123);
    ich.config_write(0x74, 2, 3); // PMCSR (PM at 70h): D3hot
    ich.config_write(0x74, 2, 0); // back to D0: soft reset
    EXPECT_EQ(ich.config_read(0x40, 2), 0x8000u);
    EXPECT_EQ(ich.config_read(0x54, 2), 0u);
}

int sc_main(int, char **) { return satasim::test::run_all(); }
