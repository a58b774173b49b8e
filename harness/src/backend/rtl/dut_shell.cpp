// The DUT shell (dut_shell.h): clock, reset, AXI-Lite master, bursts of cycles.
#include "backend/rtl/dut_shell.h"
#include "backend/rtl/dut_abi.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace satasim::harness::rtl {

namespace {
// The PHY clocks of a profile: one receive clock shared by the ports unless their offsets
// differ or SSC spreads each (phy.rx_ppm, phy.ssc).
link::PhyClocks make_clocks(const DutProfile &p) {
    const unsigned w = p.phy_clocks ? p.phy_width : 32;
    bool same = true;
    for (int r : p.rx_ppm)
        same = same && r == p.rx_ppm.front();
    link::SscSpec ssc;
    ssc.spread_ppm = p.ssc_ppm;
    ssc.period_words = p.clock_mhz * 1e6 * (32.0 / w) / double(p.ssc_hz);
    link::PhyClocks c = p.ssc_ppm == 0 && same ? link::PhyClocks(w, p.rx_ppm.empty() ? 0 : p.rx_ppm.front())
                                               : link::PhyClocks(w, p.rx_ppm, ssc);
    if (p.refclk_mhz)
        c.set_refclk(w, p.pll_n); // phy.refclk_mhz: the PHY's reference clock, phase-locked
    return c;
}

constexpr unsigned kBurst = 64;          // cycles ticked before simulated time catches up
constexpr uint64_t kLiteTimeout = 100000; // cycles an AXI-Lite transaction may take
constexpr uint32_t kGhcOffset = 0x04;      // AHCI 1.3.1 3.1.2 GHC
} // namespace

DutShell::DutShell(sc_core::sc_module_name name, const DutProfile &profile, const DutLibrary &lib,
                   bus::HostMemory &mem, bus::IrqLine &irq, ModelTrace *trace, uint64_t seed, FailFn fail,
                   const char *wave_file)
    : sc_core::sc_module(name), profile_(profile), api_(lib.api()),
      slave_(mem, profile.axi, profile.data_width, seed, trace),
      bus_errors_(mem, profile.ports, trace, profile.quirks.onchip_cmd_area ? &profile.quirks.onchip : nullptr),
      irq_(irq), trace_(trace), fail_(std::move(fail)), clocks_(make_clocks(profile)),
      period_(1000.0 / profile.clock_mhz, sc_core::SC_NS),
      reg_edge_(profile.reg_clock_mhz > 0 ? link::kEdgeReg : link::kEdgeCore),
      dma_edge_(profile.dma_clock_mhz > 0 ? link::kEdgeDma : link::kEdgeCore), waves_(wave_file != nullptr),
      ps_per_unit_(1e6 / profile.clock_mhz / double(clocks_.core_period())) {
    if (profile.reg_clock_mhz > 0)
        clocks_.add_bus_clock(link::kEdgeReg, profile.reg_clock_mhz, profile.clock_mhz);
    if (profile.dma_clock_mhz > 0)
        clocks_.add_bus_clock(link::kEdgeDma, profile.dma_clock_mhz, profile.clock_mhz);
    slave_.set_error_hook(
        [this](uint64_t addr, size_t len, bool write) { return bus_errors_.response(addr, len, write); });
    if (profile.irq_per_port)
        irq_lines_ = std::make_unique<IrqLines>(profile.ports, [this](int n, const char *rule, const std::string &msg) {
            port_record("irq", "irq.violation", n, "rule", TraceValue::str(rule), msg);
        });
    dut_ = api_.create(wave_file);
    for (unsigned n = 0; n < profile.ports; ++n) {
        PhyPins::Config pc;
        pc.groups = profile.phy_pins & ~SATASIM_DUT_PHY_REFCLK; // the reference clock is the clocks'
        pc.sideband_width = profile.phy_sideband_width;
        pc.rate_ack_clocks = profile.rate_ack_clocks;
        pc.reset_done_clocks = profile.reset_done_clocks;
        pc.sideband_status = n < profile.sideband_status.size() ? profile.sideband_status[n] : 0;
        // longer than an OOB signal's longest gap (525 ns) at the dword clock
        pc.squelch_dwords = unsigned(std::ceil(0.525 * profile.clock_mhz));
        PhyPins pins(
            pc, [this, n](const char *rule, const std::string &msg) { phy_violation(n, rule, msg); },
            [this, n](uint32_t ctrl) { phy_sideband(n, ctrl); });
        PhyPort::OobConfig oob;
        oob.signal = profile.signal_oob;
        oob.clock_mhz = profile.clock_mhz;
        ports_.push_back(std::make_unique<PhyPort>(n, profile.phy_width, profile.phy_clocks, [this] { wake(); },
                                                   std::move(pins), oob));
    }
    // Power-on reset: the DUT's registers are defined before the stack's first access.
    // Each reset is held SATASIM_DUT_RESET_CYCLES cycles of its own clock; all start
    // together, and each drops after its own clock's last edge of them.
    struct Reset {
        uint8_t &pin;
        unsigned edge, left;
    } resets[] = {{pins_.rst, link::kEdgeCore, SATASIM_DUT_RESET_CYCLES},
                  {pins_.reg_rst, link::kEdgeReg, reg_edge_ == link::kEdgeReg ? SATASIM_DUT_RESET_CYCLES : 0},
                  {pins_.dma_rst, link::kEdgeDma, dma_edge_ == link::kEdgeDma ? SATASIM_DUT_RESET_CYCLES : 0}};
    for (Reset &r : resets)
        r.pin = r.left > 0;
    bool attention = false;
    while (pins_.rst || pins_.reg_rst || pins_.dma_rst) {
        const unsigned edges = step(attention);
        for (Reset &r : resets)
            if ((edges & r.edge) && r.left && --r.left == 0)
                r.pin = 0;
    }
    SC_THREAD(clock_thread);
}

DutShell::~DutShell() {
    if (dut_)
        api_.destroy(dut_);
}

void DutShell::stop() {
    if (dut_)
        api_.destroy(dut_);
    dut_ = nullptr;
}

bool DutShell::tick() { return advance(link::kEdgeCore); }

bool DutShell::advance(unsigned until) {
    if (!dut_)
        return false; // stopped after the run
    // The steps of the other clocks up to and including the next edge of `until` (one
    // step, all clocks together, for a DUT with one clock).
    bool attention = false;
    while (!(step(attention) & until)) {
    }
    return attention;
}

unsigned DutShell::step(bool &attention) {
    const unsigned edges = clocks_.next();
    const unsigned rx = clocks_.rx_edges();
    pins_.clk_edges = uint8_t(edges);
    pins_.phy_rx_edges = uint8_t(rx);
    if (waves_)
        stamp_time();
    // port n's edges: its own receive clock's
    auto port_edges = [&](unsigned n) { return (edges & ~link::kEdgePhyRx) | ((rx >> n) & 1u ? link::kEdgePhyRx : 0u); };
    if (edges & dma_edge_)
        slave_.drive(pins_);
    for (unsigned n = 0; n < ports_.size(); ++n)
        ports_[n]->drive(pins_, port_edges(n));
    api_.tick(dut_, &pins_);
    for (unsigned n = 0; n < ports_.size(); ++n)
        cycle_attention_ |= ports_[n]->edge(pins_, port_edges(n));
    if (edges & dma_edge_)
        slave_.edge(pins_); // the memory slave and its checker: DMA clock cycles
    if (!(edges & link::kEdgeCore))
        return edges;
    // A core clock cycle ended: what the clock thread decides on.
    ++cycles_;
    if (in_mmio_)
        ++mmio_cycles_;
    bool quiet = slave_.idle(pins_) && !pins_.s_awvalid && !pins_.s_arvalid && !pins_.s_wvalid;
    for (auto &p : ports_)
        quiet = quiet && p->idle();
    if (irq_lines_ && (api_.irq_outputs & SATASIM_DUT_IRQ_LEVEL))
        irq_lines_->core_edge(cycles_, pins_.irq, pins_.irq_port, ghc_write_);
    if (const bool level = irq_level(); level != irq_seen_) {
        irq_seen_ = level;
        cycle_attention_ = true;
    }
    quiet_ = quiet && !cycle_attention_ ? quiet_ + 1 : 0;
    attention |= cycle_attention_;
    cycle_attention_ = false;
    return edges;
}

// The simulated time of this step's edges for the waveform: the clocks step in bursts ahead
// of the SystemC time and stop while the DUT is quiet, so a step is at the clocks' own
// time since the last catch-up, or at the simulated time if that is later (the clock was
// stopped, or a register access came in after the burst).
void DutShell::stamp_time() {
    const uint64_t sim_ps = uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e12 + 0.5);
    const uint64_t last = pins_.time_ps;
    uint64_t t = base_ps_ + uint64_t(double(clocks_.now()) * ps_per_unit_ + 0.5);
    const uint64_t half_period = uint64_t(double(clocks_.core_period()) * ps_per_unit_ / 2);
    if (sim_ps > t) {
        base_ps_ += sim_ps - t;
        t = sim_ps;
        pins_.time_low_ps = t > last + half_period ? t - half_period : last + (t - last) / 2;
    } else {
        pins_.time_low_ps = last + (t - last) / 2;
    }
    pins_.time_ps = t;
}

bool DutShell::irq_level() const { return irq_lines_ ? (pins_.irq_port & irq_lines_->mask()) != 0 : pins_.irq != 0; }

// A record of a port's pins (src phy or irq): name, then the fields between port and cycle.
void DutShell::port_record(const char *src, const char *name, int port, const char *key, TraceValue value,
                           std::string msg) {
    if (!trace_)
        return;
    TraceRecord r;
    r.src = src;
    r.name = name;
    r.port = port; // the run's violation message names it
    if (port >= 0)
        r.fields.emplace_back("port", TraceValue::integer(int64_t(port)));
    r.fields.emplace_back(key, std::move(value));
    r.fields.emplace_back("cycle", TraceValue::integer(int64_t(cycles_)));
    r.msg = std::move(msg);
    trace_->emit(r);
}

// A PHY pin rule broken (phy_pins.h): counted, and a `phy.violation` record as the AXI
// checker's (the run's violation count takes every *.violation record).
void DutShell::phy_violation(unsigned port, const char *rule, const std::string &msg) {
    ++phy_violations_;
    phy_record("phy.violation", port, "rule", TraceValue::str(rule), msg);
}

// The DUT's sideband control vector changed: recorded with its new value.
void DutShell::phy_sideband(unsigned port, uint32_t ctrl) {
    phy_record("rtl.phy_sideband", port, "ctrl", TraceValue::hex(ctrl), "");
}

void DutShell::service() {
    irq_.set(irq_seen_);
    for (auto &p : ports_)
        p->service();
}

void DutShell::wake() {
    quiet_ = 0;
    if (!running_) {
        running_ = true;
        wake_ev_.notify(sc_core::SC_ZERO_TIME);
    }
}

void DutShell::clock_thread() {
    for (;;) {
        if (!running_) {
            sc_core::wait(wake_ev_);
            continue;
        }
        unsigned n = 0;
        bool attention = false;
        while (n < kBurst && !attention) {
            attention = tick();
            ++n;
        }
        sc_core::wait(period_ * double(n));
        service();
        if (quiet_ >= profile_.idle_cycles)
            running_ = false;
    }
}

template <class Done> bool DutShell::lite_transaction(const char *what, uint32_t off, Done done) {
    in_mmio_ = true;
    uint64_t n = 0;
    bool ok = true;
    do {
        if (++n > kLiteTimeout) {
            ok = false;
            break;
        }
        advance(reg_edge_); // up to the register clock's next edge
    } while (!done()); // the handshakes of that edge (pins hold the outputs sampled before it)
    in_mmio_ = false;
    pins_.s_awvalid = pins_.s_wvalid = pins_.s_arvalid = 0;
    pins_.s_bready = pins_.s_rready = 0;
    if (!ok) {
        char msg[160];
        std::snprintf(msg, sizeof msg, "the DUT did not complete an AXI-Lite %s at 0x%03x within %llu cycles", what,
                      off, (unsigned long long)kLiteTimeout);
        fail_(msg);
    }
    // The interrupt line as the access left it (the handler that made it looks at once:
    // sampled at the step that completed it, whichever clock's domain drives it), and
    // the clock runs on for whatever the access started.
    irq_seen_ = irq_level();
    irq_.set(irq_seen_);
    wake();
    return ok;
}

// A register access the DUT answered with an error response (SLVERR, DECERR).
void DutShell::mmio_error(const char *what, uint32_t off, unsigned resp) {
    if (!trace_)
        return;
    TraceRecord r;
    r.src = "axi";
    r.name = "rtl.mmio_error";
    r.fields.emplace_back("off", TraceValue::hex(off));
    r.msg = "register " + std::string(what) + " answered " + (resp == kAxiSlvErr ? "SLVERR" : "DECERR");
    trace_->emit(r);
}

// The register slave's address space: interface.reg_addr_width bits.
bool DutShell::in_window(uint32_t off) const { return uint64_t(off) < (uint64_t(1) << profile_.reg_addr_width); }

uint32_t DutShell::mmio_read32(uint32_t off) {
    if (!in_window(off))
        return 0;
    pins_.s_araddr = off;
    pins_.s_arvalid = 1;
    pins_.s_rready = 1;
    const uint8_t lines_before = pins_.irq_port;
    bool have = false;
    uint32_t data = 0;
    unsigned resp = 0;
    lite_transaction("read", off, [&] {
        if (pins_.s_arvalid && pins_.s_arready)
            pins_.s_arvalid = 0;
        if (pins_.s_rvalid && pins_.s_rready) {
            data = pins_.s_rdata;
            resp = pins_.s_rresp;
            have = true;
        }
        return have;
    });
    if (irq_lines_)
        irq_lines_->read(off, data, lines_before, pins_.irq_port);
    if (resp >= kAxiSlvErr)
        mmio_error("read", off, resp);
    return data;
}

void DutShell::mmio_write32(uint32_t off, uint32_t val) {
    if (!in_window(off))
        return;
    bus_errors_.on_mmio_write(off, val);
    ghc_write_ = off == kGhcOffset;
    pins_.s_awaddr = off;
    pins_.s_awvalid = 1;
    pins_.s_wdata = val;
    pins_.s_wstrb = 0xF;
    pins_.s_wvalid = 1;
    pins_.s_bready = 1;
    bool have = false;
    unsigned resp = 0;
    lite_transaction("write", off, [&] {
        if (pins_.s_awvalid && pins_.s_awready)
            pins_.s_awvalid = 0;
        if (pins_.s_wvalid && pins_.s_wready)
            pins_.s_wvalid = 0;
        if (pins_.s_bvalid && pins_.s_bready) {
            resp = pins_.s_bresp;
            have = true;
        }
        return have;
    });
    ghc_write_ = false;
    if (irq_lines_)
        irq_lines_->write(off, val);
    if (resp >= kAxiSlvErr)
        mmio_error("write", off, resp);
}

} // namespace satasim::harness::rtl
