// Sparse sector store in 32 KiB chunks; chunks appear on first write.
#include "model/device/media_store.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace satasim::device {

void MediaStore::Free::operator()(uint8_t *p) const { std::free(p); }

MediaStore::Dir *MediaStore::find_dir(uint64_t index) const {
    if (index == last_index_)
        return last_dir_;
    auto it = dirs_.find(index);
    if (it == dirs_.end())
        return nullptr;
    last_index_ = index;
    last_dir_ = it->second.get();
    return last_dir_;
}

const uint8_t *MediaStore::find_chunk(uint64_t chunk) const {
    const Dir *d = find_dir(chunk / kDirChunks);
    return d ? d->chunk[chunk % kDirChunks].get() : nullptr;
}

void MediaStore::clear() {
    dirs_.clear();
    last_index_ = UINT64_MAX;
    last_dir_ = nullptr;
    chunks_ = 0;
}

void MediaStore::read(uint64_t lba, uint32_t count, uint8_t *dst) const {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        uint64_t chunk = s / kChunkSectors;
        uint64_t off = s % kChunkSectors;
        uint64_t n = std::min(end - s, kChunkSectors - off);
        const uint8_t *data = find_chunk(chunk);
        uint8_t *out = dst + (s - lba) * kSectorSize;
        if (!data)
            std::memset(out, 0, n * kSectorSize);
        else
            std::memcpy(out, data + off * kSectorSize, n * kSectorSize);
        s += n;
    }
}

void MediaStore::write(uint64_t lba, uint32_t count, const uint8_t *src) {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        uint64_t chunk = s / kChunkSectors;
        uint64_t off = s % kChunkSectors;
        uint64_t n = std::min(end - s, kChunkSectors - off);
        const uint64_t index = chunk / kDirChunks;
        Dir *d = find_dir(index);
        if (!d) {
            auto &slot = dirs_[index];
            slot = std::make_unique<Dir>();
            d = slot.get();
            last_index_ = index;
            last_dir_ = d;
        }
        Chunk &data = d->chunk[chunk % kDirChunks];
        if (!data) {
            void *p = std::calloc(kChunkSectors, kSectorSize); // zeros
            if (!p)
                throw std::bad_alloc();
            data.reset(static_cast<uint8_t *>(p));
            ++chunks_;
        }
        std::memcpy(data.get() + off * kSectorSize, src + (s - lba) * kSectorSize,
                    n * kSectorSize);
        s += n;
    }
}

} // namespace satasim::device
