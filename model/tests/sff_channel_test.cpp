// An SFF taskfile channel (model/sff) with its bus-master engine (model/bmdma) in front of a
// SataDisk over a real SataLink, driven register by register as a host driver would: the
// values each register must read per ATA/ATAPI-7 (signature, Status/Alternate Status,
// the interrupt per DRQ block, HOB read-back, nIEN, SRST) and per SFF-8038i (the
// Interrupt/Active/Error bits), and the data the protocols move checked against the media.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <tuple>
#include <vector>

#include "model/bus/host_memory.h"
#include "model/device/sata_disk.h"
#include "model/sff/sff_channel.h"
#include "model/tests/model_test.h"
#include "model/tests/recording_trace.h"

using namespace satasim;
using namespace satasim::sff::reg;
namespace bm = satasim::bmdma::reg;
using sc_core::sc_time;
using sc_core::SC_MS;
using sc_core::SC_US;
using Bytes = std::vector<uint8_t>;

namespace {

struct Rig {
    test::RecordingTrace tr;
    bus::HostMemory mem;
    link::SataLink link;
    device::SataDisk disk;
    sff::SffChannel ch;
    sc_core::sc_event irq_ev;
    unsigned irq_edges = 0;
    bool last = false;
    explicit Rig(const device::DiskConfig &cfg)
        : link("sff_link", link::SataLink::Config{}, &tr), disk("sff_disk", cfg, &tr),
          ch("sff_ch", sff::SffChannelConfig{}, mem, &tr, "sff0", 0) {
        link.attach(&ch, &disk);
        disk.connect(&link);
        ch.connect(&link);
        ch.set_irq_changed([this] {
            bool l = ch.intrq();
            if (l && !last)
                ++irq_edges;
            last = l;
            irq_ev.notify(sc_core::SC_ZERO_TIME);
        });
    }
    bool wait_irq(sc_time timeout = sc_time(200, SC_MS)) {
        const sc_time end = sc_core::sc_time_stamp() + timeout;
        while (!ch.intrq() && sc_core::sc_time_stamp() < end)
            sc_core::wait(end - sc_core::sc_time_stamp(), irq_ev);
        return ch.intrq();
    }
    // Poll Alternate Status (no interrupt acknowledge) until (status & mask) == want.
    bool wait_status(uint8_t mask, uint8_t want, sc_time timeout = sc_time(200, SC_MS)) {
        const sc_time end = sc_core::sc_time_stamp() + timeout;
        while ((ch.read_altstatus() & mask) != want) {
            if (sc_core::sc_time_stamp() >= end)
                return false;
            sc_core::wait(1, SC_US);
        }
        return true;
    }
    // COMRESET, PhyRdy (SStatus DET 3), then BSY until the signature (not the 7Fh of no PHY).
    bool comreset() {
        ch.write_scontrol(0x301);
        sc_core::wait(1, SC_MS);
        ch.write_scontrol(0x300);
        const sc_time end = sc_core::sc_time_stamp() + sc_time(100, SC_MS);
        while ((ch.sstatus() & 0xf) != 3 && sc_core::sc_time_stamp() < end)
            sc_core::wait(10, SC_US);
        EXPECT_EQ(ch.read_altstatus() & ST_BSY, ST_BSY); // PHY up, no signature yet
        return wait_status(ST_BSY, 0, sc_time(100, SC_MS));
    }
    void lba28(uint8_t cmd, uint32_t lba, uint8_t count, uint8_t feature = 0) {
        ch.write_cmd(kFeature, feature);
        ch.write_cmd(kNsect, count);
        ch.write_cmd(kLbal, uint8_t(lba));
        ch.write_cmd(kLbam, uint8_t(lba >> 8));
        ch.write_cmd(kLbah, uint8_t(lba >> 16));
        ch.write_cmd(kDevice, uint8_t(DEV_LBA | ((lba >> 24) & 0xf)));
        ch.write_cmd(kCommand, cmd);
    }
    Bytes read_block(size_t bytes) {
        Bytes b(bytes);
        for (size_t i = 0; i < bytes; i += 2) {
            uint16_t w = ch.read_data();
            b[i] = uint8_t(w);
            b[i + 1] = uint8_t(w >> 8);
        }
        return b;
    }
    void write_block(const uint8_t *p, size_t bytes) {
        for (size_t i = 0; i < bytes; i += 2)
            ch.write_data(uint16_t(p[i] | p[i + 1] << 8));
    }
};

Bytes pattern(size_t n, uint32_t seed) {
    Bytes b(n);
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < n; ++i) {
        x = x * 1103515245u + 12345u;
        b[i] = uint8_t(x >> 16);
    }
    return b;
}

Rig *rig;
Rig &R() { return *rig; }

} // namespace

MODEL_TEST(no_phy_reads_7f_then_signature_after_comreset) {
    EXPECT_EQ(R().ch.read_altstatus(), 0x7Fu);
    EXPECT_TRUE(R().comreset());
    // ATA device signature (ATA/ATAPI-7 vol 1, signature and persistence): Status 50h,
    // Error 01h, Sector Count 01h, LBA Low 01h, LBA Mid/High 00h.
    EXPECT_EQ(R().ch.read_altstatus(), 0x50u);
    EXPECT_EQ(R().ch.read_cmd(kError), 0x01u);
    EXPECT_EQ(R().ch.read_cmd(kNsect), 0x01u);
    EXPECT_EQ(R().ch.read_cmd(kLbal), 0x01u);
    EXPECT_EQ(R().ch.read_cmd(kLbam), 0x00u);
    EXPECT_EQ(R().ch.read_cmd(kLbah), 0x00u);
    EXPECT_EQ(R().ch.sstatus() & 0xf, 3u);
    R().ch.read_cmd(kStatus); // acknowledge whatever the signature left
}

MODEL_TEST(identify_is_one_drq_block_with_one_interrupt) {
    Rig &r = R();
    r.ch.write_cmd(kDevice, 0);
    r.ch.write_cmd(kCommand, 0xEC);
    EXPECT_TRUE(r.ch.read_altstatus() & ST_BSY);
    EXPECT_EQ(r.ch.read_cmd(kLbam), r.ch.read_altstatus()); // BSY: reads return Status
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_altstatus(), 0x58u); // DRDY DSC DRQ
    EXPECT_TRUE(r.ch.intrq());               // Alternate Status does not acknowledge
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x58u);
    EXPECT_TRUE(!r.ch.intrq());              // Status does
    Bytes id = r.read_block(512);
    EXPECT_EQ(r.ch.read_altstatus(), 0x50u); // E_Status after the block
    std::string model;
    for (int w = 27; w < 47; ++w) {
        model += char(id[2 * w + 1]);
        model += char(id[2 * w]);
    }
    EXPECT_TRUE(model.rfind("SATASIM HDD", 0) == 0);
    EXPECT_EQ(r.ch.read_data(), 0xffffu); // no DRQ: nothing more to read
    sc_core::wait(1, SC_MS);
    EXPECT_TRUE(!r.ch.intrq());
}

MODEL_TEST(read_sectors_interrupts_once_per_sector) {
    Rig &r = R();
    Bytes src = pattern(3 * 512, 1);
    r.disk.media().write(1000, 3, src.data());
    const unsigned e0 = r.irq_edges;
    r.lba28(0x20, 1000, 3);
    Bytes got;
    for (int i = 0; i < 3; ++i) {
        EXPECT_TRUE(r.wait_irq());
        EXPECT_EQ(r.ch.read_cmd(kStatus), 0x58u);
        Bytes b = r.read_block(512);
        got.insert(got.end(), b.begin(), b.end());
    }
    EXPECT_EQ(r.ch.read_altstatus(), 0x50u);
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(r.irq_edges - e0, 3u);
    EXPECT_TRUE(got == src);
}

MODEL_TEST(write_sectors_first_block_without_interrupt) {
    Rig &r = R();
    Bytes src = pattern(2 * 512, 2);
    const unsigned e0 = r.irq_edges;
    r.lba28(0x30, 2000, 2);
    EXPECT_TRUE(r.wait_status(ST_BSY | ST_DRQ, ST_DRQ));
    EXPECT_TRUE(!r.ch.intrq()); // PIO data-out: no interrupt before the first block
    r.write_block(src.data(), 512);
    EXPECT_TRUE(r.ch.read_altstatus() & ST_BSY);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x58u);
    r.write_block(src.data() + 512, 512);
    EXPECT_TRUE(r.wait_irq()); // the interrupt after the last block: command done
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    EXPECT_EQ(r.irq_edges - e0, 2u);
    Bytes media(2 * 512);
    r.disk.media().read(2000, 2, media.data());
    EXPECT_TRUE(media == src);
}

MODEL_TEST(read_write_multiple_move_blocks_of_the_multiple_count) {
    Rig &r = R();
    r.lba28(0xC6, 0, 4); // SET MULTIPLE MODE: 4 sectors per DRQ block (non-data)
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    Bytes src = pattern(8 * 512, 3);
    unsigned e0 = r.irq_edges;
    r.lba28(0xC5, 3000, 8); // WRITE MULTIPLE: two blocks of 2 KiB
    EXPECT_TRUE(r.wait_status(ST_BSY | ST_DRQ, ST_DRQ));
    r.write_block(src.data(), 2048);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x58u);
    r.write_block(src.data() + 2048, 2048);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    EXPECT_EQ(r.irq_edges - e0, 2u);
    e0 = r.irq_edges;
    r.lba28(0xC4, 3000, 8); // READ MULTIPLE
    Bytes got;
    for (int i = 0; i < 2; ++i) {
        EXPECT_TRUE(r.wait_irq());
        EXPECT_EQ(r.ch.read_cmd(kStatus), 0x58u);
        Bytes b = r.read_block(2048);
        got.insert(got.end(), b.begin(), b.end());
    }
    sc_core::wait(1, SC_MS);
    EXPECT_EQ(r.irq_edges - e0, 2u);
    EXPECT_TRUE(got == src);
}

MODEL_TEST(lba48_registers_are_two_deep_and_hob_reads_the_previous) {
    Rig &r = R();
    Bytes src = pattern(512, 4);
    const uint64_t lba = 0x12345678ull; // above 28 bits: needs the previous content
    r.disk.media().write(lba, 1, src.data());
    r.ch.write_cmd(kNsect, 0x00);
    r.ch.write_cmd(kNsect, 0x01);
    r.ch.write_cmd(kLbal, uint8_t(lba >> 24));
    r.ch.write_cmd(kLbal, uint8_t(lba));
    r.ch.write_cmd(kLbam, 0);
    r.ch.write_cmd(kLbam, uint8_t(lba >> 8));
    r.ch.write_cmd(kLbah, 0);
    r.ch.write_cmd(kLbah, uint8_t(lba >> 16));
    EXPECT_EQ(r.ch.read_cmd(kLbal), 0x78u);
    r.ch.write_devctl(CTL_HOB);
    EXPECT_EQ(r.ch.read_cmd(kLbal), 0x12u);
    EXPECT_EQ(r.ch.read_cmd(kNsect), 0x00u);
    r.ch.write_cmd(kDevice, DEV_LBA); // any Command Block write clears HOB
    EXPECT_EQ(r.ch.devctl() & CTL_HOB, 0);
    EXPECT_EQ(r.ch.read_cmd(kLbal), 0x78u);
    r.ch.write_cmd(kCommand, 0x24); // READ SECTORS EXT
    EXPECT_TRUE(r.wait_irq());
    r.ch.read_cmd(kStatus);
    EXPECT_TRUE(r.read_block(512) == src);
}

MODEL_TEST(nien_masks_intrq_but_keeps_it_pending) {
    Rig &r = R();
    r.ch.write_devctl(CTL_NIEN);
    r.lba28(0xE7, 0, 0); // FLUSH CACHE: non-data
    EXPECT_TRUE(r.wait_status(ST_BSY, 0));
    sc_core::wait(100, SC_US);
    EXPECT_TRUE(!r.ch.intrq());
    EXPECT_TRUE(r.ch.irq_pending());
    r.ch.write_devctl(0);
    EXPECT_TRUE(r.ch.intrq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    EXPECT_TRUE(!r.ch.intrq());
}

MODEL_TEST(srst_gives_busy_then_the_signature) {
    Rig &r = R();
    r.ch.write_devctl(CTL_SRST | CTL_NIEN);
    EXPECT_EQ(r.ch.read_altstatus(), ST_BSY);
    sc_core::wait(10, SC_US);
    r.ch.write_devctl(CTL_NIEN);
    EXPECT_TRUE(r.wait_status(ST_BSY, 0, sc_time(100, SC_MS)));
    EXPECT_EQ(r.ch.read_cmd(kNsect), 1u);
    EXPECT_EQ(r.ch.read_cmd(kLbal), 1u);
    EXPECT_EQ(r.ch.read_cmd(kLbam), 0u);
    r.ch.read_cmd(kStatus);
    r.ch.write_devctl(0);
}

MODEL_TEST(writes_while_busy_are_ignored) {
    Rig &r = R();
    r.lba28(0xE7, 0, 0);
    r.ch.write_cmd(kLbal, 0x99); // BSY: ignored
    EXPECT_TRUE(r.wait_irq());
    r.ch.read_cmd(kStatus);
    EXPECT_TRUE(r.ch.read_cmd(kLbal) != 0x99u);
    EXPECT_TRUE(r.tr.count("sff.write_ignored") >= 1);
}

namespace {
// A PRD table of (addr, len, eot) entries in host memory; returns its bus address.
uint32_t prd_table(bus::HostMemory &m, const std::vector<std::tuple<uint64_t, uint32_t, bool>> &prds) {
    uint8_t *cpu = nullptr;
    uint64_t t = m.alloc(8 * prds.size(), 4, &cpu);
    for (size_t i = 0; i < prds.size(); ++i) {
        uint32_t dw[2] = {uint32_t(std::get<0>(prds[i])),
                          (std::get<1>(prds[i]) & 0xffff) | (std::get<2>(prds[i]) ? bm::PRD_EOT : 0)};
        std::memcpy(cpu + 8 * i, dw, 8);
    }
    return uint32_t(t);
}
} // namespace

MODEL_TEST(read_dma_walks_the_prds_and_ends_interrupt_not_active) {
    Rig &r = R();
    Bytes src = pattern(16 * 512, 5);
    r.disk.media().write(4000, 16, src.data());
    uint8_t *a = nullptr, *b = nullptr;
    uint64_t ba = r.mem.alloc(4096, 4096, &a), bb = r.mem.alloc(4096, 4096, &b);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 4096, false}, {bb, 4096, true}}));
    dma.write8(bm::kStatus, bm::ST_INTR | bm::ST_ERROR);
    r.lba28(0xC8, 4000, 16); // READ DMA
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(dma.status() & bm::ST_ACTIVE);
    EXPECT_TRUE(r.wait_irq());
    // Interrupt 1, Active 0: the PRDs were exactly the transfer.
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM);
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR);
    EXPECT_EQ(dma.status() & bm::ST_INTR, 0);
    EXPECT_TRUE(std::memcmp(a, src.data(), 4096) == 0 && std::memcmp(b, src.data() + 4096, 4096) == 0);
}

MODEL_TEST(write_dma_moves_memory_to_the_media) {
    Rig &r = R();
    Bytes src = pattern(8 * 512, 6);
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(4096, 4096, &a);
    std::memcpy(a, src.data(), 4096);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 4096, true}}));
    r.lba28(0xCA, 5000, 8); // WRITE DMA
    dma.write8(bm::kCommand, bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR);
    dma.write8(bm::kCommand, 0);
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR);
    Bytes media(4096);
    r.disk.media().read(5000, 8, media.data());
    EXPECT_TRUE(media == src);
}

MODEL_TEST(read_dma_into_larger_prds_ends_interrupt_and_active) {
    Rig &r = R();
    Bytes src = pattern(8 * 512, 7);
    r.disk.media().write(6000, 8, src.data());
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(8192, 4096, &a);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 8192, true}}));
    r.lba28(0xC8, 6000, 8); // 4 KiB into an 8 KiB region
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR | bm::ST_ACTIVE);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM);
    EXPECT_EQ(dma.status() & bm::ST_ACTIVE, 0); // Stop clears Active
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR);
    EXPECT_TRUE(std::memcmp(a, src.data(), 4096) == 0);
}

MODEL_TEST(unmapped_prd_region_sets_error_and_clears_active) {
    Rig &r = R();
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{0x4000, 4096, true}})); // nothing mapped there
    r.lba28(0xC8, 4000, 8);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_ERROR);
    dma.write8(bm::kCommand, 0);
    dma.write8(bm::kStatus, bm::ST_INTR | bm::ST_ERROR);
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ERROR), 0);
    r.ch.read_cmd(kStatus);
}

MODEL_TEST(non_dma_interrupts_set_the_bmdma_interrupt_bit) {
    Rig &r = R();
    auto &dma = r.ch.bmdma();
    dma.write8(bm::kStatus, bm::ST_INTR);
    r.lba28(0xE7, 0, 0);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_TRUE(dma.status() & bm::ST_INTR);
    r.ch.read_cmd(kStatus);
    dma.write8(bm::kStatus, bm::ST_INTR);
}

MODEL_TEST(lost_interrupt_fault_leaves_the_command_done_without_intrq) {
    Rig &r = R();
    r.ch.lose_irqs(1);
    r.lba28(0xE7, 0, 0);
    EXPECT_TRUE(r.wait_status(ST_BSY, 0));
    sc_core::wait(1, SC_MS);
    EXPECT_TRUE(!r.ch.intrq());
    EXPECT_EQ(r.ch.read_altstatus(), 0x50u);
    EXPECT_EQ(r.tr.count("sff.irq_lost"), 1u);
}

// ---- the bus master stopped in the middle of a transfer (issue 30 item 5): each test starts
// from a COMRESET, so a wedged channel fails only its own test.

namespace {
void fresh(Rig &r) {
    EXPECT_TRUE(r.comreset());
    r.ch.read_cmd(kStatus);
    r.ch.bmdma().write8(bm::kCommand, 0);
    r.ch.bmdma().write8(bm::kStatus, bm::ST_INTR | bm::ST_ERROR);
}
// A non-data command goes through: the channel takes frames again.
void channel_still_works(Rig &r) {
    r.lba28(0xE7, 0, 0); // FLUSH CACHE
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    r.ch.bmdma().write8(bm::kStatus, bm::ST_INTR);
}
} // namespace

// A master abort on the first of two Data FISes (17 sectors: 8 KiB + 512 bytes): Error,
// Active off; the second FIS arrives with the engine stopped and is dropped, as the first
// one's data was, so the device ends the command and its interrupt reaches the host.
MODEL_TEST(bus_master_error_drops_the_later_data_fis_and_the_device_ends) {
    Rig &r = R();
    fresh(r);
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(17 * 512, 4096, &a);
    std::memset(a, 0xA5, 17 * 512);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 17 * 512, true}}));
    r.lba28(0xC8, 7000, 17);
    dma.inject_error();
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR | bm::ST_ERROR);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM);
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR | bm::ST_ERROR);
    EXPECT_EQ(r.tr.count("sff.dma_dropped"), 1u);
    EXPECT_EQ(a[0], 0xA5); // nothing reached memory
    EXPECT_EQ(a[17 * 512 - 1], 0xA5);
    channel_still_works(r);
}

// Software writes Stop before the device's data arrives (an aborted bus-master command,
// SFF-8038i 3.1: "data transferred from the drive may be discarded"): every Data FIS of the
// command is dropped, the device ends it, Interrupt rises with Active and Error clear.
MODEL_TEST(stop_before_the_data_drops_it_and_the_device_ends) {
    Rig &r = R();
    fresh(r);
    const size_t dropped0 = r.tr.count("sff.dma_dropped");
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(32 * 512, 4096, &a);
    std::memset(a, 0xA5, 32 * 512);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 32 * 512, true}}));
    r.lba28(0xC8, 7100, 32); // two 8 KiB Data FISes
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM); // Stop at once: the drive is still seeking
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR);
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR);
    EXPECT_EQ(r.tr.count("sff.dma_dropped") - dropped0, 2u);
    EXPECT_EQ(a[0], 0xA5);
    channel_still_works(r);
}

// Data the device sends before Start waits for it (held, not dropped) ...
MODEL_TEST(data_before_start_waits_for_it) {
    Rig &r = R();
    fresh(r);
    Bytes src = pattern(8 * 512, 8);
    r.disk.media().write(7200, 8, src.data());
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(8 * 512, 4096, &a);
    auto &dma = r.ch.bmdma();
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 8 * 512, true}}));
    r.lba28(0xC8, 7200, 8);
    sc_core::wait(50, SC_MS); // the Data FIS is in long before Start
    EXPECT_TRUE(!r.ch.intrq());
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM | bm::CMD_START);
    EXPECT_TRUE(r.wait_irq());
    EXPECT_EQ(dma.status() & (bm::ST_INTR | bm::ST_ACTIVE | bm::ST_ERROR), bm::ST_INTR);
    dma.write8(bm::kCommand, bm::CMD_WRITE_MEM);
    EXPECT_EQ(r.ch.read_cmd(kStatus), 0x50u);
    dma.write8(bm::kStatus, bm::ST_INTR);
    EXPECT_TRUE(std::memcmp(a, src.data(), 8 * 512) == 0);
}

// ... and SRST resets the channel's transport: the frame held for a Start that never came
// and the device's next frame of the aborted command are discarded, the signature arrives.
MODEL_TEST(srst_discards_frames_held_for_start_and_the_signature_arrives) {
    Rig &r = R();
    fresh(r);
    auto &dma = r.ch.bmdma();
    uint8_t *a = nullptr;
    uint64_t ba = r.mem.alloc(17 * 512, 4096, &a);
    dma.write32(bm::kPrdTable, prd_table(r.mem, {{ba, 17 * 512, true}}));
    r.lba28(0xC8, 7300, 17); // no Start: the first Data FIS is held, the second waits
    sc_core::wait(50, SC_MS);
    EXPECT_TRUE(r.ch.read_altstatus() & ST_BSY);
    r.ch.write_devctl(CTL_SRST | CTL_NIEN);
    sc_core::wait(10, SC_US);
    r.ch.write_devctl(CTL_NIEN);
    EXPECT_TRUE(r.wait_status(ST_BSY, 0, sc_time(100, SC_MS)));
    EXPECT_EQ(r.ch.read_cmd(kNsect), 1u); // the signature
    EXPECT_EQ(r.ch.read_cmd(kLbal), 1u);
    r.ch.read_cmd(kStatus);
    r.ch.write_devctl(0);
    channel_still_works(r);
}

int sc_main(int, char **) {
    device::DiskConfig cfg;
    Rig r(cfg);
    rig = &r;
    return test::run_all();
}
