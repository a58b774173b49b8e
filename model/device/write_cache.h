// The drive's volatile write cache (docs/disk-models.md, "The write cache and power loss").
//
// A write that the drive acknowledges before its data is on the platters (write cache
// enabled, no FUA) sits in DRAM until the drive writes it back: on FLUSH CACHE (EXT), on
// STANDBY, when SET FEATURES 82h disables the cache, or on its own when the cache is full.
// A power loss (an unplug pulls the power too) loses what was not written back; the
// platters keep what was.
//
// The model keeps the newest data in the media store at once (a read hits the cache: the
// same bytes) and records, per 4 KiB chunk first made dirty, the chunk as the platters
// held it and which of its sectors are dirty. Writing back drops those records (nothing
// moves); losing the cache puts the recorded sectors back. So the cache costs one 4 KiB
// copy per chunk first made dirty and memory for at most `capacity_chunks` of them, and
// the data path is the one the drive has without a cache.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>
#include <unordered_map>

#include "model/device/media_store.h"

namespace satasim::device {

class WriteCache {
  public:
    static constexpr uint32_t kChunkSectors = 8;

    WriteCache(MediaStore &media, size_t capacity_chunks) : media_(media), capacity_(capacity_chunks) {}

    // Data of a write arrives: through (FUA, or the cache disabled) it is on the platters
    // (and no longer dirty); otherwise it is in the cache.
    void write(uint64_t lba, uint32_t count, const uint8_t *src, bool through);
    // Everything dirty goes to the platters (FLUSH CACHE, STANDBY, cache disabled).
    void write_back();
    // Power lost: the dirty sectors read what the platters held. Returns how many there were.
    uint64_t lose();
    uint64_t dirty_sectors() const { return dirty_; }
    size_t capacity_chunks() const { return capacity_; }

  private:
    struct Entry {
        std::unique_ptr<uint8_t[]> platters; // the chunk as written back last
        uint8_t dirty = 0;                   // bit i: sector i of the chunk is only in the cache
        uint64_t seq = 0;                    // when the chunk became dirty (eviction order)
    };
    void evict();

    MediaStore &media_;
    size_t capacity_;
    std::unordered_map<uint64_t, Entry> chunks_; // chunk index -> its record
    std::deque<std::pair<uint64_t, uint64_t>> order_; // (chunk, seq) oldest first
    uint64_t next_seq_ = 1;
    uint64_t dirty_ = 0;
};

} // namespace satasim::device
