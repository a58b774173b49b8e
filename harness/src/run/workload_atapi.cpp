// ATAPI workload steps (scenarios/README.md): the disc check of a scsi step's READ(10)/(12)
// on an ATAPI drive (its CDB went out as a PACKET command through the SCSI layer's ATAPI
// entry, as sr or sg_raw hand libata a CDB; kind packet is its alias), the sense key of a
// step in either sense format, and a tray event of the drive.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "model/atapi/mmc.h"
#include "run/workload.h"

namespace satasim::harness {

namespace {

// READ(10) / READ(12): the first LBA and the block count, else nothing.
bool read_range(const std::vector<uint8_t> &c, uint32_t &lba, uint32_t &n) {
    if (c.size() >= 10 && c[0] == atapi::mmc_op::kRead10) {
        lba = uint32_t(c[2]) << 24 | uint32_t(c[3]) << 16 | uint32_t(c[4]) << 8 | c[5];
        n = uint32_t(c[7]) << 8 | c[8];
        return true;
    }
    if (c.size() >= 12 && c[0] == atapi::mmc_op::kRead12) {
        lba = uint32_t(c[2]) << 24 | uint32_t(c[3]) << 16 | uint32_t(c[4]) << 8 | c[5];
        n = uint32_t(c[6]) << 24 | uint32_t(c[7]) << 16 | uint32_t(c[8]) << 8 | c[9];
        return true;
    }
    return false;
}

} // namespace

std::array<uint8_t, 3> sense_key_of(const uint8_t *sense, unsigned len) {
    if (len >= 4 && (sense[0] & 0x7f) >= 0x72) // descriptor format (SPC-4 4.5.2)
        return {uint8_t(sense[1] & 0xf), sense[2], sense[3]};
    if (len >= 14) // fixed format (SPC-4 4.5.3)
        return {uint8_t(sense[2] & 0xf), sense[12], sense[13]};
    return {0, 0, 0};
}

void WorkloadRunner::verify_disc(const uint8_t *got, uint32_t len) {
    uint32_t lba = 0, n = 0;
    if (!read_range(spec_.cdb, lba, n) || !dev_->atapi_disc_seed)
        return;
    const std::optional<uint64_t> seed = dev_->atapi_disc_seed();
    if (!seed)
        return;
    std::vector<uint8_t> want(atapi::kBlockSize);
    uint64_t bad = 0;
    const uint32_t blocks = std::min<uint32_t>(n, len / atapi::kBlockSize);
    for (uint32_t i = 0; i < blocks; ++i) {
        atapi::disc_block(*seed, lba + i, want.data());
        if (std::memcmp(got + size_t(i) * atapi::kBlockSize, want.data(), atapi::kBlockSize) != 0)
            ++bad;
    }
    stats_.bytes += uint64_t(blocks) * atapi::kBlockSize;
    sink_.emit_harness("packet.verify", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"lba", TraceValue::integer(lba)},
                        {"blocks", TraceValue::integer(blocks)},
                        {"bad", TraceValue::integer(int64_t(bad))}});
    if (bad) {
        stats_.data_errors += bad;
        failures_.data_errors += bad;
        failures_.add(label() + ": " + std::to_string(bad) + " of " + std::to_string(blocks) +
                      " blocks read back wrong from the disc (lba " + std::to_string(lba) + ")");
    }
}

void WorkloadRunner::run_tray() {
    const bool ok = dev_->atapi_event && dev_->atapi_event(spec_.tray_action, spec_.disc_seed, spec_.disc_blocks);
    sink_.emit_harness("tray.event", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"action", TraceValue::str(spec_.tray_action)},
                        {"done", TraceValue::boolean(ok)}},
                       "tray " + spec_.tray_action + (ok ? "" : " refused") + " on " + dev_->name);
    if (!dev_->atapi_event)
        failures_.add(label() + ": the backend has no ATAPI drive model to " + spec_.tray_action);
    ++stats_.completed;
}

} // namespace satasim::harness
