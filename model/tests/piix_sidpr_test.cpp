// The ICH8's SATA index/data pair (model/piix, PiixPart::Ich8Sata; docs/hardware.md 10.8), as
// ata_piix uses it (piix_sidpr_sel: iowrite32(((port_no * 2 + link->pmp) << 8) | sidx,
// SIDPR + 0); then ioread32/iowrite32(SIDPR + 4); sidx 0 SStatus, 1 SControl, 2 SError): each
// SATA port of each channel has its own SCRs there, master and slave apart; SControl DET=1
// holds COMRESET on that port's link only; SError is write-1-to-clear; the PCI function gets
// BAR5 (I/O, 16 bytes), the ICH5 part (IchSata) none.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/bus/pci_function.h"
#include "model/device/sata_disk.h"
#include "model/piix/piix_ide.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using sc_core::SC_MS;
using sc_core::SC_US;

namespace {

constexpr uint32_t kIdx = piix::reg::kSidpr + piix::reg::kSidprIdx, kData = piix::reg::kSidpr + piix::reg::kSidprData;
constexpr uint32_t kSStatus = 0, kSControl = 1, kSError = 2;

device::DiskConfig disk_cfg(const char *serial) {
    device::DiskConfig c;
    c.serial = serial;
    c.sectors = 1000000;
    return c;
}

// The ICH6 port layout (P0 primary master, P2 primary slave, P1 secondary master, P3
// secondary slave) on an ICH8: disks on P0 and P2, P1 and P3 without a drive.
struct Rig {
    test::RecordingTrace tr;
    bus::HostMemory mem;
    bus::IrqLine irq;
    piix::PiixIde hba;
    link::SataLink l0, l2;
    device::SataDisk a, b;
    Rig()
        : hba("piix0", mem, irq, &tr, piix::PiixMap::Ich6, piix::PiixPart::Ich8Sata),
          l0("link0", link::SataLink::Config{}, &tr), l2("link2", link::SataLink::Config{}, &tr),
          a("disk0", disk_cfg("SERIAL-A"), &tr), b("disk2", disk_cfg("SERIAL-B"), &tr) {
        bus::pci_enable_for_test(hba.pci());
        wire(l0, a, 0);
        wire(l2, b, 2);
    }
    void wire(link::SataLink &l, device::SataDisk &d, unsigned port) {
        l.attach(hba.port_endpoint(port), &d);
        hba.connect_port(port, &l);
        d.connect(&l);
    }
    // ata_piix's view: channel, device (the slave link's pmp 1), SCR
    uint32_t scr(unsigned ch, unsigned dev, uint32_t sidx) {
        hba.mmio_write32(kIdx, (ch * 2 + dev) << 8 | sidx);
        return hba.mmio_read32(kData);
    }
    void set_scr(unsigned ch, unsigned dev, uint32_t sidx, uint32_t v) {
        hba.mmio_write32(kIdx, (ch * 2 + dev) << 8 | sidx);
        hba.mmio_write32(kData, v);
    }
    bool wait_det(unsigned ch, unsigned dev, uint32_t det) {
        for (int i = 0; i < 100000; ++i) {
            if ((scr(ch, dev, kSStatus) & 0xf) == det)
                return true;
            sc_core::wait(10, SC_US);
        }
        return false;
    }
};
Rig *rig;

} // namespace

MODEL_TEST(each_port_of_a_channel_has_its_own_sstatus) {
    Rig &r = *rig;
    EXPECT_TRUE(r.wait_det(0, 0, 3)); // the power-on COMRESET brought P0 up
    EXPECT_TRUE(r.wait_det(0, 1, 3)); // and P2, the primary slave
    EXPECT_EQ(r.scr(1, 0, kSStatus) & 0xf, 0u); // P1: no drive
    EXPECT_EQ(r.scr(1, 1, kSStatus) & 0xf, 0u); // P3: no drive
    EXPECT_EQ(r.hba.mmio_read32(kIdx), uint32_t(3 << 8 | kSStatus)); // the index reads back
    EXPECT_EQ(r.scr(2, 0, kSStatus), 0u);                            // no channel 2
}

MODEL_TEST(scontrol_det1_resets_the_selected_port_only_and_serror_is_write_one_to_clear) {
    Rig &r = *rig;
    EXPECT_TRUE(r.wait_det(0, 0, 3));
    EXPECT_TRUE(r.wait_det(0, 1, 3));
    r.set_scr(0, 0, kSError, 0xffffffffu);
    r.set_scr(0, 1, kSError, 0xffffffffu);
    EXPECT_EQ(r.scr(0, 1, kSError), 0u);
    // ata_piix's test drive: IPM 3 (0x300) in SControl, read back
    r.set_scr(0, 1, kSControl, 0x300);
    EXPECT_EQ(r.scr(0, 1, kSControl), 0x300u);
    // sata_std_hardreset on the slave link: DET=1, then DET=0
    r.set_scr(0, 1, kSControl, 0x301);
    sc_core::wait(1, SC_MS);
    EXPECT_TRUE((r.scr(0, 1, kSStatus) & 0xf) != 3); // held in COMRESET: no communication
    EXPECT_EQ(r.scr(0, 0, kSStatus) & 0xf, 3u);  // the master's link did not move
    r.set_scr(0, 1, kSControl, 0x300);
    EXPECT_TRUE(r.wait_det(0, 1, 3));
    const uint32_t serr = r.scr(0, 1, kSError);
    EXPECT_TRUE((serr & (1u << 16)) != 0); // PhyRdyChg latched on the slave's port ...
    EXPECT_EQ(r.scr(0, 0, kSError) & (1u << 16), 0u); // ... not on the master's
    r.set_scr(0, 1, kSError, 1u << 16);
    EXPECT_EQ(r.scr(0, 1, kSError) & (1u << 16), 0u);
}

// Line noise with PhyRdy kept (fault line_noise; dmesg corpus 25's "SErr 0x80800"): the slave
// port's SError latches DIAG.B and ERR.E, nothing else moves and nothing interrupts (an ICH has
// no SError interrupt: the next EH run reads it through SIDPR).
MODEL_TEST(line_noise_latches_serror_on_its_port_only_and_raises_nothing) {
    Rig &r = *rig;
    EXPECT_TRUE(r.wait_det(0, 0, 3));
    EXPECT_TRUE(r.wait_det(0, 1, 3));
    r.set_scr(0, 0, kSError, 0xffffffffu);
    r.set_scr(0, 1, kSError, 0xffffffffu);
    const bool irq_before = r.irq.level();
    link::LinkEndpoint::Noise n;
    n.decode = n.internal = true;
    r.l2.line_noise(n);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(r.scr(0, 1, kSError), (1u << 19) | (1u << 11)); // 10B8B, HostInt
    EXPECT_EQ(r.scr(0, 0, kSError), 0u);                      // not the master's port
    EXPECT_EQ(r.scr(0, 1, kSStatus) & 0xf, 3u);               // PhyRdy kept
    EXPECT_EQ(r.irq.level(), irq_before);
    EXPECT_TRUE(!r.irq.level());
}

MODEL_TEST(the_pci_function_has_bar5_and_the_ich5_part_none) {
    const bus::PciSpec ich8 = piix::PiixIde::pci_spec(piix::PiixPart::Ich8Sata);
    const bus::PciSpec ich5 = piix::PiixIde::pci_spec(piix::PiixPart::IchSata);
    EXPECT_EQ(ich8.device, 0x2820u);
    EXPECT_EQ(unsigned(ich8.bars[5].kind), unsigned(bus::PciBar::Kind::Io));
    EXPECT_EQ(ich8.bars[5].size, 16u); // ata_piix: PIIX_SIDPR_LEN, else no SIDPR
    EXPECT_EQ(unsigned(ich5.bars[5].kind), unsigned(bus::PciBar::Kind::None));
    EXPECT_EQ(ich5.device, 0x24d1u);
}

int sc_main(int, char **) {
    Rig r;
    rig = &r;
    return test::run_all();
}
