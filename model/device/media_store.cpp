// Sparse sector store in 32 KiB chunks; chunks appear on first write.
#include "model/device/media_store.h"

#include <algorithm>
#include <cstring>

namespace satasim::device {

void MediaStore::read(uint64_t lba, uint32_t count, uint8_t *dst) const {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        uint64_t chunk = s / kChunkSectors;
        uint64_t off = s % kChunkSectors;
        uint64_t n = std::min(end - s, kChunkSectors - off);
        auto it = chunks_.find(chunk);
        uint8_t *out = dst + (s - lba) * kSectorSize;
        if (it == chunks_.end())
            std::memset(out, 0, n * kSectorSize);
        else
            std::memcpy(out, it->second.data() + off * kSectorSize, n * kSectorSize);
        s += n;
    }
}

void MediaStore::write(uint64_t lba, uint32_t count, const uint8_t *src) {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        uint64_t chunk = s / kChunkSectors;
        uint64_t off = s % kChunkSectors;
        uint64_t n = std::min(end - s, kChunkSectors - off);
        auto &data = chunks_[chunk];
        if (data.empty())
            data.assign(kChunkSectors * kSectorSize, 0);
        std::memcpy(data.data() + off * kSectorSize, src + (s - lba) * kSectorSize,
                    n * kSectorSize);
        s += n;
    }
}

} // namespace satasim::device
