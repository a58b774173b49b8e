// Sparse sector store: only written sectors take memory; unwritten sectors read as zeros.
// Survives device resets (it is the platters, not the electronics).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

namespace satasim::device {

class MediaStore {
  public:
    static constexpr size_t kSectorSize = 512;

    void read(uint64_t lba, uint32_t count, uint8_t *dst) const;
    void write(uint64_t lba, uint32_t count, const uint8_t *src);
    size_t sectors_stored() const { return chunks_.size() * kChunkSectors; }
    void clear() { chunks_.clear(); }

  private:
    static constexpr uint64_t kChunkSectors = 64; // 32 KiB chunks
    std::map<uint64_t, std::vector<uint8_t>> chunks_; // chunk index -> data
};

} // namespace satasim::device
