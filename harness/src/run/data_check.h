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
    // TRIMmed on a drive that reads zeroes after TRIM (IDENTIFY word 69 bits 14 and 5); a
    // trim without that promise leaves kUnknown
    static constexpr uint64_t kTrimmed = UINT64_MAX - 1;

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

// What a power loss may take (docs/disk-models.md, "The write cache and power loss"). A
// write the drive acknowledged is durable once it was FUA, or once a FLUSH CACHE submitted
// after its acknowledgement completed; until then it may be only in the drive's volatile
// cache. When the drive loses its power (an unplug, a power_loss fault), every write not
// durable may be gone: a sector it wrote then reads either what the last durable write left
// or what one of the writes since left. Such a read is "lost, not durable", not a data
// error: the workload never claimed the data was safe. A durable write read back old is a
// data error as any.
class DurabilityLog {
  public:
    // New media (the start, a replaced drive): nothing written, blank as the shadow.
    void reset(std::optional<uint64_t> blank_seed);
    // A write reported complete. durable: FUA. raced_loss: submitted before a power loss the
    // completion came after (its data may have gone with the cache).
    void acknowledged(uint64_t lba, uint64_t n, uint64_t gen, bool durable, bool raced_loss);
    // A write failed: its sectors' contents are unknown, durable or not.
    void failed(uint64_t lba, uint64_t n);
    // Acknowledgements so far: a flush submitted now covers those.
    uint64_t acks() const { return acks_; }
    // A flush completed that was submitted when acks() was `acks_at_submit`.
    void flushed(uint64_t acks_at_submit);
    // The drive lost its power: every write not durable may be lost from here on.
    void power_lost();
    // For a sector that does not read as the newest write: the generation of what it holds
    // if a power loss can have left it so (ShadowMap::kBlank for the never-written contents,
    // ShadowMap::kUnknown where a failed write left anything possible); nullopt otherwise.
    std::optional<uint64_t> lost_match(const uint8_t *got, uint64_t lba, uint64_t seed) const;
    // A read found generation gen at lba: that is what the sector holds now.
    void settle(uint64_t lba, uint64_t gen);
    size_t lost_writes() const { return lost_.size(); }

  private:
    struct Write {
        uint64_t lba, n, gen, ack;
    };
    static void cut(std::vector<Write> &v, uint64_t lba, uint64_t n); // drop [lba, lba+n)
    ShadowMap durable_;          // what survives any power loss
    std::vector<Write> pending_; // acknowledged, not yet durable, in acknowledgement order
    std::vector<Write> lost_;    // not durable when the power went: maybe gone
    uint64_t acks_ = 0;
};

struct ReadCheck {
    uint64_t bad_sectors = 0;
    std::vector<std::string> first; // descriptions of the first few bad sectors
    // Sectors that read what a power loss left (DurabilityLog): lba, the newest generation
    // written, the generation found.
    struct Lost {
        uint64_t lba, written, found;
    };
    std::vector<Lost> lost;
};

// The lost sectors as lines, one per run of consecutive sectors that read the same thing:
// "lba 100..115 (16 sectors): write generations 5..6 (acknowledged, never made durable by a
// flush or FUA) lost with the power, found generation 2".
std::vector<std::string> describe_lost(const std::vector<ReadCheck::Lost> &lost);

// Compares n sectors of buf (read from lba) against the shadow. Records at most
// max_reports descriptions. With a durability log, a sector that reads what a power loss
// left is listed in `lost`, not counted bad.
ReadCheck check_read(const uint8_t *buf, uint64_t lba, uint32_t n, const ShadowMap &shadow,
                     uint64_t seed, size_t max_reports, const DurabilityLog *durability = nullptr);

} // namespace satasim::harness
