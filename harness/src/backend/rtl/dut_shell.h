// The DUT shell: a controller's RTL (its verilated shared object, dut_library.h) as the
// hardware of a run. It owns the DUT's clock and reset and its standard interfaces:
//   - the register slave, through an AXI4-Lite master: the stack's MMIO reads and writes
//     (bus::MmioTarget) become AXI-Lite transactions, clocked through at once (MMIO
//     costs no simulated time, as on the SystemC models);
//   - the DMA master, served by AxiMemSlave from the host memory model, protocol-checked,
//     with host bus errors injected by BusErrorInjector (fault host_bus_error);
//   - the interrupt line into the harness's IrqLine; a DUT with one line per port
//     (interface.irq_per_port) has them ORed into it and checked (IrqLines: `irq.violation`);
//   - each port's PHY interface to a PhyPort (cable, device-side link RTL, SataLink), the
//     optional PHY pins checked there (PhyPins: `phy.violation` records, sideband changes).
// Its clocks, stepped in time order by one schedule (link::PhyClocks): clk; for a DUT with
// PHY clocks the PHY's transmit and receive parallel clocks (16-bit PHY words at twice the
// dword rate, each port's receive clock offset by the profile's phy.rx_ppm and spread by
// phy.ssc) and, for a top with the refclk pin, the PHY's reference clock (phy.refclk_mhz,
// phase-locked to the transmit clock); for a DUT with a separate register or DMA clock
// (interface.reg_clock_mhz, dma_clock_mhz), reg_clk (the register master moves on its
// edges) and dma_clk (the memory slave and its AXI checker count its cycles), each with its
// own reset. The clocks run in bursts while anything moves and stop after the profile's
// idle_cycles quiet clk cycles; SystemC time advances by the clk cycles ticked at clk's
// period, so idle time costs no wall time.
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "backend/rtl/axi_mem_slave.h"
#include "backend/rtl/bus_error_injector.h"
#include "backend/rtl/dut_library.h"
#include "backend/rtl/irq_lines.h"
#include "backend/rtl/dut_profile.h"
#include "backend/rtl/phy_port.h"
#include "model/bus/irq_line.h"
#include "model/bus/mmio.h"

namespace satasim::harness::rtl {

class DutShell : public sc_core::sc_module, public bus::MmioTarget {
  public:
    using FailFn = std::function<void(const std::string &)>;
    SC_HAS_PROCESS(DutShell);
    DutShell(sc_core::sc_module_name name, const DutProfile &profile, const DutLibrary &lib, bus::HostMemory &mem,
             bus::IrqLine &irq, ModelTrace *trace, uint64_t seed, FailFn fail, const char *wave_file = nullptr);
    ~DutShell() override;

    uint32_t mmio_read32(uint32_t off) override;
    void mmio_write32(uint32_t off, uint32_t val) override;

    link::LinkEndpoint *port_endpoint(unsigned port) { return ports_.at(port).get(); }
    void connect_port(unsigned port, link::SataLink *lk) { ports_.at(port)->connect(lk); }

    // Fault hooks: the port's next DMA burst of a class answered with an error; disarm all.
    void inject_host_bus_error(unsigned port, const bus::BusErrorParams &p, const std::string &id) {
        bus_errors_.arm(port, p, id);
    }
    void clear_faults() { bus_errors_.clear(); }

    // The clock is stopped: nothing moved for idle_cycles, no interrupt is on its way.
    bool quiet() const { return !running_; }

    // After the run: the DUT instance is destroyed (its final blocks run; a coverage build
    // writes its counters, SATASIM_RTL_COVERAGE); the clock never ticks it again.
    void stop();

    uint64_t cycles() const { return cycles_; }
    uint64_t mmio_cycles() const { return mmio_cycles_; }
    uint64_t axi_violations() const { return slave_.violations(); }
    uint64_t axi_bursts() const { return slave_.bursts(); }
    uint64_t phy_violations() const { return phy_violations_; }
    uint64_t irq_violations() const { return irq_lines_ ? irq_lines_->violations() : 0; }
    bool irq_per_port() const { return irq_lines_ != nullptr; }
    bool has_phy_pins() const {
        return (profile_.phy_pins & ~SATASIM_DUT_PHY_REFCLK) != 0 || profile_.phy_sideband_width != 0;
    }

  private:
    bool tick(); // one clk cycle (the other clocks' steps first); true: the SystemC side has work
    // The steps up to and including the next edge of a clock in `until` (link::kEdge*);
    // true: a core cycle in them ended with work for the SystemC side.
    bool advance(unsigned until);
    // One step of the clocks (its edges returned); at a core edge, the cycle's bookkeeping
    // (cycle counts, quiet count, the interrupt line) and `attention` set if it had work.
    unsigned step(bool &attention);
    bool in_window(uint32_t off) const;
    bool irq_level() const; // the host's interrupt input as the DUT drives it now
    void mmio_error(const char *what, uint32_t off, unsigned resp);
    void service();
    // port -1: none (a record about the whole controller)
    void port_record(const char *src, const char *name, int port, const char *key, TraceValue value,
                     std::string msg);
    void phy_record(const char *name, unsigned port, const char *key, TraceValue value, std::string msg) {
        port_record("phy", name, int(port), key, std::move(value), std::move(msg));
    }
    void phy_violation(unsigned port, const char *rule, const std::string &msg);
    void phy_sideband(unsigned port, uint32_t ctrl);
    void wake();
    void clock_thread();
    // The AXI-Lite transaction in pins_ clocked until done(); false on a timeout.
    template <class Done> bool lite_transaction(const char *what, uint32_t off, Done done);

    const DutProfile &profile_;
    const satasim_dut_api &api_;
    void *dut_ = nullptr;
    satasim_dut_pins pins_{};
    AxiMemSlave slave_;
    BusErrorInjector bus_errors_;
    bus::IrqLine &irq_;
    std::unique_ptr<IrqLines> irq_lines_; // interface.irq_per_port only
    ModelTrace *trace_;
    FailFn fail_;
    std::vector<std::unique_ptr<PhyPort>> ports_;
    link::PhyClocks clocks_;
    sc_core::sc_time period_;
    unsigned reg_edge_, dma_edge_; // the register / DMA clock's edge bit (kEdgeCore: on clk)
    bool cycle_attention_ = false; // work seen in the core cycle under way
    sc_core::sc_event wake_ev_;
    bool running_ = true;
    uint64_t quiet_ = 0;
    uint64_t cycles_ = 0, mmio_cycles_ = 0, phy_violations_ = 0;
    bool irq_seen_ = false;
    bool in_mmio_ = false;
    bool ghc_write_ = false; // the register master's access under way is a write to GHC
    // A waveform's time axis (pins_.time_ps, only with a wave file): the clocks' own time
    // plus base_ps_, which catches up with the simulated time whenever the clocks fell
    // behind it (stopped while the DUT was quiet).
    bool waves_ = false;
    double ps_per_unit_ = 0;
    uint64_t base_ps_ = 0;
    void stamp_time();
};

} // namespace satasim::harness::rtl
