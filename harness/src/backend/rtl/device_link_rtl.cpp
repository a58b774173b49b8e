#include "backend/rtl/device_link_rtl.h"

#include "Vsata_link.h"
#include "model/link/link_rtl_side.h"
#include "verilated.h"

namespace satasim::harness::rtl {

namespace {
void clock_edge(Vsata_link &m) {
    m.clk = 0;
    m.eval();
    m.clk = 1;
    m.eval();
}
} // namespace

DeviceLinkRtl::DeviceLinkRtl() : ctx_(std::make_unique<VerilatedContext>()) {
    ctx_->threads(1); // no worker threads (forked scenario processes)
    m_ = std::make_unique<Vsata_link>(ctx_.get(), "dev_link");
    m_->i_host = 0;
    reset();
}

DeviceLinkRtl::~DeviceLinkRtl() { m_->final(); }

void DeviceLinkRtl::reset() {
    side_.clear_frame();
    side_.rx_frames = 0;
    Vsata_link &m = *m_;
    m.rst = 1;
    m.i_phy_rdy = 0;
    m.i_tx_req = 0;
    m.i_tx_valid = 0;
    m.i_rx_full = 0;
    m.i_rx_dmat = 0;
    m.i_rx_verdict = 0;
    m.i_rx_accept = 1;
    m.i_phy_rx_data = link::prim::kSync;
    m.i_phy_rx_isk = 1;
    clock_edge(m);
    clock_edge(m);
    m.rst = 0;
}

void DeviceLinkRtl::tick(bool phy_rdy, uint32_t rx, bool rx_isk, uint32_t &tx, bool &tx_isk) {
    Vsata_link &m = *m_;
    m.i_phy_rdy = phy_rdy;
    m.i_phy_rx_data = rx;
    m.i_phy_rx_isk = rx_isk;
    SATASIM_LINK_SIDE_DRIVE(m, i_, side_)
    clock_edge(m);
    SATASIM_LINK_SIDE_COLLECT(m, o_, side_)
    tx = m.o_phy_tx_data;
    tx_isk = m.o_phy_tx_isk;
}

link::RtlState DeviceLinkRtl::state() const { return link::RtlState(m_->o_state); }

} // namespace satasim::harness::rtl
