// The DUT's CAP and the features the driver and the suite take from it (dut_caps.h).
#include "backend/rtl/dut_caps.h"
#include "backend/rtl/dut_abi.h"

#include <cstdio>
#include <stdexcept>
#include <string>

#include "scenario/yaml_walk.h"

namespace satasim::harness::rtl {

namespace {

constexpr unsigned kReadCycles = 1000; // an AXI4-Lite read of CAP answered within this

// CAP fields (AHCI 1.3.1 3.1.1)
constexpr uint32_t kCapS64A = 1u << 31, kCapSNCQ = 1u << 30, kCapSPM = 1u << 17;
unsigned cap_np(uint32_t cap) { return (cap & 0x1fu) + 1; }
unsigned cap_ncs(uint32_t cap) { return ((cap >> 8) & 0x1fu) + 1; }
unsigned cap_iss(uint32_t cap) { return (cap >> 20) & 0xfu; }

DutFeatures apply_quirks(const DutQuirks &q, DutFeatures f) {
    if (q.single_slot)
        f.slots = 1;
    if (q.no_ncq)
        f.ncq = false;
    if (q.no_64bit_dma)
        f.dma64 = false;
    if (q.only_gen) {
        f.gen = q.only_gen;
        f.fixed_gen = true;
    }
    if (q.no_pmp)
        f.pmp = false;
    return f;
}

} // namespace

uint32_t read_dut_cap(const DutLibrary &lib) {
    const satasim_dut_api &api = lib.api();
    void *dut = api.create(nullptr);
    if (!dut)
        throw std::runtime_error("the DUT's create() returned null");
    satasim_dut_pins pins{};
    // Every clock at every tick (one clock, as far as this read goes): only the register
    // slave is used here.
    pins.clk_edges = SATASIM_DUT_EDGE_CORE | SATASIM_DUT_EDGE_PHY_TX | SATASIM_DUT_EDGE_PHY_RX |
                     SATASIM_DUT_EDGE_REG | SATASIM_DUT_EDGE_DMA;
    pins.rst = pins.reg_rst = pins.dma_rst = 1;
    for (unsigned i = 0; i < SATASIM_DUT_RESET_CYCLES; ++i)
        api.tick(dut, &pins);
    pins.rst = pins.reg_rst = pins.dma_rst = 0;
    pins.s_araddr = 0; // CAP
    pins.s_arvalid = 1;
    pins.s_rready = 1;
    for (unsigned i = 0; i < kReadCycles; ++i) {
        api.tick(dut, &pins); // outputs sampled before the edge: this edge's handshakes
        if (pins.s_arvalid && pins.s_arready)
            pins.s_arvalid = 0;
        else if (pins.s_rvalid) {
            const uint32_t cap = pins.s_rdata;
            const bool err = pins.s_rresp >= 2;
            api.destroy(dut);
            if (err)
                throw std::runtime_error("the DUT answered the read of CAP (offset 0) with an error response");
            return cap;
        }
    }
    api.destroy(dut);
    throw std::runtime_error("the DUT did not answer an AXI4-Lite read of CAP (offset 0) within " +
                             std::to_string(kReadCycles) + " cycles after reset");
}

DutFeatures profile_features(const DutProfile &p) { return apply_quirks(p.quirks, DutFeatures{}); }

DutFeatures dut_features(const DutProfile &p, uint32_t cap) {
    const Parser err(p.file);
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%08x", cap);
    const std::string says = std::string("the DUT's CAP (") + hex + ") ";
    if (cap_np(cap) != p.ports)
        err.fail(profile_line(p, "interface.ports"), "interface.ports",
                 std::to_string(p.ports) + " port(s), but " + says + "has NP = " + std::to_string(cap_np(cap) - 1) +
                     " (" + std::to_string(cap_np(cap)) + " port(s))");
    if ((cap & kCapS64A) && p.addr_width == 32)
        err.fail(profile_line(p, "interface.addr_width"), "interface.addr_width",
                 "32, but " + says + "sets S64A (64-bit addressing): quirks.no_64bit_dma if the DUT cannot use it");
    const unsigned iss = cap_iss(cap);
    if (iss < 1 || iss > 3)
        err.fail(profile_line(p, "interface"), "interface",
                 says + "has ISS = " + std::to_string(iss) + " (AHCI 1.3.1: 1 = Gen1, 2 = Gen2, 3 = Gen3)");
    if (p.quirks.only_gen > iss)
        err.fail(profile_line(p, "quirks.only_gen"), "quirks.only_gen",
                 "Gen" + std::to_string(p.quirks.only_gen) + ", but " + says + "has ISS = Gen" + std::to_string(iss) +
                     " (the fastest it supports)");
    DutFeatures f;
    f.cap_read = true;
    f.cap = cap;
    f.slots = cap_ncs(cap);
    f.ncq = cap & kCapSNCQ;
    f.dma64 = cap & kCapS64A;
    f.gen = iss;
    f.pmp = cap & kCapSPM;
    return apply_quirks(p.quirks, f);
}

} // namespace satasim::harness::rtl
