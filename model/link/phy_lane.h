// The PHY between a controller's 8-bit-symbol PHY interface (16 or 32 bits of data with a
// K flag per byte, docs/rtl-controller.md) and the far end's dword-wide link layer, in
// plain C++ (no SystemC): the RTL backend's shell (harness/src/backend/rtl/phy_port.h)
// and the reference controller's PHY adapter testbench (model/ahci_rtl/tb) share it.
//
//   PhyClocks    the edge schedule of the core clock, the PHY's transmit parallel clock
//                and its receive (recovered) clocks, each offset by a ppm figure and
//                optionally spread (SSC), and of the bus side's optional register and
//                DMA clocks;
//   WordGearbox  16-bit words <-> dwords: the transmitter sends a dword's low half first,
//                the receiver aligns on the K byte (a word with the K flag on its low byte
//                is always a dword's low half), as a transceiver's comma alignment does;
//   ElasticQueue a receiver's elastic buffer for a clock offset: drops an ALIGN when too
//                full, repeats one when too empty (SATA's reason for sending ALIGN pairs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "model/link/link_rtl.h"

namespace satasim::link {

// Which clocks rise at one step of the shell (the ABI's clock-edge bits, dut_abi.h).
enum : unsigned { kEdgeCore = 1u, kEdgePhyTx = 2u, kEdgePhyRx = 4u, kEdgePhyRef = 8u, kEdgeReg = 16u, kEdgeDma = 32u };

// A receive clock's spread-spectrum clocking: a triangular down-spread of spread_ppm
// (the clock's frequency swings between nominal and spread_ppm below it, its period
// lengthened by up to spread_ppm millionths) with a period of period_words transmit words
// (the modulation frequency's period: SATA's 30-33 kHz, SATA 3.x 7 (?)). spread_ppm 0: none.
struct SscSpec {
    unsigned spread_ppm = 0;
    double period_words = 0;
};

class PhyClocks {
  public:
    // phy_width 32: the transmit clock is the core clock; 16: twice its rate, phase-locked
    // (every other transmit edge is a core edge). rx_ppm: the receive clock's period is
    // the transmit clock's shortened by rx_ppm millionths (a faster far end for rx_ppm > 0;
    // offset 1/(1 - ppm 1e-6) - 1, ppm 1e-6 within 0.1% at SATA's figures).
    PhyClocks(unsigned phy_width, int rx_ppm) : PhyClocks(phy_width, std::vector<int>{rx_ppm}, SscSpec{}) {}
    // One receive clock per port, each with its own offset; with SSC each is modulated,
    // port n's triangle starting n / ports of a period later (independent oscillators).
    // With one offset for every port and no SSC the ports share one clock (the edges of
    // the constructor above).
    PhyClocks(unsigned phy_width, const std::vector<int> &rx_ppm, const SscSpec &ssc)
        : tx_(kUnit), core_(kUnit * 32 / phy_width) {
        const int64_t ssc_period = ssc.spread_ppm ? int64_t(ssc.period_words * double(kUnit)) : 0;
        for (size_t n = 0; n < rx_ppm.size() && n < kMaxRx; ++n)
            rx_.push_back(Rx{kUnit - rx_ppm[n], 0, ssc.spread_ppm, ssc_period,
                             ssc_period ? ssc_period * int64_t(n) / int64_t(rx_ppm.size()) : 0});
        if (rx_.empty())
            rx_.push_back(Rx{kUnit, 0, 0, 0, 0});
    }

    // The PHY's reference clock (kEdgePhyRef), from which its PLL makes the transmit clock:
    // line rate = refclk x pll_n, and a phy_width-bit word carries phy_width / 8 10-bit
    // symbols, so the transmit word clock is refclk x pll_n / (10 phy_width / 8) and the
    // reference period 8 pll_n / (10 phy_width) words. Phase-locked: both clocks rise at
    // time 0; every reference edge is placed exactly (integer remainder carried), so it
    // never drifts from the transmit clock.
    void set_refclk(unsigned phy_width, unsigned pll_n) {
        ref_num_ = kUnit * 8 * int64_t(pll_n);
        ref_den_ = 10 * int64_t(phy_width);
        t_ref_ = 0;
        ref_rem_ = 0;
    }

    // The bus side's own clocks (the DUT's register and DMA clocks, dut_abi.h): a clock
    // of `mhz` beside a core clock of `core_mhz`, its first edge with the core clock's
    // first (its period rounded to the schedule's unit: a millionth of a PHY word).
    // Without it, the clock never rises.
    void add_bus_clock(unsigned edge, double mhz, double core_mhz) {
        const int64_t period = int64_t(double(core_) * core_mhz / mhz + 0.5);
        (edge == kEdgeReg ? reg_ : dma_) = period;
        (edge == kEdgeReg ? t_reg_ : t_dma_) = 0;
    }

    // The clocks that rise at the next step (kEdge* bits: kEdgePhyRx when any port's
    // receive clock rises, rx_edges() says whose); time moves to it.
    unsigned next() {
        int64_t t = std::min(std::min(t_core_, t_tx_), std::min(t_reg_, t_dma_));
        for (const Rx &r : rx_)
            t = std::min(t, r.t);
        if (ref_den_)
            t = std::min(t, t_ref_);
        now_ = t;
        unsigned m = 0;
        if (ref_den_ && t_ref_ == t) {
            m |= kEdgePhyRef;
            t_ref_ += ref_num_ / ref_den_;
            ref_rem_ += ref_num_ % ref_den_;
            if (ref_rem_ >= ref_den_) {
                ++t_ref_;
                ref_rem_ -= ref_den_;
            }
        }
        const auto rise = [&](int64_t &at, int64_t period, unsigned bit) {
            if (at == t) {
                m |= bit;
                at += period;
            }
        };
        rise(t_core_, core_, kEdgeCore);
        rise(t_tx_, tx_, kEdgePhyTx);
        rise(t_reg_, reg_, kEdgeReg);
        rise(t_dma_, dma_, kEdgeDma);
        rx_edges_ = 0;
        for (size_t n = 0; n < rx_.size(); ++n) {
            Rx &r = rx_[n];
            if (r.t != t)
                continue;
            rx_edges_ |= 1u << n;
            r.t += r.period + r.ssc_stretch();
        }
        if (rx_edges_)
            m |= kEdgePhyRx;
        return m;
    }
    // The time of the last step's edges, and the core clock's period, in the schedule's unit
    // (a millionth of a transmit word): the clocks' own time, which runs only while they step.
    int64_t now() const { return now_; }
    int64_t core_period() const { return core_; }
    // Bit n: port n's receive clock rose at the last step (every port's, with one clock).
    unsigned rx_edges() const { return rx_.size() == 1 ? (rx_edges_ ? 0xFFu : 0u) : rx_edges_; }

  private:
    static constexpr int64_t kUnit = 1000000; // one transmit word period
    static constexpr size_t kMaxRx = 8;
    static constexpr int64_t kNever = INT64_MAX;
    struct Rx {
        int64_t period; // without SSC
        int64_t t;      // its next edge
        unsigned spread; // SSC: down-spread in ppm of a word period (units of kUnit / 1e6)
        int64_t ssc_period, ssc_phase;
        // The SSC lengthening of the period that starts at t: spread x a triangle of the
        // modulation's phase (0 at the period's start, 1 at its middle).
        int64_t ssc_stretch() const {
            if (!ssc_period)
                return 0;
            const int64_t pos = (t + ssc_phase) % ssc_period, half = ssc_period / 2;
            const int64_t tri = pos < half ? pos : ssc_period - pos;
            return int64_t(spread) * tri / half;
        }
    };
    int64_t tx_, core_, reg_ = 0, dma_ = 0;
    std::vector<Rx> rx_;
    int64_t t_core_ = 0, t_tx_ = 0, t_reg_ = kNever, t_dma_ = kNever, now_ = 0;
    unsigned rx_edges_ = 0;
    int64_t ref_num_ = 0, ref_den_ = 0, t_ref_ = 0, ref_rem_ = 0; // reference clock (ref_den_ 0: none)
};

// A dword with its K flag (byte 0) on the link side, and the flags the receiver's 8b/10b
// decoder raises for it (a wire fault's symbol errors): bit n = byte n.
struct LaneDword {
    uint32_t data = prim::kAlign;
    bool isk = true;
    uint8_t code_err = 0, disp_err = 0;
};

// One PHY word toward a receiver: data, and per byte its K, code-error and disparity-error
// flags (bit n = byte n).
struct PhyWord {
    uint32_t data = 0;
    uint8_t isk = 0, code_err = 0, disp_err = 0;
};

// 16-bit words <-> dwords (see above). With 32-bit words both directions pass through.
class WordGearbox {
  public:
    explicit WordGearbox(unsigned phy_width) : w16_(phy_width == 16) {}

    // Receive side: one word (K flags per byte); true when `out` is a whole dword.
    // realigns() counts the half-dwords dropped where a K word came as a high half.
    bool take(uint32_t word, uint8_t isk, LaneDword &out) {
        if (!w16_) {
            out = {word, (isk & 1u) != 0};
            return true;
        }
        if (have_lo_ && !(isk & 1u)) {
            have_lo_ = false;
            out = {lo_ | (word & 0xFFFFu) << 16, lo_k_};
            return true;
        }
        realigns_ += have_lo_;
        have_lo_ = true;
        lo_ = word & 0xFFFFu;
        lo_k_ = isk & 1u;
        return false;
    }

    // Transmit side: whether the next word needs a new dword (load() it first), then the
    // word with its flags (the dword's bytes in it).
    bool needs_dword() const { return !w16_ || !hi_next_; }
    void load(const LaneDword &d) { cur_ = d; }
    PhyWord next_word() {
        if (!w16_)
            return {cur_.data, uint8_t(cur_.isk ? 1 : 0), cur_.code_err, cur_.disp_err};
        const unsigned shift = hi_next_ ? 16 : 0; // the high half carries bytes 2 and 3
        const PhyWord w{(cur_.data >> shift) & 0xFFFFu, uint8_t(!hi_next_ && cur_.isk ? 1 : 0),
                        uint8_t(cur_.code_err >> shift / 8 & 3u), uint8_t(cur_.disp_err >> shift / 8 & 3u)};
        hi_next_ = !hi_next_;
        return w;
    }

    // A PHY (re)start: the receiver unaligned; the transmitter starts with the high half
    // of an ALIGN, so the far receiver must find the word alignment itself.
    void reset() {
        have_lo_ = false;
        cur_ = LaneDword{};
        hi_next_ = true;
    }
    uint64_t realigns() const { return realigns_; }

  private:
    bool w16_;
    bool have_lo_ = false;
    uint32_t lo_ = 0;
    bool lo_k_ = false;
    LaneDword cur_;
    bool hi_next_ = true;
    uint64_t realigns_ = 0;
};

// A receiver's elastic buffer: dwords pushed at the far transmitter's rate, popped at the
// receiver's. Filled to kStart before the first pop; an ALIGN pushed above kHigh is
// dropped, an ALIGN at the head at or below kLow is given without being popped. Running
// empty after the start gives an ALIGN and counts an underflow (a real receiver would
// have lost a dword; with ALIGN pairs every 256 dwords and SATA's offsets it never does).
class ElasticQueue {
  public:
    static constexpr size_t kStart = 4, kLow = 2, kHigh = 6, kMax = 16;

    void push(const LaneDword &d) {
        if (d.isk && d.data == prim::kAlign && q_.size() > kHigh) {
            ++dropped_;
            return;
        }
        if (q_.size() >= kMax) {
            ++overflows_;
            return;
        }
        q_.push_back(d);
    }
    LaneDword pop() {
        if (!started_) {
            started_ = q_.size() >= kStart;
            return LaneDword{};
        }
        if (q_.empty()) {
            ++underflows_;
            started_ = false;
            return LaneDword{};
        }
        const LaneDword d = q_.front();
        if (d.isk && d.data == prim::kAlign && q_.size() <= kLow) {
            ++repeated_;
            return d;
        }
        q_.pop_front();
        return d;
    }
    void reset() {
        q_.clear();
        started_ = false;
    }
    size_t fill() const { return q_.size(); }
    uint64_t dropped() const { return dropped_; }
    uint64_t repeated() const { return repeated_; }
    uint64_t overflows() const { return overflows_; }
    uint64_t underflows() const { return underflows_; }

  private:
    std::deque<LaneDword> q_;
    bool started_ = false;
    uint64_t dropped_ = 0, repeated_ = 0, overflows_ = 0, underflows_ = 0;
};

} // namespace satasim::link
