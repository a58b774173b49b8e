// SiI3124 with a port multiplier (docs/hardware.md 6.7): PMP_EN, the PM port of every command
// taken from PRB FIS byte 1, SRST to the control port, READ/WRITE PORT MULTIPLIER through
// PRBs, a fan-out link reset through PSCR, DMA and NCQ to a drive behind the PMP with the
// per-PM-port QActive word at PORT_PMP + 8n + 4.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <vector>

#include "model/tests/sil24_pmp_driver.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using namespace satasim::test::sil24_tb;
using sc_core::SC_US;

namespace {

// sil0 port 0 -> link0 -> pmp0 (SiI4726-like, 4 ports); disks on fan-out ports 1 and 3.
struct Bench {
    bus::HostMemory mem;
    bus::IrqLine irq;
    Sil24Hba hba;
    link::SataLink link;
    pmp::PortMultiplier pm;
    link::SataLink l1, l3;
    device::SataDisk d1, d3;
    Bench()
        : hba("sil0", one_port_cfg<Sil24Config>(), mem, irq),
          link("link0", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen2)),
          pm("pmp0", pmp::sii4726(4), nullptr, 0),
          l1("link0_1", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen3)),
          l3("link0_3", test::fanout_link_cfg(link::Gen::Gen2, link::Gen::Gen1)),
          d1("disk0_1", test::fanout_ssd_cfg("S1", link::Gen::Gen3)),
          d3("disk0_3", test::fanout_ssd_cfg("S3", link::Gen::Gen3)) {
        test::connect_pmp(hba, link, pm);
        test::connect_fanout_port(pm, 1, l1, d1);
        test::connect_fanout_port(pm, 3, l3, d3);
    }
};

Bench *B;

} // namespace

MODEL_TEST(bring_up_with_pmp_enabled) {
    alloc_prbs();
    EXPECT_TRUE(wait_until([] { return (prd(PORT_SSTATUS) & 0xF) == 3; }, 100000));
    EXPECT_EQ(prd(PORT_SSTATUS), 0x123u);
    pwr(PORT_CTRL_CLR, CS_PORT_RST);
    EXPECT_TRUE(wait_until([] { return prd(PORT_CTRL_STAT) & CS_RDY; }, 1000, 1));
    pwr(PORT_CTRL_CLR, CS_IRQ_WOC | CS_32BIT_ACTV | CS_PMP_RESUME);
    pwr(PORT_CTRL_STAT, CS_PMP_EN);
    clear_pmp_area(); // sil24_config_pmp
    init_port();
    EXPECT_TRUE(prd(PORT_CTRL_STAT) & CS_PMP_EN);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_SERROR, 0xFFFFFFFF);
}

MODEL_TEST(srst_to_port15_gives_pmp_signature) {
    EXPECT_TRUE(softreset(15));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 0), 0x34);
    EXPECT_EQ(lram_byte(0, PRB_FIS + 1) & 0xF, 15);
    EXPECT_EQ(lram_byte(0, PRB_FIS + 5), 0x69);
    EXPECT_EQ(lram_byte(0, PRB_FIS + 6), 0x96);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(gscr_through_prbs) {
    uint32_t v = 0;
    EXPECT_TRUE(pm_read(15, pmp::gscr::PRODUCT, v));
    EXPECT_EQ(v, 0x47261095u);
    EXPECT_TRUE(pm_read(15, pmp::gscr::PORT_INFO, v));
    EXPECT_EQ(v, 4u);
    EXPECT_TRUE(pm_write(15, pmp::gscr::SII_EARLY_ROK, 0)); // what Linux/FreeBSD do
    EXPECT_TRUE(pm_read(15, pmp::gscr::SII_EARLY_ROK, v));
    EXPECT_EQ(v, 0u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(fanout_reset_then_dma_and_ncq_to_port3) {
    const uint32_t ss = fanout_reset(3);
    EXPECT_EQ(ss, 0x113u);
    EXPECT_TRUE(softreset(3));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 1) & 0xF, 3);

    Buf w = buf(32 * 512), r = buf(32 * 512);
    fill(w, 5);
    build(2, cmd(3, 0x35, 4000, 32), w, PRB_CTRL_PROTOCOL, kWrite);
    EXPECT_TRUE(run(2));
    build(3, cmd(3, 0x25, 4000, 32), r, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(3));
    EXPECT_EQ(diff(w, r), 0u);
    std::vector<uint8_t> m(512);
    B->d3.media().read(4000, 1, m.data());
    EXPECT_EQ(std::memcmp(m.data(), w.cpu, 512), 0);
    B->d1.media().read(4000, 1, m.data());
    EXPECT_TRUE(std::memcmp(m.data(), w.cpu, 512) != 0);

    // NCQ to the drive behind port 3: its QActive word tracks the outstanding slots.
    std::vector<Buf> nb;
    for (unsigned t = 0; t < 6; ++t) {
        nb.push_back(buf(8 * 512));
        fill(nb.back(), uint8_t(40 + t));
        build(4 + t, cmd(3, 0x61, 9000 + 16 * t, 0, 8), nb.back(), PRB_CTRL_PROTOCOL,
              PRB_PROT_NCQ | kWrite);
    }
    for (unsigned t = 0; t < 6; ++t)
        activate(4 + t, prb_bus[4 + t]);
    uint32_t seen = 0;
    EXPECT_TRUE(wait_until([&] {
        seen |= qactive(3);
        return (prd(PORT_SLOT_STAT) & (0x3Fu << 4)) == 0 || (prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN);
    }, 100000, 1));
    EXPECT_TRUE(!(prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN));
    EXPECT_TRUE(seen != 0 && (seen & ~(0x3Fu << 4)) == 0);
    EXPECT_EQ(qactive(3), 0u);
    EXPECT_EQ(qactive(1), 0u);
    for (unsigned t = 0; t < 6; ++t) {
        B->d3.media().read(9000 + 16 * t, 1, m.data());
        EXPECT_EQ(std::memcmp(m.data(), nb[t].cpu, 512), 0);
    }
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    return satasim::test::run_all();
}
