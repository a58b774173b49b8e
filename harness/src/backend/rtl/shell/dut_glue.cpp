// The DUT shell's binary interface (../dut_abi.h) around one verilated controller: built
// at run time into the DUT's shared object together with the verilated model (prefix
// Vdut), never into satasim. SATASIM_DUT_PORTS / _DW / _AW / _RAW / _PHY_W / _PHY_CLOCKS /
// _REG_CLOCK / _DMA_CLOCK are the profile's interface parameters; the top module has the shell's standard ports
// (docs/rtl-controller.md), its interrupt outputs found below.
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <unistd.h>
#include <type_traits>
#include <utility>

#include "Vdut.h"
#include "verilated.h"
#if VM_COVERAGE
#include "verilated_cov.h"
#endif
#if VM_TRACE
#include "verilated_vcd_c.h"
#endif

extern "C" {
#include "dut_abi.h"
}

namespace {

// Bits [lo, lo+width) of a verilated port of any width (width <= 32), and back.
template <class T>
uint32_t get_bits(const T &v, unsigned lo, unsigned width) {
    const uint64_t m = width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    return uint32_t((uint64_t(v) >> lo) & m);
}
template <std::size_t N>
uint32_t get_bits(const VlWide<N> &v, unsigned lo, unsigned width) {
    const unsigned w = lo / 32, s = lo % 32;
    uint64_t x = v[w];
    if (w + 1 < N)
        x |= uint64_t(v[w + 1]) << 32;
    const uint64_t m = width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1;
    return uint32_t((x >> s) & m);
}
template <class T>
void set_bits(T &v, unsigned lo, unsigned width, uint32_t x) {
    const uint64_t m = (width >= 32 ? 0xFFFFFFFFull : (1ull << width) - 1) << lo;
    v = T((uint64_t(v) & ~m) | ((uint64_t(x) << lo) & m));
}
template <std::size_t N>
void set_bits(VlWide<N> &v, unsigned lo, unsigned width, uint32_t x) {
    for (unsigned i = 0; i < width; ++i) {
        const unsigned b = lo + i;
        const uint32_t bit = 1u << (b % 32);
        v[b / 32] = (x >> i) & 1u ? v[b / 32] | bit : v[b / 32] & ~bit;
    }
}

struct Dut {
    VerilatedContext ctx;
    std::unique_ptr<Vdut> m;
#if VM_TRACE
    std::unique_ptr<VerilatedVcdC> vcd;
    uint64_t last_edge_ps = 0; // the time of the last dumped edge
    bool dumped = false;
#endif
};

constexpr unsigned kPorts = SATASIM_DUT_PORTS, kDw = SATASIM_DUT_DW, kPhyW = SATASIM_DUT_PHY_W;

// The receive error inputs are optional (docs/rtl-controller.md, PHY): a flag per byte for
// code and for disparity errors, or one flag per port for any error in the word, or none.
// Found here in the verilated class like the interrupt outputs below.
template <class M, class = void> struct HasRxCodeErr : std::false_type {};
template <class M>
struct HasRxCodeErr<M, std::void_t<decltype(std::declval<M &>().phy_rx_codeerr)>> : std::true_type {};
template <class M, class = void> struct HasRxDispErr : std::false_type {};
template <class M>
struct HasRxDispErr<M, std::void_t<decltype(std::declval<M &>().phy_rx_disperr)>> : std::true_type {};
template <class M, class = void> struct HasRxErr : std::false_type {};
template <class M> struct HasRxErr<M, std::void_t<decltype(std::declval<M &>().phy_rx_err)>> : std::true_type {};
constexpr uint32_t kRxErrorInputs =
    (HasRxCodeErr<Vdut>::value && HasRxDispErr<Vdut>::value ? SATASIM_DUT_RX_ERR_BYTE : 0u) |
    (HasRxErr<Vdut>::value ? SATASIM_DUT_RX_ERR_WORD : 0u);

template <class M> void drive_rx_errors(M &m, const satasim_dut_pins &p, unsigned n) {
    if constexpr (HasRxCodeErr<M>::value)
        set_bits(m.phy_rx_codeerr, kPhyW / 8 * n, kPhyW / 8, p.phy_rx_codeerr[n]);
    if constexpr (HasRxDispErr<M>::value)
        set_bits(m.phy_rx_disperr, kPhyW / 8 * n, kPhyW / 8, p.phy_rx_disperr[n]);
    if constexpr (HasRxErr<M>::value)
        set_bits(m.phy_rx_err, n, 1, (p.phy_rx_codeerr[n] | p.phy_rx_disperr[n]) != 0);
}

void drive(Vdut &m, const satasim_dut_pins &p) {
    m.rst = p.rst;
#if SATASIM_DUT_REG_CLOCK
    m.reg_rst = p.reg_rst;
#endif
#if SATASIM_DUT_DMA_CLOCK
    m.dma_rst = p.dma_rst;
#endif
    set_bits(m.s_awaddr, 0, SATASIM_DUT_RAW, p.s_awaddr);
    m.s_awvalid = p.s_awvalid;
    m.s_wdata = p.s_wdata;
    m.s_wstrb = p.s_wstrb;
    m.s_wvalid = p.s_wvalid;
    m.s_bready = p.s_bready;
    set_bits(m.s_araddr, 0, SATASIM_DUT_RAW, p.s_araddr);
    m.s_arvalid = p.s_arvalid;
    m.s_rready = p.s_rready;
    m.m_awready = p.m_awready;
    m.m_wready = p.m_wready;
    m.m_bresp = p.m_bresp;
    m.m_bvalid = p.m_bvalid;
    m.m_arready = p.m_arready;
    for (unsigned i = 0; i < kDw / 32; ++i)
        set_bits(m.m_rdata, 32 * i, 32, p.m_rdata[i]);
    m.m_rresp = p.m_rresp;
    m.m_rlast = p.m_rlast;
    m.m_rvalid = p.m_rvalid;
    for (unsigned n = 0; n < kPorts; ++n) {
        set_bits(m.phy_rx_data, kPhyW * n, kPhyW, p.phy_rx_data[n]);
        set_bits(m.phy_rx_isk, kPhyW / 8 * n, kPhyW / 8, p.phy_rx_isk[n]);
        drive_rx_errors(m, p, n);
        set_bits(m.phy_ready, n, 1, p.phy_ready[n]);
        set_bits(m.phy_gen, 2 * n, 2, p.phy_gen[n]);
        set_bits(m.phy_dev_present, n, 1, p.phy_dev_present[n]);
        set_bits(m.phy_cominit, n, 1, p.phy_cominit[n]);
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_ELECIDLE
        set_bits(m.phy_rx_elecidle, n, 1, p.phy_rx_elecidle[n]);
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_COMWAKE_DET
        set_bits(m.phy_comwake_det, n, 1, p.phy_comwake_det[n]);
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_RATE
        set_bits(m.phy_rate_ack, n, 1, p.phy_rate_ack[n]);
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_RESET
        set_bits(m.phy_reset_done, n, 1, p.phy_reset_done[n]);
#endif
#if SATASIM_DUT_PHY_SBW
        set_bits(m.phy_sb_status, SATASIM_DUT_PHY_SBW * n, SATASIM_DUT_PHY_SBW, p.phy_sb_status[n]);
#endif
    }
}

// The interrupt outputs are each optional (a top has irq, irq_port or both): found here in
// the verilated class, so one build serves a profile with either (interface.irq_per_port).
template <class M, class = void> struct HasIrq : std::false_type {};
template <class M> struct HasIrq<M, std::void_t<decltype(std::declval<M &>().irq)>> : std::true_type {};
template <class M, class = void> struct HasIrqPort : std::false_type {};
template <class M> struct HasIrqPort<M, std::void_t<decltype(std::declval<M &>().irq_port)>> : std::true_type {};
constexpr uint32_t kIrqOutputs = (HasIrq<Vdut>::value ? SATASIM_DUT_IRQ_LEVEL : 0u) |
                                 (HasIrqPort<Vdut>::value ? SATASIM_DUT_IRQ_PER_PORT : 0u);

template <class M> void sample_irq(const M &m, satasim_dut_pins &p) {
    if constexpr (HasIrq<M>::value)
        p.irq = m.irq;
    if constexpr (HasIrqPort<M>::value)
        p.irq_port = uint8_t(get_bits(m.irq_port, 0, kPorts));
}

void sample(const Vdut &m, satasim_dut_pins &p) {
    p.s_awready = m.s_awready;
    p.s_wready = m.s_wready;
    p.s_bresp = m.s_bresp;
    p.s_bvalid = m.s_bvalid;
    p.s_arready = m.s_arready;
    p.s_rdata = m.s_rdata;
    p.s_rresp = m.s_rresp;
    p.s_rvalid = m.s_rvalid;
    sample_irq(m, p);
    p.m_awaddr = uint64_t(get_bits(m.m_awaddr, 0, 32));
    p.m_araddr = uint64_t(get_bits(m.m_araddr, 0, 32));
    if (SATASIM_DUT_AW > 32) {
        p.m_awaddr |= uint64_t(get_bits(m.m_awaddr, 32, SATASIM_DUT_AW - 32)) << 32;
        p.m_araddr |= uint64_t(get_bits(m.m_araddr, 32, SATASIM_DUT_AW - 32)) << 32;
    }
    p.m_awlen = m.m_awlen;
    p.m_awsize = m.m_awsize;
    p.m_awburst = m.m_awburst;
    p.m_awvalid = m.m_awvalid;
    for (unsigned i = 0; i < kDw / 32; ++i)
        p.m_wdata[i] = get_bits(m.m_wdata, 32 * i, 32);
    p.m_wstrb = uint16_t(get_bits(m.m_wstrb, 0, kDw / 8));
    p.m_wlast = m.m_wlast;
    p.m_wvalid = m.m_wvalid;
    p.m_bready = m.m_bready;
    p.m_arlen = m.m_arlen;
    p.m_arsize = m.m_arsize;
    p.m_arburst = m.m_arburst;
    p.m_arvalid = m.m_arvalid;
    p.m_rready = m.m_rready;
    for (unsigned n = 0; n < kPorts; ++n) {
        p.phy_tx_data[n] = get_bits(m.phy_tx_data, kPhyW * n, kPhyW);
        p.phy_tx_isk[n] = uint8_t(get_bits(m.phy_tx_isk, kPhyW / 8 * n, kPhyW / 8));
        p.phy_comreset[n] = uint8_t(get_bits(m.phy_comreset, n, 1));
        p.phy_comwake[n] = uint8_t(get_bits(m.phy_comwake, n, 1));
        p.phy_offline[n] = uint8_t(get_bits(m.phy_offline, n, 1));
        p.phy_spd_limit[n] = uint8_t(get_bits(m.phy_spd_limit, 4 * n, 4));
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_ELECIDLE
        p.phy_tx_elecidle[n] = uint8_t(get_bits(m.phy_tx_elecidle, n, 1));
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_RATE
        p.phy_rate[n] = uint8_t(get_bits(m.phy_rate, 2 * n, 2));
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_RESET
        p.phy_reset[n] = uint8_t(get_bits(m.phy_reset, n, 1));
#endif
#if SATASIM_DUT_PHY_SBW
        p.phy_sb_ctrl[n] = get_bits(m.phy_sb_ctrl, SATASIM_DUT_PHY_SBW * n, SATASIM_DUT_PHY_SBW);
#endif
    }
}

void *dut_create(const char *wave_file) {
    auto *d = new Dut;
    d->ctx.threads(1); // no worker threads (forked scenario processes)
#if VM_TRACE
    if (wave_file)
        d->ctx.traceEverOn(true);
#endif
    d->m = std::make_unique<Vdut>(&d->ctx, "dut");
#if VM_TRACE
    if (wave_file) {
        d->vcd = std::make_unique<VerilatedVcdC>();
        d->m->trace(d->vcd.get(), 99);
        // the time axis is the shell's simulated time in picoseconds (pins.time_ps),
        // whatever timescale the DUT was verilated with
        d->vcd->set_time_unit("1ps");
        d->vcd->set_time_resolution("1ps");
        d->vcd->open(wave_file);
    }
#else
    (void)wave_file;
#endif
    d->m->clk = 0;
#if SATASIM_DUT_REG_CLOCK
    d->m->reg_clk = 0;
#endif
#if SATASIM_DUT_DMA_CLOCK
    d->m->dma_clk = 0;
#endif
    return d;
}

void dut_destroy(void *p) {
    auto *d = static_cast<Dut *>(p);
    d->m->final();
#if VM_COVERAGE
    // A coverage build: this instance's counters into $SATASIM_RTL_COVERAGE (a folder),
    // one file per instance (verilator_coverage merges them).
    if (const char *dir = std::getenv("SATASIM_RTL_COVERAGE"); dir && *dir) {
        static unsigned n = 0;
        const std::string f = std::string(dir) + "/dut-" + std::to_string(getpid()) + "-" + std::to_string(n++) + ".dat";
        d->ctx.coveragep()->write(f.c_str());
    }
#endif
#if VM_TRACE
    if (d->vcd)
        d->vcd->close();
#endif
    delete d;
}

#if VM_TRACE
// The VCD times of a step: the shell's time_low_ps (clocks low) and time_ps (the edges); a
// VCD's times must increase, so steps closer than a picosecond (clocks of nearly equal
// period) are spread out by one.
struct DumpTimes {
    uint64_t low, edge;
};
DumpTimes dump_times(Dut &d, const satasim_dut_pins &p) {
    const uint64_t floor = d.dumped ? d.last_edge_ps + 1 : 0;
    DumpTimes t;
    t.low = p.time_low_ps > floor ? p.time_low_ps : floor;
    t.edge = p.time_ps > t.low ? p.time_ps : t.low + 1;
    d.dumped = true;
    d.last_edge_ps = t.edge;
    return t;
}
#endif

void dut_tick(void *p, satasim_dut_pins *pins) {
    auto *d = static_cast<Dut *>(p);
    Vdut &m = *d->m;
#if VM_TRACE
    const DumpTimes times = d->vcd ? dump_times(*d, *pins) : DumpTimes{0, 0};
#endif
    drive(m, *pins);
    m.clk = 0;
#if SATASIM_DUT_PHY_CLOCKS
    m.phy_tx_clk = 0;
    set_bits(m.phy_rx_clk, 0, kPorts, 0);
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_REFCLK
    m.phy_refclk = 0;
#endif
#if SATASIM_DUT_REG_CLOCK
    m.reg_clk = 0;
#endif
#if SATASIM_DUT_DMA_CLOCK
    m.dma_clk = 0;
#endif
    m.eval();
    sample(m, *pins);
#if VM_TRACE
    if (d->vcd)
        d->vcd->dump(times.low);
#endif
    m.clk = (pins->clk_edges & SATASIM_DUT_EDGE_CORE) != 0;
#if SATASIM_DUT_PHY_CLOCKS
    m.phy_tx_clk = (pins->clk_edges & SATASIM_DUT_EDGE_PHY_TX) != 0;
    if (pins->clk_edges & SATASIM_DUT_EDGE_PHY_RX)
        set_bits(m.phy_rx_clk, 0, kPorts, pins->phy_rx_edges);
#endif
#if SATASIM_DUT_PHY_PINS & SATASIM_DUT_PHY_REFCLK
    m.phy_refclk = (pins->clk_edges & SATASIM_DUT_EDGE_PHY_REF) != 0;
#endif
#if SATASIM_DUT_REG_CLOCK
    m.reg_clk = (pins->clk_edges & SATASIM_DUT_EDGE_REG) != 0;
#endif
#if SATASIM_DUT_DMA_CLOCK
    m.dma_clk = (pins->clk_edges & SATASIM_DUT_EDGE_DMA) != 0;
#endif
    m.eval();
#if VM_TRACE
    if (d->vcd)
        d->vcd->dump(times.edge);
#endif
}

const satasim_dut_api kApi = {SATASIM_DUT_ABI_VERSION, kPorts, kDw, SATASIM_DUT_AW, kPhyW, SATASIM_DUT_PHY_CLOCKS,
                              SATASIM_DUT_RAW, SATASIM_DUT_PHY_PINS, SATASIM_DUT_PHY_SBW, SATASIM_DUT_REG_CLOCK,
                              SATASIM_DUT_DMA_CLOCK, kIrqOutputs, kRxErrorInputs, dut_create, dut_destroy, dut_tick};

} // namespace

extern "C" __attribute__((visibility("default"))) const satasim_dut_api *satasim_dut_api_v1() { return &kApi; }
