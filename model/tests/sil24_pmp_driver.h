// What a SiI3124 driver does to reach disks behind a port multiplier, for the model tests
// (on top of sil24_test_bench.h): command FISes with a PM port (the chip takes it from PRB
// FIS byte 1), SRST to a PM port, READ/WRITE PORT MULTIPLIER through a PRB (result from the
// slot's LRAM FIS), libata's fan-out link reset and a PM port's QActive word.
#pragma once

#include <cstdint>

#include "model/pmp/port_multiplier.h"
#include "model/tests/pmp_fanout_bench.h"
#include "model/tests/sil24_test_bench.h"

namespace satasim::test::sil24_tb {

inline sata::Fis cmd(uint8_t pmp, uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0,
                     uint8_t device = 0x40) {
    return h2d(op, lba, count, feature, device, pmp);
}

inline bool softreset(uint8_t pmp) {
    sata::Taskfile tf;
    build(0, sata::make_reg_h2d(tf, false, pmp), kNoData, sil24::reg::PRB_CTRL_SRST, 0);
    return run(0, 100000);
}

// The 32-bit register value a PM read returns (count, LBA low/mid/high of the result FIS).
inline uint32_t lram_value(unsigned slot) {
    using sil24::reg::PRB_FIS;
    return uint32_t(lram_byte(slot, PRB_FIS + 12)) | uint32_t(lram_byte(slot, PRB_FIS + 4)) << 8 |
           uint32_t(lram_byte(slot, PRB_FIS + 5)) << 16 | uint32_t(lram_byte(slot, PRB_FIS + 6)) << 24;
}

inline bool pm_read(unsigned port, unsigned reg, uint32_t &val) {
    build(1, cmd(15, pmp::kReadPm, 0, 0, uint16_t(reg), uint8_t(port)), kNoData, 0, 0);
    if (!run(1))
        return false;
    val = lram_value(1);
    return true;
}

inline bool pm_write(unsigned port, unsigned reg, uint32_t val) {
    build(1, cmd(15, pmp::kWritePm, val >> 8, uint16_t(val & 0xFF), uint16_t(reg), uint8_t(port)),
          kNoData, 0, 0);
    return run(1);
}

// libata's fan-out link reset (pmp_fanout_bench.h); the SStatus it ended with.
inline uint32_t fanout_reset(unsigned port) {
    return fanout_link_reset(port, pm_write, pm_read);
}

// sil24_config_pmp / sil24_clear_pmp: zero every PM port's entry of the PMP area.
inline void clear_pmp_area() {
    using namespace sil24::reg;
    for (unsigned n = 0; n < kPmpEntries; ++n) {
        pwr(PORT_PMP + kPmpEntrySize * n, 0);
        pwr(PORT_PMP + kPmpEntrySize * n + 4, 0);
    }
}

inline uint32_t qactive(unsigned pm_port) {
    return prd(sil24::reg::PORT_PMP + sil24::reg::kPmpEntrySize * pm_port + 4);
}

} // namespace satasim::test::sil24_tb
