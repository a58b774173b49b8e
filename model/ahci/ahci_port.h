// One AHCI port: its register set (ahci_port_regs.cpp), its command-list / PRDT DMA engine
// (ahci_port_engine.cpp) and its FIS receive path (ahci_port_rx.cpp). Internal to the
// model: the harness only sees AhciHba.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <string>
#include <utility>
#include <vector>

#include <systemc>

#include "model/ahci/ahci_hba.h"
#include "model/bus/dma_master.h"
#include "model/ahci/ahci_regs.h"

namespace satasim::ahci {

// Internal latencies, in controller core clock cycles (AhciConfig::core_clock_mhz).
namespace cycles {
// Bus read round trip (request to completion) 40, posted write 4, a 64-bit datapath.
constexpr bus::DmaTiming kDma{40, 4, 8};
constexpr uint64_t kFisDecode = 8;       // classify a received FIS, update shadow registers
constexpr uint64_t kIssueSetup = 8;      // slot selection before the header fetch
constexpr uint64_t kStop = 150;          // ST 1->0 until CR reads 0 (1 us at 150 MHz)
constexpr uint64_t kFreOn = 8;           // FRE 0->1 until FR reads 1
constexpr uint64_t kFreOff = 150;        // FRE 1->0 until FR reads 0
constexpr uint64_t kHbaReset = 1500;     // GHC.HR set until it self-clears (10 us)
constexpr uint64_t kSpinUp = 16;         // power-on: port PHY released after this
} // namespace cycles

class AhciHba::Port : public sc_core::sc_module,
                     public link::LinkEndpoint,
                     public bus::DmaMasterPort<AhciHba::Port> {
  public:
    SC_HAS_PROCESS(Port);
    Port(sc_core::sc_module_name name, AhciHba &hba, unsigned index);

    void connect(link::SataLink *link);
    uint32_t read(uint32_t off);
    void write(uint32_t off, uint32_t val);
    // Power-on / HBA-reset state of registers and engines. hba_reset: GHC.HR, which also
    // re-initializes the link with a COMRESET; otherwise the link's owner resets it.
    void reset(bool hba_reset);
    // PxIS & PxIE != 0: this port asks for IS bit n.
    bool irq_pending() const { return (is_value() & ie_) != 0; }
    void wave_sample(); // PxIS/PxCI/PxSACT to the waveform probes (ahci_wave.cpp)

    // LinkEndpoint (called from the link's / device's processes: never block here).
    bool receive_fis(const sata::Fis &fis) override;
    bool ready_to_receive() const override;
    void phy_changed(bool ready, link::Gen gen) override;
    void oob_reset() override;
    void oob_comwake() override;
    bool answers_cominit() const override;
    void receive_error(link::LinkError err) override;
    void line_noise(const Noise &n) override;
    bool pm_accept(link::PowerState s) override;
    void power_changed(link::PowerState s) override;

    // Fault hooks (ahci_faults.cpp): lost completion interrupts, host bus errors, internal
    // errors of the engine.
    void inject_lost_irq(unsigned count, uint64_t window_ns, const std::string &id);
    void inject_host_bus_error(const bus::BusErrorParams &bus, const std::string &id);
    void inject_hba_error(HbaErrorKind error, HbaErrorIrq irq, const std::string &id);
    void clear_faults();

  protected:
    void start_of_simulation() override;

  private:
    static bool elaborating(); // events may not be notified yet
    // ---- registers (ahci_port_regs.cpp) --------------------------------------------
    uint32_t is_value() const;       // latched PxIS plus the bits mirrored from PxSERR
    void write_cmd(uint32_t val);
    void write_sctl(uint32_t val);
    void start_engine();
    void stop_engine();
    void cr_off_method();
    void fr_method();
    void spinup_method();
    link::Gen speed_limit() const;
    // ---- link power management (ahci_port_pm.cpp) ----
    void pm_thread();
    bool pm_allowed(link::PowerState s) const; // CAP.PSC/SSC and PxSCTL.IPM let it happen
    bool port_idle() const;                    // nothing to issue, nothing outstanding
    void pm_idle_check();                      // ALPE: the port went idle, enter the state
    // ---- DevSleep (ahci_port_pm.cpp) ----
    void write_devslp(uint32_t val);
    void devslp_arm();    // the link went to Slumber: DITO's timer starts
    void devslp_method(); // DITO expired: assert DEVSLP if the port is still idle in Slumber
    sc_core::sc_time devslp_dito() const;
    sc_core::sc_time devslp_mdat() const;
    void set_is(uint32_t bits);      // latch PxIS bits and re-evaluate the interrupt
    void set_serr(uint32_t bits);
    void irq_update();
    // A completion interrupt (DHRS, PSS, SDBS, DPS): latched unless a lost-IRQ fault
    // swallows it. exempt: not a completion (an error status, a notification).
    void set_completion_is(uint32_t bit, bool exempt);
    bool swallow_completion(uint32_t bit);
    void violation(const char *rule, std::string msg);
    void dma_violation(uint64_t addr, size_t len); // the host handed us unmapped memory
    void trace(const char *event, std::vector<std::pair<std::string, TraceValue>> fields = {},
               std::string msg = {});

    // ---- engine (ahci_port_engine.cpp) ---------------------------------------------
    using Dma = bus::DmaResult;
    struct Prd {
        uint64_t addr = 0;
        uint64_t start = 0; // byte position of this entry in the command's buffer
        uint32_t len = 0;
        bool irq = false;
    };
    struct Slot {
        bool valid = false;   // header/table fetched, command not finished
        bool queued = false;  // PxSACT bit was set at issue (NCQ)
        uint32_t flags = 0;   // command header dword 0
        uint64_t hdr = 0;     // bus address of the command header
        uint64_t ctba = 0;    // command table
        std::vector<Prd> prds;
        uint64_t prd_total = 0;
        uint32_t done = 0;    // bytes transferred (PRDBC)
        bool acmd_sent = false;
    };
    struct Pio {
        bool active = false;
        bool d2h = false;
        bool irq = false;
        uint8_t e_status = 0;
        uint32_t count = 0;
    };
    struct DmaCtx {
        bool active = false;
        bool d2h = false;
        unsigned slot = 0;
        uint32_t offset = 0, count = 0, done = 0;
    };
    // What the HBA tracks of one device: the slot whose command FIS set BSY (released by
    // a D2H), a PIO or first-party DMA data phase. Without FIS-based switching there is
    // one context (index 0) for whatever is on the link; with PxFBS.EN one per PM port
    // (AHCI 1.3.1 9.3), selected by the PM Port field of every received FIS and by the
    // PM port of the command being issued.
    struct DevCtx {
        int busy_slot = -1;
        Pio pio;
        DmaCtx dma;
        uint8_t sts = 0;    // FBS: the device's BSY/DRQ as it last reported them
        bool error = false; // FBS: single device error, until PxFBS.DEC
    };

    void engine_thread();
    bool can_issue() const;
    void issue_next();
    void complete_slot(unsigned slot);
    void send_data_out();
    bool transmit_data(unsigned slot, uint64_t pos, uint32_t n, bool acmd);
    bool sleep(uint64_t n, bool cmd);  // false: aborted by reset (or by a stop when cmd)
    // mem_read / mem_write: bus::DmaMasterPort, in terms of these.
    friend class bus::DmaMasterPort<Port>;
    bus::HostMemory &dma_memory();
    bool bus_master_ok(uint64_t addr, size_t len);
    static const bus::DmaTiming &dma_timing() { return cycles::kDma; }
    Dma prd_move(Slot &s, uint64_t pos, uint8_t *buf, size_t len, bool to_mem,
                 size_t *moved);
    bool write_prdbc(Slot &s);
    void halt(uint32_t is_bit, const char *why, int slot);
    void device_error(const char *why, int slot); // TFES: single device error with FBS
    void host_bus_error(const char *what, uint64_t addr, int slot);
    void hba_error(const char *what, int slot); // the armed hba_error takes effect (ahci_faults.cpp)
    // An armed host bus error that hits this access (of class a, what, [addr, addr+len)):
    // reported as the fault's effect and disarmed; the caller then stops with HBFS.
    bool bus_error_injected(bus::BusAccess a, const char *what, uint64_t addr, size_t len);
    // mem_read / mem_write of an access of class a that an armed host bus error may fail
    // (Dma::Fault after the bus latency; a failed write writes nothing).
    Dma dma_read(bus::BusAccess a, const char *what, uint64_t addr, void *dst, size_t len, bool cmd);
    Dma dma_write(bus::BusAccess a, const char *what, uint64_t addr, const void *src, size_t len, bool cmd);
    void protocol_error(const char *what);
    uint8_t slot_pmp(const Slot &s) const; // header PMP field (0 without CAP.SPM)
    int expected_pmp() const;              // PM port answers must come from, -1 any
    uint64_t clb_addr() const;
    uint64_t fb_addr(uint8_t pm_port) const;
    // ---- FIS-based switching (ahci_port_regs.cpp / engine) ----
    bool fbs_capable() const {
        return hba_.cfg_.fbss && idx_ < 32 && ((hba_.cfg_.fbscp_ports >> idx_) & 1u);
    }
    bool fbs_on() const { return (fbs_ & reg::FBS_EN) != 0; }
    DevCtx &dc() { return dev_[cur_]; }
    void select_dev(uint8_t pm_port) { cur_ = fbs_on() ? (pm_port & 0xFu) : 0u; }
    DevCtx &slot_ctx(unsigned slot) { return dev_[fbs_on() ? slot_dev_[slot] : 0u]; }
    bool slot_ready(unsigned slot) const; // FBS: the slot's device can take a command
    void reset_data_phases();             // every device's PIO / DMA phase abandoned
    void write_fbs(uint32_t val);
    void fbs_dec();                       // PxFBS.DEC: clear the single device error

    // ---- receive path (ahci_port_rx.cpp) -------------------------------------------
    void process_fis(const sata::Fis &fis);
    bool post_fis(uint32_t area_off, const sata::Fis &fis, size_t len);
    void on_d2h(const sata::Fis &fis);
    void on_pio_setup(const sata::Fis &fis);
    void on_dma_setup(const sata::Fis &fis);
    void on_sdb(const sata::Fis &fis);
    void on_data(const sata::Fis &fis);
    void on_unknown(const sata::Fis &fis);
    void finish_pio();

    AhciHba &hba_;
    const unsigned idx_;
    link::SataLink *link_ = nullptr;
    sc_core::sc_time period_;

    // Registers.
    uint32_t clb_ = 0, clbu_ = 0, fb_ = 0, fbu_ = 0, is_ = 0, ie_ = 0, cmd_ = 0;
    uint32_t tfd_ = reg::TFD_RESET, sig_ = 0xFFFFFFFF, sctl_ = 0, serr_ = 0, sact_ = 0,
             ci_ = 0, sntf_ = 0, fbs_ = 0;

    // Engine state.
    bool sig_pending_ = true;   // the next D2H FIS loads PxSIG
    bool cominit_oob_ = false;  // the device's COMINIT started this OOB, no COMRESET since
    bool halted_ = false;       // fatal error: no more commands until ST is cleared
    uint32_t issued_ = 0;       // PxCI bits whose command FIS was sent (or is being sent)
    unsigned last_slot_ = 31;   // round-robin pointer
    std::array<Slot, 32> slots_;
    std::array<DevCtx, 16> dev_;        // device contexts (one unless FBS is enabled)
    unsigned cur_ = 0;                  // the context the engine works for right now
    std::array<uint8_t, 32> slot_dev_{}; // FBS: PM port of each slot (PxFBS.DEV at PxCI write)
    std::deque<sata::Fis> rxq_;
    uint64_t epoch_ = 0;        // bumped by resets: in-flight engine work is dropped
    uint64_t cmd_epoch_ = 0;    // bumped by resets and ST 1->0: command work is dropped

    sc_core::sc_event wake_, cr_off_ev_, fr_ev_, spinup_ev_;
    // Link power management: the ICC request software wrote (0: none pending), and the
    // power thread's event (an ICC write, the port going idle with ALPE set).
    uint32_t icc_req_ = 0;
    sc_core::sc_event pm_ev_;
    // PxDEVSLP's writable bits (ADSE, DETO, MDAT, DITO), DITO's timer and when the link last
    // entered Slumber (the timer's start).
    uint32_t devslp_ = 0;
    sc_core::sc_event devslp_ev_;
    sc_core::sc_time slumber_since_;

    // Lost-IRQ fault (ahci_faults.cpp): completions whose PxIS bit is not set.
    struct LostIrq {
        unsigned count = 0;          // completion interrupts still to swallow
        sc_core::sc_time until;      // ... or every one before this time
        std::string id;
    } lost_irq_;
    // Host-bus-error fault (ahci_faults.cpp): the next DMA of its class fails.
    struct BusError {
        bool armed = false;
        bus::BusErrorParams bus;
        std::string id;
    } bus_error_;
    // hba_error fault (ahci_faults.cpp): armed, then hit at the next DMA access (hit: the
    // caller's host_bus_error() gives the armed error instead of HBFS); all_ones_reads: PxIS
    // reads still to answer with all ones.
    struct HbaError {
        bool armed = false, hit = false;
        HbaErrorKind error = HbaErrorKind::Internal;
        HbaErrorIrq irq = HbaErrorIrq::Raised;
        std::string id;
    } hba_error_;
    unsigned all_ones_reads_ = 0;
};

} // namespace satasim::ahci
