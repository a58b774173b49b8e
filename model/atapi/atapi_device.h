// An ATAPI CD/DVD drive on a SATA link (docs/hardware.md "ATAPI"): the packet signature
// after reset, IDENTIFY PACKET DEVICE, the PACKET command's phases as FISes (CDB transfer,
// byte-count-limited PIO DRQ blocks, DMA with DMADIR, the status phase), the MMC command set
// of mmc.h, and the tray and medium as scenario events.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "model/atapi/mmc.h"
#include "model/common/trace.h"
#include "model/link/sata_link.h"

namespace satasim::atapi {

// IDENTIFY PACKET DEVICE word 0 bits 6:5: how the drive asks for the CDB after PACKET.
enum class CdbDrq : uint8_t {
    Within3ms = 0, // DRQ within 3 ms (no interrupt)
    Interrupt = 1, // INTRQ with DRQ: the PIO Setup for the CDB carries the I bit
    Within50us = 2 // DRQ within 50 us
};

struct AtapiConfig {
    std::string model = "SATASIM DVD-ROM";
    std::string serial = "SIMCD000001";
    std::string firmware = "1.00";
    MmcIdentity inquiry;
    Disc disc{2295104, 1}; // a single-layer DVD: 4.7 GB in 2048-byte blocks
    bool medium = true;    // a disc in the drive at power-on
    CdbDrq cdb_drq = CdbDrq::Within50us;
    unsigned udma_max = 5;   // UDMA/100 (word 88)
    unsigned pio_max = 4;    // the fastest PIO mode (words 64, 51: below PIO3 an old drive's word 51 only)
    bool dma = true;         // word 49 bit 8
    bool dmadir = false;     // word 62 bit 15: DMA needs DMADIR (bridged PATA drives)
    double cmd_overhead_us = 100;
    double media_mb_s = 11;  // 8x DVD
    double reset_ready_ms = 2;
};

// A command the drive accepted, for the fault engine's triggers (model/fault): an ATA
// command as it arrives, a PACKET command once its CDB has (then `opcode` is the CDB's
// operation code, and lba/blocks are a READ(10)/(12)'s range in 2048-byte blocks).
struct CommandSeen {
    uint8_t opcode;
    bool packet;
    uint32_t lba, blocks;
    uint64_t seq; // 1-based count of commands the drive accepted since power-on
};

class AtapiDevice : public sc_core::sc_module, public link::LinkEndpoint {
  public:
    AtapiDevice(sc_core::sc_module_name name, const AtapiConfig &cfg, ModelTrace *trace = nullptr);
    ~AtapiDevice() override;

    void connect(link::SataLink *link);
    const AtapiConfig &config() const { return cfg_; }
    std::vector<uint16_t> identify_packet_words() const;
    MmcUnit &unit();
    const MmcUnit &unit() const;
    void power_on_reset();
    void set_fis_trace(bool on);

    // Scenario events (each traces an `atapi.event` record).
    bool open_tray();
    void close_tray();
    void change_medium(const Disc &d);
    void remove_disc();
    void load_disc(const Disc &d);

    // Fault hooks (model/fault/README.md; each traces a `fault.effect` record when it acts).
    // The observer runs for every command the drive accepts, before it executes: a hook
    // armed from inside applies to that very command.
    void set_command_observer(std::function<void(const CommandSeen &)> fn);
    // hang: the drive stops in the middle of the command (after the CDB of a PACKET command):
    // no FIS, the command never ends, until a reset (COMRESET, SRST or DEVICE RESET).
    void inject_hang(const std::string &id);
    // check_condition: the next PACKET command (this one, armed from the observer) ends in
    // CHECK CONDITION with this sense (REQUEST SENSE then returns it); no data moves.
    // abrt: ABRT set in the Error register beside the sense key.
    void inject_check_condition(const Sense &s, bool abrt, const std::string &id);
    // Disarms every armed fault (the observer stays).
    void clear_faults();

    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override;
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;

  private:
    struct Impl;
    void transport_proc();
    void command_proc();
    AtapiConfig cfg_;
    ModelTrace *trace_;
    std::unique_ptr<Impl> impl_;
};

} // namespace satasim::atapi
