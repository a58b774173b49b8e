// Host bus errors on the DUT's DMA bursts (bus_error_injector.h).
#include "backend/rtl/bus_error_injector.h"
#include "backend/rtl/axi_mem_slave.h"

#include <cstdio>

namespace satasim::harness::rtl {

namespace {
// The port registers (AHCI 1.3.1 3.3): port n at 100h + 80h * n.
constexpr uint32_t kPortBase = 0x100, kPortSize = 0x80;
constexpr uint32_t kPxCLB = 0x00, kPxCLBU = 0x04, kPxFB = 0x08, kPxFBU = 0x0C;
// The memory structures (AHCI 1.3.1 4.2): a 1 KiB command list of 32 headers of 32 bytes,
// a 256-byte received-FIS area, a command table of 80h bytes before its PRDT of 16-byte
// entries (header DW0 bits 31:16 PRDTL, DW2/DW3 CTBA; entry DW0/DW1 DBA, DW3 bits 21:0 DBC,
// the byte count minus one).
constexpr uint64_t kClSize = 1024, kFisSize = 256, kHdrSize = 32, kCtPrdt = 0x80, kPrdSize = 16;

bool overlaps(uint64_t a, size_t len, uint64_t base, uint64_t size) { return a < base + size && base < a + len; }
} // namespace

BusErrorInjector::BusErrorInjector(bus::HostMemory &mem, unsigned ports, ModelTrace *trace, const OnchipArea *onchip)
    : mem_(mem), trace_(trace), ports_(ports) {
    if (onchip)
        onchip_ = *onchip;
}

void BusErrorInjector::arm(unsigned port, const bus::BusErrorParams &p, const std::string &id) {
    if (port >= ports_.size())
        return;
    PortState &s = ports_[port];
    armed_ += s.armed ? 0 : 1;
    s.armed = true;
    s.params = p;
    s.id = id;
}

void BusErrorInjector::clear() {
    for (PortState &s : ports_)
        s.armed = false;
    armed_ = 0;
}

void BusErrorInjector::on_mmio_write(uint32_t off, uint32_t val) {
    if (onchip_) {
        for (size_t n = 0; n < ports_.size(); ++n) {
            const uint64_t cl = onchip_->command_list + uint64_t(n) * onchip_->port_stride;
            if (off >= cl && off < cl + kClSize) {
                ports_[n].onchip_cl[(off - cl) / 4] = val;
                return;
            }
        }
    }
    if (off < kPortBase)
        return;
    const uint32_t n = (off - kPortBase) / kPortSize, reg = (off - kPortBase) % kPortSize;
    if (n >= ports_.size())
        return;
    PortState &s = ports_[n];
    switch (reg) {
    case kPxCLB: s.clb = val; break;
    case kPxCLBU: s.clbu = val; break;
    case kPxFB: s.fb = val; break;
    case kPxFBU: s.fbu = val; break;
    default: break;
    }
}

bool BusErrorInjector::header(const PortState &p, unsigned slot, uint32_t h[4]) const {
    if (onchip_) {
        for (unsigned i = 0; i < 4; ++i)
            h[i] = p.onchip_cl[slot * (kHdrSize / 4) + i];
        return true;
    }
    const uint64_t clb = uint64_t(p.clbu) << 32 | (p.clb & ~0x3FFu);
    return mem_.read(clb + slot * kHdrSize, h, 4 * sizeof h[0]);
}

std::optional<bus::BusAccess> BusErrorInjector::classify(const PortState &p, uint64_t addr, size_t len) const {
    const uint64_t clb = uint64_t(p.clbu) << 32 | (p.clb & ~0x3FFu);
    const uint64_t fb = uint64_t(p.fbu) << 32 | (p.fb & ~0xFFu);
    if (!onchip_ && overlaps(addr, len, clb, kClSize))
        return bus::BusAccess::Command;
    if (!onchip_ && overlaps(addr, len, fb, kFisSize))
        return bus::BusAccess::Fis;
    for (unsigned slot = 0; slot < 32; ++slot) {
        uint32_t h[4];
        if (!header(p, slot, h))
            return std::nullopt; // no command list in host memory yet
        const uint64_t ctba = uint64_t(h[3]) << 32 | (h[2] & ~0x7Fu);
        const unsigned prdtl = h[0] >> 16;
        if (overlaps(addr, len, ctba, kCtPrdt + prdtl * kPrdSize))
            return bus::BusAccess::Command;
        for (unsigned i = 0; i < prdtl; ++i) {
            uint32_t e[4];
            if (!mem_.read(ctba + kCtPrdt + i * kPrdSize, e, sizeof e))
                break;
            const uint64_t dba = uint64_t(e[1]) << 32 | (e[0] & ~1u);
            if (overlaps(addr, len, dba, (e[3] & 0x3FFFFFu) + 1ull))
                return bus::BusAccess::Data;
        }
    }
    return std::nullopt;
}

unsigned BusErrorInjector::response(uint64_t addr, size_t len, bool write) {
    if (!armed_)
        return 0;
    for (size_t n = 0; n < ports_.size(); ++n) {
        PortState &s = ports_[n];
        if (!s.armed)
            continue;
        const std::optional<bus::BusAccess> a = classify(s, addr, len);
        if (!a || (s.params.access != bus::BusAccess::Any && s.params.access != *a))
            continue;
        s.armed = false;
        --armed_;
        const char *resp = s.params.decerr ? "DECERR" : "SLVERR";
        if (trace_) {
            char at[24];
            std::snprintf(at, sizeof at, "0x%llx", (unsigned long long)addr);
            TraceRecord r;
            r.src = "axi";
            r.name = "fault.effect";
            r.port = int(n);
            r.fields.emplace_back("id", TraceValue::str(s.id));
            r.fields.emplace_back("access", TraceValue::str(bus::to_string(*a)));
            r.fields.emplace_back("addr", TraceValue::hex(addr));
            r.fields.emplace_back("len", TraceValue::integer(int64_t(len)));
            r.fields.emplace_back("resp", TraceValue::str(s.params.decerr ? "decerr" : "slverr"));
            r.msg = std::string("DMA ") + (write ? "write" : "read") + " burst at " + at + " (" +
                    bus::to_string(*a) + ") answered " + resp;
            trace_->emit(r);
        }
        return s.params.decerr ? kAxiDecErr : kAxiSlvErr;
    }
    return 0;
}

} // namespace satasim::harness::rtl
