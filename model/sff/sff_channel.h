// One taskfile (SFF) channel of a SATA host adapter in its legacy register interface, with
// its bus-master DMA engine (model/bmdma) and the SATA bridge to the device behind it.
//
// Host side: the Command Block and Control Block registers (sff_regs.h) with the
// ATA/ATAPI-7 semantics the host sees: Status read acknowledges the pending interrupt,
// Alternate Status does not; Command Block reads while BSY return Status; Command Block
// writes while BSY or DRQ are ignored; the two-deep LBA48 registers and HOB; Device
// Control nIEN masks INTRQ and SRST resets the device.
//
// Device side (SATA 1.0a/2.6 host transport, "shadow register block"): a Command write goes
// out as a Register H2D FIS (C=1) and sets BSY; a Device Control write that changes SRST as a
// Register H2D FIS with C=0; a Register D2H FIS loads the shadow registers; a PIO Setup FIS
// announces one DRQ block (data-in: Status takes its value when the Data FIS has arrived;
// data-out: at once) and the E_Status that Status takes when the block has been moved
// through the Data register; the I bit of either FIS makes the interrupt pending. A Data
// FIS outside a PIO block is DMA data for the bus-master engine, a DMA Activate asks it for
// the next (at most 8 KiB) Data FIS. Flow control: while a received block waits for the
// host (PIO data not yet read, DMA data before Start), the channel does not accept frames.
// DMA data arriving after the engine has run for the command and stopped (Error: a master
// abort; or software's Stop) has nowhere to go and nobody to wait for: the bridge takes it
// and drops it (SFF-8038i 3.1: an aborted command's data may be discarded; model choice,
// unconfirmed for SATA bridges), as a failed burst's data is dropped, so the device ends
// the command and its interrupt reaches the host. SRST resets the bridge's transport as a
// COMRESET does: frames held or queued either way are discarded, and until the device's
// first Register FIS after it the frames of the aborted command still on the wire are
// dropped (the host's SYNC escape of a frame in progress, Serial ATA 1.0a software reset,
// as recalled, unconfirmed).
//
// ATA/ATAPI-7 vol 2 clause 11 (numbering as recalled, unconfirmed) gives the protocols seen
// through this: PIO data-in (an interrupt per DRQ block, Status read then the block's
// words), PIO data-out (the first block without an interrupt, an interrupt after each
// block), non-data (one interrupt at the end); READ/WRITE MULTIPLE only make the DRQ blocks
// longer (the device's PIO Setup transfer count).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/bmdma/bmdma.h"
#include "model/bus/host_memory.h"
#include "model/common/trace.h"
#include "model/link/sata_link.h"
#include "model/sata/fis.h"
#include "model/sff/sff_regs.h"

namespace satasim::sff {

struct SffChannelConfig {
    double pci_clock_mhz = 33.333; // bus-master bursts: PCI clock
    unsigned pci_bytes_per_clock = 4;
    unsigned pci_burst_latency_clocks = 8; // arbitration + address phase per burst
    unsigned burst_bytes = 64;             // bytes per bus-master burst (a cache line)
};

class SffChannel : public sc_core::sc_module, public link::LinkEndpoint {
  public:
    SC_HAS_PROCESS(SffChannel);
    // trace_src names the controller in trace records; port is the channel number.
    SffChannel(sc_core::sc_module_name name, const SffChannelConfig &cfg, bus::HostMemory &mem,
               ModelTrace *trace, std::string trace_src, int port);

    void connect(link::SataLink *link) { link_ = link; }
    link::SataLink *link() const { return link_; }

    // ---- host side ----
    uint8_t read_cmd(unsigned r);           // Command Block register r (1..7)
    void write_cmd(unsigned r, uint8_t v);
    uint16_t read_data();                   // the Data register (one word)
    void write_data(uint16_t v);
    uint8_t read_altstatus() const;
    void write_devctl(uint8_t v);
    uint8_t devctl() const { return devctl_; }
    bmdma::BmDma &bmdma() { return *dma_; }
    const bmdma::BmDma &bmdma() const { return *dma_; }
    // Bytes per bus-master burst (a controller's FIFO threshold decides it).
    void set_burst_bytes(unsigned n) { cfg_.burst_bytes = n ? n : 1; }
    // A parallel ATA device's bus cycle: the time of one 16-bit word on the cable at the
    // controller's timing for this device (0: no cable, a SATA bridge). A DMA burst takes at
    // least its words' cycles.
    void set_bus_word_ns(double ns) { bus_word_ns_ = ns; }
    double bus_word_ns() const { return bus_word_ns_; }

    // INTRQ as the host adapter presents it: interrupt pending, not masked by nIEN, and the
    // device selected (always, unless the channel is one of a master/slave pair).
    bool intrq() const;
    bool irq_pending() const { return pending_; }
    // Called whenever intrq() may have changed (the owner recomputes its interrupt line).
    void set_irq_changed(std::function<void()> fn) { irq_changed_ = std::move(fn); }

    // ---- SCRs (the personality decides whether the host can reach them) ----
    uint32_t sstatus() const { return link_ ? link_->sstatus() : 0; }
    uint32_t scontrol() const { return sctl_; }
    void write_scontrol(uint32_t v);
    uint32_t serror() const { return serr_; }
    void clear_serror(uint32_t bits) { serr_ &= ~bits; }

    // ---- fault hooks (model/fault): disarmed by clear_faults() and reset() ----
    void lose_irqs(unsigned count) { lost_irqs_ = count; }   // the next count I bits raise nothing
    // The controller's interrupt output for this channel stuck asserted with nothing pending
    // in the channel (no INTRQ, no bus-master Interrupt, nothing in the personality's status):
    // a screaming line. nIEN, the personality's masks and resets of the channel do not drop it
    // (only clear_faults() does); the owner ORs line_stuck() into its line.
    void stick_line(bool on);
    bool line_stuck() const { return line_stuck_; }
    void spurious_irq();                                      // INTRQ with nothing to report
    void stick_drq(bool on) { drq_stuck_ = on; }              // the next data-in command's last block leaves DRQ
    // Status reads BSY until SRST or COMRESET; survive_srst: until a COMRESET (or PHY restart) only
    void stick_bsy(bool on, bool survive_srst = false) { bsy_stuck_ = on, bsy_survives_srst_ = on && survive_srst; }
    void clear_faults();

    // Power-on state of the registers and the engine.
    void reset();

    // ---- master/slave emulation (a host adapter presenting two SATA ports as device 0 and
    // device 1 of one taskfile channel; the owner decodes the register accesses, see
    // SffController) ----
    // Make this channel device 1 behind `master`: it uses the master's bus-master engine
    // (one per channel) and the engine's Interrupt bit follows the INTRQ of the pair.
    void pair_as_slave_of(SffChannel &master);
    bool paired() const { return peer_ != nullptr; }
    unsigned devno() const { return devno_; }
    // The Device register's DEV bit as last written selects one of the pair: only the
    // selected device drives INTRQ (a pending interrupt of the other waits until it is).
    void set_selected(bool s);
    bool selected() const { return selected_; }

    // LinkEndpoint (called from the link's processes: queue and return).
    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override;
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void line_noise(const Noise &n) override;

  private:
    struct Shadow { // one two-deep register: current and previous content
        uint8_t cur = 0, prev = 0;
        void write(uint8_t v) { prev = cur, cur = v; }
        void load(uint8_t lo, uint8_t hi) { cur = lo, prev = hi; }
    };
    enum class Pio { None, InWait, In, Out };

    void engine_thread();
    void cominit_thread();
    void process(const sata::Fis &fis);
    void on_d2h(const sata::Fis &fis);
    void on_pio_setup(const sata::Fis &fis);
    void on_data(const sata::Fis &fis);
    void dma_out();
    void reset_transport(); // frames held or queued either way, the PIO block, DMA Activate
    // DMA data for an engine that has not been started for this command yet (held for Start)
    bool dma_data_waits(const sata::Fis &f) const;
    void load_regs(const sata::Fis &fis);
    void set_status(uint8_t s);
    void raise_irq();
    void set_pending(bool p);
    void end_pio_block();
    void send(sata::Fis fis);
    void burst_wait(size_t bytes);
    void trace(const char *event, std::vector<std::pair<std::string, TraceValue>> fields = {},
               std::string msg = {});
    sata::Taskfile taskfile() const;

    SffChannelConfig cfg_;
    double bus_word_ns_ = 0;
    bus::HostMemory &mem_;
    ModelTrace *trace_;
    std::string src_;
    int port_;
    link::SataLink *link_ = nullptr;
    bmdma::BmDma own_dma_;
    bmdma::BmDma *dma_; // own_dma_, or the master's for device 1 of a pair
    SffChannel *peer_ = nullptr; // the other device of a master/slave pair
    unsigned devno_ = 0;
    bool selected_ = true;

    // Shadow registers.
    uint8_t status_ = reg::ST_NO_PHY, error_ = 0, device_ = 0, devctl_ = 0;
    Shadow feature_, nsect_, lbal_, lbam_, lbah_;
    bool pending_ = false;
    uint32_t sctl_ = 0, serr_ = 0;

    // PIO block in progress.
    Pio pio_ = Pio::None;
    bool pio_irq_ = false;
    uint8_t pio_status_ = 0, pio_e_status_ = 0;
    sata::Fis pio_setup_;
    std::vector<uint8_t> pio_buf_;
    size_t pio_pos_ = 0, pio_count_ = 0;

    // Frames from the device waiting for the engine, frames for the device.
    std::deque<sata::Fis> rxq_, txq_;
    bool dma_activate_ = false; // a DMA Activate waits for Start
    uint64_t cmd_dma_starts_ = 0; // the engine's Start edges at the last Command write
    bool srst_flush_ = false;     // SRST: drop the device's frames until its next Register FIS
    sc_core::sc_event wake_;
    sc_core::sc_event cominit_ev_; // a device's COMINIT on a link that is down: the PHY answers
    uint64_t epoch_ = 0; // bumped by resets: work in flight is dropped

    // Faults.
    unsigned lost_irqs_ = 0;
    bool line_stuck_ = false, drq_stuck_ = false, bsy_stuck_ = false, spurious_ = false;
    bool bsy_survives_srst_ = false; // bsy_stuck_ until a COMRESET only (fault bsy_stuck until: comreset)

    std::function<void()> irq_changed_;
};

} // namespace satasim::sff
