#include "model/bus/pci_function.h"

#include <stdexcept>

namespace satasim::bus {

namespace {
void put(std::array<uint8_t, 256> &a, unsigned off, unsigned size, uint32_t v) {
    for (unsigned i = 0; i < size; ++i)
        a[off + i] = uint8_t(v >> 8 * i);
}
uint32_t get(const std::array<uint8_t, 256> &a, unsigned off, unsigned size) {
    uint32_t v = 0;
    for (unsigned i = 0; i < size; ++i)
        v |= uint32_t(a[off + i]) << 8 * i;
    return v;
}
} // namespace

PciFunction::PciFunction(const PciSpec &spec) : spec_(spec) {
    for (const PciBar &b : spec_.bars)
        if (b.kind != PciBar::Kind::None && (b.size == 0 || (b.size & (b.size - 1))))
            throw std::invalid_argument("PCI BAR size must be a power of two");
    reset();
}

void PciFunction::reset() {
    cfg_.fill(0);
    wmask_.fill(0);
    w1c_.fill(0);
    const PciSpec &s = spec_;
    put(cfg_, pci::kVendorId, 2, s.vendor);
    put(cfg_, pci::kDeviceId, 2, s.device);
    put(cfg_, pci::kRevision, 1, s.revision);
    put(cfg_, pci::kProgIf, 3, s.class_code);
    put(cfg_, pci::kSubsysVendor, 2, s.subsys_vendor);
    put(cfg_, pci::kSubsysId, 2, s.subsys_id);
    put(cfg_, pci::kIntPin, 1, s.interrupt_pin);
    put(cfg_, pci::kMinGnt, 1, s.min_gnt);
    put(cfg_, pci::kMaxLat, 1, s.max_lat);

    // Command: the decode enables of the spaces the function has, bus master, parity and SERR#
    // response, interrupt disable (a function with no pin has none: the bit is hardwired 0).
    bool io = false, mem = s.rom_size != 0;
    for (const PciBar &b : s.bars) {
        io |= b.kind == PciBar::Kind::Io;
        mem |= b.kind == PciBar::Kind::Mem32 || b.kind == PciBar::Kind::Mem64;
    }
    uint16_t cmd_w = pci::CMD_MASTER | pci::CMD_PARITY | pci::CMD_SERR;
    if (io)
        cmd_w |= pci::CMD_IO;
    if (mem)
        cmd_w |= pci::CMD_MEMORY;
    if (s.interrupt_pin)
        cmd_w |= pci::CMD_INTX_DISABLE;
    put(wmask_, pci::kCommand, 2, cmd_w);
    uint16_t status = pci::STATUS_DEVSEL_MEDIUM;
    if (!s.order.empty())
        status |= pci::STATUS_CAP_LIST;
    if (s.status_66mhz)
        status |= pci::STATUS_66MHZ;
    put(cfg_, pci::kStatus, 2, status);
    put(w1c_, pci::kStatus, 2, pci::STATUS_RW1C);
    put(wmask_, pci::kCacheLine, 1, 0xff);
    put(wmask_, pci::kLatency, 1, 0xff);
    put(wmask_, pci::kIntLine, 1, 0xff);

    // BARs: the address bits above the size are writable, the size and type bits hardwired.
    for (unsigned n = 0; n < 6; ++n) {
        const PciBar &b = s.bars[n];
        const unsigned off = pci::kBar0 + 4 * n;
        switch (b.kind) {
        case PciBar::Kind::None: break;
        case PciBar::Kind::Io:
            put(cfg_, off, 4, pci::BAR_IO);
            put(wmask_, off, 4, ~(b.size - 1) & ~3u);
            break;
        case PciBar::Kind::Mem32:
        case PciBar::Kind::Mem64: {
            const bool wide = b.kind == PciBar::Kind::Mem64;
            if (wide && n == 5)
                throw std::invalid_argument("a 64-bit BAR cannot start at BAR5");
            put(cfg_, off, 4, (wide ? pci::BAR_MEM_64 : 0) | (b.prefetchable ? pci::BAR_PREFETCH : 0));
            put(wmask_, off, 4, ~(b.size - 1) & ~0xfu);
            if (wide) {
                put(wmask_, off + 4, 4, 0xffffffffu);
                ++n; // the upper dword is the next BAR's slot
            }
            break;
        }
        }
    }
    if (s.rom_size)
        put(wmask_, pci::kRomBase, 4, (~(s.rom_size - 1) & 0xfffff800u) | 1u);

    reset_dev_regs();

    // Capabilities: the list in `order`, each header's next pointer the following entry.
    if (!s.order.empty())
        put(cfg_, pci::kCapPtr, 1, s.order.front());
    for (size_t i = 0; i < s.order.size(); ++i) {
        const uint8_t at = s.order[i];
        const uint8_t next = i + 1 < s.order.size() ? s.order[i + 1] : 0;
        if (at < 0x40 || (at & 3))
            throw std::invalid_argument("PCI capability outside the device-specific area or misaligned");
        put(cfg_, at + 1u, 1, next);
        if (at == s.pm_offset) {
            put(cfg_, at, 1, pci::CAP_PM);
            put(cfg_, at + 2u, 2, s.pmc);
            put(cfg_, at + 4u, 2, s.pm_no_soft_reset ? pci::PMCSR_NO_SOFT_RESET : 0);
            put(wmask_, at + 4u, 2, pci::PMCSR_STATE | pci::PMCSR_PME_EN);
            put(w1c_, at + 4u, 2, pci::PMCSR_PME_STATUS);
        } else if (at == s.msi_offset) {
            put(cfg_, at, 1, pci::CAP_MSI);
            put(cfg_, at + 2u, 2, (s.msi_log2_vectors << pci::MSI_MMC_SHIFT) | (s.msi_64bit ? pci::MSI_64BIT : 0));
            put(wmask_, at + 2u, 2, pci::MSI_ENABLE | 7u << pci::MSI_MME_SHIFT);
            put(wmask_, at + 4u, 4, ~3u);
            if (s.msi_64bit)
                put(wmask_, at + 8u, 4, 0xffffffffu);
            put(wmask_, at + (s.msi_64bit ? 12u : 8u), 2, 0xffff);
        } else {
            bool found = false;
            for (const PciOpaqueCap &c : s.opaque)
                if (c.offset == at) {
                    put(cfg_, at, 1, c.id);
                    for (size_t k = 0; k < c.body.size() && at + 2 + k < 256; ++k)
                        cfg_[at + 2 + k] = c.body[k];
                    found = true;
                }
            if (!found)
                throw std::invalid_argument("PCI capability list names an offset no capability has");
        }
    }
    cond_ = false;
    intx_ = false;
    msi_sent_ = 0;
}

uint32_t PciFunction::rd(unsigned off, unsigned size) const { return get(cfg_, off, size); }

void PciFunction::wr_raw(unsigned off, unsigned size, uint32_t val) {
    for (unsigned i = 0; i < size; ++i) {
        const uint8_t b = uint8_t(val >> 8 * i), m = wmask_[off + i], c = w1c_[off + i];
        uint8_t &r = cfg_[off + i];
        r = uint8_t((r & ~m) | (b & m));
        r = uint8_t(r & ~(b & c));
    }
}

uint32_t PciFunction::config_read(unsigned off, unsigned size) const {
    if ((size != 1 && size != 2 && size != 4) || off % size || off + size > 256)
        return 0xffffffffu >> (32 - 8 * (size > 4 ? 4 : size ? size : 4));
    return rd(off, size);
}

void PciFunction::config_write(unsigned off, unsigned size, uint32_t val) {
    if ((size != 1 && size != 2 && size != 4) || off % size || off + size > 256)
        return;
    const unsigned old_state = power_state();
    wr_raw(off, size, val);
    if (spec_.pm_offset) {
        // PCI PM 1.2 3.2.4: a write of an unsupported state completes but changes nothing.
        const unsigned pmcsr = spec_.pm_offset + 4u;
        const unsigned st = power_state();
        const bool ok = st == 0 || st == 3 || (st == 1 && (spec_.pmc & pci::PMC_D1)) ||
                        (st == 2 && (spec_.pmc & pci::PMC_D2));
        if (!ok)
            put(cfg_, pmcsr, 1, (rd(pmcsr, 1) & ~pci::PMCSR_STATE) | old_state);
        // D3hot -> D0 without No_Soft_Reset: the function comes back in D0 uninitialized
        // (PCI PM 1.2 5.4.1): its configuration context (BARs, Command, MSI) is lost.
        if (old_state == 3 && power_state() == 0 && !spec_.pm_no_soft_reset) {
            const uint8_t line = uint8_t(rd(pci::kIntLine, 1));
            reset();
            put(cfg_, pci::kIntLine, 1, line); // firmware routing, kept by the OS across D3
        }
    }
    update_intx();
    if (write_hook_)
        write_hook_(off, size);
}

void PciFunction::reset_dev_regs() {
    for (const PciDevReg &r : spec_.dev_regs) {
        if (r.offset < 0x40 || r.size == 0 || r.size > 4 || r.offset + r.size > 256)
            throw std::invalid_argument("PCI device-specific register outside 40h-FFh");
        put(cfg_, r.offset, r.size, r.value);
        put(wmask_, r.offset, r.size, r.wmask);
    }
}

unsigned PciFunction::power_state() const {
    return spec_.pm_offset ? rd(spec_.pm_offset + 4u, 2) & pci::PMCSR_STATE : 0;
}

uint64_t PciFunction::bar_address(unsigned n) const {
    if (n >= 6)
        return 0;
    const PciBar &b = spec_.bars[n];
    const uint32_t lo = rd(pci::kBar0 + 4 * n, 4);
    switch (b.kind) {
    case PciBar::Kind::None: return 0;
    case PciBar::Kind::Io: return lo & ~3u;
    case PciBar::Kind::Mem32: return lo & ~0xfu;
    case PciBar::Kind::Mem64: return (uint64_t(rd(pci::kBar0 + 4 * (n + 1), 4)) << 32) | (lo & ~0xfu);
    }
    return 0;
}

bool PciFunction::msi_enabled() const {
    return spec_.msi_offset && (rd(spec_.msi_offset + 2u, 2) & pci::MSI_ENABLE);
}

uint64_t PciFunction::msi_address() const {
    if (!spec_.msi_offset)
        return 0;
    uint64_t a = rd(spec_.msi_offset + 4u, 4);
    if (spec_.msi_64bit)
        a |= uint64_t(rd(spec_.msi_offset + 8u, 4)) << 32;
    return a;
}

uint16_t PciFunction::msi_data() const {
    return spec_.msi_offset ? uint16_t(rd(spec_.msi_offset + (spec_.msi_64bit ? 12u : 8u), 2)) : 0;
}

unsigned PciFunction::msi_vectors_enabled() const {
    if (!spec_.msi_offset)
        return 0;
    const unsigned mme = (rd(spec_.msi_offset + 2u, 2) >> pci::MSI_MME_SHIFT) & 7u;
    return 1u << (mme < spec_.msi_log2_vectors ? mme : spec_.msi_log2_vectors);
}

void PciFunction::interrupt(bool asserted) {
    const bool rising = asserted && !cond_;
    cond_ = asserted;
    uint16_t st = uint16_t(rd(pci::kStatus, 2));
    st = asserted ? uint16_t(st | pci::STATUS_INTERRUPT) : uint16_t(st & ~pci::STATUS_INTERRUPT);
    put(cfg_, pci::kStatus, 2, st);
    if (msi_enabled()) {
        // 6.8.3.1: the function signals with a dword write of Message Data (vector 0: the
        // single message) to Message Address; a bus master only (6.8: MSI is a memory write).
        if (rising && bus_master()) {
            ++msi_sent_;
            if (msi_sink_)
                msi_sink_(msi_address(), msi_data());
        }
    }
    update_intx();
}

void PciFunction::update_intx() {
    // With MSI enabled the function does not assert INTx (6.8.1.3 MSI Enable).
    const bool level = spec_.legacy_irq
                           ? cond_
                           : cond_ && !msi_enabled() && !(command() & pci::CMD_INTX_DISABLE) && spec_.interrupt_pin;
    if (level != intx_) {
        intx_ = level;
        if (intx_sink_)
            intx_sink_(level);
    }
}

void PciFunction::note_master_abort() {
    put(cfg_, pci::kStatus, 2, rd(pci::kStatus, 2) | pci::STATUS_REC_MASTER_ABORT);
}

void pci_enable_for_test(PciFunction &f) {
    f.config_write(pci::kCommand, 2, pci::CMD_IO | pci::CMD_MEMORY | pci::CMD_MASTER);
}

} // namespace satasim::bus
