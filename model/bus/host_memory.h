// Host memory as the controllers' bus masters see it: regions handed out by the DMA
// allocator, each contiguous in both bus and CPU address space (so the stack can use a
// plain pointer). Bus addresses outside every region are a master abort.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace satasim::bus {

class HostMemory {
  public:
    explicit HostMemory(uint64_t base = 0x10000000ull, uint64_t limit = 0x1000000000ull);

    // Allocate a zeroed region; returns its bus address and CPU pointer.
    uint64_t alloc(size_t size, size_t align, uint8_t **cpu);
    void free(uint64_t bus);

    // Bus-master access. Return false (and touch nothing) if any byte is unmapped.
    bool read(uint64_t addr, void *dst, size_t len) const;
    bool write(uint64_t addr, const void *src, size_t len);
    bool read32(uint64_t addr, uint32_t *v) const { return read(addr, v, 4); }
    bool write32(uint64_t addr, uint32_t v) { return write(addr, &v, 4); }
    // Direct pointer to [addr, addr+len) if it lies in one region, else nullptr.
    uint8_t *map(uint64_t addr, size_t len);

    size_t bytes_allocated() const;
    // [addr, addr+len) starts inside a region or the guard gap after it and runs past the
    // region's end: an overrun of an allocation (as opposed to a wild address).
    bool runs_past_allocation(uint64_t addr, size_t len) const;
    // Power-on state: every region released.
    void reset();

  private:
    struct Region {
        uint64_t bus;
        std::vector<uint8_t> data;
    };
    // A live region's bounds and bytes, kept in a flat array sorted by bus address: a DMA's
    // lookup is a binary search over contiguous memory (with a thousand disks there are
    // thousands of regions, and the map's node walk missed the cache at every level).
    struct Span {
        uint64_t bus, end;
        uint8_t *data;
    };
    const Span *find(uint64_t addr, size_t len) const;
    const Span *last_starting_at_or_below(uint64_t addr) const;

    uint64_t base_, limit_, next_;
    std::map<uint64_t, Region> regions_; // keyed by bus address, ordered: owns the bytes
    std::vector<Span> spans_;            // the same regions, for lookups
};

} // namespace satasim::bus
