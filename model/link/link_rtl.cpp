// Back-to-back pair of verilated link layers ticked from C++ (see link_rtl.h).
#include "model/link/link_rtl.h"
#include "model/link/link_rtl_side.h"

#include "Vsata_link_pair.h"
#include "Vsata_link_pair___024root.h"
#include "verilated.h"

namespace satasim::link {

uint32_t crc32_sata_step(uint32_t crc, uint32_t dword) {
    for (int i = 31; i >= 0; --i) {
        uint32_t fb = (crc >> 31) ^ ((dword >> i) & 1u);
        crc <<= 1;
        if (fb)
            crc ^= 0x04C11DB7u;
    }
    return crc;
}

uint32_t crc32_sata(const uint32_t *dwords, size_t n) {
    uint32_t c = kCrcInit;
    for (size_t i = 0; i < n; ++i)
        c = crc32_sata_step(c, dwords[i]);
    return c;
}

void LinkRtlPair::Side::start_frame(const uint32_t *dwords, size_t n) {
    tx.assign(dwords, dwords + n);
    start_frame_unfilled(n);
}

void LinkRtlPair::Side::start_frame_unfilled(size_t n) {
    tx.resize(n);
    tx_pos = 0;
    tx_avail = SIZE_MAX;
    tx_req = true;
    tx_done = false;
    tx_status = 0;
    tx_dmat = false;
}

void LinkRtlPair::Side::clear_frame() {
    tx.clear();
    tx_pos = 0;
    tx_req = false;
    tx_done = false;
    tx_status = 0;
    tx_dmat = false;
    rx.clear();
    rx_end = rx_crc_ok = rx_abort = false;
    verdict = false;
}

LinkRtlPair::LinkRtlPair() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->threads(1); // no worker threads (docs/toolchain.md: forked children hang otherwise)
    m_ = std::make_unique<Vsata_link_pair>(ctx_.get(), "link");
    reset();
}

LinkRtlPair::~LinkRtlPair() { m_->final(); }

namespace {

// One dword clock: a rising edge of clk. The design has no falling-edge logic, so the
// falling-edge evaluation only recomputes combinational logic that the rising-edge
// evaluation recomputes anyway. With Verilator 5.006 the model detects an edge by comparing
// clk with the value it saw at the previous evaluation; resetting that value makes one
// evaluation a rising edge (no falling-edge evaluation at all). Any other Verilator
// version takes the portable two-evaluation path. Same results either way.
inline void rising_edge(Vsata_link_pair &m) {
#if defined(VERILATOR_VERSION_INTEGER) && VERILATOR_VERSION_INTEGER == 5006000
    m.rootp->__Vtrigrprev__TOP__clk = 0;
    m.clk = 1;
    m.eval();
#else
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
#endif
}

} // namespace

// The pair model's ports are h_<port> (host instance) and d_<port> (device instance).
#define SATASIM_BOTH(X) X(h_) X(d_)

void LinkRtlPair::reset() {
    host_.clear_frame();
    dev_.clear_frame();
    host_.rx_frames = dev_.rx_frames = 0;
    Vsata_link_pair &m = *m_;
    m.rst = 1;
    m.i_phy_rdy = 1;
#define SATASIM_RESET_IN(P)                                                                  \
    m.P##tx_req = 0;                                                                         \
    m.P##tx_valid = 0;                                                                       \
    m.P##rx_full = 0;                                                                        \
    m.P##rx_dmat = 0;                                                                        \
    m.P##rx_verdict = 0;                                                                     \
    m.P##rx_accept = 1;                                                                      \
    m.P##phy_rx_data = prim::kSync;                                                          \
    m.P##phy_rx_isk = 1;
    SATASIM_BOTH(SATASIM_RESET_IN)
#undef SATASIM_RESET_IN
    for (int i = 0; i < 2; ++i) {
        m.clk = 0;
        m.eval();
        m.clk = 1;
        m.eval();
    }
    m.rst = 0;
    for (auto &dir : wire_data_)
        dir.fill(prim::kSync);
    for (auto &dir : wire_isk_)
        dir.fill(true);
    wire_pos_ = 0;
}

void LinkRtlPair::set_phy_ready(bool ready) { m_->i_phy_rdy = ready; }

RtlState LinkRtlPair::state(bool host) const {
    return RtlState(host ? m_->h_state : m_->d_state);
}

void LinkRtlPair::tick() {
    // Ports through the model's root (plain members) rather than the wrapper's per-port
    // references: one pointer instead of one indirection per port access.
    Vsata_link_pair___024root &m = *m_->rootp;
    // Cable: each input gets what the peer put on the wire kWireDelay ticks ago.
    m.d_phy_rx_data = wire_data_[0][wire_pos_];
    m.d_phy_rx_isk = wire_isk_[0][wire_pos_];
    m.h_phy_rx_data = wire_data_[1][wire_pos_];
    m.h_phy_rx_isk = wire_isk_[1][wire_pos_];
    // Transport inputs of each side.
    SATASIM_LINK_SIDE_DRIVE(m, h_, host_)
    SATASIM_LINK_SIDE_DRIVE(m, d_, dev_)
    rising_edge(*m_);
    // Transport outputs of each side (all registered: valid after the rising edge).
    SATASIM_LINK_SIDE_COLLECT(m, h_, host_)
    SATASIM_LINK_SIDE_COLLECT(m, d_, dev_)
    uint32_t ho = m.h_phy_tx_data, dof = m.d_phy_tx_data;
    bool hko = m.h_phy_tx_isk, dko = m.d_phy_tx_isk;
    if (host_.record)
        host_.sent.emplace_back(ho, hko);
    if (dev_.record)
        dev_.sent.emplace_back(dof, dko);
    if (hook_) {
        hook_->on_dword(true, ho, hko);
        hook_->on_dword(false, dof, dko);
    }
    wire_data_[0][wire_pos_] = ho;
    wire_isk_[0][wire_pos_] = hko;
    wire_data_[1][wire_pos_] = dof;
    wire_isk_[1][wire_pos_] = dko;
    if (++wire_pos_ == kWireDelay)
        wire_pos_ = 0;
    ++cycles_;
}

#undef SATASIM_BOTH

} // namespace satasim::link
