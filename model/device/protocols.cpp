// FIS sequences of the ATA data protocols (docs/hardware.md 8.7): PIO data-in / data-out per DRQ
// block, DMA in / out in Data FISes of at most 8 KiB, and the waits between them.
#include <algorithm>
#include <cstring>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sata::Fis;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::sc_time_stamp;

namespace {
constexpr uint8_t kStatusDrq = 0x58;   // DRDY | DSC | DRQ
constexpr uint8_t kStatusBusy = 0xD0;  // BSY | DRDY | DSC (device works on the next block)
} // namespace

// Busy wait that keeps the drive responsive: queued-command acceptances and pending SDB
// completions go out while the media works. False if the work was aborted.
bool SataDisk::Impl::idle_until(uint64_t e, sc_time deadline) {
    for (;;) {
        if (!alive(e) || !service_accepts())
            return false;
        sc_time now = sc_time_stamp();
        if (now >= deadline)
            return alive(e);
        if (sdb_pending && !sdb_held()) {
            if (!flush_sdb(false))
                return false;
            continue;
        }
        const sc_time until = sdb_held() ? std::min(deadline, sdb_hold_until) : deadline;
        sc_core::wait(until - now, work_event);
    }
}

bool SataDisk::Impl::wait_data(uint64_t e, Fis &out) {
    awaiting_data = true;
    while (data_in.empty()) {
        if (!alive(e) || !phy_up || rx_wire_error) {
            awaiting_data = rx_wire_error = false;
            return false;
        }
        sc_core::wait(data_event);
    }
    awaiting_data = false;
    if (!alive(e))
        return false;
    out = std::move(data_in.front());
    data_in.pop_front();
    return true;
}

bool SataDisk::Impl::erratum_hang(const Fis &f) {
    if (!cfg.mod15write || f.payload_size() < sata::kMaxDataFisPayload)
        return false;
    hung = true;
    hang_id = "mod15write";
    ++epoch; // the command stops where it stands
    fault_effect(hang_id, {{"state", TraceValue::str("hung")}, {"bytes", TraceValue::integer(int64_t(f.payload_size()))}},
                 "mod15write erratum: an 8 KiB write Data FIS hangs the drive (BSY, silent)");
    work_event.notify(sc_core::SC_ZERO_TIME);
    data_event.notify(sc_core::SC_ZERO_TIME);
    return true;
}

// PIO data-in: per block a PIO Setup (D=1, I=1, status DRQ, E_Status = good after the last
// block, busy otherwise) followed by one Data FIS. No D2H at the end.
bool SataDisk::Impl::pio_in(uint64_t e, const Taskfile &tf, uint32_t blocks,
                            const std::function<std::vector<uint8_t>(uint32_t)> &block_data) {
    for (uint32_t i = 0; i < blocks; ++i) {
        std::vector<uint8_t> data = block_data(i);
        const bool last = i + 1 == blocks;
        Taskfile regs = tf;
        if (!send(sata::make_pio_setup(true, true, kStatusDrq, 0, last ? sata::kAtaStatusGood : kStatusBusy,
                                       uint16_t(data.size()), regs)) ||
            !alive(e))
            return false;
        if (!send(sata::make_data(data.data(), data.size())) || !alive(e))
            return false;
    }
    return true;
}

// PIO data-out: per block a PIO Setup (D=0, status DRQ, E_Status busy; I=0 for the first
// block as the host needs no interrupt to start), then the host's Data FIS.
bool SataDisk::Impl::pio_out(
    uint64_t e, const Taskfile &tf, uint32_t sectors, uint32_t block_sectors,
    const std::function<void(uint32_t, uint32_t, const uint8_t *)> &sink) {
    std::vector<uint8_t> buf;
    for (uint32_t done = 0, i = 0; done < sectors; ++i) {
        const uint32_t n = std::min(block_sectors, sectors - done);
        const size_t bytes = size_t(n) * sector_bytes();
        if (!send(sata::make_pio_setup(false, i > 0, kStatusDrq, 0, kStatusBusy, uint16_t(bytes),
                                       tf)) ||
            !alive(e))
            return false;
        Fis f;
        if (!wait_data(e, f) || erratum_hang(f))
            return false;
        buf.assign(bytes, 0);
        std::memcpy(buf.data(), f.payload(), std::min(bytes, f.payload_size()));
        sink(done, n, buf.data());
        done += n;
    }
    return true;
}

// DMA in: the data as Data FISes of at most 8 KiB each (16 sectors of 512 bytes, 2 of 4096).
bool SataDisk::Impl::dma_in_data(uint64_t e, uint64_t lba, uint32_t sectors) {
    const uint32_t per_fis = uint32_t(sata::kMaxDataFisPayload / sector_bytes());
    for (uint32_t done = 0; done < sectors;) {
        const uint32_t n = std::min(per_fis, sectors - done);
        // The media is read straight into the FIS (no bounce buffer).
        Fis f = sata::make_data_zeroed(size_t(n) * sector_bytes());
        media_read(lba + done, n, f.payload());
        if (!send(f) || !alive(e))
            return false;
        done += n;
    }
    return true;
}

// DMA out: one DMA Activate per Data FIS the host may send (the first one is skipped when
// the DMA Setup carried auto-activate). Data goes to the sink as it arrives.
bool SataDisk::Impl::dma_out(uint64_t e, uint32_t sectors, size_t ss, bool skip_first_activate,
                             const std::function<void(uint32_t, uint32_t, const uint8_t *)> &sink) {
    const size_t total = size_t(sectors) * ss;
    size_t got = 0;
    std::vector<uint8_t> partial; // bytes of a sector split across Data FISes
    bool first = true;
    while (got < total) {
        if (!(first && skip_first_activate)) {
            if (!send(sata::make_dma_activate()) || !alive(e))
                return false;
        }
        first = false;
        Fis f;
        if (!wait_data(e, f) || erratum_hang(f))
            return false;
        size_t take = std::min(f.payload_size(), total - got);
        const uint8_t *src = f.payload();
        size_t left = take;
        if (!partial.empty()) { // complete the split sector first
            const size_t need = std::min(left, ss - partial.size());
            partial.insert(partial.end(), src, src + need);
            src += need;
            left -= need;
            if (partial.size() == ss) {
                sink(uint32_t((got + need) / ss - 1), 1, partial.data());
                partial.clear();
            }
        }
        const size_t whole = left / ss; // straight from the FIS
        if (whole) {
            sink(uint32_t((got + (take - left)) / ss), uint32_t(whole), src);
            src += whole * ss;
            left -= whole * ss;
        }
        partial.insert(partial.end(), src, src + left); // the start of a split sector
        got += take;
    }
    return got == total;
}

// The data of a write lands in the cache (or, through, on the platters) as it arrives.
bool SataDisk::Impl::dma_out_data(uint64_t e, uint64_t lba, uint32_t sectors,
                                  bool skip_first_activate, bool through, bool discard) {
    return dma_out(e, sectors, sector_bytes(), skip_first_activate,
                   [&](uint32_t first, uint32_t n, const uint8_t *data) {
                       if (!discard)
                           cache_write(lba + first, n, data, through);
                   });
}

} // namespace satasim::device
