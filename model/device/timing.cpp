// Busy-time model. Rotating disk: firmware overhead, then the positioning time (a seek
// along the seek curve below, then the rotational latency to the target sector from the
// platter angle at the simulated time the seek ends), then the media transfer at
// media_mb_s. Sequential continuation (the target is where the heads stopped) is served
// from read-ahead/track buffer: transfer only. SSD: flat latency plus transfer. No
// randomness: the same access at the same time always costs the same.
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

// Sectors on one track: what the media rate moves in one revolution (zoning ignored).
double SataDisk::Impl::sectors_per_track() const {
    const double rate = cfg.timing.media_mb_s > 0 ? cfg.timing.media_mb_s * 1e6 : 1e12;
    return std::max(1.0, std::floor(rate * rotation_s() / double(sector_bytes())));
}

// The seek curve (Ruemmler and Wilkes, "An introduction to disk drive modeling", 1994): an
// actuator accelerates, so a seek costs a settle time plus a term that grows with the square
// root of the distance, not in proportion to it. With a track-to-track seek of a tenth of the
// average and d the fraction of the stroke, t(d) = t_track + (t_full - t_track) * sqrt(d);
// the mean of sqrt(|x - y|) over uniform x, y is 8/15, which fixes t_full so that random
// seeks average avg_seek_ms: 8.5 ms gives 0.85 ms track to track and 15.2 ms full stroke
// (Hitachi's 5K320 specification: 12 ms average, 1.0 ms single track, 20 ms full stroke).
double SataDisk::Impl::seek_s(uint64_t from_lba, uint64_t to_lba) const {
    const double per_track = sectors_per_track();
    const double tracks = std::max(1.0, std::ceil(double(std::max<uint64_t>(capacity(), 1)) / per_track));
    const double from = std::floor(double(from_lba) / per_track), to = std::floor(double(to_lba) / per_track);
    if (from == to)
        return 0; // same track (head switches within a cylinder are not modelled)
    const double avg = cfg.timing.avg_seek_ms * 1e-3, track = avg / 10;
    const double full = track + (avg - track) * 15.0 / 8.0;
    return track + (full - track) * std::sqrt(std::fabs(to - from) / tracks);
}

// Seek plus rotational latency to `lba` for an access that starts at `start` (seconds).
double SataDisk::Impl::positioning_s(uint64_t lba, double start) const {
    if (lba == head_lba)
        return 0; // the continuation of the last access: in the track buffer
    const double seek = seek_s(head_lba, lba), rot = rotation_s();
    if (rot <= 0)
        return seek;
    // The target sector's angle is its position on the track; the heads' angle is where the
    // platter is when the seek completes.
    const double per_track = sectors_per_track();
    const double target = std::fmod(double(lba), per_track) / per_track;
    const double angle = std::fmod(start + seek, rot) / rot;
    double frac = target - angle;
    if (frac < 0)
        frac += 1.0;
    return seek + frac * rot;
}

sc_time SataDisk::Impl::media_access(uint64_t lba, uint32_t sectors, sc_time start) {
    const double rate = cfg.timing.media_mb_s > 0 ? cfg.timing.media_mb_s * 1e6 : 1e12;
    const double transfer_s = double(sectors) * double(sector_bytes()) / rate;
    const double t = cfg.timing.ssd ? cfg.timing.flat_latency_us * 1e-6 + transfer_s
                                    : positioning_s(lba, start.to_seconds()) + transfer_s;
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
    const uint64_t kSectorsPerPage = 16384 / sector_bytes();
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
    const double path_s = double(sectors) * double(sector_bytes()) / rate;
    buffer_path_free = std::max(buffer_path_free, data_in_units) + sc_time(path_s, SC_SEC);
    return buffer_path_free;
}

// Advanced Format read-modify-write: a physical sector the write covers only in part must be
// read before it is written: the drive reads the partial physical sectors on the way in and
// writes them when they come round again, one revolution later, on a rotating disk; an SSD
// reads them first (the flat latency, both ends at once). The model's costs.
sc_time SataDisk::Impl::rmw_time(const Xfer &x) {
    if (!cfg.physical_log2 || !x.sectors)
        return sc_core::SC_ZERO_TIME;
    const uint64_t per = 1ull << cfg.physical_log2, first = x.lba + cfg.align_offset;
    const uint64_t last = first + x.sectors; // one past the end, in the physical sectors' frame
    const bool head = first % per != 0, tail = last % per != 0;
    if (!head && !tail)
        return sc_core::SC_ZERO_TIME;
    const unsigned partial = head && tail && first / per == (last - 1) / per ? 1u : unsigned(head) + unsigned(tail);
    trace("disk.rmw", {{"lba", TraceValue::integer(int64_t(x.lba))},
                       {"sectors", TraceValue::integer(int64_t(x.sectors))},
                       {"partial", TraceValue::integer(int64_t(partial))}});
    const double one = cfg.timing.ssd ? cfg.timing.flat_latency_us * 1e-6 : rotation_s();
    return sc_time(one, SC_SEC);
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
