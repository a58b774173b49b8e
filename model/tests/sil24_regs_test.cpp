// SiI3124 register block without devices: reset values, read-only and write masks, the
// window decode (BAR0 at 0, BAR2 at 0x2000), PORT_CTRL_STAT set/clear, PORT_RST/INIT
// timing, interrupt enable/clear semantics, GLOBAL_RST, LRAM and PMP storage.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "model/sil24/sil24_hba.h"
#include "model/sil24/sil24_regs.h"
#include "model/tests/model_test.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using sc_core::SC_US;

namespace {

struct Bench {
    bus::HostMemory mem;
    bus::IrqLine irq;
    Sil24Hba hba;
    Bench() : hba("sil0", {}, mem, irq) { bus::pci_enable_for_test(hba.pci()); }
};
Bench *B;

uint32_t rd(uint32_t off) { return B->hba.mmio_read32(off); }
void wr(uint32_t off, uint32_t v) { B->hba.mmio_write32(off, v); }
uint32_t prd(unsigned p, uint32_t off) { return rd(port_window(p) + off); }
void pwr(unsigned p, uint32_t off, uint32_t v) { wr(port_window(p) + off, v); }

} // namespace

MODEL_TEST(power_on_values) {
    EXPECT_EQ(B->hba.window_size(), 0xA000u);
    // HOST_CTRL: latched PCI-X signals (M66EN, TRDY, STOP, DEVSEL, REQ64) and 3 Gb/s.
    EXPECT_EQ(rd(HOST_CTRL), 0x011F0000u);
    EXPECT_EQ(rd(HOST_IRQ_STAT), 0u);
    for (unsigned p = 0; p < 4; ++p) {
        EXPECT_EQ(rd(HOST_SLOT_STAT + 4 * p), 0u);
        EXPECT_EQ(prd(p, PORT_CTRL_STAT), CS_PORT_RST);
        EXPECT_EQ(prd(p, PORT_IRQ_STAT), 0u);
        EXPECT_EQ(prd(p, PORT_IRQ_ENABLE_SET), 0u);
        EXPECT_EQ(prd(p, PORT_CMD_ERR), 0u);
        EXPECT_EQ(prd(p, PORT_SLOT_STAT), 0u);
        EXPECT_EQ(prd(p, PORT_SSTATUS), 0u); // no cable
        EXPECT_EQ(prd(p, PORT_SCONTROL), 0u);
        EXPECT_EQ(prd(p, PORT_SERROR), 0u);
        EXPECT_EQ(prd(p, PORT_SACTIVE), 0u);
    }
    EXPECT_TRUE(!B->irq.level());
    // Beyond the last port, and the hole between BAR0 and BAR2, read 0.
    EXPECT_EQ(rd(0x80), 0u);
    EXPECT_EQ(rd(port_window(4) + PORT_CTRL_STAT), 0u);
    EXPECT_EQ(B->hba.bar(0)->mmio_read32(HOST_CTRL), rd(HOST_CTRL));
    EXPECT_EQ(B->hba.bar(2)->mmio_read32(0x2000 + PORT_CTRL_STAT), prd(1, PORT_CTRL_STAT));
    EXPECT_TRUE(B->hba.bar(1) == nullptr);
}

MODEL_TEST(host_ctrl_masks) {
    wr(HOST_CTRL, 0xFFFFFFFF & ~HCTRL_GLOBAL_RST);
    // writable: port enables, I2C int enable; MSI ack is a strobe; RO bits unchanged
    EXPECT_EQ(rd(HOST_CTRL), 0x011F0000u | 0xFu | HCTRL_I2C_INT);
    wr(HOST_CTRL, 0);
    EXPECT_EQ(rd(HOST_CTRL), 0x011F0000u);
}

MODEL_TEST(port_reset_release_and_ready) {
    pwr(0, PORT_CTRL_CLR, CS_PORT_RST);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT) & (CS_PORT_RST | CS_RDY), 0u);
    sc_core::wait(20, SC_US);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_RDY);
    // raw PORTRDY_CHG latched, not enabled: no masked bit, no interrupt, no ATTN
    EXPECT_EQ(prd(0, PORT_IRQ_STAT), IRQ_PORTRDY_CHG << 16);
    EXPECT_EQ(prd(0, PORT_SLOT_STAT), 0u);
    EXPECT_TRUE(!B->irq.level());
    pwr(0, PORT_IRQ_STAT, 0xFFFFFFFF);
    EXPECT_EQ(prd(0, PORT_IRQ_STAT), 0u);
}

MODEL_TEST(ctrl_set_clear_masks) {
    // control bits set through 0x1000, cleared through 0x1004; ACT and RDY read-only
    pwr(0, PORT_CTRL_STAT, CS_IRQ_WOC | CS_32BIT_ACTV | CS_PMP_EN | CS_CDB16 | CS_ACT_MASK);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_RDY | CS_IRQ_WOC | CS_32BIT_ACTV | CS_PMP_EN | CS_CDB16);
    pwr(0, PORT_CTRL_CLR, CS_32BIT_ACTV | CS_PMP_EN | CS_CDB16 | CS_RDY);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_RDY | CS_IRQ_WOC);
    pwr(0, PORT_CTRL_CLR, CS_IRQ_WOC);
    // INIT: RDY drops, INIT reads 1, then both come back after ~10 us
    pwr(0, PORT_CTRL_STAT, CS_INIT);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_INIT);
    sc_core::wait(20, SC_US);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_RDY);
    pwr(0, PORT_IRQ_STAT, 0xFFFFFFFF);
}

MODEL_TEST(irq_enable_and_routing) {
    pwr(0, PORT_IRQ_ENABLE_SET, 0xC0000000u | IRQ_PORTRDY_CHG | 0xF000u);
    EXPECT_EQ(prd(0, PORT_IRQ_ENABLE_SET), 0xC0000000u | IRQ_PORTRDY_CHG); // 15:12 reserved
    pwr(0, PORT_CTRL_STAT, CS_INIT);
    sc_core::wait(20, SC_US);
    EXPECT_EQ(prd(0, PORT_IRQ_STAT), IRQ_PORTRDY_CHG | IRQ_PORTRDY_CHG << 16);
    EXPECT_EQ(rd(HOST_IRQ_STAT), 1u);
    EXPECT_EQ(prd(0, PORT_SLOT_STAT), SLOT_STAT_ATTN); // an enabled event needs service
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(!B->irq.level()); // HOST_CTRL port enable still 0
    wr(HOST_CTRL, 0x1);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_TRUE(B->irq.level());
    // clearing through the raw twin bit works as well
    pwr(0, PORT_IRQ_STAT, IRQ_PORTRDY_CHG << 16);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    EXPECT_EQ(prd(0, PORT_IRQ_STAT), 0u);
    EXPECT_EQ(rd(HOST_IRQ_STAT), 0u);
    EXPECT_TRUE(!B->irq.level());
    pwr(0, PORT_IRQ_ENABLE_CLR, 0xFFFF);
    EXPECT_EQ(prd(0, PORT_IRQ_ENABLE_SET) & 0xFFF, 0u);
    wr(HOST_CTRL, 0);
}

MODEL_TEST(lram_pmp_and_scr_storage) {
    pwr(0, lram_slot(30) + 0x7C, 0x12345678);
    EXPECT_EQ(prd(0, lram_slot(30) + 0x7C), 0x12345678u);
    pwr(0, PORT_PMP + 8 * 15 + 4, 0xA5A5);
    EXPECT_EQ(prd(0, PORT_PMP + 8 * 15 + 4), 0xA5A5u);
    pwr(0, PORT_SCONTROL, 0xFFF00320); // SPD 2, IPM 3; bits 31:20 reserved
    EXPECT_EQ(prd(0, PORT_SCONTROL), 0x00000320u);
    pwr(0, PORT_SACTIVE, 0xFF);        // chip-managed: read-only
    EXPECT_EQ(prd(0, PORT_SACTIVE), 0u);
    pwr(0, PORT_CMD_ERR, 5);
    EXPECT_EQ(prd(0, PORT_CMD_ERR), 0u);
    pwr(0, PORT_SCONTROL, 0);
}

MODEL_TEST(activation_ignored_while_in_reset) {
    pwr(1, activate_reg(0), 0x1000);
    pwr(1, activate_reg(0) + 4, 0);
    EXPECT_EQ(prd(1, PORT_SLOT_STAT), 0u);
}

MODEL_TEST(global_reset_returns_ports_to_power_on) {
    pwr(0, PORT_CTRL_STAT, CS_IRQ_WOC);
    pwr(0, PORT_IRQ_ENABLE_SET, IRQ_COMPLETE);
    wr(HOST_CTRL, HCTRL_GLOBAL_RST | 0xF);
    EXPECT_EQ(rd(HOST_CTRL) & HCTRL_GLOBAL_RST, HCTRL_GLOBAL_RST);
    wr(HOST_CTRL, 0);
    EXPECT_EQ(prd(0, PORT_CTRL_STAT), CS_PORT_RST);
    EXPECT_EQ(prd(0, PORT_IRQ_ENABLE_SET), 0u);
    EXPECT_EQ(prd(0, lram_slot(30) + 0x7C), 0u);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    return satasim::test::run_all();
}
