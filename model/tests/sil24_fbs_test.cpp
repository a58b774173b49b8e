// SiI3124 FIS-based switching behind a port multiplier (docs/hardware.md 6.7, 7.5): with
// PORT_CTRL PMP_EN every PM port has its own device context, so commands to two drives
// are in flight at the same time (two reads take about as long as one), NCQ tags of two
// drives are queued at once with each drive's QActive word at PORT_PMP + 8n + 4, and the
// data is intact; without PMP_EN the port has one context and the same reads serialise.
// A device error on one drive stops the port (PORT_CMD_ERR, PORT_CONTEXT slot and PM
// port); PMP_RESUME lets the other drive finish while the failed one stays stopped until
// INIT; the same for an NCQ error (SDB with ERR), followed by READ LOG EXT 10h.
#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include <cstring>
#include <string>
#include <vector>

#include "model/tests/recording_trace.h"
#include "model/tests/sil24_pmp_driver.h"

using namespace satasim;
using namespace satasim::sil24;
using namespace satasim::sil24::reg;
using namespace satasim::test::sil24_tb;
using sc_core::SC_US;

namespace {

// sil0 port 0 -> link0 -> pmp0 (SiI3726-like, 3 ports), a drive on each fan-out port.
struct Bench : test::RecordingTraceHolder {
    bus::HostMemory mem;
    bus::IrqLine irq;
    Sil24Hba hba;
    test::PmpFanout fan;
    Bench()
        : hba("sil0", one_port_cfg<Sil24Config>(), mem, irq, &tr),
          fan(hba, link::Gen::Gen2, pmp::sii3726(3), "FBS") {}
};

Bench *B;

// FPDMA QUEUED: sector count in Features; the chip puts the slot number in the tag field.
sata::Fis ncq(uint8_t pmp, bool write, uint64_t lba, uint16_t sectors) {
    return cmd(pmp, write ? 0x61 : 0x60, lba, 0, sectors);
}
void build_ncq(unsigned slot, uint8_t pmp, bool write, uint64_t lba, const Buf &b) {
    build(slot, ncq(pmp, write, lba, uint16_t(b.len / 512)), b, PRB_CTRL_PROTOCOL,
          uint16_t(PRB_PROT_NCQ | (write ? kWrite : kRead)));
}

uint32_t busy() { return prd(PORT_SLOT_STAT) & SLOT_MASK; }
bool stopped() { return prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN; }

// What libata's sil24_clear_pmp + sil24_init_port do after an error.
void clear_pmp_and_init() {
    pwr(PORT_CTRL_CLR, CS_PMP_RESUME);
    clear_pmp_area();
    init_port();
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

double now_us() { return sc_core::sc_time_stamp().to_seconds() * 1e6; }

// Issue the slots (in this order) and wait until none of them is busy or the port stops;
// the simulated time it took, in us.
double run_together(std::initializer_list<unsigned> slots, double max_us = 50000) {
    uint32_t mask = 0;
    for (unsigned s : slots)
        mask |= 1u << s;
    const double t0 = now_us();
    for (unsigned s : slots)
        activate(s);
    EXPECT_TRUE(wait_until([mask] { return !(busy() & mask) || stopped(); }, max_us, 5));
    EXPECT_TRUE(!stopped());
    return now_us() - t0;
}

} // namespace

MODEL_TEST(bring_up_pmp_and_three_drives) {
    alloc_prbs();
    EXPECT_TRUE(wait_until([] { return (prd(PORT_SSTATUS) & 0xF) == 3; }, 100000));
    pwr(PORT_CTRL_CLR, CS_PORT_RST);
    EXPECT_TRUE(wait_until([] { return prd(PORT_CTRL_STAT) & CS_RDY; }, 1000, 1));
    pwr(PORT_CTRL_CLR, CS_IRQ_WOC | CS_32BIT_ACTV | CS_PMP_RESUME);
    pwr(PORT_CTRL_STAT, CS_PMP_EN);
    clear_pmp_and_init();
    EXPECT_TRUE(softreset(15));
    EXPECT_EQ(lram_byte(0, PRB_FIS + 5), 0x69);
    EXPECT_EQ(lram_byte(0, PRB_FIS + 6), 0x96);
    for (unsigned p = 0; p < 3; ++p) {
        fanout_reset(p);
        EXPECT_TRUE(softreset(uint8_t(p)));
        EXPECT_EQ(lram_byte(0, PRB_FIS + 1) & 0xFu, p);
        EXPECT_EQ(lram_byte(0, PRB_FIS + 5) | lram_byte(0, PRB_FIS + 6) << 8, 0); // ATA
    }
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// Non-queued DMA: writes to drives 0 and 1 at once, one read alone on drive 2 for the time
// a command takes, then reads of drives 0 and 1 issued back to back: drive 1 gets its
// command while drive 0's is still busy, and both finish in well under twice one read.
MODEL_TEST(commands_to_two_drives_overlap) {
    const uint32_t n = 16; // 8 KiB: the drives' latency, not the wire, dominates
    Buf w0 = buf(n * 512), w1 = buf(n * 512), r0 = buf(n * 512), r1 = buf(n * 512),
        r2 = buf(n * 512);
    fill(w0, 3);
    fill(w1, 200);
    build(4, cmd(0, 0x35, 5000, uint16_t(n)), w0, PRB_CTRL_PROTOCOL, kWrite);
    build(5, cmd(1, 0x35, 5000, uint16_t(n)), w1, PRB_CTRL_PROTOCOL, kWrite);
    run_together({4, 5});
    EXPECT_EQ(prd(lram_slot(4) + PRB_XFER_CNT), n * 512);
    EXPECT_EQ(prd(lram_slot(5) + PRB_XFER_CNT), n * 512);

    build(4, cmd(2, 0x25, 5000, uint16_t(n)), r2, PRB_CTRL_PROTOCOL, kRead);
    const double one_us = run_together({4});
    EXPECT_TRUE(one_us >= test::kFanoutLatencyUs);

    bool d1_started = false, d0_busy_then = false;
    B->fan.d1.set_command_observer([&](const device::CommandInfo &) {
        d1_started = true;
        d0_busy_then = busy() & (1u << 4);
    });
    build(4, cmd(0, 0x25, 5000, uint16_t(n)), r0, PRB_CTRL_PROTOCOL, kRead);
    build(5, cmd(1, 0x25, 5000, uint16_t(n)), r1, PRB_CTRL_PROTOCOL, kRead);
    const double two_us = run_together({4, 5});
    B->fan.d1.set_command_observer(nullptr);
    EXPECT_TRUE(d1_started);
    EXPECT_TRUE(d0_busy_then);
    EXPECT_TRUE(two_us < 1.3 * one_us);
    EXPECT_EQ(diff(w0, r0), 0u);
    EXPECT_EQ(diff(w1, r1), 0u);
    EXPECT_EQ(lram_byte(4, PRB_FIS + 1) & 0xF, 0); // each result FIS from its own drive
    EXPECT_EQ(lram_byte(5, PRB_FIS + 1) & 0xF, 1);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// NCQ: writes then reads with slots of both drives outstanding at once, each drive's
// QActive word holding its own slots; the tags are the slot numbers.
MODEL_TEST(ncq_to_two_drives_at_once) {
    const uint32_t n = 16;
    std::vector<Buf> w, r;
    for (unsigned i = 0; i < 6; ++i) {
        w.push_back(buf(n * 512));
        r.push_back(buf(n * 512));
        fill(w.back(), uint8_t(17 * i + 1), 7 + i);
    }
    // Slots 10-12 to drive 0, 20-22 to drive 1.
    auto slot = [](unsigned i) { return i < 3 ? 10 + i : 17 + i; };
    auto drive = [](unsigned i) { return uint8_t(i < 3 ? 0 : 1); };
    for (unsigned i = 0; i < 6; ++i)
        build_ncq(slot(i), drive(i), true, 20000 + 64 * i, w[i]);
    run_together({10, 20, 11, 21, 12, 22});

    // Drive 0's three reads alone: the time one drive's queue takes.
    for (unsigned i = 0; i < 3; ++i)
        build_ncq(slot(i), 0, false, 20000 + 64 * i, r[i]);
    const double one_us = run_together({10, 11, 12});
    EXPECT_TRUE(one_us >= test::kFanoutLatencyUs);

    uint32_t q0 = 0, q1 = 0;
    bool both = false;
    B->fan.d1.set_command_observer([&](const device::CommandInfo &ci) {
        q0 = qactive(0);
        q1 = qactive(1);
        both = both || (ci.ncq && q0 != 0 && (q1 & (1u << ci.tag)));
    });
    for (unsigned i = 0; i < 6; ++i)
        build_ncq(slot(i), drive(i), false, 20000 + 64 * i, r[i]);
    const double us = run_together({10, 11, 12, 20, 21, 22});
    B->fan.d1.set_command_observer(nullptr);
    EXPECT_TRUE(both);
    EXPECT_EQ(q0 & ~(0x7u << 10), 0u); // drive 0's word holds drive 0's slots only
    EXPECT_EQ(q1 & ~(0x7u << 20), 0u);
    EXPECT_TRUE(us < 1.3 * one_us); // both queues drain in parallel
    for (unsigned i = 0; i < 6; ++i)
        EXPECT_EQ(diff(w[i], r[i]), 0u);
    EXPECT_EQ(qactive(0), 0u);
    EXPECT_EQ(qactive(1), 0u);
    EXPECT_EQ(prd(PORT_SACTIVE), 0u);
    std::vector<uint8_t> m(512);
    B->fan.d1.media().read(20000 + 64 * 3, 1, m.data());
    EXPECT_EQ(std::memcmp(m.data(), w[3].cpu, 512), 0);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// Without PMP_EN the port has one device context: the same two reads run one after the
// other.
MODEL_TEST(without_pmp_en_commands_serialise) {
    const uint32_t n = 16;
    Buf r0 = buf(n * 512), r1 = buf(n * 512);
    pwr(PORT_CTRL_CLR, CS_PMP_EN);
    build(4, cmd(0, 0x25, 5000, uint16_t(n)), r0, PRB_CTRL_PROTOCOL, kRead);
    build(5, cmd(1, 0x25, 5000, uint16_t(n)), r1, PRB_CTRL_PROTOCOL, kRead);
    const double us = run_together({4, 5});
    EXPECT_TRUE(us >= 2 * test::kFanoutLatencyUs);
    pwr(PORT_CTRL_STAT, CS_PMP_EN);
    Buf w1 = buf(n * 512);
    fill(w1, 200);
    EXPECT_EQ(diff(w1, r1), 0u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// Drive 0 fails a read (ABRT) while drive 1 reads: the port stops with CERR_DEV and
// PORT_CONTEXT = slot 8, PM port 0; drive 1's FISes wait. PMP_RESUME: drive 1's read
// completes with its data, drive 0 stays stopped (its slot busy, a new command to it not
// sent) while drive 1 takes new commands; INIT clears everything and drive 0 works again.
MODEL_TEST(device_error_on_one_drive_pmp_resume) {
    const uint32_t n = 256;
    Buf w1 = buf(n * 512), r1 = buf(n * 512), r0 = buf(4096), r1b = buf(4096);
    fill(w1, 99);
    build(10, cmd(1, 0x35, 9000, uint16_t(n)), w1, PRB_CTRL_PROTOCOL, kWrite);
    EXPECT_TRUE(run(10, 50000));
    B->fan.d0.inject_media_error(
        media_error(fault::MediaParams::Error::Abrt, fault::CommandMatch::Op::Any, 777, 777, 1),
        "fbs-err");
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    build(8, cmd(0, 0x25, 777, 8), r0, PRB_CTRL_PROTOCOL, kRead);
    build(9, cmd(1, 0x25, 9000, uint16_t(n)), r1, PRB_CTRL_PROTOCOL, kRead);
    activate(8);
    activate(9);
    EXPECT_TRUE(wait_until([] { return stopped(); }, 50000, 5));
    EXPECT_TRUE(prd(PORT_IRQ_STAT) & (IRQ_ERROR << IRQ_RAW_SHIFT));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_DEV));
    EXPECT_EQ(prd(PORT_CONTEXT), 8u | 0u << CTX_PMP_SHIFT);
    EXPECT_EQ(lram_byte(8, PRB_FIS + 2) & sata::kAtaErr, sata::kAtaErr);
    EXPECT_EQ(lram_byte(8, PRB_FIS + 3), sata::kAtaAbrt);
    // Stopped: drive 1's read does not finish, however long it has.
    sc_core::wait(3 * test::kFanoutLatencyUs, SC_US);
    EXPECT_EQ(busy(), (1u << 8) | (1u << 9));
    EXPECT_TRUE(stopped());

    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_CTRL_STAT, CS_PMP_RESUME);
    EXPECT_EQ(B->tr.count("sil24.pmp_resume"), 1u);
    EXPECT_TRUE(wait_until([] { return !(busy() & (1u << 9)) || stopped(); }, 50000, 5));
    EXPECT_TRUE(!stopped());
    EXPECT_EQ(busy(), 1u << 8);
    EXPECT_EQ(diff(w1, r1), 0u);
    // A new command to drive 0 is not sent; one to drive 1 is.
    unsigned d0_cmds = 0;
    B->fan.d0.set_command_observer([&](const device::CommandInfo &) { ++d0_cmds; });
    build(11, cmd(0, 0x25, 100, 8), r0, PRB_CTRL_PROTOCOL, kRead);
    activate(11);
    build(12, cmd(1, 0x25, 9000, 8), r1b, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(12, 50000));
    EXPECT_EQ(std::memcmp(r1b.cpu, w1.cpu, 4096), 0);
    sc_core::wait(500, SC_US);
    EXPECT_EQ(d0_cmds, 0u);
    EXPECT_EQ(busy(), (1u << 8) | (1u << 11));

    // Recovery: clear PMP_RESUME and the PMP area, INIT; drive 0 reads again.
    clear_pmp_and_init();
    EXPECT_EQ(busy(), 0u);
    EXPECT_EQ(prd(PORT_CMD_ERR), 0u);
    build(8, cmd(0, 0x25, 100, 8), r0, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(8, 50000));
    EXPECT_EQ(d0_cmds, 1u);
    B->fan.d0.set_command_observer(nullptr);
    EXPECT_EQ(prd(lram_slot(8) + PRB_XFER_CNT), 4096u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

// NCQ error on drive 2 (SDB with ERR) while drive 1 has NCQ reads queued: CERR_SDB with
// PORT_CONTEXT naming PM port 2; after PMP_RESUME drive 1's tags complete while drive 2's
// stays in its QActive word until INIT; READ LOG EXT 10h names the failed tag.
MODEL_TEST(ncq_error_on_one_drive) {
    const uint32_t n = 256;
    Buf r1 = buf(n * 512), r2 = buf(4096);
    B->fan.d2.inject_media_error(
        media_error(fault::MediaParams::Error::Unc, fault::CommandMatch::Op::Any, 4242, 4242, 1),
        "fbs-ncq");
    build_ncq(12, 2, false, 4240, r2);
    build_ncq(13, 1, false, 9000, r1);
    activate(12);
    activate(13);
    EXPECT_TRUE(wait_until([] { return stopped(); }, 50000, 5));
    EXPECT_EQ(prd(PORT_CMD_ERR), uint32_t(CERR_SDB));
    EXPECT_EQ((prd(PORT_CONTEXT) & CTX_PMP_MASK) >> CTX_PMP_SHIFT, 2u);
    EXPECT_EQ(prd(PORT_CONTEXT) & CTX_SLOT_MASK, 12u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
    pwr(PORT_CTRL_STAT, CS_PMP_RESUME);
    EXPECT_TRUE(wait_until([] { return !(busy() & (1u << 13)) || stopped(); }, 50000, 5));
    EXPECT_TRUE(!stopped());
    EXPECT_EQ(busy(), 1u << 12);
    EXPECT_EQ(qactive(2), 1u << 12);
    EXPECT_EQ(qactive(1), 0u);
    Buf w1 = buf(n * 512);
    fill(w1, 99);
    EXPECT_EQ(diff(w1, r1), 0u);
    clear_pmp_and_init();
    EXPECT_EQ(busy(), 0u);
    EXPECT_EQ(prd(PORT_SACTIVE), 0u);
    Buf log = buf(512);
    build(14, cmd(2, 0x2F, 0x10, 1), log, PRB_CTRL_PROTOCOL, kRead);
    EXPECT_TRUE(run(14, 50000));
    EXPECT_EQ(log.cpu[0] & 0x1F, 12); // the failed tag
    build_ncq(12, 2, false, 4240, r2);
    EXPECT_TRUE(run(12, 50000));
    EXPECT_EQ(qactive(2), 0u);
    pwr(PORT_IRQ_STAT, 0xFFFFFFFF);
}

int sc_main(int, char **) {
    Bench b;
    B = &b;
    bind(b.hba, b.mem);
    return satasim::test::run_all();
}
