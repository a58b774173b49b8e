// The PACKET command as SATA carries it (SATA 2.6 11.8 "Packet protocol", ATA8-ACS 7.18 PACKET,
// ATA8-APT for the register meanings): the device asks for the CDB with a PIO Setup (interrupt
// reason CoD=1 IO=0, the I bit per IDENTIFY PACKET word 0 bits 6:5), the host sends the 12-byte
// CDB in a Data FIS, the MMC unit executes it, the data goes to the host in PIO DRQ blocks of at
// most the byte count limit (LBA mid/high) or by DMA (Features bit 0, DMADIR bit 2), and a
// Register D2H FIS with interrupt reason CoD=1 IO=1 ends it: good, or CHECK CONDITION as ERR
// with the sense key in Error bits 7:4.
#include <algorithm>
#include <cstring>

#include "model/atapi/atapi_impl.h"

namespace satasim::atapi {

using sata::Fis;
using sata::Taskfile;
using sc_core::sc_time;
using sc_core::sc_time_stamp;

namespace {
constexpr uint8_t kFeatureDma = 0x01, kFeatureDmaDir = 0x04;

sc_time cdb_drq_delay(CdbDrq t) {
    switch (t) {
    case CdbDrq::Interrupt: return sc_time(10, sc_core::SC_US);
    case CdbDrq::Within50us: return sc_time(20, sc_core::SC_US);
    case CdbDrq::Within3ms: break;
    }
    return sc_time(1, sc_core::SC_MS);
}
} // namespace

bool AtapiDevice::Impl::busy_for(uint64_t e, sc_time t) {
    const sc_time until = sc_time_stamp() + t;
    while (alive(e) && sc_time_stamp() < until)
        sc_core::wait(until - sc_time_stamp(), work_event);
    return alive(e);
}

bool AtapiDevice::Impl::wait_data(uint64_t e, Fis &out) {
    while (data_in.empty()) {
        if (!alive(e) || !phy_up)
            return false;
        sc_core::wait(data_event);
    }
    if (!alive(e))
        return false;
    out = std::move(data_in.front());
    data_in.pop_front();
    return true;
}

// n bytes of the command's data from `offset` on.
bool AtapiDevice::Impl::fill(const MmcResult &r, uint64_t offset, uint8_t *out, size_t n) const {
    if (!r.is_read()) {
        if (offset + n > r.data_in.size())
            return false;
        std::memcpy(out, r.data_in.data() + offset, n);
        return true;
    }
    std::vector<uint8_t> block(kBlockSize);
    while (n) {
        const uint32_t idx = uint32_t(offset / kBlockSize);
        const size_t in = size_t(offset % kBlockSize);
        const size_t take = std::min(n, size_t(kBlockSize) - in);
        disc_block(r.read_seed, r.read_lba + idx, block.data());
        std::memcpy(out, block.data() + in, take);
        out += take;
        offset += take;
        n -= take;
    }
    return true;
}

// PIO data-in: DRQ blocks of at most the byte count limit (an odd limit loses its last byte,
// a limit of 0 reads as FFFEh; ATA8-APT) and at most one Data FIS; each announced by a PIO
// Setup with interrupt reason IO=1 CoD=0 and the block's byte count in LBA mid/high.
bool AtapiDevice::Impl::pio_data_in(uint64_t e, const MmcResult &r, uint32_t limit) {
    if (limit == 0)
        limit = 0xFFFE;
    limit &= ~1u;
    const uint64_t total = r.bytes();
    std::vector<uint8_t> buf;
    unsigned blocks = 0;
    for (uint64_t off = 0; off < total;) {
        const size_t n = size_t(std::min<uint64_t>({limit, kMaxDrqBlock, total - off}));
        buf.resize(n);
        fill(r, off, buf.data(), n);
        Taskfile regs;
        regs.count = ireason::kDataIn;
        regs.lba = uint64_t(n) << 8;
        if (!send(sata::make_pio_setup(true, true, kStatusDrq, 0, kStatusBusy, uint16_t(n), regs)) ||
            !alive(e))
            return false;
        if (!send(sata::make_data(buf.data(), n)) || !alive(e))
            return false;
        off += n;
        ++blocks;
    }
    trace("atapi.pio", {{"bytes", TraceValue::integer(int64_t(total))},
                        {"limit", TraceValue::integer(limit)},
                        {"drq_blocks", TraceValue::integer(blocks)}});
    return true;
}

bool AtapiDevice::Impl::dma_data_in(uint64_t e, const MmcResult &r) {
    const uint64_t total = r.bytes();
    for (uint64_t off = 0; off < total;) {
        const size_t n = size_t(std::min<uint64_t>(sata::kMaxDataFisPayload, total - off));
        Fis f = sata::make_data_zeroed(n);
        fill(r, off, f.payload(), n);
        if (!send(f) || !alive(e))
            return false;
        off += n;
    }
    return true;
}

// The host answered a Data FIS with R_ERR (a bad CRC on the wire, SATA 2.6 9.4.4): the
// drive ends the command with CHECK CONDITION, ABORTED COMMAND with ASC 47h (SCSI PARITY
// ERROR, what MMC drives report for an interface CRC error, MMC-5 annex F), and ABRT in the
// Error register (a packet device's bits 7:4 are the sense key, so there is no ICRC bit).
void AtapiDevice::Impl::data_fis_refused(uint64_t e, uint8_t op) {
    if (!alive(e) || !phy_up)
        return; // a reset or a lost link ended it: nothing to report
    const MmcResult r = unit.fail(Sense{sense_key::kAbortedCommand, 0x47, 0x00});
    trace("atapi.aborted", {{"op", TraceValue::hex(op)}}, "data FIS refused (R_ERR): CHECK CONDITION 0b/47/00");
    finish(e, kStatusError, uint8_t(r.sense.key << 4 | sata::kAtaAbrt), ireason::kStatus);
}

void AtapiDevice::Impl::packet(uint64_t e, const Taskfile &tf) {
    const bool dma = tf.feature & kFeatureDma;
    const bool dmadir_to_host = tf.feature & kFeatureDmaDir;
    const uint32_t limit = uint32_t((tf.lba >> 8) & 0xFFFF);

    // ---- CDB phase
    if (!busy_for(e, cdb_drq_delay(cfg.cdb_drq)))
        return;
    Taskfile regs;
    regs.count = ireason::kCdb;
    regs.lba = uint64_t(limit) << 8;
    if (!send(sata::make_pio_setup(false, cfg.cdb_drq == CdbDrq::Interrupt, kStatusDrq, 0, kStatusBusy, 12,
                                   regs)) ||
        !alive(e))
        return;
    Fis cdb_fis;
    if (!wait_data(e, cdb_fis))
        return;
    std::array<uint8_t, 12> cdb{};
    std::memcpy(cdb.data(), cdb_fis.payload(), std::min<size_t>(12, cdb_fis.payload_size()));

    // ---- execute (the fault engine sees the CDB first: a hang stops here, an injected
    // CHECK CONDITION replaces what the unit would have answered)
    const bool read10 = cdb[0] == mmc_op::kRead10, read12 = cdb[0] == mmc_op::kRead12;
    const uint32_t lba = read10 || read12 ? uint32_t(cdb[2]) << 24 | uint32_t(cdb[3]) << 16 | uint32_t(cdb[4]) << 8 | cdb[5] : 0;
    const uint32_t blocks = read10 ? uint32_t(cdb[7]) << 8 | cdb[8]
                            : read12 ? uint32_t(cdb[6]) << 24 | uint32_t(cdb[7]) << 16 | uint32_t(cdb[8]) << 8 | cdb[9]
                                     : 0;
    if (!observe(cdb[0], true, lba, blocks))
        return;
    MmcResult r;
    bool abrt = false;
    if (check_sense && cdb[0] != mmc_op::kRequestSense) {
        abrt = check_abrt;
        r = unit.fail(*check_sense);
        trace("fault.effect",
              {{"id", TraceValue::str(check_id)}, {"op", TraceValue::hex(cdb[0])},
               {"key", TraceValue::hex(r.sense.key)}, {"asc", TraceValue::hex(r.sense.asc)},
               {"ascq", TraceValue::hex(r.sense.ascq)}},
              "CHECK CONDITION injected");
        check_sense.reset();
        check_id.clear();
    } else {
        r = unit.execute(cdb);
    }
    trace("atapi.packet",
          {{"op", TraceValue::hex(cdb[0])},
           {"dma", TraceValue::boolean(dma)},
           {"good", TraceValue::boolean(r.good)},
           {"key", TraceValue::hex(r.sense.key)},
           {"asc", TraceValue::hex(r.sense.asc)},
           {"ascq", TraceValue::hex(r.sense.ascq)},
           {"bytes", TraceValue::integer(int64_t(r.bytes()))}});
    sc_time busy(cfg.cmd_overhead_us, sc_core::SC_US);
    if (r.is_read())
        busy += sc_time(double(r.bytes()) / (cfg.media_mb_s * 1e6), sc_core::SC_SEC);
    if (!busy_for(e, busy))
        return;
    if (!r.good) {
        finish(e, kStatusError, uint8_t(r.sense.key << 4 | (abrt ? sata::kAtaAbrt : 0)), ireason::kStatus);
        return;
    }

    // ---- data phase
    if (r.bytes()) {
        if (dma) {
            if (!cfg.dma || (cfg.dmadir && !dmadir_to_host)) {
                // DMA not offered, or a device that needs DMADIR (IDENTIFY PACKET word 62
                // bit 15) told the wrong direction: the model aborts the command.
                trace("atapi.aborted", {{"op", TraceValue::hex(cdb[0])}},
                      cfg.dma ? "DMA data-in without DMADIR" : "DMA not supported");
                finish(e, kStatusError, uint8_t(sense_key::kAbortedCommand << 4 | sata::kAtaAbrt),
                       ireason::kStatus);
                return;
            }
            if (!dma_data_in(e, r)) {
                data_fis_refused(e, cdb[0]);
                return;
            }
        } else if (!pio_data_in(e, r, limit)) {
            data_fis_refused(e, cdb[0]);
            return;
        }
    }
    // ---- status phase
    finish(e, kStatusGood, 0, ireason::kStatus);
}

} // namespace satasim::atapi
