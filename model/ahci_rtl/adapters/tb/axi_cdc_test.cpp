// Testbench of the AXI4 clock-domain crossing of a DMA master
// (model/ahci_rtl/adapters/satasim_axi_cdc.v, satasim_async_fifo.v; docs/rtl-controller.md,
// separate register and DMA clocks) alone: its core side on one clock, its memory side on
// another, two free-running clocks stepped in time order (coincident edges in one step,
// as the shell's schedule does).
//
//   axi_cdc_test CASE    CASE: c150d100 c150d50 c150d150 c150d150p c100d150 c50d200
//                        (core clock and DMA clock in MHz; p: the DMA clock's edges 0.4
//                        of a period after the core clock's instead of on them)
//
// Core side: a DMA master issuing kBursts random write bursts and kBursts random read
// bursts of 1..16 beats (every AW / AR field random: ID, address, length, size, burst
// type, cache, prot; W data and strobes random, WLAST on the last beat), up to 8 of each
// outstanding, W allowed one burst ahead of its AW (IHI0022E A3.3.1), VALID gaps at
// random, BREADY / RREADY low at random. Memory side: a slave raising its READYs at random,
// pairing W beats with their AW (beats before the AW wait), answering each write with one
// B (BID = AWID) and each read with LEN + 1 R beats (RID = ARID, random RDATA, RLAST on the
// last) after random delays and VALID gaps, with OKAY, EXOKAY, SLVERR and DECERR
// responses at random. Both sides change their READY odds in phases (mostly ready / mostly
// not) so that every FIFO runs full and empty.
//
// What is checked, per channel (AW, W, AR core -> memory; B, R memory -> core):
//   * stream: the beats taken at the far side are those handed over at the near side,
//     each once, unchanged (every field), in order;
//   * handshake (A3.2.1): the crossing's VALID on the far side stays up with its payload
//     until READY;
//   * crossing time: a beat shows on the far side no earlier than at the (SYNC + 1)th far
//     clock edge after the near edge that took it (SYNC synchronizer flip-flops and the
//     output register), and exactly then when nothing older was still in the FIFO; and the
//     near side never sees a free slot before the read that freed it went through SYNC
//     near-side flip-flops (READY high only while the beats handed over, minus those
//     taken at the far side before the near side's edge SYNC - 1 edges back, are at most
//     the FIFO's DEPTH: its entries, the output register holding one of the taken ones).
//     So a missing synchronizer stage on either pointer's way fails, though a zero-delay
//     simulation has no metastability to show it otherwise;
//   * Gray code: every pointer register that crosses (each FIFO's w_gray / r_gray, public
//     in the RTL) changes at most one bit per edge of its clock; a binary count does not;
//   * coverage: every FIFO was full at some point (READY low) and the error responses
//     were exercised (SLVERR and DECERR both reach the core side).
// And the traffic's own rules: the memory side sees WLAST exactly on each burst's last
// beat; the core side gets one B per write with its AWID, and LEN + 1 R beats per read
// with its ARID and RLAST on the last. Exit status 0 only if every check held.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vsatasim_axi_cdc.h"
#include "Vsatasim_axi_cdc___024root.h"
#include "model/ahci_rtl/adapters/tb/tb_fail.h"
#include "verilated.h"

// The verilated parameters (model/ahci_rtl/CMakeLists.txt passes the same values as -G).
#ifndef AXI_CDC_TB_SYNC
#error "AXI_CDC_TB_SYNC and the AXI_CDC_TB_*_DEPTH values come from CMakeLists.txt"
#endif

namespace {

using satasim_tb::fail;
using satasim_tb::g_failures;
using satasim_tb::g_step;

constexpr unsigned kSync = AXI_CDC_TB_SYNC;
constexpr unsigned kBursts = 1500;   // write bursts and read bursts each
constexpr unsigned kOutstanding = 8; // per direction, at the core side
constexpr uint64_t kMaxSteps = 4000000;
constexpr unsigned kOkay = 0, kExOkay = 1, kSlvErr = 2, kDecErr = 3;

using Model = Vsatasim_axi_cdc;

// One beat of any channel: two words of fields (layouts in the channel table below).
struct Beat {
    uint64_t a = 0, b = 0;
    bool operator==(const Beat &o) const { return a == o.a && b == o.b; }
};

// AW / AR fields packed into a Beat: a = address, b = id | len << 8 | size << 16 | burst << 20
// | cache << 24 | prot << 28.
Beat addr_beat(uint64_t addr, unsigned id, unsigned len, unsigned size, unsigned burst, unsigned cache,
               unsigned prot) {
    return Beat{addr, uint64_t(id) | uint64_t(len) << 8 | uint64_t(size) << 16 | uint64_t(burst) << 20 |
                          uint64_t(cache) << 24 | uint64_t(prot) << 28};
}
unsigned beat_id(const Beat &b) { return unsigned(b.b & 0xFF); }
unsigned beat_len(const Beat &b) { return unsigned(b.b >> 8 & 0xFF); }

// The crossing's checks on one channel: near side (where beats are handed over) and far
// side (where they come out), each on its own clock.
class Channel {
  public:
    struct Io {
        std::function<bool(const Model &)> near_valid, near_ready, far_valid, far_ready;
        std::function<Beat(const Model &)> near_beat, far_beat;
        std::function<unsigned(const Model &)> w_gray, r_gray; // the two crossing pointers
    };
    Channel(const char *name, unsigned depth, bool near_is_core, Io io)
        : name_(name), depth_(depth), near_core_(near_is_core), io_(std::move(io)) {}

    std::vector<Beat> sent, got; // handed over at the near side, taken at the far side
    uint64_t full_samples = 0;   // near-side samples with READY low (out of reset)

    // Outputs sampled before this step's edges: the handshakes of these edges. core / dma:
    // which clocks rise at this step; in_reset: either side still in reset.
    void step(const Model &m, bool core, bool dma, bool in_reset) {
        const bool near = near_core_ ? core : dma, far = near_core_ ? dma : core;
        const size_t pops_before = got.size();
        if (in_reset) {
            if (io_.far_valid(m))
                fail("%s: far-side VALID during reset", name_);
        } else {
            sample(m, near, far);
        }
        if (near)
            near_hist_.push_back(pops_before);
        far_edges_ += far;
    }
    // After this step's edges: the crossing pointers (Gray: one bit per edge of their clock).
    void pointers(const Model &m) {
        const unsigned w = io_.w_gray(m), r = io_.r_gray(m);
        if (__builtin_popcount(w ^ w_gray_) > 1)
            fail("%s: the write pointer that crosses went 0x%x -> 0x%x (%d bits at once: not Gray)", name_, w_gray_,
                 w, __builtin_popcount(w ^ w_gray_));
        if (__builtin_popcount(r ^ r_gray_) > 1)
            fail("%s: the read pointer that crosses went 0x%x -> 0x%x (%d bits at once: not Gray)", name_, r_gray_, r,
                 __builtin_popcount(r ^ r_gray_));
        w_gray_ = w;
        r_gray_ = r;
    }
    void finish() const {
        if (sent.size() != got.size())
            fail("%s: %zu beats handed over, %zu came out", name_, sent.size(), got.size());
        for (size_t i = 0; i < sent.size() && i < got.size(); ++i)
            if (!(sent[i] == got[i])) {
                fail("%s beat %zu: handed over %016llx %016llx, came out %016llx %016llx", name_, i,
                     (unsigned long long)sent[i].a, (unsigned long long)sent[i].b, (unsigned long long)got[i].a,
                     (unsigned long long)got[i].b);
                break;
            }
        if (full_samples == 0)
            fail("%s: the FIFO never ran full (the test's back-pressure phases do not reach it)", name_);
    }
    const char *name() const { return name_; }

  private:
    void sample(const Model &m, bool near, bool far) {
        const bool fv = io_.far_valid(m);
        // a beat newly on the far side: how many far edges since the near edge that took it
        if (fv && !shown_) {
            const size_t i = got.size();
            if (i >= sent.size()) {
                fail("%s: far-side VALID with no beat handed over (%zu out of %zu)", name_, i + 1, sent.size());
            } else {
                const uint64_t d = far_edges_ - push_far_[i];
                if (d < kSync + 1)
                    fail("%s beat %zu: out %llu far edges after it was taken (synchronizer: at least %u)", name_, i,
                         (unsigned long long)d, kSync + 1);
                else if (push_free_[i] && d != kSync + 1)
                    fail("%s beat %zu: out %llu far edges after it was taken into an empty FIFO (expected %u)", name_,
                         i, (unsigned long long)d, kSync + 1);
            }
            shown_ = true;
        }
        // the near side's READY: a free slot only as far as the synchronized read pointer says
        if (near) {
            if (io_.near_ready(m)) {
                // near edges 0..k-1 so far; the read pointer the near side sees now went
                // through kSync flip-flops: it is the one of before edge k - kSync
                const size_t k = near_hist_.size();
                const size_t popped = k >= kSync ? near_hist_[k - kSync] : 0;
                if (sent.size() - popped > depth_)
                    fail("%s: near-side READY with %zu beats in flight, %zu of them taken at the far side %u near "
                         "edges ago (room for %u: a read seen before its synchronizer)",
                         name_, sent.size(), popped, kSync - 1, depth_);
            } else {
                ++full_samples;
            }
        }
        // far side: VALID and payload held until READY
        if (far) {
            const Beat fb = io_.far_beat(m);
            if (held_ && (!fv || !(fb == held_beat_)))
                fail("%s: far-side VALID or payload changed before READY", name_);
            const bool fr = io_.far_ready(m);
            held_ = fv && !fr;
            held_beat_ = fb;
            if (fv && fr) {
                got.push_back(fb);
                shown_ = false;
            }
        }
        if (near && io_.near_valid(m) && io_.near_ready(m)) {
            sent.push_back(io_.near_beat(m));
            push_far_.push_back(far_edges_ + far); // far edges up to and with this step's
            push_free_.push_back(got.size() + 1 == sent.size());
        }
    }

    const char *name_;
    unsigned depth_;
    bool near_core_;
    Io io_;
    uint64_t far_edges_ = 0;
    std::vector<uint64_t> push_far_;
    std::vector<bool> push_free_;
    std::vector<size_t> near_hist_; // per near edge: beats taken at the far side before it
    bool shown_ = false, held_ = false;
    Beat held_beat_;
    unsigned w_gray_ = 0, r_gray_ = 0;
};

// READY / VALID odds that change in phases: mostly ready, then mostly not.
class Odds {
  public:
    explicit Odds(std::mt19937 &rng) : rng_(rng) {}
    bool ready() {
        if (++n_ % 300 == 0)
            slow_ = rng_() % 3 == 0;
        return rng_() % 100 < (slow_ ? 3u : 85u);
    }
    bool chance(unsigned pct) { return rng_() % 100 < pct; }

  private:
    std::mt19937 &rng_;
    uint64_t n_ = 0;
    bool slow_ = false;
};

unsigned random_resp(std::mt19937 &rng) {
    const unsigned r = rng() % 100;
    return r < 88 ? kOkay : r < 90 ? kExOkay : r < 95 ? kSlvErr : kDecErr;
}

// The core side's DMA master (moves on core clock edges).
class Master {
  public:
    explicit Master(std::mt19937 &rng) : rng_(rng), odds_(rng) {
        for (unsigned i = 0; i < kBursts; ++i) {
            wr_.push_back(random_addr());
            std::vector<Beat> beats;
            for (unsigned k = 0; k <= beat_len(wr_.back()); ++k)
                beats.push_back(Beat{uint64_t(rng_()) << 32 | rng_(), uint64_t(rng_() & 0xFF) |
                                                                      uint64_t(k == beat_len(wr_.back())) << 8});
            w_.push_back(beats);
            rd_.push_back(random_addr());
        }
    }
    bool finished() const { return b_got_ == kBursts && r_done_ == kBursts; }
    unsigned errors_seen() const { return errors_; }

    void drive(Model &m) {
        if (!aw_v_ && aw_n_ < kBursts && aw_n_ - b_got_ < kOutstanding && odds_.chance(70))
            aw_v_ = true;
        if (!w_v_ && w_n_ < kBursts && w_n_ <= aw_n_ && odds_.chance(70))
            w_v_ = true; // W of burst aw_n_ may go before its AW
        if (!ar_v_ && ar_n_ < kBursts && ar_n_ - r_done_ < kOutstanding && odds_.chance(70))
            ar_v_ = true;
        const Beat aw = aw_n_ < kBursts ? wr_[aw_n_] : Beat{};
        m.s_awvalid = aw_v_;
        m.s_awaddr = aw.a;
        m.s_awid = aw.b & 0xF;
        m.s_awlen = aw.b >> 8 & 0xFF;
        m.s_awsize = aw.b >> 16 & 7;
        m.s_awburst = aw.b >> 20 & 3;
        m.s_awcache = aw.b >> 24 & 0xF;
        m.s_awprot = aw.b >> 28 & 7;
        const Beat w = w_n_ < kBursts ? w_[w_n_][w_k_] : Beat{};
        m.s_wvalid = w_v_;
        m.s_wdata = w.a;
        m.s_wstrb = w.b & 0xFF;
        m.s_wlast = w.b >> 8 & 1;
        const Beat ar = ar_n_ < kBursts ? rd_[ar_n_] : Beat{};
        m.s_arvalid = ar_v_;
        m.s_araddr = ar.a;
        m.s_arid = ar.b & 0xF;
        m.s_arlen = ar.b >> 8 & 0xFF;
        m.s_arsize = ar.b >> 16 & 7;
        m.s_arburst = ar.b >> 20 & 3;
        m.s_arcache = ar.b >> 24 & 0xF;
        m.s_arprot = ar.b >> 28 & 7;
        m.s_bready = bready_ = odds_.ready();
        m.s_rready = rready_ = odds_.ready();
    }

    void edge(const Model &m) {
        if (aw_v_ && m.s_awready) {
            aw_v_ = false;
            ++aw_n_;
        }
        if (w_v_ && m.s_wready) {
            w_v_ = false;
            if (++w_k_ == w_[w_n_].size()) {
                w_k_ = 0;
                ++w_n_;
            }
        }
        if (ar_v_ && m.s_arready) {
            ar_v_ = false;
            ++ar_n_;
        }
        if (m.s_bvalid && bready_) {
            if (b_got_ >= aw_n_)
                fail("core side: a B with no write outstanding");
            else if (m.s_bid != beat_id(wr_[b_got_]))
                fail("core side: write %u's B has BID %u, its AWID was %u", b_got_, m.s_bid, beat_id(wr_[b_got_]));
            errors_ += m.s_bresp >= kSlvErr;
            ++b_got_;
        }
        if (m.s_rvalid && rready_) {
            if (r_done_ >= ar_n_) {
                fail("core side: an R beat with no read outstanding");
            } else {
                const Beat &ar = rd_[r_done_];
                const bool last = r_k_ == beat_len(ar);
                if (m.s_rid != beat_id(ar))
                    fail("core side: read %u beat %u has RID %u, its ARID was %u", r_done_, r_k_, m.s_rid,
                         beat_id(ar));
                if (bool(m.s_rlast) != last)
                    fail("core side: read %u beat %u of %u: RLAST %u", r_done_, r_k_ + 1, beat_len(ar) + 1,
                         m.s_rlast);
                errors_ += m.s_rresp >= kSlvErr;
                if (last) {
                    r_k_ = 0;
                    ++r_done_;
                } else {
                    ++r_k_;
                }
            }
        }
    }

  private:
    Beat random_addr() {
        const uint64_t addr = uint64_t(rng_()) << 32 | rng_();
        return addr_beat(addr, rng_() % 16, rng_() % 16, rng_() % 4, rng_() % 3, rng_() % 16, rng_() % 8);
    }
    std::mt19937 &rng_;
    Odds odds_;
    std::vector<Beat> wr_, rd_;
    std::vector<std::vector<Beat>> w_;
    unsigned aw_n_ = 0, w_n_ = 0, w_k_ = 0, ar_n_ = 0, b_got_ = 0, r_done_ = 0, r_k_ = 0, errors_ = 0;
    bool aw_v_ = false, w_v_ = false, ar_v_ = false, bready_ = false, rready_ = false;
};

// The memory side's AXI4 slave (moves on DMA clock edges).
class Slave {
  public:
    explicit Slave(std::mt19937 &rng) : rng_(rng), odds_(rng) {}
    unsigned errors_sent() const { return errors_; }

    void drive(Model &m) {
        m.m_awready = awready_ = odds_.ready();
        m.m_wready = wready_ = odds_.ready();
        m.m_arready = arready_ = odds_.ready();
        if (!bvalid_ && !b_q_.empty() && b_q_.front().at <= cycle_ && odds_.chance(60)) {
            bvalid_ = true;
            bresp_ = random_resp(rng_);
        }
        m.m_bvalid = bvalid_;
        m.m_bid = bvalid_ ? b_q_.front().id : 0;
        m.m_bresp = bvalid_ ? bresp_ : 0;
        if (!rvalid_ && !r_q_.empty() && r_q_.front().at <= cycle_ && odds_.chance(60)) {
            rvalid_ = true;
            rdata_ = uint64_t(rng_()) << 32 | rng_();
            rresp_ = random_resp(rng_);
        }
        m.m_rvalid = rvalid_;
        m.m_rid = rvalid_ ? r_q_.front().id : 0;
        m.m_rdata = rvalid_ ? rdata_ : 0;
        m.m_rresp = rvalid_ ? rresp_ : 0;
        m.m_rlast = rvalid_ && r_q_.front().done == r_q_.front().len;
    }

    void edge(const Model &m) {
        if (m.m_awvalid && awready_)
            aw_q_.push_back(Pending{m.m_awid, m.m_awlen, 0, 0});
        if (m.m_wvalid && wready_)
            w_beats_.push_back(m.m_wlast);
        // a write whose AW and every W beat are in: WLAST on its last beat only, then its B
        while (!aw_q_.empty() && w_beats_.size() > aw_q_.front().len) {
            const Pending &p = aw_q_.front();
            for (unsigned k = 0; k <= p.len; ++k)
                if (w_beats_[k] != (k == p.len))
                    fail("memory side: write %u beat %u of %u has WLAST %u", writes_, k + 1, p.len + 1,
                         unsigned(w_beats_[k]));
            w_beats_.erase(w_beats_.begin(), w_beats_.begin() + p.len + 1);
            b_q_.push_back(Pending{p.id, 0, 0, cycle_ + rng_() % 7});
            aw_q_.pop_front();
            ++writes_;
        }
        if (m.m_arvalid && arready_)
            r_q_.push_back(Pending{m.m_arid, m.m_arlen, 0, cycle_ + 1 + rng_() % 8});
        if (bvalid_ && m.m_bready) {
            bvalid_ = false;
            errors_ += bresp_ >= kSlvErr;
            b_q_.pop_front();
        }
        if (rvalid_ && m.m_rready) {
            rvalid_ = false;
            errors_ += rresp_ >= kSlvErr;
            if (r_q_.front().done++ == r_q_.front().len)
                r_q_.pop_front();
        }
        ++cycle_;
    }

  private:
    struct Pending {
        unsigned id, len, done;
        uint64_t at; // cycle from which its response may go out
    };
    std::mt19937 &rng_;
    Odds odds_;
    uint64_t cycle_ = 0;
    std::deque<Pending> aw_q_, b_q_, r_q_;
    std::deque<bool> w_beats_; // WLAST of each W beat not yet paired with its AW
    bool awready_ = false, wready_ = false, arready_ = false, bvalid_ = false, rvalid_ = false;
    unsigned bresp_ = 0, rresp_ = 0, writes_ = 0, errors_ = 0;
    uint64_t rdata_ = 0;
};

// The five channels as the crossing's ports and public pointers present them.
std::vector<Channel> channels() {
    std::vector<Channel> c;
    auto addr = [](uint64_t a, unsigned id, unsigned len, unsigned size, unsigned burst, unsigned cache,
                   unsigned prot) { return addr_beat(a, id, len, size, burst, cache, prot); };
    c.emplace_back(
        "AW", AXI_CDC_TB_AW_DEPTH, true,
        Channel::Io{[](const Model &m) { return bool(m.s_awvalid); }, [](const Model &m) { return bool(m.s_awready); },
                    [](const Model &m) { return bool(m.m_awvalid); }, [](const Model &m) { return bool(m.m_awready); },
                    [addr](const Model &m) {
                        return addr(m.s_awaddr, m.s_awid, m.s_awlen, m.s_awsize, m.s_awburst, m.s_awcache, m.s_awprot);
                    },
                    [addr](const Model &m) {
                        return addr(m.m_awaddr, m.m_awid, m.m_awlen, m.m_awsize, m.m_awburst, m.m_awcache, m.m_awprot);
                    },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__aw_fifo__DOT__w_gray); },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__aw_fifo__DOT__r_gray); }});
    c.emplace_back(
        "W", AXI_CDC_TB_W_DEPTH, true,
        Channel::Io{[](const Model &m) { return bool(m.s_wvalid); }, [](const Model &m) { return bool(m.s_wready); },
                    [](const Model &m) { return bool(m.m_wvalid); }, [](const Model &m) { return bool(m.m_wready); },
                    [](const Model &m) { return Beat{m.s_wdata, uint64_t(m.s_wstrb) | uint64_t(m.s_wlast) << 8}; },
                    [](const Model &m) { return Beat{m.m_wdata, uint64_t(m.m_wstrb) | uint64_t(m.m_wlast) << 8}; },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__w_fifo__DOT__w_gray); },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__w_fifo__DOT__r_gray); }});
    c.emplace_back(
        "AR", AXI_CDC_TB_AR_DEPTH, true,
        Channel::Io{[](const Model &m) { return bool(m.s_arvalid); }, [](const Model &m) { return bool(m.s_arready); },
                    [](const Model &m) { return bool(m.m_arvalid); }, [](const Model &m) { return bool(m.m_arready); },
                    [addr](const Model &m) {
                        return addr(m.s_araddr, m.s_arid, m.s_arlen, m.s_arsize, m.s_arburst, m.s_arcache, m.s_arprot);
                    },
                    [addr](const Model &m) {
                        return addr(m.m_araddr, m.m_arid, m.m_arlen, m.m_arsize, m.m_arburst, m.m_arcache, m.m_arprot);
                    },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__ar_fifo__DOT__w_gray); },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__ar_fifo__DOT__r_gray); }});
    c.emplace_back(
        "B", AXI_CDC_TB_B_DEPTH, false,
        Channel::Io{[](const Model &m) { return bool(m.m_bvalid); }, [](const Model &m) { return bool(m.m_bready); },
                    [](const Model &m) { return bool(m.s_bvalid); }, [](const Model &m) { return bool(m.s_bready); },
                    [](const Model &m) { return Beat{uint64_t(m.m_bid) | uint64_t(m.m_bresp) << 8, 0}; },
                    [](const Model &m) { return Beat{uint64_t(m.s_bid) | uint64_t(m.s_bresp) << 8, 0}; },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__b_fifo__DOT__w_gray); },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__b_fifo__DOT__r_gray); }});
    c.emplace_back(
        "R", AXI_CDC_TB_R_DEPTH, false,
        Channel::Io{[](const Model &m) { return bool(m.m_rvalid); }, [](const Model &m) { return bool(m.m_rready); },
                    [](const Model &m) { return bool(m.s_rvalid); }, [](const Model &m) { return bool(m.s_rready); },
                    [](const Model &m) {
                        return Beat{m.m_rdata, uint64_t(m.m_rid) | uint64_t(m.m_rresp) << 8 | uint64_t(m.m_rlast) << 16};
                    },
                    [](const Model &m) {
                        return Beat{m.s_rdata, uint64_t(m.s_rid) | uint64_t(m.s_rresp) << 8 | uint64_t(m.s_rlast) << 16};
                    },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__r_fifo__DOT__w_gray); },
                    [](const Model &m) { return unsigned(m.rootp->satasim_axi_cdc__DOT__r_fifo__DOT__r_gray); }});
    return c;
}

// Two free-running clocks in time order (femtoseconds): the edges that rise at the next step.
class TwoClocks {
  public:
    TwoClocks(double core_mhz, double dma_mhz, double dma_phase)
        : pc_(int64_t(1e9 / core_mhz + 0.5)), pd_(int64_t(1e9 / dma_mhz + 0.5)), td_(int64_t(dma_phase * double(pd_))) {}
    unsigned next() { // bit 0: core edge, bit 1: DMA edge
        const int64_t t = std::min(tc_, td_);
        unsigned e = 0;
        if (tc_ == t) {
            e |= 1;
            tc_ += pc_;
        }
        if (td_ == t) {
            e |= 2;
            td_ += pd_;
        }
        return e;
    }

  private:
    int64_t pc_, pd_, tc_ = 0, td_;
};

int run(const char *name, double core_mhz, double dma_mhz, double phase) {
    VerilatedContext ctx;
    auto m = std::make_unique<Model>(&ctx, "axi_cdc");
    std::mt19937 rng(0xA71CDCu ^ unsigned(core_mhz * 1000 + dma_mhz + phase * 7));
    Master master(rng);
    Slave slave(rng);
    std::vector<Channel> ch = channels();
    TwoClocks clocks(core_mhz, dma_mhz, phase);
    // power-on: each reset 8 cycles of its own clock, from the same instant
    unsigned s_left = 8, m_left = 8;
    m->s_rst = m->m_rst = 1;
    uint64_t core_edges = 0, dma_edges = 0;
    for (g_step = 0; g_step < kMaxSteps && !master.finished() && g_failures == 0; ++g_step) {
        const unsigned e = clocks.next();
        const bool core = e & 1, dma = e & 2;
        const bool in_reset = m->s_rst || m->m_rst;
        if (core && !in_reset)
            master.drive(*m);
        if (dma && !in_reset)
            slave.drive(*m);
        m->s_clk = 0;
        m->m_clk = 0;
        m->eval();
        for (Channel &c : ch)
            c.step(*m, core, dma, in_reset);
        if (core && !in_reset)
            master.edge(*m);
        if (dma && !in_reset)
            slave.edge(*m);
        m->s_clk = core;
        m->m_clk = dma;
        m->eval();
        for (Channel &c : ch)
            c.pointers(*m);
        core_edges += core;
        dma_edges += dma;
        if (core && s_left && --s_left == 0)
            m->s_rst = 0;
        if (dma && m_left && --m_left == 0)
            m->m_rst = 0;
    }
    m->final();
    if (!master.finished())
        fail("the traffic did not complete within %llu steps", (unsigned long long)kMaxSteps);
    for (const Channel &c : ch)
        c.finish();
    if (master.errors_seen() != slave.errors_sent() || slave.errors_sent() == 0)
        fail("error responses: the memory side sent %u SLVERR / DECERR, the core side saw %u", slave.errors_sent(),
             master.errors_seen());
    std::printf("axi_cdc %s (core %.0f MHz, DMA %.0f MHz, phase %.1f): AW %zu W %zu AR %zu B %zu R %zu beats, %u error "
                "responses, full samples AW %llu W %llu AR %llu B %llu R %llu, %llu core and %llu DMA cycles: %s\n",
                name, core_mhz, dma_mhz, phase, ch[0].got.size(), ch[1].got.size(), ch[2].got.size(), ch[3].got.size(),
                ch[4].got.size(), slave.errors_sent(), (unsigned long long)ch[0].full_samples,
                (unsigned long long)ch[1].full_samples, (unsigned long long)ch[2].full_samples,
                (unsigned long long)ch[3].full_samples, (unsigned long long)ch[4].full_samples,
                (unsigned long long)core_edges, (unsigned long long)dma_edges, g_failures ? "FAILED" : "ok");
    return g_failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
    const struct {
        const char *name;
        double core, dma, phase;
    } cases[] = {{"c150d100", 150, 100, 0},  {"c150d50", 150, 50, 0},   {"c150d150", 150, 150, 0},
                 {"c150d150p", 150, 150, 0.4}, {"c100d150", 100, 150, 0}, {"c50d200", 50, 200, 0}};
    if (argc == 2)
        for (const auto &c : cases)
            if (std::strcmp(argv[1], c.name) == 0)
                return run(c.name, c.core, c.dma, c.phase);
    std::fprintf(stderr, "usage: axi_cdc_test c150d100|c150d50|c150d150|c150d150p|c100d150|c50d200\n");
    return 2;
}
