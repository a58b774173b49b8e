// AHCI HBA + SataLink + SataDisk end to end, driven the way an AHCI driver does it:
// port start, IDENTIFY (PIO in), DMA write/read back, PIO write/read, NCQ with several
// commands outstanding, software reset, an error stop and its recovery.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <vector>

#include "model/tests/ahci_test_bench.h"

using namespace satasim;
using namespace satasim::ahci;
using namespace satasim::ahci::reg;
using namespace satasim::test::ahci_tb;
using sc_core::SC_US;

namespace {

using Bench = AhciDiskBench;
Bench *B;

sata::Fis cmd(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0) {
    return h2d(op, lba, count, feature);
}

} // namespace

MODEL_TEST(port_start_and_signature) {
    alloc_port_memory();
    pwr(PxCMD, CMD_FRE);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSSTS), 0x133u);
    EXPECT_EQ(prd(PxSIG), 0x101u);
    EXPECT_EQ(prd(PxTFD) & 0xFF, 0x50u);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_ST);
}

MODEL_TEST(identify_pio_in) {
    Buf id = buf(512);
    build(0, cmd(0xEC, 0, 0), id);
    EXPECT_TRUE(run(0));
    EXPECT_EQ(get32(clb_p + 4), 512u);
    EXPECT_TRUE(prd(PxIS) & IS_PSS);
    EXPECT_EQ(prd(PxTFD) & 0xFF, 0x50u);
    EXPECT_EQ(identify_byte_sum(id.cpu), 0); // word 255 checksum
    EXPECT_EQ(id.cpu[510], 0xA5);
    EXPECT_EQ(identify_sectors(id.cpu), uint64_t(1) << 20);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(dma_write_then_read_back) {
    Buf w = buf(64 * 512), r = buf(64 * 512);
    fill(w, 1);
    build(1, cmd(0x35, 1000, 64), w, HDR_W);
    EXPECT_TRUE(run(1));
    EXPECT_EQ(get32(clb_p + 32 + 4), 64u * 512);
    build(2, cmd(0x25, 1000, 64), r);
    EXPECT_TRUE(run(2));
    EXPECT_EQ(get32(clb_p + 64 + 4), 64u * 512);
    EXPECT_EQ(diff(w, r), 0u);
    EXPECT_TRUE(prd(PxIS) & IS_DHRS);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(pio_write_then_read_back) {
    Buf w = buf(8 * 512), r = buf(8 * 512);
    fill(w, 7);
    build(3, cmd(0x34, 5000, 8), w, HDR_W); // WRITE SECTORS EXT
    EXPECT_TRUE(run(3));
    build(4, cmd(0x24, 5000, 8), r); // READ SECTORS EXT
    EXPECT_TRUE(run(4));
    EXPECT_EQ(diff(w, r), 0u);
    EXPECT_EQ(get32(clb_p + 4 * 32 + 4), 8u * 512);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(ncq_several_outstanding) {
    std::vector<Buf> w, r;
    for (unsigned t = 0; t < 8; ++t) {
        w.push_back(buf(16 * 512));
        r.push_back(buf(16 * 512));
        fill(w.back(), uint8_t(t * 31));
    }
    uint32_t mask = 0;
    for (unsigned t = 0; t < 8; ++t) {
        build(t, cmd(0x61, 20000 + 64 * t, uint16_t(t << 3), 16), w[t], HDR_W);
        mask |= 1u << t;
    }
    pwr(PxSACT, mask);
    pwr(PxCI, mask);
    unsigned max_outstanding = 0;
    EXPECT_TRUE(wait_until([&] {
        unsigned n = __builtin_popcount(prd(PxSACT) & ~prd(PxCI));
        max_outstanding = std::max(max_outstanding, n);
        return prd(PxSACT) == 0 || (prd(PxIS) & IS_TFES);
    }, 100000, 1));
    EXPECT_TRUE(!(prd(PxIS) & IS_TFES));
    EXPECT_TRUE(max_outstanding > 1);
    for (unsigned t = 0; t < 8; ++t)
        build(t + 8, cmd(0x60, 20000 + 64 * t, uint16_t((t + 8) << 3), 16), r[t]);
    pwr(PxSACT, mask << 8);
    pwr(PxCI, mask << 8);
    EXPECT_TRUE(wait_until([] { return prd(PxSACT) == 0 || (prd(PxIS) & IS_TFES); }, 100000));
    EXPECT_EQ(prd(PxCI), 0u);
    size_t bad = 0;
    for (unsigned t = 0; t < 8; ++t)
        bad += diff(w[t], r[t]);
    EXPECT_EQ(bad, 0u);
    EXPECT_TRUE(prd(PxIS) & IS_SDBS);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(software_reset_like_a_driver) {
    stop_engine();
    pwr(PxCMD, CMD_FRE | CMD_ST);
    sata::Taskfile tf;
    tf.control = sata::kAtaSrst | 0x08;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0}, HDR_R | HDR_C);
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return prd(PxCI) == 0; }, 1000, 1));
    sc_core::wait(1000, SC_US);
    tf.control = 0x08;
    build(0, sata::make_reg_h2d(tf, false), Buf{0, nullptr, 0});
    pwr(PxCI, 1);
    EXPECT_TRUE(wait_until([] { return !(prd(PxTFD) & sata::kAtaBsy) && prd(PxCI) == 0; }, 100000));
    EXPECT_EQ(prd(PxSIG), 0x101u);
    EXPECT_EQ(prd(PxTFD) & 0xFF, 0x50u);
    pwr(PxIS, 0xFFFFFFFF);
}

MODEL_TEST(error_stops_engine_and_driver_recovers) {
    Buf r = buf(512);
    build(5, cmd(0x25, (1u << 20) + 10, 1), r); // beyond the last LBA
    EXPECT_TRUE(!run(5));
    EXPECT_TRUE(prd(PxIS) & IS_TFES);
    EXPECT_EQ(prd(PxCI), 1u << 5);
    EXPECT_EQ((prd(PxCMD) & CMD_CCS_MASK) >> CMD_CCS_SHIFT, 5u);
    EXPECT_TRUE(prd(PxTFD) & sata::kAtaErr);
    stop_engine();
    EXPECT_EQ(prd(PxCI), 0u);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_ST);
    build(5, cmd(0x25, 1000, 1), r);
    EXPECT_TRUE(run(5));
}

MODEL_TEST(comreset_brings_the_disk_back) {
    stop_engine();
    pwr(PxSCTL, 0x301);
    sc_core::wait(1000, SC_US);
    pwr(PxSCTL, 0x300);
    EXPECT_TRUE(wait_until([] {
        return (prd(PxSSTS) & 0xF) == 3 && !(prd(PxTFD) & (sata::kAtaBsy | sata::kAtaDrq));
    }, 100000));
    EXPECT_EQ(prd(PxSIG), 0x101u);
    pwr(PxSERR, 0xFFFFFFFF);
    pwr(PxIS, 0xFFFFFFFF);
    pwr(PxCMD, CMD_FRE | CMD_ST);
    Buf r = buf(4096);
    build(0, cmd(0x25, 1000, 8), r);
    EXPECT_TRUE(run(0));
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    return satasim::test::run_all();
}
