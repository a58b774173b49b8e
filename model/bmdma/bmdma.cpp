// Bus-master IDE DMA (bmdma.h): the registers and the PRD walk.
#include "model/bmdma/bmdma.h"

#include <algorithm>
#include <cstring>

namespace satasim::bmdma {

using namespace reg;

namespace {
// Runaway guard: a table without EOT is walked at most this far (64 KiB of PRDs).
constexpr uint32_t kMaxPrds = 8192;
}

BmDma::BmDma(bus::HostMemory &mem, std::function<void(const char *, const std::string &)> trace)
    : mem_(mem), trace_(std::move(trace)) {}

void BmDma::reset() {
    cmd_ = 0;
    status_ = 0;
    table_ = 0;
    prd_index_ = prd_done_ = 0;
    irq_level_ = false;
    fail_next_ = false;
    fail_dir_ = Dir::Any;
}

uint8_t BmDma::read8(uint32_t off) const {
    switch (off) {
    case kCommand: return cmd_;
    case kStatus: return status_;
    case kPrdTable: case kPrdTable + 1: case kPrdTable + 2: case kPrdTable + 3:
        return uint8_t(table_ >> 8 * (off - kPrdTable));
    default: return 0;
    }
}

uint32_t BmDma::read32(uint32_t off) const {
    if (off == kPrdTable)
        return table_;
    if (off == kCommand) // command, reserved, status, reserved as one dword
        return uint32_t(cmd_) | uint32_t(status_) << 16;
    return 0;
}

void BmDma::write8(uint32_t off, uint8_t val) {
    if (off == kCommand) {
        const bool was = started();
        cmd_ = val & (CMD_START | CMD_WRITE_MEM);
        if (!was && started()) {
            prd_index_ = prd_done_ = 0;
            status_ |= ST_ACTIVE;
            ++starts_;
            for (const auto &fn : on_start_)
                fn();
        } else if (was && !started()) {
            status_ &= uint8_t(~ST_ACTIVE); // stopped: state lost
        }
    } else if (off == kStatus) {
        status_ &= uint8_t(~(val & (ST_ERROR | ST_INTR)));              // write 1 to clear
        status_ = uint8_t((status_ & ~(ST_DMA0_CAP | ST_DMA1_CAP)) | (val & (ST_DMA0_CAP | ST_DMA1_CAP)));
    } else if (off >= kPrdTable && off < kPrdTable + 4) {
        const unsigned sh = 8 * (off - kPrdTable);
        table_ = ((table_ & ~(0xffu << sh)) | uint32_t(val) << sh) & ~3u;
    }
}

void BmDma::write32(uint32_t off, uint32_t val) {
    if (off == kPrdTable) {
        table_ = val & ~3u;
        return;
    }
    if (off == kCommand) {
        write8(kCommand, uint8_t(val));
        write8(kStatus, uint8_t(val >> 16));
    }
}

void BmDma::device_irq(bool level) {
    if (level && !irq_level_)
        status_ |= ST_INTR;
    irq_level_ = level;
}

bool BmDma::load(uint32_t index, Prd &out) const {
    if (index >= kMaxPrds)
        return false;
    uint32_t dw[2];
    if (!mem_read(uint64_t(table_) + 8ull * index, dw, sizeof dw))
        return false;
    out.addr = dw[0] & ~1u;
    out.len = dw[1] & 0xfffe;
    if (out.len == 0)
        out.len = kPrdMaxBytes;
    out.eot = dw[1] & PRD_EOT;
    return true;
}

void BmDma::error(const std::string &why) {
    status_ = uint8_t((status_ | ST_ERROR) & ~ST_ACTIVE);
    if (trace_)
        trace_("bmdma.error", why);
}

size_t BmDma::room(size_t limit) const {
    if (!active())
        return 0;
    size_t n = 0;
    uint32_t i = prd_index_, done = prd_done_;
    Prd p;
    while (n < limit && load(i, p)) {
        n += p.len - done;
        if (p.eot)
            break;
        ++i;
        done = 0;
    }
    return std::min(n, limit);
}

size_t BmDma::move(uint8_t *dst, const uint8_t *src, size_t len, bool to_mem) {
    if (!active() || to_mem != to_memory())
        return 0;
    if (fail_next_ && (fail_dir_ == Dir::Any || (fail_dir_ == Dir::ToMemory) == to_mem)) {
        fail_next_ = false;
        error("injected bus master abort");
        return 0;
    }
    size_t off = 0;
    while (off < len && active()) {
        Prd p;
        if (!load(prd_index_, p)) {
            error("PRD " + std::to_string(prd_index_) + " at an unmapped address");
            break;
        }
        const size_t n = std::min<size_t>(p.len - prd_done_, len - off);
        const uint64_t a = uint64_t(p.addr) + prd_done_;
        const bool ok = to_mem ? mem_write(a, src + off, n) : mem_read(a, dst + off, n);
        if (!ok) {
            error("data region at an unmapped address");
            break;
        }
        off += n;
        prd_done_ += uint32_t(n);
        if (prd_done_ == p.len) {
            if (p.eot) {
                status_ &= uint8_t(~ST_ACTIVE); // the table is exhausted
                break;
            }
            ++prd_index_;
            prd_done_ = 0;
        }
    }
    return off;
}

size_t BmDma::write_memory(const uint8_t *buf, size_t len) { return move(nullptr, buf, len, true); }
size_t BmDma::read_memory(uint8_t *buf, size_t len) { return move(buf, nullptr, len, false); }

// A bus-master access: only with the function's Bus Master Enable (PCI 3.0 6.2.2); without
// it the engine's request goes nowhere, which the engine sees as a master abort.
bool BmDma::mem_read(uint64_t addr, void *dst, size_t len) const {
    if (pci_ && !pci_->bus_master()) {
        pci_->note_master_abort();
        return false;
    }
    return mem_.read(addr, dst, len);
}

bool BmDma::mem_write(uint64_t addr, const void *src, size_t len) {
    if (pci_ && !pci_->bus_master()) {
        pci_->note_master_abort();
        return false;
    }
    return mem_.write(addr, src, len);
}

} // namespace satasim::bmdma
