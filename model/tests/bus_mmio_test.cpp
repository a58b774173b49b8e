// MmioTarget's narrow accesses on a block of dword registers (model/bus/mmio.h): a byte or
// word read returns its lanes of the dword (little-endian, as PCI byte enables), a narrow
// write changes only its lanes.
#include "model/bus/mmio.h"
#include "model/tests/model_test.h"

namespace {
class DwordRegs : public satasim::bus::MmioTarget {
  public:
    uint32_t regs[4] = {0x44332211u, 0, 0, 0};
    unsigned reads = 0;
    uint32_t mmio_read32(uint32_t off) override {
        ++reads;
        return regs[off / 4];
    }
    void mmio_write32(uint32_t off, uint32_t val) override { regs[off / 4] = val; }
};
} // namespace

MODEL_TEST(narrow_reads_return_the_lanes_of_the_dword) {
    DwordRegs r;
    EXPECT_EQ(r.mmio_read8(0), 0x11u);
    EXPECT_EQ(r.mmio_read8(1), 0x22u);
    EXPECT_EQ(r.mmio_read8(3), 0x44u);
    EXPECT_EQ(r.mmio_read16(0), 0x2211u);
    EXPECT_EQ(r.mmio_read16(2), 0x4433u);
    EXPECT_EQ(r.reads, 5u); // each narrow read is one dword read (its side effects once)
}

MODEL_TEST(narrow_writes_change_only_their_lanes) {
    DwordRegs r;
    r.mmio_write8(2, 0xab);
    EXPECT_EQ(r.regs[0], 0x44ab2211u);
    r.mmio_write16(6, 0xbeef);
    EXPECT_EQ(r.regs[1], 0xbeef0000u);
    r.mmio_write16(4, 0x1234);
    EXPECT_EQ(r.regs[1], 0xbeef1234u);
}

int sc_main(int, char **) { return satasim::test::run_all(); }
