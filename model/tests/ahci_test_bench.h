// Shared AHCI test bench: HBA + SataLink + SataDisk elaboration and the driver-side
// helpers (port registers, command list / FIS area / command tables, command header +
// PRDT, issue and wait) used by the AHCI end-to-end tests; what it has in common with the
// SiI3124 bench (buffers, H2D Register FIS, polling) is in hba_test_common.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/ahci/ahci_regs.h"
#include "model/tests/hba_test_common.h"

namespace satasim::test::ahci_tb {

// One-port HBA, default link, one disk (config and trace chosen by the test).
struct AhciDiskBench : hba_common::OneDiskBench<ahci::AhciHba, ahci::AhciConfig> {
    static ahci::AhciConfig cfg() { return hba_common::one_port_cfg<ahci::AhciConfig>(); }
    // 2^20 sectors, SSD timing.
    static device::DiskConfig disk_cfg() { return hba_common::ssd_disk_cfg(); }
    explicit AhciDiskBench(const device::DiskConfig &dcfg = disk_cfg(), ModelTrace *tr = nullptr)
        : OneDiskBench("ahci0", cfg(), dcfg, tr) {}
};

// What the helpers below drive: set by bind() in sc_main.
struct Ctx {
    ahci::AhciHba *hba = nullptr;
    bus::HostMemory *mem = nullptr;
    uint32_t run_err = ahci::reg::IS_TFES; // PxIS bits that end run() as a failure
    double run_step_us = 10;               // run()'s poll interval
    uint32_t stop_cmd = ahci::reg::CMD_FRE; // PxCMD written by stop_engine()
};
inline Ctx ctx;
inline void bind(ahci::AhciHba &hba, bus::HostMemory &mem) {
    ctx.hba = &hba;
    ctx.mem = &mem;
}

inline uint64_t clb, fb, ct[32];
inline uint8_t *clb_p, *fb_p, *ct_p[32];

inline uint32_t prd(uint32_t off) { return ctx.hba->mmio_read32(ahci::reg::port_base(0) + off); }
inline void pwr(uint32_t off, uint32_t v) {
    ctx.hba->mmio_write32(ahci::reg::port_base(0) + off, v);
}

// Buf, kNoData, wait_until, put32, h2d, fill, diff, media_error, ata_string and the other
// IDENTIFY readers: the helpers both benches share (hba_test_common.h).
using namespace hba_common;
inline Buf buf(uint32_t len) { return alloc_buf(*ctx.mem, len); }

// Command list (32 slots), received-FIS area and one command table per slot, programmed
// into PxCLB/PxFB.
inline void alloc_port_memory() {
    using namespace ahci::reg;
    clb = ctx.mem->alloc(1024, 1024, &clb_p);
    fb = ctx.mem->alloc(256, 256, &fb_p);
    for (unsigned i = 0; i < 32; ++i)
        ct[i] = ctx.mem->alloc(0x80 + 16 * 64, 128, &ct_p[i]);
    pwr(PxCLB, uint32_t(clb));
    pwr(PxCLBU, uint32_t(clb >> 32));
    pwr(PxFB, uint32_t(fb));
    pwr(PxFBU, uint32_t(fb >> 32));
}

// Command header for slot (header PMP field = pmp, libahci: opts |= pmp << 12) and its
// table: the FIS and PRDs of at most `piece` bytes each, as a driver splitting pages would.
inline void build(unsigned slot, const sata::Fis &cfis, const Buf &b, uint32_t flags = 0,
                  uint8_t pmp = 0, uint32_t piece = 4096) {
    std::vector<std::pair<uint64_t, uint32_t>> prds;
    for (uint32_t off = 0; off < b.len; off += piece)
        prds.emplace_back(b.bus + off, std::min<uint32_t>(piece, b.len - off));
    uint8_t *h = clb_p + 32 * slot;
    std::memset(h, 0, 32);
    put32(h, uint32_t(cfis.bytes.size() / 4) | flags | uint32_t(pmp) << ahci::reg::HDR_PMP_SHIFT |
                 uint32_t(prds.size()) << 16);
    put32(h + 8, uint32_t(ct[slot]));
    put32(h + 12, uint32_t(ct[slot] >> 32));
    std::memset(ct_p[slot], 0, 0x80 + 16 * 64);
    std::memcpy(ct_p[slot], cfis.bytes.data(), cfis.bytes.size());
    for (size_t i = 0; i < prds.size(); ++i) {
        uint8_t *e = ct_p[slot] + 0x80 + 16 * i;
        put32(e, uint32_t(prds[i].first));
        put32(e + 4, uint32_t(prds[i].first >> 32));
        put32(e + 12, prds[i].second - 1);
    }
}

// Issue slot and wait until its CI bit clears or PxIS shows one of ctx.run_err.
inline bool run(unsigned slot, double max_us = 20000) {
    using namespace ahci::reg;
    pwr(PxCI, 1u << slot);
    const uint32_t err = ctx.run_err;
    bool ok = wait_until([slot, err] { return !(prd(PxCI) & (1u << slot)) || (prd(PxIS) & err); },
                         max_us, ctx.run_step_us);
    return ok && !(prd(PxIS) & err);
}

// Issue an NCQ command: its tag (= slot) in PxSACT, then PxCI (no wait).
inline void issue_ncq(unsigned slot) {
    pwr(ahci::reg::PxSACT, 1u << slot);
    pwr(ahci::reg::PxCI, 1u << slot);
}

inline void stop_engine() {
    using namespace ahci::reg;
    pwr(PxCMD, ctx.stop_cmd);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 500, 1));
}

} // namespace satasim::test::ahci_tb
