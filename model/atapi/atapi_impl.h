// Internal state of AtapiDevice, shared by its files:
//   atapi_device.cpp  module, processes, link callbacks, resets, signature, ATA commands
//   packet.cpp        the PACKET command: CDB phase, PIO DRQ blocks, DMA, status phase
//   identify.cpp      IDENTIFY PACKET DEVICE data
// Not a public header.
#pragma once

#include <array>
#include <deque>
#include <optional>

#include "model/atapi/atapi_device.h"
#include "model/sata/fis.h"

namespace satasim::atapi {

// ATA opcodes a packet device decodes (ATA8-ACS 7; every other one is aborted).
namespace ata_op {
constexpr uint8_t kDeviceReset = 0x08, kExecDiag = 0x90, kPacket = 0xA0, kIdentifyPacket = 0xA1,
                  kStandbyImm = 0xE0, kIdleImm = 0xE1, kCheckPower = 0xE5, kSetFeatures = 0xEF;
}

// Interrupt reason (the Count register of a packet device, ATA8-ACS 7.18 / ATA8-APT).
namespace ireason {
constexpr uint8_t kCoD = 0x01, kIo = 0x02;
constexpr uint8_t kCdb = kCoD, kDataIn = kIo, kStatus = kCoD | kIo;
}

constexpr uint8_t kStatusGood = 0x50;  // DRDY | bit 4 (as the drives in the corpus report)
constexpr uint8_t kStatusError = 0x51; // ... | ERR (CHK)
constexpr uint8_t kStatusDrq = 0x58;
constexpr uint8_t kStatusBusy = 0xD0;
constexpr size_t kMaxDrqBlock = 8192; // one DRQ block travels in one Data FIS

struct AtapiDevice::Impl {
    explicit Impl(AtapiDevice &dev);

    AtapiDevice &d;
    const AtapiConfig &cfg;
    MmcUnit unit;
    link::SataLink *link = nullptr;

    bool phy_up = false;
    enum class ResetState { None, SrstHeld, Resetting } reset_state = ResetState::Resetting;
    sc_core::sc_time ready_at;
    uint64_t epoch = 1;
    bool fis_trace = false;
    int udma_selected = -1;

    std::deque<sata::Fis> rxq;
    sc_core::sc_event rx_event;
    std::deque<sata::Fis> data_in;
    sc_core::sc_event data_event;
    sc_core::sc_event work_event;
    std::optional<sata::Taskfile> pending_cmd;

    // fault hooks (atapi_device.cpp)
    std::function<void(const CommandSeen &)> observer;
    uint64_t cmd_seq = 0;
    std::string hang_id;                  // armed: the drive hangs in the current command
    bool hung = false;                    // hung until a reset
    std::optional<Sense> check_sense;     // armed: the next PACKET command fails with it
    std::string check_id;
    bool check_abrt = false;
    bool observe(uint8_t opcode, bool packet, uint32_t lba, uint32_t blocks);
    void hang_now();

    // atapi_device.cpp
    void start_reset(const char *kind, bool srst_held);
    void transport_thread();
    void command_thread();
    void dispatch(const sata::Fis &fis);
    bool handle_reset();
    bool send(const sata::Fis &fis);
    bool alive(uint64_t e) const { return e == epoch; }
    void trace(const char *name, std::vector<std::pair<std::string, TraceValue>> fields,
               const std::string &msg = {});
    sata::Fis signature_fis(bool irq, uint8_t status, uint8_t error) const;
    void execute(const sata::Taskfile &tf);
    bool finish(uint64_t e, uint8_t status, uint8_t error, uint16_t count);

    // packet.cpp
    void packet(uint64_t e, const sata::Taskfile &tf);
    bool wait_data(uint64_t e, sata::Fis &out);
    bool pio_data_in(uint64_t e, const MmcResult &r, uint32_t limit);
    bool dma_data_in(uint64_t e, const MmcResult &r);
    bool fill(const MmcResult &r, uint64_t offset, uint8_t *out, size_t n) const;
    bool busy_for(uint64_t e, sc_core::sc_time t);
    void data_fis_refused(uint64_t e, uint8_t op);

    // identify.cpp
    std::vector<uint16_t> identify() const;
};

} // namespace satasim::atapi
