// Back-to-back pair of verilated link layers ticked from C++ (see link_rtl.h).
#include "model/link/link_rtl.h"

#include "Vsata_link.h"
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
    ctx_->threads(1); // no worker threads (toolchain.md: forked children hang otherwise)
    h_ = std::make_unique<Vsata_link>(ctx_.get(), "host");
    d_ = std::make_unique<Vsata_link>(ctx_.get(), "device");
    h_->i_host = 1;
    d_->i_host = 0;
    reset();
}

LinkRtlPair::~LinkRtlPair() {
    h_->final();
    d_->final();
}

void LinkRtlPair::reset() {
    host_.clear_frame();
    dev_.clear_frame();
    host_.rx_frames = dev_.rx_frames = 0;
    for (auto *m : {h_.get(), d_.get()}) {
        m->rst = 1;
        m->i_phy_rdy = 1;
        m->i_tx_req = 0;
        m->i_tx_valid = 0;
        m->i_rx_full = 0;
        m->i_rx_dmat = 0;
        m->i_rx_verdict = 0;
        m->i_rx_accept = 1;
        m->i_phy_rx_data = prim::kSync;
        m->i_phy_rx_isk = 1;
        for (int i = 0; i < 2; ++i) {
            m->clk = 0;
            m->eval();
            m->clk = 1;
            m->eval();
        }
        m->rst = 0;
    }
    for (auto &dir : wire_data_)
        dir.fill(prim::kSync);
    for (auto &dir : wire_isk_)
        dir.fill(true);
    wire_pos_ = 0;
}

void LinkRtlPair::set_phy_ready(bool ready) {
    h_->i_phy_rdy = ready;
    d_->i_phy_rdy = ready;
}

RtlState LinkRtlPair::state(bool host) const {
    return RtlState(host ? h_->o_state : d_->o_state);
}

inline void LinkRtlPair::drive(Vsata_link &m, Side &s) {
    m.i_tx_req = s.tx_req;
    if (s.tx_pos < s.tx.size() && s.tx_pos < s.tx_avail) {
        m.i_tx_valid = 1;
        m.i_tx_data = s.tx[s.tx_pos];
        m.i_tx_last = s.tx_pos + 1 == s.tx.size();
    } else {
        m.i_tx_valid = 0;
        m.i_tx_last = 0;
    }
    m.i_rx_full = s.rx_full;
    m.i_rx_dmat = s.rx_dmat;
    m.i_rx_verdict = s.verdict;
    m.i_rx_accept = s.accept;
}

inline void LinkRtlPair::collect(Vsata_link &m, Side &s) {
    if (m.o_tx_pop)
        ++s.tx_pos;
    if (m.o_rx_sof) {
        s.rx.clear();
        s.rx_end = s.rx_crc_ok = s.rx_abort = false;
        ++s.rx_frames;
    }
    if (m.o_rx_valid)
        s.rx.push_back(m.o_rx_data);
    if (m.o_rx_end) {
        s.rx_end = true;
        s.rx_crc_ok = m.o_rx_crc_ok;
        if (s.auto_verdict)
            s.verdict = true;
    }
    if (m.o_rx_abort)
        s.rx_abort = true;
    if (m.o_tx_done) {
        s.tx_done = true;
        s.tx_req = false;
        s.tx_status = m.o_tx_status;
        s.tx_dmat = m.o_tx_dmat;
    }
    if (m.o_bad_prim)
        ++s.bad_prims;
}

void LinkRtlPair::tick() {
    // Cable: each input gets what the peer put on the wire kWireDelay ticks ago.
    uint32_t hd = wire_data_[0][wire_pos_], dd = wire_data_[1][wire_pos_];
    bool hk = wire_isk_[0][wire_pos_], dk = wire_isk_[1][wire_pos_];
    d_->i_phy_rx_data = hd;
    d_->i_phy_rx_isk = hk;
    h_->i_phy_rx_data = dd;
    h_->i_phy_rx_isk = dk;
    drive(*h_, host_);
    drive(*d_, dev_);
    h_->clk = 0;
    h_->eval();
    d_->clk = 0;
    d_->eval();
    h_->clk = 1;
    h_->eval();
    d_->clk = 1;
    d_->eval();
    collect(*h_, host_);
    collect(*d_, dev_);
    uint32_t ho = h_->o_phy_tx_data, dof = d_->o_phy_tx_data;
    bool hko = h_->o_phy_tx_isk, dko = d_->o_phy_tx_isk;
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

} // namespace satasim::link
