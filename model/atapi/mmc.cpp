// The MMC command set (mmc.h): SPC-3 sense and UNIT ATTENTION rules, the MMC-5 answers of a
// read-only DVD drive. Section numbers are in docs/hardware.md "ATAPI".
#include "model/atapi/mmc.h"

#include <algorithm>
#include <cstring>

namespace satasim::atapi {

namespace {

uint32_t be32(const uint8_t *p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
uint16_t be16(const uint8_t *p) { return uint16_t(p[0] << 8 | p[1]); }
void put_be32(uint8_t *p, uint32_t v) {
    p[0] = uint8_t(v >> 24);
    p[1] = uint8_t(v >> 16);
    p[2] = uint8_t(v >> 8);
    p[3] = uint8_t(v);
}
void put_be16(uint8_t *p, uint16_t v) {
    p[0] = uint8_t(v >> 8);
    p[1] = uint8_t(v);
}
void put_ascii(uint8_t *p, size_t n, const std::string &s) {
    for (size_t i = 0; i < n; ++i)
        p[i] = i < s.size() ? uint8_t(s[i]) : ' ';
}

constexpr Sense kNoMedium{sense_key::kNotReady, 0x3A, 0x00};
constexpr Sense kMediumChanged{sense_key::kUnitAttention, 0x28, 0x00};
constexpr Sense kInvalidOpcode{sense_key::kIllegalRequest, 0x20, 0x00};
constexpr Sense kInvalidField{sense_key::kIllegalRequest, 0x24, 0x00};
constexpr Sense kLbaOutOfRange{sense_key::kIllegalRequest, 0x21, 0x00};
constexpr Sense kRemovalPrevented{sense_key::kIllegalRequest, 0x53, 0x02};

} // namespace

void disc_block(uint64_t seed, uint32_t lba, uint8_t *out) {
    // splitmix64 over (seed, lba, word index): every block of every disc differs
    uint64_t s = seed * 0x9E3779B97F4A7C15ull ^ (uint64_t(lba) << 20);
    for (uint32_t i = 0; i < kBlockSize; i += 8) {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        z ^= z >> 31;
        std::memcpy(out + i, &z, 8);
    }
    put_be32(out, lba); // the first bytes name the block, for a reader of a dump
}

MmcUnit::MmcUnit(const MmcIdentity &id, const Disc &disc, bool medium)
    : id_(id), tray_disc_(disc), tray_has_disc_(medium) {}

void MmcUnit::reset() {
    sense_ = {};
    prevent_ = false;
}

bool MmcUnit::open_tray() {
    if (tray_open_)
        return true;
    if (prevent_) {
        media_event_ = 1; // eject request (MMC-5 6.6.2.3: the host decides)
        return false;
    }
    tray_open_ = true;
    if (tray_has_disc_)
        media_event_ = 3; // media removal
    return true;
}

void MmcUnit::close_tray() {
    if (!tray_open_)
        return;
    tray_open_ = false;
    if (tray_has_disc_) {
        // SPC-3 / MMC-5: NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED
        ua_pending_ = true;
        media_event_ = 2; // new media
    }
}

void MmcUnit::change_medium(const Disc &d) {
    open_tray();
    if (!tray_open_)
        return; // prevented: the old disc stays
    load_disc(d);
    close_tray();
}

MmcResult MmcUnit::check(const Sense &s) {
    sense_ = s;
    MmcResult r;
    r.good = false;
    r.sense = s;
    return r;
}

MmcResult MmcUnit::data(std::vector<uint8_t> d, uint32_t alloc) {
    MmcResult r;
    if (d.size() > alloc)
        d.resize(alloc);
    r.data_in = std::move(d);
    return r;
}

MmcResult MmcUnit::read(uint32_t lba, uint32_t blocks) {
    if (uint64_t(lba) + blocks > tray_disc_.blocks)
        return check(kLbaOutOfRange);
    MmcResult r;
    r.read_lba = lba;
    r.read_blocks = blocks;
    r.read_seed = tray_disc_.seed;
    return r;
}

MmcResult MmcUnit::inquiry(const std::array<uint8_t, 12> &c) {
    if (c[1] & 0x01) // EVPD: no vital product data pages
        return check(kInvalidField);
    std::vector<uint8_t> d(36, 0);
    d[0] = 0x05; // peripheral device type: CD/DVD (MMC)
    d[1] = 0x80; // RMB: removable medium
    d[2] = 0x05; // SPC-3
    d[3] = 0x32; // ATAPI-style response data format 2
    d[4] = 36 - 5;
    put_ascii(&d[8], 8, id_.vendor);
    put_ascii(&d[16], 16, id_.product);
    put_ascii(&d[32], 4, id_.revision);
    return data(std::move(d), be16(&c[3]));
}

MmcResult MmcUnit::mode_sense10(const std::array<uint8_t, 12> &c) {
    const uint8_t page = c[2] & 0x3F;
    if (page != 0x2A && page != 0x3F)
        return check(kInvalidField);
    // header (8 bytes) + the CD/DVD capabilities and mechanical status page (MMC-3 2Ah, 20
    // bytes + its 2-byte header)
    std::vector<uint8_t> d(8 + 22, 0);
    put_be16(&d[0], uint16_t(d.size() - 2));
    uint8_t *p = &d[8];
    p[0] = 0x2A;
    p[1] = 20;
    p[2] = 0x3B;                           // reads CD-R, CD-RW, method 2, DVD-ROM, DVD-R, DVD-RAM
    p[4] = 0x71;                           // audio play, composite, digital ports, mode 2 form 2
    p[6] = uint8_t(0x29 | (prevent_ ? 0x02 : 0)); // lock, lock state, eject; tray loader (001b)
    put_be16(&p[8], 706 * 8);              // max read speed (kB/s): 8x DVD ~ 44x CD
    put_be16(&p[14], 706 * 8);             // current read speed
    return data(std::move(d), be16(&c[7]));
}

MmcResult MmcUnit::event_status(const std::array<uint8_t, 12> &c) {
    if (!(c[1] & 0x01)) // only polled operation (MMC-5 6.6)
        return check(kInvalidField);
    const bool want_media = c[4] & 0x10;
    std::vector<uint8_t> d(4, 0);
    d[3] = 0x10; // supported event classes: media
    if (want_media) {
        d.resize(8, 0);
        d[2] = 0x04; // notification class: media
        d[4] = media_event_;
        d[5] = uint8_t((tray_open_ ? 0x01 : 0) | (medium_present() ? 0x02 : 0));
        media_event_ = 0; // reported: cleared
    } else {
        d[2] = 0x80; // NEA: no requested class available
    }
    put_be16(&d[0], uint16_t(d.size() - 2));
    return data(std::move(d), be16(&c[7]));
}

// GET CONFIGURATION (MMC-5 6.6): the feature header (data length, the current profile:
// DVD-ROM 0010h with a disc in, none without) and the features the drive has, from the
// starting feature number on: Profile List (0000h: DVD-ROM and CD-ROM 0008h, DVD-ROM current
// with a disc) and Core (0001h: ATAPI physical interface 0002h). RT 00b: every feature, 01b:
// the current ones, 10b: the one named.
MmcResult MmcUnit::get_configuration(const std::array<uint8_t, 12> &c) {
    const unsigned rt = c[1] & 0x03;
    const uint16_t start = be16(&c[2]);
    if (rt == 3)
        return check(kInvalidField);
    const bool disc = medium_present();
    std::vector<uint8_t> d(8, 0);
    put_be16(&d[6], disc ? 0x0010 : 0x0000);
    auto feature = [&](uint16_t code, bool current, std::vector<uint8_t> body) {
        if (code < start || (rt == 1 && !current) || (rt == 2 && code != start))
            return;
        const size_t at = d.size();
        d.resize(at + 4 + body.size(), 0);
        put_be16(&d[at], code);
        d[at + 2] = uint8_t(0x02 | (current ? 0x01 : 0)); // version 0, persistent, current
        d[at + 3] = uint8_t(body.size());
        std::copy(body.begin(), body.end(), d.begin() + long(at + 4));
    };
    feature(0x0000, true, {0x00, 0x10, uint8_t(disc ? 0x01 : 0x00), 0x00, 0x00, 0x08, 0x00, 0x00});
    feature(0x0001, true, {0x00, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00});
    put_be32(&d[0], uint32_t(d.size() - 4));
    return data(std::move(d), be16(&c[7]));
}

MmcResult MmcUnit::start_stop(const std::array<uint8_t, 12> &c) {
    const bool loej = c[4] & 0x02, start = c[4] & 0x01;
    if (!loej)
        return MmcResult{}; // spin up/down: a no-op for the model
    if (start) {
        close_tray();
        return MmcResult{};
    }
    if (prevent_)
        return check(kRemovalPrevented);
    open_tray();
    return MmcResult{};
}

MmcResult MmcUnit::execute(const std::array<uint8_t, 12> &c) {
    const uint8_t op = c[0];
    if (op == mmc_op::kRequestSense) {
        Sense s = sense_;
        if (s.key == 0 && ua_pending_) { // SPC-3 5.11: REQUEST SENSE reports and clears a UA
            s = kMediumChanged;
            ua_pending_ = false;
        }
        sense_ = {};
        std::vector<uint8_t> d(18, 0);
        d[0] = 0x70; // current error, fixed format
        d[2] = s.key;
        d[7] = 10;
        d[12] = s.asc;
        d[13] = s.ascq;
        return data(std::move(d), c[4]);
    }
    sense_ = {};
    // INQUIRY and GET EVENT STATUS NOTIFICATION run with a unit attention pending (SPC-3
    // 5.9.7, MMC-5 6.6); every other command reports it once.
    if (op == mmc_op::kInquiry)
        return inquiry(c);
    if (op == mmc_op::kGetEventStatus)
        return event_status(c);
    if (op == mmc_op::kGetConfiguration) // (MMC-5 4.1.6.1: it too runs with a unit attention pending)
        return get_configuration(c);
    if (ua_pending_) {
        ua_pending_ = false;
        return check(kMediumChanged);
    }
    switch (op) {
    case mmc_op::kTestUnitReady:
        return medium_present() ? MmcResult{} : check(kNoMedium);
    case mmc_op::kPreventAllow:
        prevent_ = c[4] & 0x01;
        return MmcResult{};
    case mmc_op::kStartStopUnit:
        return start_stop(c);
    case mmc_op::kModeSense10:
        return mode_sense10(c);
    case mmc_op::kReadCapacity: {
        if (!medium_present())
            return check(kNoMedium);
        std::vector<uint8_t> d(8, 0);
        put_be32(&d[0], tray_disc_.blocks ? tray_disc_.blocks - 1 : 0);
        put_be32(&d[4], kBlockSize);
        return data(std::move(d), 8);
    }
    case mmc_op::kRead10:
        if (!medium_present())
            return check(kNoMedium);
        return read(be32(&c[2]), be16(&c[7]));
    case mmc_op::kRead12:
        if (!medium_present())
            return check(kNoMedium);
        return read(be32(&c[2]), be32(&c[6]));
    default:
        return check(kInvalidOpcode);
    }
}

} // namespace satasim::atapi
