// An ATAPI CD/DVD drive on a SATA link (docs/hardware.md "ATAPI"): the packet signature
// after reset, IDENTIFY PACKET DEVICE, the PACKET command's phases as FISes (CDB transfer,
// byte-count-limited PIO DRQ blocks, DMA with DMADIR, the status phase), the MMC command set
// of mmc.h, and the tray and medium as scenario events.
#pragma once

#include <cstdint>
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
    bool dma = true;         // word 49 bit 8
    bool dmadir = false;     // word 62 bit 15: DMA needs DMADIR (bridged PATA drives)
    double cmd_overhead_us = 100;
    double media_mb_s = 11;  // 8x DVD
    double reset_ready_ms = 2;
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
