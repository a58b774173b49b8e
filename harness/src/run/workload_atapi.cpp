// ATAPI workload steps (scenarios/README.md, workload[] kinds packet and tray): a PACKET
// command through the stack (ata_bio_submit with ATA_BIO_PACKET, as the SCSI layer's sr or
// sg_raw hands libata a CDB), checked for its SAM status, its sense and, for READ(10)/(12),
// the data against the disc in the drive; and a tray event of the drive model.
#include <algorithm>
#include <cstdio>
#include <cstring>

#include "model/atapi/mmc.h"
#include "run/workload.h"

namespace satasim::harness {

namespace {

std::string hex_bytes(const std::vector<uint8_t> &b) {
    std::string s;
    char t[4];
    for (uint8_t x : b) {
        std::snprintf(t, sizeof t, "%s%02x", s.empty() ? "" : " ", x);
        s += t;
    }
    return s;
}

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

void WorkloadRunner::run_packet() {
    const uint32_t len = spec_.packet_len;
    alloc_slots(1, std::max<uint32_t>((len + kSector - 1) / kSector, 1));
    Slot &s = *slots_[0];
    ata_packet pc{};
    std::memcpy(pc.cdb, spec_.cdb.data(), spec_.cdb.size());
    pc.cdb_len = unsigned(spec_.cdb.size());
    pc.dir = len ? ATA_PACKET_FROM_DEV : ATA_PACKET_NONE;
    pc.len = len;
    pc.pio = spec_.packet_pio;
    pc.byte_count = spec_.byte_count;
    ata_sg sg{s.buf.bus, len};
    std::memset(s.buf.cpu, kPoison, std::max<uint32_t>(len, 1));
    s.bio = ata_bio{};
    s.bio.op = ATA_BIO_PACKET;
    s.bio.packet = &pc;
    s.bio.sg = len ? &sg : nullptr;
    s.bio.n_sg = len ? 1 : 0;
    s.bio.done = &WorkloadRunner::on_done;
    s.bio.priv = &s;
    s.busy = true;
    s.finished = false;
    if (len)
        binding_.dma_sync_for_device(&s.buf, 0, len);
    const std::string what = "packet " + hex_bytes(spec_.cdb) + " len " + std::to_string(len);
    const int rc = ata_bio_submit(dev_->dev, &s.bio);
    stats_.submit_rc = rc;
    if (rc != 0) {
        failures_.add(label() + ": ata_bio_submit(" + what + ") returned " + std::to_string(rc));
        ++stats_.submit_errors;
        s.busy = false;
        free_slots();
        return;
    }
    while (!s.finished)
        sc_core::wait(wake_);
    done_q_.clear();
    s.busy = false;
    ++stats_.completed;
    stats_.err_mask = s.bio.err_mask;
    if (len)
        binding_.dma_sync_for_cpu(&s.buf, 0, len);

    const uint8_t key = pc.sense_len ? pc.sense[2] & 0xf : 0, asc = pc.sense_len ? pc.sense[12] : 0,
                  ascq = pc.sense_len ? pc.sense[13] : 0;
    char msg[160];
    std::snprintf(msg, sizeof msg, "%s: status 0x%02x%s, sense %x/%02x/%02x, err_mask 0x%x, %s", what.c_str(),
                  unsigned(pc.status), pc.status ? " (CHECK CONDITION)" : " (GOOD)", key, asc, ascq,
                  s.bio.err_mask, pc.dma ? "dma" : "pio");
    sink_.emit_harness("packet.done", SATA_TC_INFO, int(dev_->port),
                       {{"workload", TraceValue::integer(index_)},
                        {"op", TraceValue::hex(spec_.cdb[0])},
                        {"status", TraceValue::hex(pc.status)},
                        {"key", TraceValue::hex(key)},
                        {"asc", TraceValue::hex(asc)},
                        {"ascq", TraceValue::hex(ascq)},
                        {"err_mask", TraceValue::hex(s.bio.err_mask)},
                        {"dma", TraceValue::boolean(pc.dma)}},
                       msg);
    const uint8_t want_status = spec_.expect_status.value_or(0);
    if (pc.status != want_status) {
        ++stats_.errors;
        failures_.add(label() + ": " + msg + "; expected status 0x" + (want_status ? "02" : "00"));
    }
    if (spec_.expect_sense_key) {
        const auto &e = *spec_.expect_sense_key;
        if (key != e[0] || asc != e[1] || ascq != e[2]) {
            char b[64];
            std::snprintf(b, sizeof b, "; expected sense %x/%02x/%02x", e[0], e[1], e[2]);
            failures_.add(label() + ": " + msg + b);
        }
    }
    uint32_t lba = 0, n = 0;
    if (!pc.status && spec_.verify && read_range(spec_.cdb, lba, n) && len) {
        const std::optional<uint64_t> seed = dev_->atapi_disc_seed ? dev_->atapi_disc_seed() : std::nullopt;
        if (seed) {
            std::vector<uint8_t> want(atapi::kBlockSize);
            const uint8_t *got = static_cast<const uint8_t *>(s.buf.cpu);
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
    }
    free_slots();
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
