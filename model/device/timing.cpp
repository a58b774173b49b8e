// Busy-time model. Rotating disk: firmware overhead, then a seek scaled linearly with the
// stroke distance (full stroke = 2 x average), the rotational latency to the target
// sector computed from the platter angle at the simulated time the seek ends, and the
// media transfer at media_mb_s. Sequential continuation (the target is where the heads
// stopped) is served from read-ahead/track buffer: transfer only. SSD: flat latency plus
// transfer. No randomness: the same access at the same time always costs the same.
#include <algorithm>
#include <cmath>

#include "model/device/disk_impl.h"

namespace satasim::device {

using sc_core::sc_time;
using sc_core::SC_SEC;
using sc_core::SC_US;

double SataDisk::Impl::rotation_s() const {
    return cfg.timing.rpm > 0 ? 60.0 / cfg.timing.rpm : 0.0;
}

sc_time SataDisk::Impl::overhead() const { return sc_time(cfg.timing.cmd_overhead_us, SC_US); }

sc_time SataDisk::Impl::media_access(uint64_t lba, uint32_t sectors, sc_time start) {
    const double bytes = double(sectors) * MediaStore::kSectorSize;
    const double rate = cfg.timing.media_mb_s > 0 ? cfg.timing.media_mb_s * 1e6 : 1e12;
    const double transfer_s = bytes / rate;
    double t = 0;
    if (cfg.timing.ssd) {
        t = cfg.timing.flat_latency_us * 1e-6 + transfer_s;
    } else if (lba == head_lba) {
        t = transfer_s;
    } else {
        const double cap = double(std::max<uint64_t>(capacity(), 1));
        const double dist = std::fabs(double(lba) - double(head_lba)) / cap;
        double seek_s = 2.0 * cfg.timing.avg_seek_ms * 1e-3 * dist;
        const double rot = rotation_s();
        double latency_s = 0;
        if (rot > 0) {
            // Sectors per revolution follow from the media rate; the target sector's angle
            // is its position on the track, the heads' angle is where the platter is when
            // the seek completes.
            const double per_rev = std::max(1.0, std::floor(rate * rot / 512.0));
            const double target = std::fmod(double(lba), per_rev) / per_rev;
            const double arrive = start.to_seconds() + seek_s;
            const double angle = std::fmod(arrive, rot) / rot;
            double frac = target - angle;
            if (frac < 0)
                frac += 1.0;
            latency_s = frac * rot;
        }
        t = seek_s + latency_s + transfer_s;
    }
    head_lba = lba + sectors;
    return sc_time(t, SC_SEC);
}

// A parallel SSD (timing.units > 1, docs/disk-models.md): a queued read goes to the flash
// unit its page lives on as soon as the firmware has taken it (overhead after its arrival)
// and that unit is free; units work at once, each for the flat latency; the data then
// crosses the drive's internal path to its buffer at the media rate, one transfer at a
// time. The host link, modelled by the transport, is the last stage. Pages are 16 KiB,
// spread over the units by a fixed hash of the page number (the drive's mapping is its
// own; a hash keeps sequential and random accesses spread alike, as striping does).
sc_time SataDisk::Impl::plan_queued_read(uint64_t lba, uint32_t sectors, sc_time accepted) {
    constexpr uint64_t kSectorsPerPage = 32;
    if (unit_free.size() != cfg.timing.units)
        unit_free.assign(cfg.timing.units, sc_core::SC_ZERO_TIME);
    uint64_t page = lba / kSectorsPerPage;
    const uint64_t last = (lba + std::max<uint32_t>(sectors, 1) - 1) / kSectorsPerPage;
    sc_time data_in_units = accepted + overhead();
    for (; page <= last; ++page) { // a long read spans pages on several units
        uint64_t h = page * 0x9E3779B97F4A7C15ull;
        h ^= h >> 29;
        sc_time &unit = unit_free[size_t(h % cfg.timing.units)];
        unit = std::max(unit, accepted + overhead()) + sc_time(cfg.timing.flat_latency_us, SC_US);
        data_in_units = std::max(data_in_units, unit);
    }
    const double rate = cfg.timing.media_mb_s > 0 ? cfg.timing.media_mb_s * 1e6 : 1e12;
    const double path_s = double(sectors) * MediaStore::kSectorSize / rate;
    buffer_path_free = std::max(buffer_path_free, data_in_units) + sc_time(path_s, SC_SEC);
    return buffer_path_free;
}

// FLUSH CACHE: write back whatever the cache holds (average seek + half a revolution). The
// data counts as on the platters from here (a power loss during the flush may keep it: the
// host, which has no completion yet, may not count on either).
sc_time SataDisk::Impl::flush_time() {
    cache.write_back();
    if (!cache_dirty)
        return sc_core::SC_ZERO_TIME;
    cache_dirty = false;
    if (cfg.timing.ssd)
        return sc_time(cfg.timing.flat_latency_us, SC_US);
    return sc_time(cfg.timing.avg_seek_ms * 1e-3 + rotation_s() / 2, SC_SEC);
}

} // namespace satasim::device
