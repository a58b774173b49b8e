// The MMC command set of a CD/DVD drive, as plain data (no SystemC): the medium and tray
// state, the sense data, and one CDB in -> status, sense and data out. The PACKET protocol
// around it (CDB phase, DRQ blocks, DMA, status phase) is atapi_device.cpp's and packet.cpp's.
// docs/hardware.md "ATAPI" gives the sections of SPC/MMC each answer follows.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace satasim::atapi {

constexpr uint32_t kBlockSize = 2048; // CD/DVD logical block (MMC READ CAPACITY)

// SPC sense keys the drive reports.
namespace sense_key {
constexpr uint8_t kNoSense = 0x0, kNotReady = 0x2, kIllegalRequest = 0x5, kUnitAttention = 0x6,
                  kAbortedCommand = 0xB;
}

struct Sense {
    uint8_t key = 0, asc = 0, ascq = 0;
    bool operator==(const Sense &o) const { return key == o.key && asc == o.asc && ascq == o.ascq; }
};

// MMC/SPC operation codes the drive decodes.
namespace mmc_op {
constexpr uint8_t kTestUnitReady = 0x00, kRequestSense = 0x03, kInquiry = 0x12,
                  kStartStopUnit = 0x1B, kPreventAllow = 0x1E, kReadCapacity = 0x25,
                  kRead10 = 0x28, kGetConfiguration = 0x46, kGetEventStatus = 0x4A, kModeSense10 = 0x5A,
                  kRead12 = 0xA8;
}

// The data of one 2048-byte block of a disc: a pattern of (seed, lba), so a test or the
// harness's data check can tell which block of which disc arrived.
void disc_block(uint64_t seed, uint32_t lba, uint8_t *out);

struct Disc {
    uint32_t blocks = 0;
    uint64_t seed = 0;
};

struct MmcIdentity {
    std::string vendor = "SATASIM";
    std::string product = "DVD-ROM";
    std::string revision = "1.00";
};

// Result of one CDB: good (sense key 0) or CHECK CONDITION with the sense; data_in holds
// what a good command returns to the host (already cut to the allocation length).
struct MmcResult {
    bool good = true;
    Sense sense;
    std::vector<uint8_t> data_in;
    // READ(10)/(12): the blocks, delivered by the protocol side from disc_block() (kept out
    // of data_in so a large read is not built in one buffer here).
    uint32_t read_lba = 0, read_blocks = 0;
    uint64_t read_seed = 0;
    bool is_read() const { return read_blocks != 0; }
    // bytes the command moves to the host
    uint64_t bytes() const { return is_read() ? uint64_t(read_blocks) * kBlockSize : data_in.size(); }
};

// Medium, tray and sense state of the drive (power-on: tray closed, the configured disc in,
// a UNIT ATTENTION 29/00 pending as SPC's power-on reset condition is not modelled: the
// first command after power-on sees 28/00 only when the medium changed).
class MmcUnit {
  public:
    MmcUnit(const MmcIdentity &id, const Disc &disc, bool medium);
    MmcResult execute(const std::array<uint8_t, 12> &cdb);
    // CHECK CONDITION with this sense, as an injected fault gives it (REQUEST SENSE returns it).
    MmcResult fail(const Sense &s) { return check(s); }

    // Scenario events (docs/hardware.md "ATAPI"): the eject button (refused while PREVENT is
    // in force: a pending eject-request event instead), the tray closing (a disc in it becomes
    // the medium: UNIT ATTENTION 28/00 and a new-media event), a disc placed into or taken
    // from the open tray, and a disc change in one step (open, swap, close).
    bool open_tray();
    void close_tray();
    void load_disc(const Disc &d) { tray_disc_ = d; tray_has_disc_ = true; }
    void remove_disc() { tray_has_disc_ = false; }
    void change_medium(const Disc &d);

    bool tray_open() const { return tray_open_; }
    bool medium_present() const { return !tray_open_ && tray_has_disc_; }
    bool prevent() const { return prevent_; }
    bool unit_attention_pending() const { return ua_pending_; }
    const Disc &disc() const { return tray_disc_; }
    const Sense &last_sense() const { return sense_; }
    // Power-on / hard reset: sense cleared, PREVENT released (SPC: prevention ends at reset).
    void reset();

  private:
    MmcResult check(const Sense &s);
    MmcResult data(std::vector<uint8_t> d, uint32_t alloc);
    MmcResult read(uint32_t lba, uint32_t blocks);
    MmcResult inquiry(const std::array<uint8_t, 12> &c);
    MmcResult mode_sense10(const std::array<uint8_t, 12> &c);
    MmcResult event_status(const std::array<uint8_t, 12> &c);
    MmcResult get_configuration(const std::array<uint8_t, 12> &c);
    MmcResult start_stop(const std::array<uint8_t, 12> &c);

    MmcIdentity id_;
    Disc tray_disc_;
    bool tray_has_disc_ = false;
    bool tray_open_ = false;
    bool prevent_ = false;
    bool ua_pending_ = false;
    // GET EVENT STATUS NOTIFICATION media class: 0 none, 1 eject request, 2 new media,
    // 3 media removal (MMC media event codes)
    uint8_t media_event_ = 0;
    Sense sense_; // what REQUEST SENSE returns next
};

} // namespace satasim::atapi
