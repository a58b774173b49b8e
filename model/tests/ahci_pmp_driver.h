// What an AHCI driver does to reach devices behind a port multiplier, for the model tests
// (on top of ahci_test_bench.h), shared by the command-based (pmp_test) and FIS-based
// switching (ahci_fbs_test) tests: command FISes and headers with a PM port, PxFBS.DEV
// before each issue when FBS is on, SRST to a PM port, READ/WRITE PORT MULTIPLIER (result
// from the D2H Register FIS) and libata's fan-out link reset.
#pragma once

#include <cstdint>

#include "model/pmp/port_multiplier.h"
#include "model/tests/ahci_test_bench.h"
#include "model/tests/pmp_fanout_bench.h"

namespace satasim::test::ahci_tb {

// FIS-based switching (set by ahci_fbs_test's sc_main): every issue names its PM port in
// PxFBS.DEV first, and each PM port's FISes land in its own 256 B area of the FIS area.
inline bool fbs_issue = false;

inline sata::Fis cmd(uint8_t pmp, uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0,
                     uint8_t device = 0x40) {
    return h2d(op, lba, count, feature, device, pmp);
}

// Command slot with the header's PMP field = pmp (libahci: opts |= pmp << 12).
inline void build(unsigned slot, uint8_t pmp, const sata::Fis &cfis, const Buf &b,
                  uint32_t flags = 0, uint32_t piece = 4096) {
    build(slot, cfis, b, flags, pmp, piece);
}

// PxFBS.DEV = the PM port of the commands the next PxCI write issues (EN kept).
inline void set_dev(uint8_t pmp) {
    using namespace ahci::reg;
    pwr(PxFBS, (prd(PxFBS) & FBS_EN) | uint32_t(pmp) << FBS_DEV_SHIFT);
}

// Issue slot for PM port pmp (no wait).
inline void issue(unsigned slot, uint8_t pmp) {
    if (fbs_issue)
        set_dev(pmp);
    pwr(ahci::reg::PxCI, 1u << slot);
}

// issue_ncq() for PM port pmp.
inline void issue_ncq(unsigned slot, uint8_t pmp) {
    if (fbs_issue)
        set_dev(pmp);
    issue_ncq(slot);
}

// run() for PM port pmp.
inline bool run_on(unsigned slot, uint8_t pmp, double max_us = 20000) {
    if (fbs_issue)
        set_dev(pmp);
    return run(slot, max_us);
}

// The received-FIS area of PM port p (FBS: PxFB + 256 p).
inline const uint8_t *area(unsigned p) { return fb_p + 256 * p; }

// SRST to a PM port (AHCI softreset: assert with R and C, release), as libahci does.
inline bool softreset(uint8_t pmp) {
    using namespace ahci::reg;
    sata::Taskfile tf;
    tf.control = sata::kAtaSrst | 0x08;
    build(0, pmp, sata::make_reg_h2d(tf, false, pmp), kNoData, HDR_R | HDR_C);
    issue(0, pmp);
    if (!wait_until([] { return prd(PxCI) == 0; }, 1000, 1))
        return false;
    sc_core::wait(10, sc_core::SC_US);
    tf.control = 0x08;
    build(0, pmp, sata::make_reg_h2d(tf, false, pmp), kNoData);
    issue(0, pmp);
    return wait_until([] { return !(prd(PxTFD) & sata::kAtaBsy) && prd(PxCI) == 0; }, 100000);
}

// READ PORT MULTIPLIER: value = count | lbal << 8 | lbam << 16 | lbah << 24 of the D2H (in
// the control port's area with FBS, else in the one area).
inline bool pm_read(unsigned port, unsigned reg, uint32_t &val) {
    build(1, 15, cmd(15, pmp::kReadPm, 0, 0, uint16_t(reg), uint8_t(port)), kNoData);
    if (!run_on(1, 15))
        return false;
    const uint8_t *r = (fbs_issue ? area(15) : fb_p) + ahci::reg::RX_RFIS;
    val = uint32_t(r[12]) | uint32_t(r[4]) << 8 | uint32_t(r[5]) << 16 | uint32_t(r[6]) << 24;
    return true;
}
inline bool pm_write(unsigned port, unsigned reg, uint32_t val) {
    build(1, 15,
          cmd(15, pmp::kWritePm, val >> 8, uint16_t(val & 0xFF), uint16_t(reg), uint8_t(port)),
          kNoData);
    return run_on(1, 15);
}

// libata's fan-out link reset (pmp_fanout_bench.h); the SStatus it ended with.
inline uint32_t fanout_reset(unsigned port) {
    return fanout_link_reset(port, pm_write, pm_read);
}

} // namespace satasim::test::ahci_tb
