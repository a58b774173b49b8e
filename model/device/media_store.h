// Sparse sector store: the platters. Survives device resets (it is not the electronics).
//
// Only written sectors take memory: 4 KiB chunks (8 sectors), each one allocation of its
// data plus one hash-table entry, made on the first write that touches the chunk. Cost
// therefore follows the sectors written, wherever they are on the disk.
//
// A never-written sector reads as the blank pattern of its LBA and the media seed (a
// per-disk value; the harness derives it from the scenario seed, see scenarios/README.md
// "Never-written sectors"). As 64 little-endian 64-bit words:
//   word 0     the LBA
//   word 1     0x4e54544952574e55, the ASCII bytes "UNWRITTN"
//   word 2     the media seed
//   word k     (k = 3 .. 63) whiten(base + (k - 2) * C), whiten(w) = w ^ (w >> 29),
//              base = splitmix64(lba * C ^ seed), C = 0x9e3779b97f4a7c15 (mod 2^64)
// where splitmix64(v) is one step of SplitMix64 from state v (add C, then the two
// xor-shift-multiply rounds and the final xor-shift). Reading a sector never writes it:
// the pattern is computed on each read. A chunk first written in part holds the pattern
// in its other sectors. clear() is new media: nothing written, a new seed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace satasim::device {

class MediaStore {
  public:
    static constexpr size_t kSectorSize = 512;
    static constexpr uint64_t kDefaultSeed = 0x5a7a51a5eed00001ull;
    static constexpr uint64_t kBlankMagic = 0x4e54544952574e55ull; // "UNWRITTN"

    explicit MediaStore(uint64_t seed = kDefaultSeed) : seed_(seed) {}

    void read(uint64_t lba, uint32_t count, uint8_t *dst) const;
    void write(uint64_t lba, uint32_t count, const uint8_t *src);
    // Sectors that hold memory (whole chunks: written ones and their neighbours).
    size_t sectors_stored() const { return chunks_.size() * kChunkSectors; }
    size_t bytes_allocated() const; // chunk data and table, an estimate of what malloc holds
    uint64_t seed() const { return seed_; }
    // New media: every sector never written, reading the pattern of `seed`.
    void clear(uint64_t seed);

    // The blank pattern of one sector (see the header comment).
    static void blank_sector(uint8_t *dst, uint64_t lba, uint64_t seed);
    static bool is_blank_sector(const uint8_t *got, uint64_t lba, uint64_t seed);
    // The seed of the media of a different drive plugged in where a drive with media seed
    // `seed` was, identified by its serial number.
    static uint64_t replacement_seed(uint64_t seed, const char *serial);

  private:
    static constexpr uint64_t kChunkSectors = 8; // 4 KiB: a random 4 KiB write is one chunk
    struct Free {
        void operator()(uint8_t *p) const;
    };
    using Chunk = std::unique_ptr<uint8_t[], Free>;
    // chunk index (lba / kChunkSectors) -> its 4 KiB; absent: never written.
    std::unordered_map<uint64_t, Chunk> chunks_;
    uint64_t seed_;
};

} // namespace satasim::device
