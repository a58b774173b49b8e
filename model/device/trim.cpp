// DATA SET MANAGEMENT (06h) with the TRIM bit (docs/device.md 3): the host sends Count
// 512-byte blocks of LBA range entries, each 8 bytes little-endian, bits 47:0 the first LBA
// and bits 63:48 the number of sectors (0: an unused entry). The drive forgets the sectors.
#include <algorithm>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Taskfile;

namespace {
constexpr size_t kEntryBytes = 8;

uint64_t entry_at(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i)
        v = v << 8 | p[i];
    return v;
}
} // namespace

void SataDisk::Impl::trim_sectors(uint64_t lba, uint64_t count) {
    constexpr uint32_t kBatch = 64;
    std::vector<uint8_t> buf(size_t(kBatch) * MediaStore::kSectorSize);
    const bool zeroes = cfg.trim == DiskConfig::Trim::Zeroes;
    for (uint64_t done = 0; done < count;) {
        const uint32_t n = uint32_t(std::min<uint64_t>(kBatch, count - done));
        for (uint32_t i = 0; i < n; ++i) {
            uint8_t *s = buf.data() + size_t(i) * MediaStore::kSectorSize;
            if (zeroes)
                std::fill(s, s + MediaStore::kSectorSize, uint8_t(0));
            else
                MediaStore::blank_sector(s, lba + done + i, media.seed());
        }
        // Forgotten at once, cache or not: nothing of the old data is left to lose.
        cache.write(lba + done, n, buf.data(), true);
        done += n;
    }
}

void SataDisk::Impl::data_set_management(uint64_t e, const Taskfile &tf) {
    auto abort_cmd = [&] { finish_error(e, tf, sata::kAtaAbrt, tf.lba); };
    // Only TRIM (Feature bit 0) is known; Count 0 is the model's choice of "no blocks": ABRT.
    if (cfg.trim == DiskConfig::Trim::None || !cfg.lba48 || !(tf.feature & 0x01) ||
        tf.count == 0 || tf.count > DiskConfig::kTrimMaxBlocks)
        return abort_cmd();
    if (!busy_for(e, overhead()))
        return;
    std::vector<uint8_t> list(size_t(tf.count) * MediaStore::kSectorSize);
    if (!dma_out(e, tf.count, false, [&](uint32_t first, uint32_t n, const uint8_t *data) {
            std::copy(data, data + size_t(n) * MediaStore::kSectorSize,
                      list.begin() + ptrdiff_t(first) * ptrdiff_t(MediaStore::kSectorSize));
        }))
        return (void)finish_error(e, tf, sata::kAtaIcrc | sata::kAtaAbrt, tf.lba);
    // Every entry is checked before any is acted on: one beyond the accessible sectors
    // aborts the command and nothing is trimmed (the model's choice).
    const uint64_t limit = capacity();
    uint64_t trimmed = 0, ranges = 0;
    for (size_t off = 0; off < list.size(); off += kEntryBytes) {
        const uint64_t v = entry_at(list.data() + off);
        const uint64_t lba = v & 0xFFFFFFFFFFFFull, n = v >> 48;
        if (n && (lba >= limit || n > limit - lba))
            return abort_cmd();
    }
    for (size_t off = 0; off < list.size(); off += kEntryBytes) {
        const uint64_t v = entry_at(list.data() + off);
        const uint64_t lba = v & 0xFFFFFFFFFFFFull, n = v >> 48;
        if (!n)
            continue;
        trim_sectors(lba, n);
        Xfer x;
        x.lba = lba;
        x.sectors = uint32_t(n);
        x.write = true;
        media_written(x); // a trimmed sector no longer holds what made it unreadable
        trimmed += n;
        ++ranges;
    }
    trace("disk.trim", {{"ranges", TraceValue::integer(int64_t(ranges))},
                        {"sectors", TraceValue::integer(int64_t(trimmed))}});
    if (busy_for(e, overhead()))
        finish_ok(e);
}

} // namespace satasim::device
