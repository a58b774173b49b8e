// The SiI3112-like controller (model/sil3112) through its BAR5 window, as a driver sees it:
// the channels' taskfile, control and bus-master registers at sata_sil's offsets, BMDMA2's
// mirror bits, the SCRs, SIEN's SATA interrupt and SYSCFG's interrupt masks on the one line.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/device/sata_disk.h"
#include "model/sil3112/sil3112_hba.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::sil3112::reg;
using sc_core::SC_MS;
using sc_core::SC_US;

namespace {
struct Rig {
    test::RecordingTrace tr;
    bus::HostMemory mem;
    bus::IrqLine irq;
    sil3112::Sil3112Hba hba;
    link::SataLink link;
    device::SataDisk disk;
    Rig()
        : hba("sil3112_0", sil3112::Sil3112Config{}, mem, irq, &tr),
          link("link0", [] {
              link::SataLink::Config c;
              c.host_max = link::Gen::Gen1;
              return c;
          }(), &tr),
          disk("disk0", device::DiskConfig{}, &tr) {
        bus::pci_enable_for_test(hba.pci());
        link.attach(hba.port_endpoint(0), &disk);
        hba.connect_port(0, &link);
        disk.connect(&link);
    }
    uint8_t status0() { return hba.mmio_read8(kTf[0] + 7); }
    uint8_t alt0() { return hba.mmio_read8(kCtl[0]); }
    bool wait_not_busy() {
        for (int i = 0; i < 100000; ++i) {
            const uint8_t s = alt0();
            if ((hba.mmio_read32(kScr[0] + 4) & 0xf) == 3 && !(s & 0x80) && s != 0x7f)
                return true;
            sc_core::wait(1, SC_US);
        }
        return false;
    }
};
Rig *rig;
} // namespace

MODEL_TEST(power_on_no_phy_and_empty_channel) {
    Rig &r = *rig;
    EXPECT_EQ(r.hba.mmio_read32(kScr[0] + 4), 0x1u); // SStatus DET 1: a device, no PHY communication
    EXPECT_EQ(r.alt0(), 0x7Fu);
    EXPECT_EQ(r.hba.mmio_read8(kCtl[1]), 0x7Fu); // channel 1 has no cable at all
    EXPECT_TRUE(!r.irq.level());
}

MODEL_TEST(comreset_through_scontrol_gives_gen1_and_the_signature) {
    Rig &r = *rig;
    r.hba.mmio_write32(kScr[0], 0x301);
    sc_core::wait(1, SC_MS);
    r.hba.mmio_write32(kScr[0], 0x300);
    EXPECT_TRUE(r.wait_not_busy());
    EXPECT_EQ(r.hba.mmio_read32(kScr[0] + 4), 0x113u); // DET 3, SPD Gen1, IPM active
    EXPECT_EQ(r.hba.mmio_read32(kScr[0]), 0x300u);
    EXPECT_EQ(r.hba.mmio_read8(kTf[0] + 2), 1u);
    EXPECT_EQ(r.hba.mmio_read8(kTf[0] + 3), 1u);
    EXPECT_TRUE(r.hba.mmio_read32(kScr[0] + 8) & SERR_DIAG_N); // the PHY change is in SError
    r.status0();
}

MODEL_TEST(sata_irq_follows_serror_n_and_sien) {
    Rig &r = *rig;
    EXPECT_TRUE(!r.irq.level()); // SIEN off: SError.N raises nothing
    r.hba.mmio_write32(kSien[0], SIEN_N);
    EXPECT_TRUE(r.irq.level());
    EXPECT_TRUE(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_SATA_IRQ);
    r.hba.mmio_write32(kSysCfg, SYSCFG_MASK_IDE0_INT); // SYSCFG does not mask the SATA interrupt
    EXPECT_TRUE(r.irq.level());
    r.hba.mmio_write32(kScr[0] + 8, r.hba.mmio_read32(kScr[0] + 8)); // write 1 to clear
    EXPECT_TRUE(!r.irq.level());
    EXPECT_EQ(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_SATA_IRQ, 0u);
}

MODEL_TEST(syscfg_masks_the_channel_interrupt_and_status_read_clears_it) {
    Rig &r = *rig;
    r.hba.mmio_write8(kTf[0] + 6, 0x40);
    r.hba.mmio_write8(kTf[0] + 7, 0xE7); // FLUSH CACHE
    for (int i = 0; i < 1000 && (r.alt0() & 0x80); ++i)
        sc_core::wait(10, SC_US);
    sc_core::wait(10, SC_US);
    EXPECT_TRUE(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_COMPLETE); // pending, the line masked
    EXPECT_TRUE(!r.irq.level());
    r.hba.mmio_write32(kSysCfg, 0);
    EXPECT_TRUE(r.irq.level());
    EXPECT_TRUE(r.hba.mmio_read8(kBmdma[0] + 2) & 0x04); // the SFF-8038i Interrupt bit too
    EXPECT_EQ(r.status0(), 0x50u);
    EXPECT_TRUE(!r.irq.level());
    EXPECT_EQ(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_COMPLETE, 0u);
    r.hba.mmio_write8(kBmdma[0] + 2, 0x04);
    EXPECT_EQ(r.hba.mmio_read8(kBmdma[0] + 2) & 0x04, 0);
}

MODEL_TEST(bmdma_registers_and_their_bmdma2_mirror) {
    Rig &r = *rig;
    r.hba.mmio_write32(kBmdma[0] + 4, 0x12345678);
    EXPECT_EQ(r.hba.mmio_read32(kBmdma[0] + 4), 0x12345678u & ~3u);
    r.hba.mmio_write8(kBmdma[0], 0x09); // start, into memory
    EXPECT_EQ(r.hba.mmio_read32(kBmdma2[0]) & 0x0000ffffu, 0x09u);
    EXPECT_TRUE(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_ACTIVE);
    r.hba.mmio_write8(kBmdma[0], 0x08);
    EXPECT_EQ(r.hba.mmio_read32(kBmdma2[0]) & BMDMA2_ACTIVE, 0u);
    EXPECT_EQ(r.hba.mmio_read32(kBmdma[1] + 4), 0u); // channel 1 untouched
}

MODEL_TEST(fifo_thresholds_read_back) {
    Rig &r = *rig;
    r.hba.mmio_write16(kFifoCfg[1], 0x0303);
    EXPECT_EQ(r.hba.mmio_read16(kFifoCfg[1]), 0x0303u);
    EXPECT_EQ(r.hba.mmio_read32(kFifoCfg[0]), 0u);
}

int sc_main(int, char **) {
    Rig r;
    rig = &r;
    return test::run_all();
}
