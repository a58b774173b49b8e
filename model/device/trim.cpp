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
    lba <<= cfg.logical_log2; // from here the media store's 512-byte sectors
    count <<= cfg.logical_log2;
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

bool SataDisk::Impl::apply_trim_list(const std::vector<uint8_t> &list, bool queued) {
    // Every entry is checked before any is acted on: one beyond the accessible sectors
    // aborts the command and nothing is trimmed (the model's choice).
    const uint64_t limit = capacity();
    uint64_t trimmed = 0, ranges = 0;
    for (size_t off = 0; off + kEntryBytes <= list.size(); off += kEntryBytes) {
        const uint64_t v = entry_at(list.data() + off);
        const uint64_t lba = v & 0xFFFFFFFFFFFFull, n = v >> 48;
        if (n && (lba >= limit || n > limit - lba))
            return false;
    }
    for (size_t off = 0; off + kEntryBytes <= list.size(); off += kEntryBytes) {
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
    std::vector<std::pair<std::string, TraceValue>> f = {{"ranges", TraceValue::integer(int64_t(ranges))},
                                                          {"sectors", TraceValue::integer(int64_t(trimmed))}};
    if (queued)
        f.emplace_back("queued", TraceValue::boolean(true));
    trace("disk.trim", std::move(f));
    return true;
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
    if (!dma_out(e, tf.count, MediaStore::kSectorSize, false, [&](uint32_t first, uint32_t n, const uint8_t *data) {
            std::copy(data, data + size_t(n) * MediaStore::kSectorSize,
                      list.begin() + ptrdiff_t(first) * ptrdiff_t(MediaStore::kSectorSize));
        }))
        return (void)finish_error(e, tf, sata::kAtaIcrc | sata::kAtaAbrt, tf.lba);
    if (!apply_trim_list(list, false))
        return abort_cmd();
    if (busy_for(e, overhead()))
        finish_ok(e);
}

// SEND FPDMA QUEUED (64h) with subcommand DATA SET MANAGEMENT (docs/device.md 3.2): Count
// bits 15:11 the tag, bits 12:8 of Count's high byte the subcommand (00h), Features the
// number of 512-byte blocks of range entries, Auxiliary bit 0 the TRIM bit. Taken in the
// queue like a WRITE FPDMA QUEUED: DMA Setup, the range list out, then the SDB bit; a bad
// subcommand, a clear TRIM bit, a block count the drive does not take or a range beyond the
// accessible sectors is an NCQ error with ABRT (nothing trimmed).
void SataDisk::Impl::queued_trim(int tag) {
    const uint64_t e = epoch;
    NcqSlot &s = slots[size_t(tag)];
    const uint32_t blocks = s.x.sectors;
    const uint8_t sub = uint8_t((s.tf.count >> 8) & 0x1F);
    if (!idle_until(e, s.accepted + overhead()))
        return;
    if (sub != 0x00 || !(s.tf.aux & 0x01) || blocks == 0 || blocks > DiskConfig::kTrimMaxBlocks)
        return ncq_fail(tag, sata::kAtaAbrt, 0);
    std::vector<uint8_t> list(size_t(blocks) * MediaStore::kSectorSize);
    const bool aa = auto_activate;
    bool ok = send(sata::make_dma_setup(false, false, aa, uint8_t(tag), 0, uint32_t(list.size()))) && alive(e) &&
              dma_out(e, blocks, MediaStore::kSectorSize, aa, [&](uint32_t first, uint32_t n, const uint8_t *data) {
                  std::copy(data, data + size_t(n) * MediaStore::kSectorSize,
                            list.begin() + ptrdiff_t(first) * ptrdiff_t(MediaStore::kSectorSize));
              });
    if (!alive(e))
        return;
    if (!ok)
        return ncq_fail(tag, sata::kAtaIcrc | sata::kAtaAbrt, 0);
    if (cfg.ncq_trim_erratum) {
        fault_effect("ncq_trim", {{"tag", TraceValue::integer(tag)}},
                     "queued TRIM erratum: SEND FPDMA QUEUED DSM aborted");
        return ncq_fail(tag, sata::kAtaAbrt, 0);
    }
    if (!apply_trim_list(list, true))
        return ncq_fail(tag, sata::kAtaAbrt, 0);
    if (!busy_for(e, overhead()))
        return;
    s.state = NcqSlot::State::Done;
    if (!sdb_pending)
        sdb_hold_until = sc_core::sc_time_stamp() + sc_core::sc_time(double(cfg.ncq_sdb_coalesce_ns), sc_core::SC_NS);
    sdb_pending |= 1u << tag;
}

// NCQ Send and Receive log (13h, docs/device.md 3.2): dword 0 the supported SEND/RECEIVE FPDMA
// subcommands (bit 0 DSM), dword 1 the DSM functions (bit 0 TRIM).
std::vector<uint8_t> SataDisk::Impl::ncq_send_recv_log_page() const {
    std::vector<uint8_t> p(MediaStore::kSectorSize, 0);
    p[0] = 0x01;
    p[4] = 0x01;
    return p;
}

} // namespace satasim::device
