// One SiI3124 port: its register block and resets (sil24_port_regs.cpp), its interrupt
// logic (sil24_interrupts.cpp), its PRB/SGE command engine (sil24_prb_engine.cpp) and its
// FIS receive path (sil24_port_rx.cpp). Internal to the model: the harness only sees
// Sil24Hba.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/sata/fis.h"
#include "model/sil24/sil24_hba.h"
#include "model/bus/dma_master.h"
#include "model/sil24/sil24_regs.h"

namespace satasim::sil24 {

// Internal latencies, in controller core clock cycles (Sil24Config::core_clock_mhz).
namespace cycles {
// PCI-X read round trip 40, posted write 4, a 64-bit datapath.
constexpr bus::DmaTiming kDma{40, 4, 8};
constexpr uint64_t kFisDecode = 8;       // classify a received FIS
constexpr uint64_t kIssueSetup = 8;      // slot selection before the PRB fetch
constexpr uint64_t kPortInit = 1330;     // INIT until it self-clears and RDY returns (10 us)
constexpr uint64_t kPortRstRelease = 1330; // PORT_RST cleared until RDY (10 us)
constexpr uint64_t kSrstHold = 1330;     // SRST asserted FIS to SRST released FIS (10 us)
constexpr uint64_t kSpinUp = 16;         // power-on: PHY released after this
} // namespace cycles
// DEV_RST without a device answering: DEV_RST self-clears after this (MEM: model choice).
constexpr double kDevRstNoDeviceUs = 2000;
constexpr unsigned kMaxSges = 4096;      // longer chains are treated as a runaway LNK loop

class Sil24Hba::Port : public sc_core::sc_module,
                     public link::LinkEndpoint,
                     public bus::DmaMasterPort<Sil24Hba::Port> {
  public:
    SC_HAS_PROCESS(Port);
    Port(sc_core::sc_module_name name, Sil24Hba &hba, unsigned index);

    void connect(link::SataLink *link);
    uint32_t read(uint32_t off);
    void write(uint32_t off, uint32_t val);
    // Power-on state (PORT_RST set, RDY clear). global: HOST_CTRL.GLOBAL_RST.
    void reset(bool global);
    bool irq_pending() const { return masked_irq() != 0; }
    void wave_sample(); // slot and interrupt status to the waveform probes (sil24_wave.cpp)
    uint32_t slot_stat() const;
    // A read of the slot status (PORT_SLOT_STAT or its HOST_SLOT_STAT mirror).
    uint32_t read_slot_stat();

    // LinkEndpoint (called from the link's / device's processes: never block here).
    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override { return true; }
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void receive_error(link::LinkError err) override;

    // Fault hooks (sil24_faults.cpp): lost completion interrupts.
    void inject_lost_irq(unsigned count, uint64_t window_ns, const std::string &id);
    void clear_faults();

  protected:
    void start_of_simulation() override;

  private:
    static bool elaborating();
    // ---- registers and resets (sil24_port_regs.cpp) --------------------------------
    void write_ctrl_set(uint32_t val);
    void write_ctrl_clr(uint32_t val);
    void write_sctl(uint32_t val);
    void activate(unsigned slot, uint64_t prb, bool from_lram);
    void flush_commands(const char *why);
    void init_done_method();
    void port_rst_done_method();
    void dev_rst_release_method();
    void dev_rst_timeout_method();
    void finish_dev_rst(const char *how);
    void spinup_method();
    link::Gen speed_limit() const;
    void trace(const char *event, std::vector<std::pair<std::string, TraceValue>> fields = {},
               std::string msg = {});

    // ---- interrupts (sil24_interrupts.cpp) ------------------------------------------
    uint32_t masked_irq() const { return irq_raw_ & irq_en_ & IRQ_ALL_BITS; }
    uint32_t irq_stat_value() const { return masked_irq() | irq_raw_ << reg::IRQ_RAW_SHIFT; }
    void raise(uint32_t bits);
    void clear_irq(uint32_t bits);
    void ack_complete_method();
    void irq_update();
    void set_serr(uint32_t bits);
    bool swallow_completion(unsigned slot); // a lost-IRQ fault eats this COMPLETE
    void violation(const char *rule, std::string msg);
    void dma_violation(uint64_t addr, size_t len); // the host handed us unmapped memory
    static constexpr uint32_t IRQ_ALL_BITS = reg::IRQ_ALL;

    // ---- engine (sil24_prb_engine.cpp) ----------------------------------------------
    using Dma = bus::DmaResult;
    struct Sge {
        uint64_t addr = 0;
        uint64_t start = 0; // byte position in the command's buffer
        uint32_t len = 0;
        bool discard = false; // DRD: read data dropped
    };
    struct Slot {
        bool active = false;   // activated (PORT_SLOT_STAT bit set)
        bool fetched = false;  // PRB and SGEs read, command FIS not yet sent
        bool sent = false;     // command FIS delivered
        bool from_lram = false;
        bool ncq = false;
        bool srst = false;
        bool sges_resolved = false;
        uint64_t prb = 0;      // bus address of the PRB (host memory activation)
        uint16_t ctrl = 0, prot = 0;
        uint8_t pm_port = 0;
        uint8_t dev = 0;       // device context (PM port with PMP_EN, else 0), set at fetch
        uint8_t chunk0[reg::kPrbChunk] = {}; // PRB + first SGEs as fetched
        std::vector<Sge> sges;
        uint64_t total = 0;
        uint32_t done = 0;     // bytes moved
        bool cdb_sent = false; // PACKET: the CDB went out (the first host-to-device PIO block)
    };
    struct Pio {
        bool active = false;
        bool d2h = false;
        uint8_t e_status = 0;
        uint32_t count = 0;
        sata::Fis fis;         // the PIO Setup FIS (result of a PIO data-in command)
    };
    struct DmaCtx {
        bool active = false;
        bool d2h = false;
        unsigned slot = 0;
        uint32_t offset = 0, count = 0, done = 0;
    };

    // Per-device context (docs/hardware.md 6.7, 7.5 FIS-based switching). With PORT_CTRL PMP_EN
    // there is one per PM port, chosen by a command's PRB FIS byte 1 and by every received
    // FIS's PM Port field; without PMP_EN only dev_[0] is used (one device on the port).
    struct Dev {
        int busy_slot = -1;    // slot whose command FIS set BSY; released by a D2H FIS
        Pio pio;               // PIO data phase
        DmaCtx dma;            // first-party DMA data phase (NCQ)
        uint32_t sact = 0;     // NCQ slots the device accepted or holds
    };
    bool pmp_en() const { return ctrl_ & reg::CS_PMP_EN; }
    unsigned fis_dev(const sata::Fis &fis) const { return pmp_en() ? fis.at(1) & 0xF : 0; }

    void engine_thread();
    int next_slot() const;
    void issue_next(unsigned slot);
    bool fetch_prb(unsigned slot);
    bool resolve_sges(unsigned slot);
    void send_srst(unsigned slot, sata::Fis fis);
    void complete_slot(unsigned slot, const sata::Fis *result);
    void send_data_out(Dev &dv);
    bool transmit_data(unsigned slot, uint64_t pos, uint32_t n);
    // PACKET: the CDB from the command block (the 16 bytes after the PRB) as one Data FIS
    bool transmit_cdb(unsigned slot, uint32_t n);
    bool sleep(uint64_t n, bool cmd);
    // mem_read / mem_write: bus::DmaMasterPort, in terms of these.
    friend class bus::DmaMasterPort<Port>;
    bus::HostMemory &dma_memory();
    bool bus_master_ok(uint64_t addr, size_t len);
    static const bus::DmaTiming &dma_timing() { return cycles::kDma; }
    Dma sge_move(Slot &s, unsigned slot, uint64_t pos, uint8_t *buf, size_t len, bool to_mem,
                 size_t *moved);
    void fail(reg::CmdErr code, int slot, const char *why, const sata::Fis *result = nullptr);
    void store_lram_fis(unsigned slot, const sata::Fis &fis);
    bool direction_ok(const Slot &s, bool d2h) const;

    // ---- receive path (sil24_port_rx.cpp) -------------------------------------------
    void process_fis(const sata::Fis &fis);
    void on_d2h(const sata::Fis &fis, Dev &dv);
    void on_pio_setup(const sata::Fis &fis, Dev &dv);
    void on_dma_setup(const sata::Fis &fis, Dev &dv);
    void on_sdb(const sata::Fis &fis, Dev &dv);
    void on_data(const sata::Fis &fis, Dev &dv);
    struct DataSink {
        enum class Kind { None, Fpdma, Pio, Dma } kind = Kind::None;
        unsigned slot = 0;
    };
    DataSink d2h_data_sink(const Dev &dv) const;
    void on_lost_frame();
    void finish_pio(Dev &dv);
    void pmp_resume();

    Sil24Hba &hba_;
    const unsigned idx_;
    link::SataLink *link_ = nullptr;
    sc_core::sc_time period_;

    // Registers.
    uint32_t ctrl_ = reg::CS_PORT_RST;
    uint32_t irq_raw_ = 0, irq_en_ = 0, steer_ = 0;
    uint32_t cmd_err_ = 0, context_ = 0;
    uint32_t act_upper_ = 0, fis_cfg_ = 0, fifo_thres_ = 0, phy_cfg_ = 0;
    uint32_t err_cnt_[3] = {0, 0, 0}; // decode, CRC, handshake: count | threshold << 16
    uint32_t sctl_ = 0, serr_ = 0;
    std::array<uint32_t, reg::kLramSlots> act_lo_{};
    std::array<uint8_t, reg::kLramSlots * reg::kLramSlotSize> lram_{};
    std::array<uint32_t, reg::kPmpEntries * 2> pmp_{};
    std::array<uint32_t, 16> exec_diag_{}, psd_diag_{};

    // Engine state.
    std::array<Slot, reg::kLramSlots> slots_;
    std::deque<unsigned> queue_; // activated slots in activation order, not yet sent
    uint32_t sact_ = 0;          // NCQ slots of every device (PORT_SACTIVE)
    std::array<Dev, reg::kPmpEntries> dev_{};
    unsigned cur_dev_ = 0;       // context of the FIS or command being worked on
    bool halted_ = false;        // command error: no progress until INIT (or PMP_RESUME)
    uint16_t dev_err_ = 0;       // PMP_EN: PM ports stopped on a command error, until INIT
    bool dev_rst_waiting_ = false;
    std::deque<sata::Fis> rxq_;  // an empty entry: a frame from the device lost on the wire
    std::deque<sata::Fis> held_; // PMP_EN, port stopped: other devices' FISes, kept for
                                 // PMP_RESUME (dropped by INIT)
    uint64_t completions_ = 0;   // completion interrupts raised (for the erratum's trace)
    uint64_t ack_snapshot_ = 0;  // completions_ when the pending delayed acknowledge was read
    sc_core::sc_time ack_until_; // PCI-X erratum: the delayed acknowledge lands then
    bool ack_in_flight() const;  // ... and is still in flight (a completion now is wiped)
    uint64_t epoch_ = 0;         // bumped by resets and INIT: in-flight engine work is dropped

    sc_core::sc_event wake_, init_ev_, port_rst_ev_, dev_rst_release_ev_, dev_rst_timeout_ev_,
        ack_ev_, spinup_ev_;

    // Lost-IRQ fault (sil24_faults.cpp): completions that raise no PORT_IRQ_COMPLETE.
    struct LostIrq {
        unsigned count = 0;          // completion interrupts still to swallow
        sc_core::sc_time until;      // ... or every one before this time
        std::string id;
    } lost_irq_;
};

} // namespace satasim::sil24
