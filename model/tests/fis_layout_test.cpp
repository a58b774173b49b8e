// FIS builders: byte-exact layouts (docs/hardware.md 1.3-1.10) and parse round trips.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <vector>

#include "model/sata/fis.h"
#include "model/tests/model_test.h"

using namespace satasim::sata;
using Bytes = std::vector<uint8_t>;

MODEL_TEST(h2d_command_layout) {
    Taskfile tf;
    tf.command = 0x25;
    tf.feature = 0x11;
    tf.feature_hi = 0x22;
    tf.lba = 0x0000BBAA99887766ull;
    tf.device = 0x40;
    tf.count = 0x1234;
    tf.control = 0x08;
    Fis f = make_reg_h2d(tf, true, 5);
    Bytes want = {0x27, 0x85, 0x25, 0x11, 0x66, 0x77, 0x88, 0x40, 0x99, 0xAA,
                  0xBB, 0x22, 0x34, 0x12, 0x00, 0x08, 0, 0, 0, 0};
    EXPECT_TRUE(f.bytes == want);
    EXPECT_EQ(f.dwords(), 5u);
    EXPECT_EQ(f.pm_port(), 5);
    EXPECT_EQ(f.dword(0), 0x11258527u);
    // C=0 (device control update), pm port masked to 4 bits.
    Fis c = make_reg_h2d(Taskfile{0, 0, 0, 0, 0, 0, kAtaSrst}, false, 0x1F);
    EXPECT_EQ(c.at(1), 0x0F);
    EXPECT_EQ(c.at(15), kAtaSrst);
    // Round trip.
    Taskfile p = parse_taskfile(f);
    EXPECT_EQ(p.command, 0x25);
    EXPECT_EQ(p.feature, 0x11);
    EXPECT_EQ(p.feature_hi, 0x22);
    EXPECT_EQ(p.lba, 0xBBAA99887766ull);
    EXPECT_EQ(p.device, 0x40);
    EXPECT_EQ(p.count, 0x1234);
    EXPECT_EQ(p.control, 0x08);
}

MODEL_TEST(d2h_layout) {
    Fis f = make_reg_d2h(0x51, 0x04, 0x123456789ABCull, 0xE0, 0xFF01, true, 2);
    Bytes want = {0x34, 0x42, 0x51, 0x04, 0xBC, 0x9A, 0x78, 0xE0, 0x56, 0x34,
                  0x12, 0x00, 0x01, 0xFF, 0, 0, 0, 0, 0, 0};
    EXPECT_TRUE(f.bytes == want);
    Fis sig = make_reg_d2h(0x50, 0x01, 1, 0, 1, false);
    EXPECT_EQ(sig.at(1), 0x00);
    EXPECT_EQ(sig.dword(1), 0x00000001u);
    EXPECT_EQ(sig.dword(3), 0x00000001u);
    Taskfile p = parse_taskfile(f);
    EXPECT_EQ(p.command, 0x51); // status
    EXPECT_EQ(p.feature, 0x04); // error
    EXPECT_EQ(p.lba, 0x123456789ABCull);
    EXPECT_EQ(p.count, 0xFF01);
}

MODEL_TEST(pio_setup_layout) {
    Taskfile regs;
    regs.lba = 0x030201;
    regs.device = 0x40;
    regs.count = 7;
    Fis f = make_pio_setup(true, true, 0x58, 0x00, 0x50, 512, regs, 1);
    Bytes want = {0x5F, 0x61, 0x58, 0x00, 0x01, 0x02, 0x03, 0x40, 0, 0,
                  0,    0,    0x07, 0x00, 0x00, 0x50, 0x00, 0x02, 0, 0};
    EXPECT_TRUE(f.bytes == want);
    Fis out = make_pio_setup(false, false, 0x58, 0, 0x50, 0x1234, regs);
    EXPECT_EQ(out.at(1), 0x00);
    EXPECT_EQ(out.at(15), 0x50);
    EXPECT_EQ(out.at(16), 0x34);
    EXPECT_EQ(out.at(17), 0x12);
}

MODEL_TEST(dma_activate_and_setup_layout) {
    Fis a = make_dma_activate(3);
    EXPECT_TRUE(a.bytes == (Bytes{0x39, 0x03, 0, 0}));
    Fis s = make_dma_setup(true, true, false, 0x3D, 0x2000, 0x10000, 4);
    EXPECT_EQ(s.bytes.size(), 28u);
    EXPECT_EQ(s.at(0), 0x41);
    EXPECT_EQ(s.at(1), 0x64);           // pm 4, D, I
    EXPECT_EQ(s.dword(1), 0x1Du);       // tag 29 in buffer id bits 4:0
    EXPECT_EQ(s.dword(2), 0u);
    EXPECT_EQ(s.dword(3), 0u);
    EXPECT_EQ(s.dword(4), 0x2000u);     // offset
    EXPECT_EQ(s.dword(5), 0x10000u);    // count
    EXPECT_EQ(s.dword(6), 0u);
    Fis w = make_dma_setup(false, false, true, 7, 0, 4096);
    EXPECT_EQ(w.at(1), 0x80);           // A only
    EXPECT_EQ(w.dword(1), 7u);
}

MODEL_TEST(sdb_layout) {
    Fis f = make_sdb(0x41, 0x04, 0x80000001u, true, false, 0);
    EXPECT_TRUE(f.bytes == (Bytes{0xA1, 0x40, 0x41, 0x04, 0x01, 0x00, 0x00, 0x80}));
    Fis n = make_sdb(0xC8, 0, 0, true, true, 15); // BSY/DRQ are not SDB bits
    EXPECT_EQ(n.at(1), 0xCF);
    EXPECT_EQ(n.at(2), 0x40);
    EXPECT_EQ(n.dword(1), 0u);
}

MODEL_TEST(data_fis_padding) {
    uint8_t p[6] = {1, 2, 3, 4, 5, 6};
    Fis f = make_data(p, 6, 2);
    EXPECT_TRUE(f.bytes == (Bytes{0x46, 0x02, 0, 0, 1, 2, 3, 4, 5, 6, 0, 0}));
    EXPECT_EQ(f.payload_size(), 8u);
    EXPECT_EQ(f.payload()[5], 6);
    std::vector<uint8_t> big(kMaxDataFisPayload, 0xAB);
    Fis g = make_data(big.data(), big.size());
    EXPECT_EQ(g.dwords(), 2049u);
    Fis z = make_data(nullptr, 0);
    EXPECT_EQ(z.bytes.size(), 4u);
}

MODEL_TEST(fixed_lengths_and_describe) {
    EXPECT_EQ(fis_fixed_length(FisType::RegH2D), 20u);
    EXPECT_EQ(fis_fixed_length(FisType::RegD2H), 20u);
    EXPECT_EQ(fis_fixed_length(FisType::DmaActivate), 4u);
    EXPECT_EQ(fis_fixed_length(FisType::DmaSetup), 28u);
    EXPECT_EQ(fis_fixed_length(FisType::Bist), 12u);
    EXPECT_EQ(fis_fixed_length(FisType::PioSetup), 20u);
    EXPECT_EQ(fis_fixed_length(FisType::SetDeviceBits), 8u);
    EXPECT_EQ(fis_fixed_length(FisType::Data), 0u);
    EXPECT_EQ(fis_fixed_length(FisType(0x99)), 0u);
    Taskfile tf;
    tf.command = 0x25;
    tf.count = 8;
    std::string d = describe(make_reg_h2d(tf, true));
    EXPECT_TRUE(d.find("H2D cmd=0x25") == 0);
    EXPECT_TRUE(d.find("count=8") != std::string::npos);
    EXPECT_TRUE(describe(make_sdb(0x40, 0, 6, true, false)).find("sactive=0x00000006") !=
                std::string::npos);
    Fis junk;
    junk.bytes = {0x99, 0, 0, 0};
    EXPECT_TRUE(describe(junk).find("type=0x99") != std::string::npos);
    Fis shortd2h;
    shortd2h.bytes = {0x34, 0, 0, 0};
    EXPECT_TRUE(describe(shortd2h).find("len=4") != std::string::npos); // no overread
}

int sc_main(int, char **) { return satasim::test::run_all(); }
