// Host memory as bus masters see it. Regions come from a bump allocator in bus address
// space: every region is one contiguous std::vector (so the stack gets a plain CPU
// pointer), regions are separated by an unmapped guard gap so that a DMA running past the
// end of a buffer is a master abort (host bus error) rather than silent corruption of the
// neighbouring allocation, and bus addresses are never reused before reset() so that
// every run allocates the same addresses in the same order.
#include "model/bus/host_memory.h"

#include <algorithm>
#include <cstring>

namespace satasim::bus {

namespace {
constexpr uint64_t kGuardGap = 0x1000; // unmapped bytes after every region
constexpr uint64_t kMinAlign = 64;     // a cache line, like a DMA allocator

uint64_t align_up(uint64_t v, uint64_t a) { return (v + a - 1) & ~(a - 1); }
bool is_pow2(uint64_t v) { return v != 0 && (v & (v - 1)) == 0; }
} // namespace

HostMemory::HostMemory(uint64_t base, uint64_t limit) : base_(base), limit_(limit), next_(base) {}

uint64_t HostMemory::alloc(size_t size, size_t align, uint8_t **cpu) {
    if (cpu)
        *cpu = nullptr;
    if (size == 0)
        size = 1;
    if (align == 0)
        align = 1;
    if (!is_pow2(align))
        return 0;
    uint64_t a = align < kMinAlign ? kMinAlign : align;
    uint64_t bus = align_up(next_, a);
    if (bus < next_ || bus + size < bus || bus + size > limit_)
        return 0; // bus address space exhausted
    Region &r = regions_[bus];
    r.bus = bus;
    r.data.assign(size, 0);
    // addresses only grow until reset(): the new region sorts last
    spans_.push_back(Span{bus, bus + size, r.data.data()});
    next_ = align_up(bus + size, kGuardGap) + kGuardGap;
    if (cpu)
        *cpu = r.data.data();
    return bus;
}

void HostMemory::free(uint64_t bus) {
    if (!regions_.erase(bus))
        return;
    auto it = std::lower_bound(spans_.begin(), spans_.end(), bus,
                               [](const Span &s, uint64_t b) { return s.bus < b; });
    if (it != spans_.end() && it->bus == bus)
        spans_.erase(it);
}

const HostMemory::Span *HostMemory::find(uint64_t addr, size_t len) const {
    if (len == 0 || addr + len < addr)
        return nullptr;
    const Span *it = last_starting_at_or_below(addr);
    return it && addr + len <= it->end ? it : nullptr;
}

const HostMemory::Span *HostMemory::last_starting_at_or_below(uint64_t addr) const {
    auto it = std::upper_bound(spans_.begin(), spans_.end(), addr,
                               [](uint64_t a, const Span &s) { return a < s.bus; });
    return it == spans_.begin() ? nullptr : &*(it - 1);
}

bool HostMemory::read(uint64_t addr, void *dst, size_t len) const {
    if (len == 0)
        return true;
    const Span *r = find(addr, len);
    if (!r)
        return false;
    std::memcpy(dst, r->data + (addr - r->bus), len);
    return true;
}

bool HostMemory::write(uint64_t addr, const void *src, size_t len) {
    if (len == 0)
        return true;
    uint8_t *p = map(addr, len);
    if (!p)
        return false;
    std::memcpy(p, src, len);
    return true;
}

uint8_t *HostMemory::map(uint64_t addr, size_t len) {
    const Span *r = find(addr, len);
    if (!r)
        return nullptr;
    return r->data + (addr - r->bus);
}

bool HostMemory::runs_past_allocation(uint64_t addr, size_t len) const {
    auto it = last_starting_at_or_below(addr);
    if (!it)
        return false;
    return addr + len > it->end && addr < align_up(it->end, kGuardGap) + kGuardGap;
}

size_t HostMemory::bytes_allocated() const {
    size_t n = 0;
    for (const auto &kv : regions_)
        n += kv.second.data.size();
    return n;
}

void HostMemory::reset() {
    regions_.clear();
    spans_.clear();
    next_ = base_;
}

} // namespace satasim::bus
