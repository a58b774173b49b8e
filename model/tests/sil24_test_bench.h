// Shared SiI3124 test bench: HBA + SataLink + SataDisk elaboration and the driver-side
// helpers (port window registers, one PRB block per slot, PRB + SGE array, activate, issue
// and wait, INIT, LRAM reads) used by the sil24 end-to-end tests; what it has in common
// with the AHCI bench (buffers, H2D Register FIS, polling) is in hba_test_common.h.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "model/sil24/sil24_hba.h"
#include "model/sil24/sil24_regs.h"
#include "model/tests/hba_test_common.h"

namespace satasim::test::sil24_tb {

// One-port SiI3124 (config chosen by the test), default link, one 2^20-sector SSD.
struct Sil24DiskBench : hba_common::OneDiskBench<sil24::Sil24Hba, sil24::Sil24Config> {
    static sil24::Sil24Config cfg() { return hba_common::one_port_cfg<sil24::Sil24Config>(); }
    explicit Sil24DiskBench(const sil24::Sil24Config &hcfg = cfg(), ModelTrace *tr = nullptr)
        : OneDiskBench("sil0", hcfg, hba_common::ssd_disk_cfg(), tr) {}
};

// What the helpers below drive: set by bind() in sc_main.
struct Ctx {
    sil24::Sil24Hba *hba = nullptr;
    bus::HostMemory *mem = nullptr;
};
inline Ctx ctx;
inline void bind(sil24::Sil24Hba &hba, bus::HostMemory &mem) {
    ctx.hba = &hba;
    ctx.mem = &mem;
}

inline uint64_t prb_bus[31];
inline uint8_t *prb_cpu[31];
constexpr uint32_t kBlock = 0x800; // PRB + 126 SGEs
constexpr uint16_t kRead = sil24::reg::PRB_PROT_READ, kWrite = sil24::reg::PRB_PROT_WRITE;

inline uint32_t prd(uint32_t off) {
    return ctx.hba->mmio_read32(sil24::reg::port_window(0) + off);
}
inline void pwr(uint32_t off, uint32_t v) {
    ctx.hba->mmio_write32(sil24::reg::port_window(0) + off, v);
}

// Buf, kNoData, wait_until, put32, h2d, fill, diff, media_error, ata_string and the other
// IDENTIFY readers: the helpers both benches share (hba_test_common.h).
using namespace hba_common;
inline Buf buf(uint32_t len) { return alloc_buf(*ctx.mem, len); }

// One PRB block per slot.
inline void alloc_prbs() {
    for (unsigned i = 0; i < 31; ++i)
        prb_bus[i] = ctx.mem->alloc(kBlock, 8, &prb_cpu[i]);
}

inline void sge(uint8_t *e, uint64_t addr, uint32_t len, uint32_t flags) {
    put32(e, uint32_t(addr));
    put32(e + 4, uint32_t(addr >> 32));
    put32(e + 8, len);
    put32(e + 12, flags);
}

// PRB in the slot's block with a flat SGE array of 4 KiB pieces, last one TRM.
inline void build(unsigned slot, const sata::Fis &fis, const Buf &b, uint16_t ctrl,
                  uint16_t prot) {
    using namespace sil24::reg;
    uint8_t *p = prb_cpu[slot];
    std::memset(p, 0, kBlock);
    put16(p + PRB_CTRL, ctrl);
    put16(p + PRB_PROT, prot);
    std::memcpy(p + PRB_FIS, fis.bytes.data(), fis.bytes.size());
    unsigned n = 0;
    for (uint32_t off = 0; off < b.len; off += 4096, ++n)
        sge(p + PRB_SGE0 + 16 * n, b.bus + off, std::min<uint32_t>(4096, b.len - off),
            off + 4096 >= b.len ? SGE_TRM : 0);
    if (n == 0)
        sge(p + PRB_SGE0, 0, 0, SGE_TRM);
}

inline void activate(unsigned slot, uint64_t addr) {
    pwr(sil24::reg::activate_reg(slot), uint32_t(addr));
    pwr(sil24::reg::activate_reg(slot) + 4, uint32_t(addr >> 32));
}
inline void activate(unsigned slot) { activate(slot, prb_bus[slot]); }

// Issue and wait for the slot to finish or the port to stop; true on success.
inline bool run(unsigned slot, double max_us = 20000) {
    using namespace sil24::reg;
    activate(slot);
    bool ok = wait_until([slot] {
        uint32_t ss = prd(PORT_SLOT_STAT);
        return !(ss & (1u << slot)) || (ss & SLOT_STAT_ATTN);
    }, max_us, 1);
    return ok && !(prd(PORT_SLOT_STAT) & SLOT_STAT_ATTN);
}

inline void init_port() {
    using namespace sil24::reg;
    pwr(PORT_CTRL_STAT, CS_INIT);
    EXPECT_TRUE(wait_until([] { return (prd(PORT_CTRL_STAT) & (CS_INIT | CS_RDY)) == CS_RDY; },
                           1000, 1));
}

inline uint8_t lram_byte(unsigned slot, unsigned off) {
    uint32_t v = prd(sil24::reg::lram_slot(slot) + (off & ~3u));
    return uint8_t(v >> (8 * (off & 3)));
}

} // namespace satasim::test::sil24_tb
