// The PHY between a controller's 8-bit-symbol PHY interface (16 or 32 bits of data with a
// K flag per byte, docs/rtl-controller.md) and the far end's dword-wide link layer, in
// plain C++ (no SystemC): the RTL backend's shell (harness/src/backend/rtl/phy_port.h)
// and the reference controller's PHY adapter testbench (model/ahci_rtl/tb) share it.
//
//   PhyClocks    the edge schedule of the core clock, the PHY's transmit parallel clock
//                and its receive (recovered) clock, the last offset by a ppm figure, and
//                of the bus side's optional register and DMA clocks;
//   WordGearbox  16-bit words <-> dwords: the transmitter sends a dword's low half first,
//                the receiver aligns on the K byte (a word with the K flag on its low byte
//                is always a dword's low half), as a transceiver's comma alignment does;
//   ElasticQueue a receiver's elastic buffer for a clock offset: drops an ALIGN when too
//                full, repeats one when too empty (SATA's reason for sending ALIGN pairs).
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>

#include "model/link/link_rtl.h"

namespace satasim::link {

// Which clocks rise at one step of the shell (the ABI's clock-edge bits, dut_abi.h).
enum : unsigned { kEdgeCore = 1u, kEdgePhyTx = 2u, kEdgePhyRx = 4u, kEdgeReg = 8u, kEdgeDma = 16u };

class PhyClocks {
  public:
    // phy_width 32: the transmit clock is the core clock; 16: twice its rate, phase-locked
    // (every other transmit edge is a core edge). rx_ppm: the receive clock's period is
    // the transmit clock's shortened by rx_ppm millionths (a faster far end for rx_ppm > 0;
    // offset 1/(1 - ppm 1e-6) - 1, ppm 1e-6 within 0.1% at SATA's figures).
    PhyClocks(unsigned phy_width, int rx_ppm)
        : tx_(kUnit), core_(kUnit * 32 / phy_width), rx_(kUnit - rx_ppm) {}

    // The bus side's own clocks (the DUT's register and DMA clocks, dut_abi.h): a clock
    // of `mhz` beside a core clock of `core_mhz`, its first edge with the core clock's
    // first (its period rounded to the schedule's unit: a millionth of a PHY word).
    // Without it, the clock never rises.
    void add_bus_clock(unsigned edge, double mhz, double core_mhz) {
        const int64_t period = int64_t(double(core_) * core_mhz / mhz + 0.5);
        (edge == kEdgeReg ? reg_ : dma_) = period;
        (edge == kEdgeReg ? t_reg_ : t_dma_) = 0;
    }

    // The clocks that rise at the next step (kEdge* bits); time moves to it.
    unsigned next() {
        const int64_t t = std::min(std::min(t_core_, std::min(t_tx_, t_rx_)), std::min(t_reg_, t_dma_));
        unsigned m = 0;
        const auto rise = [&](int64_t &at, int64_t period, unsigned bit) {
            if (at == t) {
                m |= bit;
                at += period;
            }
        };
        rise(t_core_, core_, kEdgeCore);
        rise(t_tx_, tx_, kEdgePhyTx);
        rise(t_rx_, rx_, kEdgePhyRx);
        rise(t_reg_, reg_, kEdgeReg);
        rise(t_dma_, dma_, kEdgeDma);
        return m;
    }

  private:
    static constexpr int64_t kUnit = 1000000; // one transmit word period
    static constexpr int64_t kNever = INT64_MAX;
    int64_t tx_, core_, rx_, reg_ = 0, dma_ = 0;
    int64_t t_core_ = 0, t_tx_ = 0, t_rx_ = 0, t_reg_ = kNever, t_dma_ = kNever;
};

// A dword with its K flag (byte 0) on the link side.
struct LaneDword {
    uint32_t data = prim::kAlign;
    bool isk = true;
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
    // word and its K flags.
    bool needs_dword() const { return !w16_ || !hi_next_; }
    void load(const LaneDword &d) { cur_ = d; }
    void next_word(uint32_t &word, uint8_t &isk) {
        if (!w16_) {
            word = cur_.data;
            isk = cur_.isk ? 1 : 0;
            return;
        }
        word = hi_next_ ? cur_.data >> 16 : cur_.data & 0xFFFFu;
        isk = !hi_next_ && cur_.isk ? 1 : 0;
        hi_next_ = !hi_next_;
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
