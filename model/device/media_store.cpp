// Sparse sector store in 4 KiB chunks; chunks appear on first write, never-written sectors
// read as the blank pattern (media_store.h).
#include "model/device/media_store.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace satasim::device {

namespace {

constexpr uint64_t kWeyl = 0x9e3779b97f4a7c15ull;
constexpr size_t kWords = MediaStore::kSectorSize / 8;

uint64_t splitmix64(uint64_t v) {
    uint64_t z = v + kWeyl;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

// The pattern is little-endian words; on a little-endian host a word is one load or store,
// which lets the compiler vectorise the loops below (the pattern costs a sector's worth of
// arithmetic on every never-written read and on every check of one).
void put64(uint8_t *p, uint64_t v) {
    if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
        std::memcpy(p, &v, 8);
    } else {
        for (int i = 0; i < 8; ++i)
            p[i] = uint8_t(v >> (8 * i));
    }
}

uint64_t get64(const uint8_t *p) {
    uint64_t v = 0;
    if constexpr (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__) {
        std::memcpy(&v, p, 8);
    } else {
        for (int i = 0; i < 8; ++i)
            v |= uint64_t(p[i]) << (8 * i);
    }
    return v;
}

inline uint64_t whiten(uint64_t w) { return w ^ (w >> 29); }

} // namespace

void MediaStore::Free::operator()(uint8_t *p) const { std::free(p); }

void MediaStore::blank_sector(uint8_t *dst, uint64_t lba, uint64_t seed) {
    put64(dst, lba);
    put64(dst + 8, kBlankMagic);
    put64(dst + 16, seed);
    const uint64_t base = splitmix64(lba * kWeyl ^ seed);
    for (size_t k = 3; k < kWords; ++k) // each word from its index: no chain between them
        put64(dst + 8 * k, whiten(base + (k - 2) * kWeyl));
}

bool MediaStore::is_blank_sector(const uint8_t *got, uint64_t lba, uint64_t seed) {
    uint64_t diff = (get64(got) ^ lba) | (get64(got + 8) ^ kBlankMagic) | (get64(got + 16) ^ seed);
    const uint64_t base = splitmix64(lba * kWeyl ^ seed);
    for (size_t k = 3; k < kWords; ++k)
        diff |= get64(got + 8 * k) ^ whiten(base + (k - 2) * kWeyl);
    return diff == 0;
}

uint64_t MediaStore::replacement_seed(uint64_t seed, const char *serial) {
    uint64_t h = 0xcbf29ce484222325ull; // FNV-1a of the serial
    for (const char *c = serial; c && *c; ++c) {
        h ^= uint8_t(*c);
        h *= 0x100000001b3ull;
    }
    return splitmix64(seed ^ splitmix64(h));
}

size_t MediaStore::bytes_allocated() const {
    const size_t node = sizeof(void *) + sizeof(std::pair<const uint64_t, Chunk>);
    return chunks_.size() * (kChunkSectors * kSectorSize + node) + chunks_.bucket_count() * sizeof(void *);
}

void MediaStore::clear(uint64_t seed) {
    chunks_.clear();
    chunks_.rehash(0);
    seed_ = seed;
}

void MediaStore::read(uint64_t lba, uint32_t count, uint8_t *dst) const {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        const uint64_t chunk = s / kChunkSectors;
        const uint64_t off = s % kChunkSectors;
        const uint64_t n = std::min(end - s, kChunkSectors - off);
        uint8_t *out = dst + (s - lba) * kSectorSize;
        auto it = chunks_.empty() ? chunks_.end() : chunks_.find(chunk);
        if (it == chunks_.end()) {
            for (uint64_t i = 0; i < n; ++i)
                blank_sector(out + i * kSectorSize, s + i, seed_);
        } else {
            std::memcpy(out, it->second.get() + off * kSectorSize, n * kSectorSize);
        }
        s += n;
    }
}

void MediaStore::write(uint64_t lba, uint32_t count, const uint8_t *src) {
    uint64_t s = lba, end = lba + count;
    while (s < end) {
        const uint64_t chunk = s / kChunkSectors;
        const uint64_t off = s % kChunkSectors;
        const uint64_t n = std::min(end - s, kChunkSectors - off);
        Chunk &data = chunks_[chunk];
        if (!data) {
            void *p = std::malloc(kChunkSectors * kSectorSize);
            if (!p)
                throw std::bad_alloc();
            data.reset(static_cast<uint8_t *>(p));
            if (n < kChunkSectors) // the sectors this write leaves alone stay blank
                for (uint64_t i = 0; i < kChunkSectors; ++i)
                    if (i < off || i >= off + n)
                        blank_sector(data.get() + i * kSectorSize, chunk * kChunkSectors + i, seed_);
        }
        std::memcpy(data.get() + off * kSectorSize, src + (s - lba) * kSectorSize, n * kSectorSize);
        s += n;
    }
}

} // namespace satasim::device
