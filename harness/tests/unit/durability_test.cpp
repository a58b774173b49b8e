// Unit tests of the data check's durability log (harness/src/run/data_check.h): which reads
// after a power loss are "lost, not durable" (the workload never claimed the data was safe)
// and which are data errors (a flush completed after the write, or it was FUA).
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "model/tests/plain_check.h"
#include "model/device/media_store.h"
#include "run/data_check.h"

using namespace satasim::harness;

namespace {

constexpr uint64_t kSeed = 7, kMedia = 0x1234;

std::vector<uint8_t> sectors(uint64_t lba, uint32_t n, uint64_t gen) {
    std::vector<uint8_t> b(size_t(n) * kSector);
    for (uint32_t i = 0; i < n; ++i)
        fill_sector(b.data() + size_t(i) * kSector, lba + i, gen, kSeed);
    return b;
}

struct Disk {
    ShadowMap shadow;
    DurabilityLog log;
    Disk() {
        shadow.set_blank(kMedia);
        log.reset(kMedia);
    }
    void write(uint64_t lba, uint64_t n, uint64_t gen, bool fua = false) {
        shadow.set(lba, n, gen);
        log.acknowledged(lba, n, gen, fua, false);
    }
    ReadCheck read(const std::vector<uint8_t> &buf, uint64_t lba, uint32_t n) {
        return check_read(buf.data(), lba, n, shadow, kSeed, 5, &log);
    }
};

// Acknowledged, never flushed, then the power went: reading the older data is reported as
// lost, not counted bad; the newer data (the drive wrote it back anyway) is fine too.
void unflushed_write_lost_is_not_an_error() {
    Disk d;
    d.write(0, 8, 1);
    d.log.power_lost();
    std::vector<uint8_t> blank(8 * kSector);
    for (uint64_t i = 0; i < 8; ++i)
        satasim::device::MediaStore::blank_sector(blank.data() + i * kSector, i, kMedia);
    ReadCheck c = d.read(blank, 0, 8);
    CHECK_EQ(c.bad_sectors, 0);
    CHECK_EQ(c.lost.size(), 8);
    CHECK_EQ(c.lost[0].written, 1);
    CHECK_EQ(c.lost[0].found, ShadowMap::kBlank);
    CHECK_EQ(describe_lost(c.lost).size(), 1);
    c = d.read(sectors(0, 8, 1), 0, 8);
    CHECK_EQ(c.bad_sectors + c.lost.size(), 0);
}

// Without a power loss an old read is a data error, as before.
void old_data_without_a_loss_is_an_error() {
    Disk d;
    d.write(0, 8, 1);
    d.write(0, 8, 2);
    ReadCheck c = d.read(sectors(0, 8, 1), 0, 8);
    CHECK_EQ(c.bad_sectors, 8);
    CHECK_EQ(c.lost.size(), 0);
}

// A flush completed after the write: durable, so reading it back old is a data error.
// Writes acknowledged after the flush was submitted are not covered by it.
void flushed_write_lost_is_an_error() {
    Disk d;
    d.write(0, 8, 1);
    d.write(8, 8, 2);
    const uint64_t at_submit = d.log.acks();
    d.write(16, 8, 3); // acknowledged while the flush ran
    d.log.flushed(at_submit);
    d.write(0, 8, 4); // after the flush: not durable
    d.log.power_lost();
    CHECK_EQ(d.read(sectors(0, 8, 1), 0, 8).lost.size(), 8); // gen 4 lost, gen 1 durable
    ReadCheck c = d.read(sectors(8, 8, 0), 8, 8);            // gen 2 was flushed: anything else is bad
    CHECK_EQ(c.bad_sectors, 8);
    std::vector<uint8_t> blank16(8 * kSector);
    for (uint64_t i = 0; i < 8; ++i)
        satasim::device::MediaStore::blank_sector(blank16.data() + i * kSector, 16 + i, kMedia);
    CHECK_EQ(d.read(blank16, 16, 8).lost.size(), 8); // gen 3 came after the flush's submit
}

// FUA is durable at once; a FUA write over an unflushed one leaves nothing to lose there.
void fua_write_is_durable() {
    Disk d;
    d.write(0, 8, 1);
    d.write(0, 4, 2, true);
    d.log.power_lost();
    ReadCheck c = d.read(sectors(0, 4, 1), 0, 4);
    CHECK_EQ(c.bad_sectors, 4);
    std::vector<uint8_t> mixed = sectors(0, 8, 2);
    std::vector<uint8_t> tail(4 * kSector);
    for (uint64_t i = 0; i < 4; ++i)
        satasim::device::MediaStore::blank_sector(tail.data() + i * kSector, 4 + i, kMedia);
    std::copy(tail.begin(), tail.end(), mixed.begin() + 4 * kSector);
    c = d.read(mixed, 0, 8);
    CHECK_EQ(c.bad_sectors, 0);
    CHECK_EQ(c.lost.size(), 4);
}

// Once a read found what the loss left, that is what the sector holds: a later read of the
// lost generation is wrong, and a new write after the loss is checked as any.
void settle_and_new_writes() {
    Disk d;
    d.write(0, 1, 1);
    d.log.flushed(d.log.acks());
    d.write(0, 1, 2);
    d.log.power_lost();
    ReadCheck c = d.read(sectors(0, 1, 1), 0, 1);
    CHECK_EQ(c.lost.size(), 1);
    d.shadow.set(0, 1, c.lost[0].found);
    d.log.settle(0, c.lost[0].found);
    CHECK_EQ(d.read(sectors(0, 1, 2), 0, 1).bad_sectors, 1);
    d.write(0, 1, 3);
    CHECK_EQ(d.read(sectors(0, 1, 1), 0, 1).bad_sectors, 1);
}

// A trim on a drive that reads zeroes after it: the trimmed sectors must read zeroes (old
// data or the blank pattern there is a data error, and says what was expected); without that
// promise (kUnknown) any contents pass.
void trimmed_sectors_read_zeroes() {
    Disk d;
    d.write(0, 8, 1);
    d.shadow.set(2, 4, ShadowMap::kTrimmed);
    d.log.failed(2, 4);
    std::vector<uint8_t> want = sectors(0, 8, 1);
    std::fill(want.begin() + 2 * kSector, want.begin() + 6 * kSector, uint8_t(0));
    CHECK_EQ(d.read(want, 0, 8).bad_sectors, 0);
    ReadCheck c = d.read(sectors(0, 8, 1), 0, 8); // the old data came back
    CHECK_EQ(c.bad_sectors, 4);
    CHECK(!c.first.empty() && c.first[0].rfind("lba 2: expected zeros (trimmed),", 0) == 0);
    d.shadow.set(2, 4, ShadowMap::kUnknown); // deterministic or not, no zeroes promised
    CHECK_EQ(d.read(sectors(0, 8, 1), 0, 8).bad_sectors, 0);
}

} // namespace

int main() {
    static const PlainCase cases[] = {
        {"unflushed_write_lost_is_not_an_error", unflushed_write_lost_is_not_an_error},
        {"old_data_without_a_loss_is_an_error", old_data_without_a_loss_is_an_error},
        {"flushed_write_lost_is_an_error", flushed_write_lost_is_an_error},
        {"fua_write_is_durable", fua_write_is_durable},
        {"settle_and_new_writes", settle_and_new_writes},
        {"trimmed_sectors_read_zeroes", trimmed_sectors_read_zeroes},
    };
    return run_plain_cases(cases);
}
