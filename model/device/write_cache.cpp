// The volatile write cache as a record of what the platters hold under dirty sectors
// (write_cache.h).
#include "model/device/write_cache.h"

#include <algorithm>
#include <bitset>
#include <cstring>

namespace satasim::device {

namespace {
constexpr size_t kSector = MediaStore::kSectorSize;
unsigned popcount8(uint8_t v) { return unsigned(std::bitset<8>(v).count()); }
} // namespace

void WriteCache::write(uint64_t lba, uint32_t count, const uint8_t *src, bool through) {
    for (uint64_t s = lba, end = lba + count; s < end;) {
        const uint64_t chunk = s / kChunkSectors;
        const uint32_t off = uint32_t(s % kChunkSectors);
        const uint32_t n = uint32_t(std::min<uint64_t>(end - s, kChunkSectors - off));
        const uint8_t bits = uint8_t(((1u << n) - 1) << off);
        auto it = chunks_.find(chunk);
        if (through) {
            if (it != chunks_.end()) { // those sectors are on the platters now
                Entry &e = it->second;
                dirty_ -= popcount8(e.dirty & bits);
                e.dirty &= uint8_t(~bits);
                std::memcpy(e.platters.get() + off * kSector, src + (s - lba) * kSector, n * kSector);
                if (!e.dirty)
                    chunks_.erase(it);
            }
        } else {
            if (it == chunks_.end()) {
                Entry e;
                e.platters.reset(new uint8_t[kChunkSectors * kSector]);
                media_.read(chunk * kChunkSectors, kChunkSectors, e.platters.get());
                e.seq = next_seq_++;
                order_.emplace_back(chunk, e.seq);
                it = chunks_.emplace(chunk, std::move(e)).first;
            }
            dirty_ += popcount8(uint8_t(~it->second.dirty & bits));
            it->second.dirty |= bits;
        }
        s += n;
    }
    media_.write(lba, count, src);
    if (!through)
        evict();
}

// A full cache: the drive writes back the chunks dirty the longest.
void WriteCache::evict() {
    while (chunks_.size() > capacity_ && !order_.empty()) {
        const auto [chunk, seq] = order_.front();
        order_.pop_front();
        auto it = chunks_.find(chunk);
        if (it != chunks_.end() && it->second.seq == seq) {
            dirty_ -= popcount8(it->second.dirty);
            chunks_.erase(it);
        }
    }
    if (order_.size() > 2 * capacity_ + 64) // records of chunks written through since
        order_.erase(std::remove_if(order_.begin(), order_.end(),
                                    [&](const std::pair<uint64_t, uint64_t> &o) {
                                        auto it = chunks_.find(o.first);
                                        return it == chunks_.end() || it->second.seq != o.second;
                                    }),
                     order_.end());
}

void WriteCache::write_back() {
    chunks_.clear();
    order_.clear();
    dirty_ = 0;
}

uint64_t WriteCache::lose() {
    const uint64_t lost = dirty_;
    // in chunk order: the same media whatever the table's iteration order
    std::vector<uint64_t> keys;
    keys.reserve(chunks_.size());
    for (const auto &kv : chunks_)
        keys.push_back(kv.first);
    std::sort(keys.begin(), keys.end());
    for (uint64_t chunk : keys) {
        const Entry &e = chunks_.at(chunk);
        for (uint32_t i = 0; i < kChunkSectors; ++i)
            if (e.dirty & (1u << i))
                media_.write(chunk * kChunkSectors + i, 1, e.platters.get() + i * kSector);
    }
    write_back();
    return lost;
}

} // namespace satasim::device
