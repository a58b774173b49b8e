// Shared AHCI test bench: HBA + SataLink + SataDisk elaboration and the driver-side
// helpers (port registers, command list / FIS area / command tables, H2D Register FIS,
// command header + PRDT, issue and wait) used by the AHCI end-to-end tests.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

#include "model/ahci/ahci_hba.h"
#include "model/ahci/ahci_regs.h"
#include "model/device/sata_disk.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/tests/model_test.h"

namespace satasim::test::ahci_tb {

// One-port HBA, default link, one disk (config and trace chosen by the test).
struct AhciDiskBench {
    bus::HostMemory mem;
    bus::IrqLine irq;
    ahci::AhciHba hba;
    link::SataLink link;
    device::SataDisk disk;
    static ahci::AhciConfig cfg() {
        ahci::AhciConfig c;
        c.n_ports = 1;
        return c;
    }
    // 2^20 sectors, SSD timing.
    static device::DiskConfig disk_cfg() {
        device::DiskConfig c;
        c.sectors = 1u << 20;
        c.timing.ssd = true;
        return c;
    }
    explicit AhciDiskBench(const device::DiskConfig &dcfg = disk_cfg(), ModelTrace *tr = nullptr)
        : hba("ahci0", cfg(), mem, irq, tr), link("link0", {}, tr), disk("disk0", dcfg, tr) {
        link.attach(hba.port_endpoint(0), &disk);
        hba.connect_port(0, &link);
        disk.connect(&link);
    }
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

template <class F> bool wait_until(F cond, double max_us, double step_us = 10) {
    for (double t = 0; t < max_us; t += step_us) {
        if (cond())
            return true;
        sc_core::wait(step_us, sc_core::SC_US);
    }
    return cond();
}
inline void put32(uint8_t *p, uint32_t v) { std::memcpy(p, &v, 4); }
inline uint32_t get32(const uint8_t *p) {
    uint32_t v;
    std::memcpy(&v, p, 4);
    return v;
}

struct Buf {
    uint64_t bus;
    uint8_t *cpu;
    uint32_t len;
};
inline Buf buf(uint32_t len) {
    Buf b{0, nullptr, len};
    b.bus = ctx.mem->alloc(len, 4096, &b.cpu);
    return b;
}

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

// H2D Register FIS with C set.
inline sata::Fis h2d(uint8_t op, uint64_t lba, uint16_t count, uint16_t feature = 0,
                     uint8_t device = 0x40, uint8_t pmp = 0) {
    sata::Taskfile tf;
    tf.command = op;
    tf.lba = lba;
    tf.count = count;
    tf.feature = uint8_t(feature);
    tf.feature_hi = uint8_t(feature >> 8);
    tf.device = device;
    return sata::make_reg_h2d(tf, true, pmp);
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

inline void fill(Buf &b, uint8_t seed) {
    for (uint32_t i = 0; i < b.len; ++i)
        b.cpu[i] = uint8_t(i * 13 + seed + (i >> 9));
}
inline size_t diff(const uint8_t *a, const uint8_t *b, size_t n) {
    size_t d = 0;
    for (size_t i = 0; i < n; ++i)
        d += a[i] != b[i];
    return d;
}
inline size_t diff(const Buf &a, const Buf &b) { return diff(a.cpu, b.cpu, a.len); }

inline void stop_engine() {
    using namespace ahci::reg;
    pwr(PxCMD, ctx.stop_cmd);
    EXPECT_TRUE(wait_until([] { return !(prd(PxCMD) & CMD_CR); }, 500, 1));
}

} // namespace satasim::test::ahci_tb
