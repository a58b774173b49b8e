// Data integrity: the pattern a write puts in each sector, the sparse shadow of what every
// sector should now contain, and the sector-by-sector check of a read buffer.
//
// Sector contents for (lba, write generation, seed): bytes 0-7 the LBA, 8-15 the
// generation, 16-23 a tag derived from the seed, the rest a sequence seeded from all
// three. A misplaced or stale sector therefore says where it came from.
//
// A sector the run never wrote holds what the drive's media reads when never written: the
// model's blank pattern of (lba, media seed) (model/device/media_store.h), or zeros where
// the backend has no model disk (QEMU's sparse image). The shadow holds that choice, so a
// read of never-written sectors is checked without writing them first.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace satasim::harness {

constexpr size_t kSector = 512; // bytes per logical sector of every drive satasim models

constexpr uint8_t kPoison = 0xA5; // read buffers are filled with this before submit

void fill_sector(uint8_t *dst, uint64_t lba, uint64_t gen, uint64_t seed);
// True if the 512 bytes at got are exactly what fill_sector(lba, gen, seed) writes.
bool sector_matches(const uint8_t *got, uint64_t lba, uint64_t gen, uint64_t seed);

class ShadowMap {
  public:
    static constexpr uint64_t kBlank = 0;           // never written: the media's blank contents
    static constexpr uint64_t kUnknown = UINT64_MAX; // a failed write left it undefined

    // What a never-written sector reads as: the model's blank pattern of this media seed,
    // or (nullopt, the default) zeros.
    void set_blank(std::optional<uint64_t> media_seed) { blank_seed_ = media_seed; }
    const std::optional<uint64_t> &blank_seed() const { return blank_seed_; }

    void set(uint64_t lba, uint64_t n, uint64_t gen);
    uint64_t gen(uint64_t lba) const;
    bool any_written(uint64_t lba, uint64_t n) const;
    // Ascending walk: next_gen(c, lba) for increasing lba from cursor(first lba).
    struct Run {
        uint64_t end; // one past the last LBA of the run
        uint64_t gen;
    };
    using Cursor = std::map<uint64_t, Run>::const_iterator;
    Cursor cursor(uint64_t lba) const;
    uint64_t next_gen(Cursor &c, uint64_t lba) const;
    size_t sectors_tracked() const { return tracked_; }
    // The tracked sectors as runs of consecutive LBAs: (first, count), ascending.
    std::vector<std::pair<uint64_t, uint64_t>> extents() const;

  private:
    // Runs of sectors written with the same generation: first lba -> (end, generation);
    // runs never overlap; sectors in no run are blank. A write is one run, so a
    // prefilled region costs a few entries rather than one per sector.
    std::map<uint64_t, Run> runs_;
    size_t tracked_ = 0;
    std::optional<uint64_t> blank_seed_;
};

struct ReadCheck {
    uint64_t bad_sectors = 0;
    std::vector<std::string> first; // descriptions of the first few bad sectors
};

// Compares n sectors of buf (read from lba) against the shadow. Records at most
// max_reports descriptions.
ReadCheck check_read(const uint8_t *buf, uint64_t lba, uint32_t n, const ShadowMap &shadow,
                     uint64_t seed, size_t max_reports);

} // namespace satasim::harness
