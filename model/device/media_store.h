// Sparse sector store: only written sectors take memory; unwritten sectors read as zeros.
// Survives device resets (it is the platters, not the electronics).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>

namespace satasim::device {

class MediaStore {
  public:
    static constexpr size_t kSectorSize = 512;

    void read(uint64_t lba, uint32_t count, uint8_t *dst) const;
    void write(uint64_t lba, uint32_t count, const uint8_t *src);
    size_t sectors_stored() const { return chunks_ * kChunkSectors; }
    void clear();

  private:
    static constexpr uint64_t kChunkSectors = 64;  // 32 KiB chunks, allocated on first write
    static constexpr uint64_t kDirChunks = 4096;   // one directory maps 128 MiB of LBAs
    struct Free {
        void operator()(uint8_t *p) const;
    };
    using Chunk = std::unique_ptr<uint8_t[], Free>; // calloc'd: fresh pages are not cleared twice
    struct Dir {
        std::array<Chunk, kDirChunks> chunk; // null: never written (reads as zeros)
    };
    // Two-level table: directory index -> directory -> chunk. A lookup is one tree step
    // (usually skipped: the last directory used is remembered) and an array index.
    std::map<uint64_t, std::unique_ptr<Dir>> dirs_;
    mutable uint64_t last_index_ = UINT64_MAX;
    mutable Dir *last_dir_ = nullptr;
    size_t chunks_ = 0;

    Dir *find_dir(uint64_t index) const;
    const uint8_t *find_chunk(uint64_t chunk) const;
};

} // namespace satasim::device
