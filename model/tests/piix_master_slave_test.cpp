// The ICH/PIIX-like controller with master/slave emulation (model/piix, PiixMap::Ich6: P0
// primary master, P2 primary slave, P1 secondary master, P3 secondary slave), through its
// legacy I/O window as a driver sees it: both devices of a channel latch the taskfile
// writes and Device Control (ATA-3 6.1), the DEV bit selects whose registers the reads,
// Command and Data reach, only the selected device drives INTRQ, an empty port reads 7Fh and
// keeps nothing written to it, SRST resets both devices (each sends its own signature), and
// DMA of either device goes through the channel's one bus-master engine.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/bus/host_memory.h"
#include "model/bus/irq_line.h"
#include "model/device/sata_disk.h"
#include "model/piix/piix_ide.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::sff::reg;
namespace bm = satasim::bmdma::reg;
using sc_core::SC_MS;
using sc_core::SC_US;
using Bytes = std::vector<uint8_t>;

namespace {

device::DiskConfig disk_cfg(const char *serial, uint64_t sectors) {
    device::DiskConfig c;
    c.serial = serial;
    c.sectors = sectors;
    return c;
}

// Ports: P0 (primary master) disk A, P2 (primary slave) disk B, P1 (secondary master)
// disk C, P3 (secondary slave) no cable.
struct Rig {
    test::RecordingTrace tr;
    bus::HostMemory mem;
    bus::IrqLine irq;
    piix::PiixIde hba;
    link::SataLink l0, l2, l1;
    device::SataDisk a, b, c;
    Rig()
        : hba("piix0", mem, irq, &tr, piix::PiixMap::Ich6), l0("link0", link::SataLink::Config{}, &tr),
          l2("link2", link::SataLink::Config{}, &tr), l1("link1", link::SataLink::Config{}, &tr),
          a("disk0", disk_cfg("SERIAL-A", 1000000), &tr), b("disk2", disk_cfg("SERIAL-B", 2000000), &tr),
          c("disk1", disk_cfg("SERIAL-C", 3000000), &tr) {
        bus::pci_enable_for_test(hba.pci());
        wire(l0, a, 0);
        wire(l2, b, 2);
        wire(l1, c, 1);
    }
    void wire(link::SataLink &l, device::SataDisk &d, unsigned port) {
        l.attach(hba.port_endpoint(port), &d);
        hba.connect_port(port, &l);
        d.connect(&l);
    }
    // channel 0 = primary, 1 = secondary
    uint8_t rd(unsigned ch, unsigned r) { return hba.mmio_read8(piix::reg::kCmd[ch] + r); }
    void wr(unsigned ch, unsigned r, uint8_t v) { hba.mmio_write8(piix::reg::kCmd[ch] + r, v); }
    uint8_t alt(unsigned ch) { return hba.mmio_read8(piix::reg::kCtl[ch]); }
    void devctl(unsigned ch, uint8_t v) { hba.mmio_write8(piix::reg::kCtl[ch], v); }
    void select(unsigned ch, unsigned dev) { wr(ch, kDevice, uint8_t(0xA0 | (dev ? DEV_DEV1 : 0))); }
    bool wait_ready(unsigned ch, unsigned dev) {
        select(ch, dev);
        for (int i = 0; i < 200000; ++i) {
            const uint8_t s = alt(ch);
            if (!(s & ST_BSY) && s != 0x7F)
                return true;
            sc_core::wait(1, SC_US);
        }
        return false;
    }
    bool wait_irq() {
        for (int i = 0; i < 200000 && !irq.level(); ++i)
            sc_core::wait(1, SC_US);
        return irq.level();
    }
    std::string identify_serial(unsigned ch, unsigned dev) {
        select(ch, dev);
        wr(ch, kCommand, 0xEC);
        EXPECT_TRUE(wait_irq());
        EXPECT_EQ(rd(ch, kStatus), 0x58u);
        std::string serial;
        for (int w = 0; w < 256; ++w) {
            const uint16_t v = hba.mmio_read16(piix::reg::kCmd[ch]);
            if (w >= 10 && w < 20) {
                serial += char(v >> 8);
                serial += char(v & 0xff);
            }
        }
        while (!serial.empty() && serial.back() == ' ')
            serial.pop_back();
        return serial;
    }
};
Rig *rig;

// A PRD table of one region with EOT; returns its bus address.
uint32_t one_prd(bus::HostMemory &m, uint64_t addr, uint32_t len) {
    uint8_t *cpu = nullptr;
    const uint64_t t = m.alloc(8, 4, &cpu);
    const uint32_t dw[2] = {uint32_t(addr), (len & 0xffff) | bm::PRD_EOT};
    std::memcpy(cpu, dw, 8);
    return uint32_t(t);
}

} // namespace

MODEL_TEST(both_devices_of_a_channel_show_their_signature_and_an_empty_port_7f) {
    Rig &r = *rig;
    EXPECT_TRUE(r.wait_ready(0, 0));
    EXPECT_TRUE(r.wait_ready(0, 1));
    for (unsigned dev : {0u, 1u}) {
        r.select(0, dev);
        EXPECT_EQ(r.rd(0, kNsect), 1u); // the ATA signature: 01h 01h 00h 00h
        EXPECT_EQ(r.rd(0, kLbal), 1u);
        EXPECT_EQ(r.rd(0, kLbam), 0u);
        EXPECT_EQ(r.rd(0, kLbah), 0u);
        EXPECT_EQ(unsigned(r.rd(0, kDevice) & DEV_DEV1), dev ? unsigned(DEV_DEV1) : 0u); // DEV reads back as selected
    }
    EXPECT_TRUE(r.wait_ready(1, 0));
    r.select(1, 1);
    EXPECT_EQ(r.alt(1), 0x7Fu); // P3: no cable
    EXPECT_EQ(r.rd(1, kStatus), 0x7Fu);
    r.select(1, 0);
    EXPECT_EQ(r.alt(1) & ~ST_DSC, ST_DRDY);
}

// libata's device check: write 55h/AAh to Sector Count/LBA Low, read them back.
MODEL_TEST(an_empty_port_keeps_nothing_the_present_device_keeps_what_both_were_sent) {
    Rig &r = *rig;
    r.select(1, 1);
    r.wr(1, kNsect, 0x55);
    r.wr(1, kLbal, 0xAA);
    EXPECT_TRUE(r.rd(1, kNsect) != 0x55u || r.rd(1, kLbal) != 0xAAu); // absent
    r.select(1, 0);
    EXPECT_EQ(r.rd(1, kNsect), 0x55u); // the write reached device 0 while device 1 was selected
    EXPECT_EQ(r.rd(1, kLbal), 0xAAu);
    r.select(0, 1);
    r.wr(0, kNsect, 0x33);
    EXPECT_EQ(r.rd(0, kNsect), 0x33u);
    r.select(0, 0);
    EXPECT_EQ(r.rd(0, kNsect), 0x33u); // both devices latched it
}

MODEL_TEST(a_command_reaches_the_selected_device_only_and_intrq_follows_the_selection) {
    Rig &r = *rig;
    r.devctl(0, 0x08); // nIEN off
    EXPECT_TRUE(r.identify_serial(0, 1) == "SERIAL-B");
    EXPECT_TRUE(!r.irq.level());
    EXPECT_TRUE(r.identify_serial(0, 0) == "SERIAL-A");
    EXPECT_TRUE(r.identify_serial(1, 0) == "SERIAL-C");
    // the slave completes a command; its interrupt is seen only while it is selected
    r.select(0, 1);
    r.wr(0, kCommand, 0xE7); // FLUSH CACHE
    r.select(0, 0);          // the host looks at the master meanwhile
    sc_core::wait(5, SC_MS);
    EXPECT_TRUE(!r.irq.level());
    EXPECT_EQ(r.alt(0) & (ST_BSY | ST_DRQ | ST_ERR), 0); // the master is idle throughout
    r.select(0, 1);
    EXPECT_TRUE(r.irq.level());
    EXPECT_EQ(r.hba.mmio_read8(piix::reg::kBmdma[0] + bm::kStatus) & bm::ST_INTR, bm::ST_INTR);
    EXPECT_EQ(r.rd(0, kStatus), 0x50u); // acknowledged
    EXPECT_TRUE(!r.irq.level());
    r.hba.mmio_write8(piix::reg::kBmdma[0] + bm::kStatus, bm::ST_INTR);
    // a command to an empty port goes nowhere
    r.select(1, 1);
    r.wr(1, kCommand, 0xEC);
    sc_core::wait(5, SC_MS);
    EXPECT_EQ(r.alt(1), 0x7Fu);
    EXPECT_TRUE(!r.irq.level());
    r.select(1, 0);
    EXPECT_EQ(r.alt(1) & (ST_BSY | ST_DRQ), 0);
}

MODEL_TEST(srst_resets_both_devices_and_each_sends_its_signature) {
    Rig &r = *rig;
    r.select(0, 0);
    r.wr(0, kLbal, 0x77); // both latch it; the signatures overwrite it
    r.devctl(0, 0x0C);    // SRST, nIEN
    sc_core::wait(20, SC_US);
    r.devctl(0, 0x08);
    r.select(0, 0);
    EXPECT_TRUE(r.alt(0) & ST_BSY);
    r.select(0, 1);
    EXPECT_TRUE(r.alt(0) & ST_BSY);
    for (unsigned dev : {0u, 1u}) {
        EXPECT_TRUE(r.wait_ready(0, dev));
        EXPECT_EQ(r.rd(0, kLbal), 1u);
        EXPECT_EQ(r.rd(0, kNsect), 1u);
        EXPECT_EQ(r.rd(0, kError), 1u); // diagnostic code: passed
    }
    EXPECT_EQ(r.tr.count("sff.srst"), size_t(4)); // assert and release, to each device
}

MODEL_TEST(dma_of_the_slave_goes_through_the_channels_engine) {
    Rig &r = *rig;
    Bytes src(8 * 512);
    for (size_t i = 0; i < src.size(); ++i)
        src[i] = uint8_t(i * 7 + 3);
    uint8_t *buf = nullptr;
    const uint64_t ba = r.mem.alloc(4096, 4096, &buf);
    std::memcpy(buf, src.data(), 4096);
    const uint32_t bmb = piix::reg::kBmdma[0];
    auto lba28 = [&](uint8_t cmd, uint32_t lba, uint8_t n, unsigned dev) {
        r.wr(0, kNsect, n);
        r.wr(0, kLbal, uint8_t(lba));
        r.wr(0, kLbam, uint8_t(lba >> 8));
        r.wr(0, kLbah, uint8_t(lba >> 16));
        r.wr(0, kDevice, uint8_t(DEV_LBA | (dev ? DEV_DEV1 : 0)));
        r.wr(0, kCommand, cmd);
    };
    r.hba.mmio_write32(bmb + bm::kPrdTable, one_prd(r.mem, ba, 4096));
    r.hba.mmio_write8(bmb + bm::kStatus, bm::ST_INTR | bm::ST_ERROR);
    lba28(0xCA, 6000, 8, 1); // WRITE DMA to the slave
    r.hba.mmio_write8(bmb + bm::kCommand, bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.hba.mmio_read8(bmb + bm::kStatus) & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR);
    r.hba.mmio_write8(bmb + bm::kCommand, 0);
    EXPECT_EQ(r.rd(0, kStatus), 0x50u);
    r.hba.mmio_write8(bmb + bm::kStatus, bm::ST_INTR);
    Bytes media(4096), other(4096);
    r.b.media().read(6000, 8, media.data());
    EXPECT_TRUE(media == src);
    r.a.media().read(6000, 8, other.data());
    EXPECT_TRUE(other != src); // the master's media is untouched
    // and read it back through the same engine
    std::memset(buf, 0, 4096);
    r.hba.mmio_write32(bmb + bm::kPrdTable, one_prd(r.mem, ba, 4096));
    lba28(0xC8, 6000, 8, 1); // READ DMA from the slave
    r.hba.mmio_write8(bmb + bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    r.hba.mmio_write8(bmb + bm::kCommand, bm::CMD_WRITE_MEM);
    EXPECT_EQ(r.rd(0, kStatus), 0x50u);
    r.hba.mmio_write8(bmb + bm::kStatus, bm::ST_INTR);
    EXPECT_TRUE(std::memcmp(buf, src.data(), 4096) == 0);
}

int sc_main(int, char **) {
    Rig r;
    rig = &r;
    return test::run_all();
}
