// Testbench of the register-bus adapters (model/ahci_rtl/adapters, docs/rtl-controller.md,
// adapters): each adapter of tb/adapters_tb_top.v between an AXI4-Lite master (what the
// shell does, and more: AW / W in either order, a write and a read at once, held-off
// BREADY / RREADY) and a register file of the adapter's protocol that checks the
// protocol's rules cycle by cycle and injects wait states and error responses.
//
//   adapters_test LANE     LANE: axi4 axi3 ahb apb4 apb3; runs every case on that adapter
//
// Cases: rw (random words, read back), strobes (all 16 WSTRB patterns), errors (error
// responses -> SLVERR / DECERR, nothing written; on AXI the slave's own rule breaks: wrong
// BID / RID, EXOKAY, a missing RLAST), b2b (no wait states anywhere, accesses back to back
// and a write beside a read; cycles per access bounded), waits (long wait states on every
// handshake). Exit status 0 only if every check held.
#include <algorithm>
#include <array>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vadapters_tb_top.h"
#include "verilated.h"

namespace {

int g_failures = 0;
uint64_t g_cycle = 0;
const char *g_case = "";

void fail(const char *fmt, ...) {
    if (++g_failures > 20)
        return;
    std::va_list ap;
    va_start(ap, fmt);
    std::fprintf(stderr, "FAIL [%s] cycle %llu: ", g_case, static_cast<unsigned long long>(g_cycle));
    std::vfprintf(stderr, fmt, ap);
    std::fputc('\n', stderr);
    va_end(ap);
}

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond))                                                                               \
            fail(__VA_ARGS__);                                                                     \
    } while (0)

// One port of the verilated top, whatever its C type (CData .. QData).
struct Sig {
    void *p = nullptr;
    unsigned size = 0;
    Sig() = default;
    template <class T>
    Sig(T &r) : p(&r), size(sizeof(T)) {}
    bool present() const { return p != nullptr; }
    uint64_t get() const {
        switch (size) {
        case 1: return *static_cast<uint8_t *>(p);
        case 2: return *static_cast<uint16_t *>(p);
        case 4: return *static_cast<uint32_t *>(p);
        default: return *static_cast<uint64_t *>(p);
        }
    }
    void set(uint64_t v) const {
        switch (size) {
        case 1: *static_cast<uint8_t *>(p) = uint8_t(v); break;
        case 2: *static_cast<uint16_t *>(p) = uint16_t(v); break;
        case 4: *static_cast<uint32_t *>(p) = uint32_t(v); break;
        default: *static_cast<uint64_t *>(p) = v; break;
        }
    }
};

std::mt19937 g_rng(12345);
unsigned rnd(unsigned n) { return n ? unsigned(g_rng() % n) : 0; }
bool chance(unsigned pct) { return rnd(100) < pct; }

constexpr uint32_t kErrBase = 0xF00;   // offsets 0xF00..0xFFF answer an error
constexpr uint32_t kDecerrBase = 0xF80; // AXI: 0xF80..0xFFF answer DECERR, below SLVERR
constexpr unsigned kWords = 1024;

uint32_t initial_word(unsigned i) { return 0x5A5A0000u ^ (i * 0x00010001u) ^ 0x1234u; }
uint32_t merge(uint32_t old, uint32_t val, unsigned strb) {
    uint32_t m = 0;
    for (unsigned b = 0; b < 4; ++b)
        if (strb >> b & 1)
            m |= 0xFFu << (8 * b);
    return (old & ~m) | (val & m);
}

// How hard the slave pushes back: chance per cycle that a READY is held low, and the
// most cycles a response (B, R, HREADY, PREADY) waits.
struct Stall {
    unsigned ready_pct = 0;
    unsigned max_delay = 0;
};

// ---- the shell side: an AXI4-Lite master ------------------------------------------------

struct AxilPins {
    Sig awaddr, awvalid, awready, wdata, wstrb, wvalid, wready, bresp, bvalid, bready;
    Sig araddr, arvalid, arready, rdata, rresp, rvalid, rready;
};

struct Op {
    bool write = false;
    uint32_t addr = 0, data = 0;
    unsigned strb = 0xF;
    unsigned aw_delay = 0, w_delay = 0, resp_delay = 0; // cycles before AWVALID / WVALID / READY
    bool overlap = false; // may start while the previous op is still in flight
    // results
    bool done = false;
    unsigned resp = 0;
    uint32_t rdata = 0;
    uint64_t start = 0, end = 0;
};

class AxilMaster {
public:
    explicit AxilMaster(AxilPins p) : p_(p) {}
    void reset() {
        ops_.clear();
        next_ = 0;
        w_ = r_ = nullptr;
        prev_bvalid_ = prev_rvalid_ = false;
    }
    void submit(std::vector<Op> ops) {
        ops_ = std::move(ops);
        next_ = 0;
    }
    bool finished() const { return next_ == ops_.size() && !w_ && !r_; }
    const std::vector<Op> &ops() const { return ops_; }

    void drive() {
        start_ops();
        p_.awvalid.set(w_ && !aw_done_ && w_->aw_delay == 0);
        p_.awaddr.set(w_ ? w_->addr : 0);
        p_.wvalid.set(w_ && !w_done_ && w_->w_delay == 0);
        p_.wdata.set(w_ ? w_->data : 0);
        p_.wstrb.set(w_ ? w_->strb : 0);
        p_.bready.set(w_ && bwait_ == 0);
        p_.arvalid.set(r_ && !ar_done_ && r_->aw_delay == 0);
        p_.araddr.set(r_ ? r_->addr : 0);
        p_.rready.set(r_ && rwait_ == 0);
    }

    // after eval, before the edge: handshakes and the slave-side rules of AXI4-Lite
    void step() {
        const bool bvalid = p_.bvalid.get(), rvalid = p_.rvalid.get();
        // a response stays up, unchanged, until taken (IHI0022 A3.2.1)
        if (prev_bvalid_ && !prev_bready_)
            CHECK(bvalid && p_.bresp.get() == prev_bresp_, "AXI-Lite: BVALID dropped or BRESP changed before BREADY");
        if (prev_rvalid_ && !prev_rready_)
            CHECK(rvalid && p_.rresp.get() == prev_rresp_ && p_.rdata.get() == prev_rdata_,
                  "AXI-Lite: RVALID dropped or R changed before RREADY");
        // a write response only after both AW and W, a read response only after AR (A3.3.1)
        if (bvalid)
            CHECK(w_ && aw_done_ && w_done_, "AXI-Lite: BVALID without a write whose AW and W were taken");
        if (rvalid)
            CHECK(r_ && ar_done_, "AXI-Lite: RVALID without a read whose AR was taken");
        prev_bvalid_ = bvalid;
        prev_bready_ = p_.bready.get();
        prev_bresp_ = unsigned(p_.bresp.get());
        prev_rvalid_ = rvalid;
        prev_rready_ = p_.rready.get();
        prev_rresp_ = unsigned(p_.rresp.get());
        prev_rdata_ = uint32_t(p_.rdata.get());

        if (w_) {
            if (p_.awvalid.get() && p_.awready.get())
                aw_done_ = true;
            if (p_.wvalid.get() && p_.wready.get())
                w_done_ = true;
            if (w_->aw_delay)
                --w_->aw_delay;
            if (w_->w_delay)
                --w_->w_delay;
            if (bvalid && bwait_)
                --bwait_;
            else if (bvalid && p_.bready.get()) {
                w_->done = true;
                w_->resp = prev_bresp_;
                w_->end = g_cycle;
                w_ = nullptr;
            }
        }
        if (r_) {
            if (p_.arvalid.get() && p_.arready.get())
                ar_done_ = true;
            if (r_->aw_delay)
                --r_->aw_delay;
            if (rvalid && rwait_)
                --rwait_;
            else if (rvalid && p_.rready.get()) {
                r_->done = true;
                r_->resp = prev_rresp_;
                r_->rdata = prev_rdata_;
                r_->end = g_cycle;
                r_ = nullptr;
            }
        }
    }

private:
    void start_ops() {
        while (next_ < ops_.size()) {
            Op &op = ops_[next_];
            const bool busy = w_ || r_;
            if (busy && !op.overlap)
                return;
            if (op.write ? w_ != nullptr : r_ != nullptr)
                return;
            op.start = g_cycle;
            if (op.write) {
                w_ = &op;
                aw_done_ = w_done_ = false;
                bwait_ = op.resp_delay;
            } else {
                r_ = &op;
                ar_done_ = false;
                rwait_ = op.resp_delay;
            }
            ++next_;
        }
    }

    AxilPins p_;
    std::vector<Op> ops_;
    size_t next_ = 0;
    Op *w_ = nullptr, *r_ = nullptr;
    bool aw_done_ = false, w_done_ = false, ar_done_ = false;
    unsigned bwait_ = 0, rwait_ = 0;
    bool prev_bvalid_ = false, prev_bready_ = false, prev_rvalid_ = false, prev_rready_ = false;
    unsigned prev_bresp_ = 0, prev_rresp_ = 0;
    uint32_t prev_rdata_ = 0;
};

// ---- the DUT side: register files of each protocol --------------------------------------

// One transfer the slave saw complete (for the strobe and transfer-count checks).
struct Xfer {
    bool write;
    uint32_t off;   // byte offset in the 4 KiB window
    unsigned lanes; // byte lanes written (writes)
};

class Slave {
public:
    virtual ~Slave() = default;
    virtual void reset() {
        for (unsigned i = 0; i < kWords; ++i)
            mem[i] = initial_word(i);
        xfers.clear();
    }
    virtual void drive() = 0;
    virtual void step() = 0;
    Stall stall;
    std::array<uint32_t, kWords> mem{};
    std::vector<Xfer> xfers;

protected:
    void write_lanes(uint32_t off, uint32_t data, unsigned lanes) {
        mem[(off >> 2) % kWords] = merge(mem[(off >> 2) % kWords], data, lanes);
    }
};

// AXI4 / AXI3 register slave.
struct AxiPins {
    Sig awid, awaddr, awlen, awsize, awburst, awlock, awcache, awprot, awqos, awregion, awvalid,
        awready;
    Sig wid, wdata, wstrb, wlast, wvalid, wready;
    Sig bid, bresp, bvalid, bready;
    Sig arid, araddr, arlen, arsize, arburst, arlock, arcache, arprot, arqos, arregion, arvalid,
        arready;
    Sig rid, rdata, rresp, rlast, rvalid, rready;
    Sig proto_err;
};

struct AxiCfg {
    bool axi3;
    unsigned id;
    uint64_t base;
    unsigned cache, prot;
};

class AxiSlave : public Slave {
public:
    AxiSlave(AxiPins p, AxiCfg c) : p_(p), c_(c) {}
    // one-shot rule breaks of the slave itself, for the adapter's checks
    enum Inject { NONE, BAD_BID, BAD_RID, EXOKAY_B, EXOKAY_R, NO_RLAST };
    Inject inject = NONE;

    void reset() override {
        Slave::reset();
        aws_.clear();
        ws_.clear();
        b_.reset();
        ars_.clear();
        r_.reset();
        prev_ = {};
        inject = NONE;
        outstanding_w_ = outstanding_r_ = 0;
    }
    void drive() override {
        p_.awready.set(!chance(stall.ready_pct));
        p_.wready.set(!chance(stall.ready_pct));
        p_.arready.set(!chance(stall.ready_pct));
        p_.bvalid.set(b_ && b_->delay == 0);
        p_.bid.set(b_ ? b_->id : 0);
        p_.bresp.set(b_ ? b_->resp : 0);
        p_.rvalid.set(r_ && r_->delay == 0);
        p_.rid.set(r_ ? r_->id : 0);
        p_.rdata.set(r_ ? r_->data : 0);
        p_.rresp.set(r_ ? r_->resp : 0);
        p_.rlast.set(r_ ? r_->beats == 1 : 0);
    }
    void step() override {
        Snap s = snap();
        // VALID held, payload stable until READY (IHI0022 A3.2.1, A3.2.2)
        if (prev_.awvalid && !prev_.awready)
            CHECK(s.awvalid && s.aw == prev_.aw, "AXI: AWVALID dropped or AW changed before AWREADY");
        if (prev_.wvalid && !prev_.wready)
            CHECK(s.wvalid && s.w == prev_.w, "AXI: WVALID dropped or W changed before WREADY");
        if (prev_.arvalid && !prev_.arready)
            CHECK(s.arvalid && s.ar == prev_.ar, "AXI: ARVALID dropped or AR changed before ARREADY");
        if (s.awvalid && s.awready) {
            check_addr_channel("AW", p_.awid, p_.awaddr, p_.awlen, p_.awsize, p_.awburst, p_.awlock,
                               p_.awcache, p_.awprot, p_.awqos, p_.awregion);
            aws_.push_back(p_.awaddr.get());
            ++outstanding_w_;
        }
        if (s.wvalid && s.wready) {
            CHECK(p_.wlast.get() == 1, "AXI: WLAST low on the only beat");
            if (c_.axi3)
                CHECK(p_.wid.get() == c_.id, "AXI3: WID %llx, not the AWID %x",
                      static_cast<unsigned long long>(p_.wid.get()), c_.id);
            ws_.push_back({uint32_t(p_.wdata.get()), unsigned(p_.wstrb.get())});
        }
        if (s.arvalid && s.arready) {
            check_addr_channel("AR", p_.arid, p_.araddr, p_.arlen, p_.arsize, p_.arburst, p_.arlock,
                               p_.arcache, p_.arprot, p_.arqos, p_.arregion);
            ars_.push_back(p_.araddr.get());
            ++outstanding_r_;
        }
        // the adapter does one access at a time
        CHECK(outstanding_w_ + outstanding_r_ <= 1, "AXI: %u writes and %u reads outstanding",
              outstanding_w_, outstanding_r_);
        // responses
        if (b_ && b_->delay == 0 && p_.bready.get()) {
            b_.reset();
            --outstanding_w_;
        } else if (b_ && b_->delay) {
            --b_->delay;
        }
        if (r_ && r_->delay == 0 && p_.rready.get()) {
            if (--r_->beats == 0) {
                r_.reset();
                --outstanding_r_;
            }
        } else if (r_ && r_->delay) {
            --r_->delay;
        }
        if (!b_ && !aws_.empty() && !ws_.empty()) {
            const uint32_t off = uint32_t(aws_.front() - c_.base);
            const W w = ws_.front();
            aws_.pop_front();
            ws_.pop_front();
            Resp b{c_.id, 0, 0, rnd(stall.max_delay + 1), 1};
            if (off >= kDecerrBase)
                b.resp = 3;
            else if (off >= kErrBase)
                b.resp = 2;
            else {
                write_lanes(off, w.data, w.strb);
                xfers.push_back({true, off, w.strb});
            }
            if (inject == BAD_BID)
                b.id ^= 1;
            if (inject == EXOKAY_B)
                b.resp = 1;
            if (inject == BAD_BID || inject == EXOKAY_B)
                inject = NONE;
            b_ = b;
        }
        if (!r_ && !ars_.empty()) {
            const uint32_t off = uint32_t(ars_.front() - c_.base);
            ars_.pop_front();
            Resp r{c_.id, 0, mem[(off >> 2) % kWords], rnd(stall.max_delay + 1), 1};
            if (off >= kDecerrBase)
                r.resp = 3;
            else if (off >= kErrBase)
                r.resp = 2;
            else
                xfers.push_back({false, off, 0});
            if (inject == BAD_RID)
                r.id ^= 1;
            if (inject == EXOKAY_R)
                r.resp = 1;
            if (inject == NO_RLAST)
                r.beats = 2;
            if (inject == BAD_RID || inject == EXOKAY_R || inject == NO_RLAST)
                inject = NONE;
            r_ = r;
        }
        prev_ = s;
    }

private:
    struct W {
        uint32_t data;
        unsigned strb;
    };
    struct Resp {
        unsigned id, resp;
        uint32_t data;
        unsigned delay, beats;
    };
    struct Snap {
        bool awvalid = false, awready = false, wvalid = false, wready = false, arvalid = false,
             arready = false;
        std::vector<uint64_t> aw, w, ar;
    };
    Snap snap() const {
        Snap s;
        s.awvalid = p_.awvalid.get();
        s.awready = p_.awready.get();
        s.wvalid = p_.wvalid.get();
        s.wready = p_.wready.get();
        s.arvalid = p_.arvalid.get();
        s.arready = p_.arready.get();
        for (const Sig *g : {&p_.awid, &p_.awaddr, &p_.awlen, &p_.awsize, &p_.awburst, &p_.awlock,
                             &p_.awcache, &p_.awprot, &p_.awqos, &p_.awregion})
            s.aw.push_back(g->present() ? g->get() : 0);
        for (const Sig *g : {&p_.wid, &p_.wdata, &p_.wstrb, &p_.wlast})
            s.w.push_back(g->present() ? g->get() : 0);
        for (const Sig *g : {&p_.arid, &p_.araddr, &p_.arlen, &p_.arsize, &p_.arburst, &p_.arlock,
                             &p_.arcache, &p_.arprot, &p_.arqos, &p_.arregion})
            s.ar.push_back(g->present() ? g->get() : 0);
        return s;
    }
    void check_addr_channel(const char *ch, const Sig &id, const Sig &addr, const Sig &len,
                            const Sig &size, const Sig &burst, const Sig &lock, const Sig &cache,
                            const Sig &prot, const Sig &qos, const Sig &region) {
        CHECK(id.get() == c_.id, "AXI: %sID %llx, expected %x", ch,
              static_cast<unsigned long long>(id.get()), c_.id);
        const uint64_t a = addr.get();
        CHECK(a >= c_.base && a < c_.base + 0x1000 && a % 4 == 0, "AXI: %sADDR %llx outside the window or unaligned",
              ch, static_cast<unsigned long long>(a));
        CHECK(len.get() == 0, "AXI: %sLEN %llu, one beat expected", ch, static_cast<unsigned long long>(len.get()));
        CHECK(size.get() == 2, "AXI: %sSIZE %llu, 4 bytes expected", ch, static_cast<unsigned long long>(size.get()));
        CHECK(burst.get() == 1, "AXI: %sBURST %llu, INCR expected", ch, static_cast<unsigned long long>(burst.get()));
        CHECK(lock.get() == 0, "AXI: %sLOCK %llu, normal access expected", ch, static_cast<unsigned long long>(lock.get()));
        CHECK(cache.get() == c_.cache, "AXI: %sCACHE %llu", ch, static_cast<unsigned long long>(cache.get()));
        CHECK(prot.get() == c_.prot, "AXI: %sPROT %llu", ch, static_cast<unsigned long long>(prot.get()));
        if (qos.present())
            CHECK(qos.get() == 0 && region.get() == 0, "AXI: %sQOS / %sREGION not 0", ch, ch);
    }

    AxiPins p_;
    AxiCfg c_;
    std::deque<uint64_t> aws_, ars_;
    std::deque<W> ws_;
    struct Opt {
        bool has = false;
        Resp v{};
        Resp *operator->() { return &v; }
        explicit operator bool() const { return has; }
        Opt &operator=(const Resp &r) {
            v = r;
            has = true;
            return *this;
        }
        void reset() { has = false; }
    } b_, r_;
    unsigned outstanding_w_ = 0, outstanding_r_ = 0;
    Snap prev_;
};

// AHB-Lite register slave.
struct AhbPins {
    Sig haddr, htrans, hwrite, hsize, hburst, hprot, hmastlock, hwdata, hrdata, hready, hresp;
};

class AhbSlave : public Slave {
public:
    AhbSlave(AhbPins p, uint64_t base, unsigned hprot) : p_(p), base_(base), hprot_(hprot) {}
    void reset() override {
        Slave::reset();
        dp_ = false;
        prev_nonseq_wait_ = false;
    }
    void drive() override {
        bool ready = true, resp = false;
        uint32_t rdata = 0xDEADBEEF;
        if (dp_) {
            if (waits_) {
                ready = false;
            } else if (err_) {
                resp = true;
                ready = err_second_;
            } else if (!write_) {
                rdata = mem[(off_ >> 2) % kWords];
            }
        }
        p_.hready.set(ready);
        p_.hresp.set(resp);
        p_.hrdata.set(rdata);
    }
    void step() override {
        const unsigned htrans = unsigned(p_.htrans.get());
        const bool hready = p_.hready.get();
        const uint64_t haddr = p_.haddr.get();
        const std::array<uint64_t, 7> ctrl = {haddr, p_.hwrite.get(), p_.hsize.get(), p_.hburst.get(),
                                              p_.hprot.get(), p_.hmastlock.get(), htrans};
        // the adapter makes single transfers only (IHI0033A 3.2): IDLE or NONSEQ
        CHECK(htrans == 0 || htrans == 2, "AHB: HTRANS %u (BUSY / SEQ)", htrans);
        // an address phase waited by HREADY keeps its transfer (3.6.1, 3.6.2)
        if (prev_nonseq_wait_)
            CHECK(ctrl == prev_ctrl_, "AHB: NONSEQ address phase changed while HREADY was low");
        // write data held through the data phase's wait states (3.6)
        if (dp_ && write_ && have_wdata_)
            CHECK(p_.hwdata.get() == wdata_, "AHB: HWDATA changed during the write data phase");
        if (dp_ && write_) {
            wdata_ = uint32_t(p_.hwdata.get());
            have_wdata_ = true;
        }
        prev_nonseq_wait_ = htrans == 2 && !hready;
        prev_ctrl_ = ctrl;

        if (!hready) {
            if (dp_ && waits_)
                --waits_;
            else if (dp_ && err_)
                err_second_ = true;
            return;
        }
        if (dp_ && !err_) {
            if (write_) {
                write_lanes(off_, uint32_t(p_.hwdata.get()), lanes_);
                xfers.push_back({true, off_, lanes_});
            } else {
                xfers.push_back({false, off_, 0});
            }
        }
        dp_ = false;
        if (htrans == 2) {
            const unsigned size = unsigned(p_.hsize.get());
            CHECK(p_.hburst.get() == 0, "AHB: HBURST %llu, SINGLE expected",
                  static_cast<unsigned long long>(p_.hburst.get()));
            CHECK(p_.hmastlock.get() == 0, "AHB: HMASTLOCK set");
            CHECK(p_.hprot.get() == hprot_, "AHB: HPROT %llx", static_cast<unsigned long long>(p_.hprot.get()));
            CHECK(size <= 2 && haddr % (1u << size) == 0, "AHB: HSIZE %u at %llx: not a naturally aligned byte / halfword / word",
                  size, static_cast<unsigned long long>(haddr));
            CHECK(haddr >= base_ && haddr < base_ + 0x1000, "AHB: HADDR %llx outside the window",
                  static_cast<unsigned long long>(haddr));
            CHECK(p_.hwrite.get() || size == 2, "AHB: a read of HSIZE %u", size);
            dp_ = true;
            write_ = p_.hwrite.get();
            off_ = uint32_t(haddr - base_);
            lanes_ = ((1u << (1u << (size > 2 ? 2 : size))) - 1u) << (off_ & 3u);
            waits_ = rnd(stall.max_delay + 1);
            if (chance(stall.ready_pct))
                waits_ += 1;
            err_ = off_ >= kErrBase;
            err_second_ = false;
            have_wdata_ = false;
        }
    }

private:
    AhbPins p_;
    uint64_t base_;
    unsigned hprot_;
    bool dp_ = false, write_ = false, err_ = false, err_second_ = false, have_wdata_ = false;
    uint32_t off_ = 0, wdata_ = 0;
    unsigned lanes_ = 0, waits_ = 0;
    bool prev_nonseq_wait_ = false;
    std::array<uint64_t, 7> prev_ctrl_{};
};

// APB3 / APB4 register slave.
struct ApbPins {
    Sig paddr, psel, penable, pwrite, pwdata, pstrb, pprot, prdata, pready, pslverr;
};

class ApbSlave : public Slave {
public:
    ApbSlave(ApbPins p, uint64_t base, bool apb4, unsigned pprot)
        : p_(p), base_(base), apb4_(apb4), pprot_(pprot) {}
    void reset() override {
        Slave::reset();
        access_next_ = false;
    }
    void drive() override {
        const bool ready = access_next_ && waits_ == 0;
        p_.pready.set(ready);
        p_.pslverr.set(ready && off_ >= kErrBase);
        p_.prdata.set(ready && !write_ ? mem[(off_ >> 2) % kWords] : 0xBAD0BAD0u);
    }
    void step() override {
        const bool psel = p_.psel.get(), penable = p_.penable.get();
        const std::array<uint64_t, 5> ctl = {p_.paddr.get(), p_.pwrite.get(), p_.pwdata.get(),
                                             apb4_ ? p_.pstrb.get() : 0, apb4_ ? p_.pprot.get() : 0};
        if (access_next_) {
            // after SETUP always ACCESS; everything held until PREADY (IHI0024C 3.1, 4.1)
            CHECK(psel && penable, "APB: PSEL %d PENABLE %d where an ACCESS cycle must follow", psel, penable);
            CHECK(ctl == ctl_, "APB: address, direction, data, strobes or protection changed during the transfer");
            if (p_.pready.get()) {
                access_next_ = false;
                if (off_ < kErrBase) {
                    const unsigned lanes = apb4_ ? unsigned(ctl[3]) : 0xFu;
                    if (write_)
                        write_lanes(off_, uint32_t(ctl[2]), lanes);
                    xfers.push_back({write_, off_, write_ ? lanes : 0});
                }
            } else if (waits_) {
                --waits_;
            }
            return;
        }
        // PENABLE only in the cycle after a SETUP cycle (4.1)
        CHECK(!penable, "APB: PENABLE without a SETUP cycle before it");
        if (psel && !penable) {
            ctl_ = ctl;
            write_ = ctl[1];
            const uint64_t a = ctl[0];
            CHECK(a >= base_ && a < base_ + 0x1000 && a % 4 == 0, "APB: PADDR %llx outside the window or unaligned",
                  static_cast<unsigned long long>(a));
            off_ = uint32_t(a - base_);
            if (apb4_) {
                CHECK(write_ || ctl[3] == 0, "APB4: PSTRB %llx on a read (must be 0, 3.2)",
                      static_cast<unsigned long long>(ctl[3]));
                CHECK(ctl[4] == pprot_, "APB4: PPROT %llx", static_cast<unsigned long long>(ctl[4]));
            }
            access_next_ = true;
            waits_ = rnd(stall.max_delay + 1);
            if (chance(stall.ready_pct))
                waits_ += 1;
        }
    }

private:
    ApbPins p_;
    uint64_t base_;
    bool apb4_;
    unsigned pprot_;
    bool access_next_ = false, write_ = false;
    uint32_t off_ = 0;
    unsigned waits_ = 0;
    std::array<uint64_t, 5> ctl_{};
};

// ---- the lanes of the testbench top ------------------------------------------------------

enum class Kind { AXI4, AXI3, AHB, APB4, APB3 };

struct Lane {
    const char *name;
    Kind kind;
    AxilMaster m;
    std::unique_ptr<Slave> s;
    Sig proto_err;
};

#define AXIL(T, P)                                                                                 \
    AxilPins {                                                                                     \
        T.P##_s_awaddr, T.P##_s_awvalid, T.P##_s_awready, T.P##_s_wdata, T.P##_s_wstrb,          \
            T.P##_s_wvalid, T.P##_s_wready, T.P##_s_bresp, T.P##_s_bvalid, T.P##_s_bready,       \
            T.P##_s_araddr, T.P##_s_arvalid, T.P##_s_arready, T.P##_s_rdata, T.P##_s_rresp,      \
            T.P##_s_rvalid, T.P##_s_rready                                                       \
    }

class Bench {
public:
    Bench() : top_(new Vadapters_tb_top(&ctx_)) {
        Vadapters_tb_top &t = *top_;
        AxiPins x4{t.x4_m_awid, t.x4_m_awaddr, t.x4_m_awlen, t.x4_m_awsize, t.x4_m_awburst,
                   t.x4_m_awlock, t.x4_m_awcache, t.x4_m_awprot, t.x4_m_awqos, t.x4_m_awregion,
                   t.x4_m_awvalid, t.x4_m_awready, Sig(), t.x4_m_wdata, t.x4_m_wstrb, t.x4_m_wlast,
                   t.x4_m_wvalid, t.x4_m_wready, t.x4_m_bid, t.x4_m_bresp, t.x4_m_bvalid,
                   t.x4_m_bready, t.x4_m_arid, t.x4_m_araddr, t.x4_m_arlen, t.x4_m_arsize,
                   t.x4_m_arburst, t.x4_m_arlock, t.x4_m_arcache, t.x4_m_arprot, t.x4_m_arqos,
                   t.x4_m_arregion, t.x4_m_arvalid, t.x4_m_arready, t.x4_m_rid, t.x4_m_rdata,
                   t.x4_m_rresp, t.x4_m_rlast, t.x4_m_rvalid, t.x4_m_rready, t.x4_proto_err};
        AxiPins x3{t.x3_m_awid, t.x3_m_awaddr, t.x3_m_awlen, t.x3_m_awsize, t.x3_m_awburst,
                   t.x3_m_awlock, t.x3_m_awcache, t.x3_m_awprot, Sig(), Sig(), t.x3_m_awvalid,
                   t.x3_m_awready, t.x3_m_wid, t.x3_m_wdata, t.x3_m_wstrb, t.x3_m_wlast,
                   t.x3_m_wvalid, t.x3_m_wready, t.x3_m_bid, t.x3_m_bresp, t.x3_m_bvalid,
                   t.x3_m_bready, t.x3_m_arid, t.x3_m_araddr, t.x3_m_arlen, t.x3_m_arsize,
                   t.x3_m_arburst, t.x3_m_arlock, t.x3_m_arcache, t.x3_m_arprot, Sig(), Sig(),
                   t.x3_m_arvalid, t.x3_m_arready, t.x3_m_rid, t.x3_m_rdata, t.x3_m_rresp,
                   t.x3_m_rlast, t.x3_m_rvalid, t.x3_m_rready, t.x3_proto_err};
        lanes_.push_back({"axi4", Kind::AXI4, AxilMaster(AXIL(t, x4)),
                          std::make_unique<AxiSlave>(x4, AxiCfg{false, 5, 0x40000000, 0x0, 0x2}),
                          t.x4_proto_err});
        lanes_.push_back({"axi3", Kind::AXI3, AxilMaster(AXIL(t, x3)),
                          std::make_unique<AxiSlave>(x3, AxiCfg{true, 0x2A, 0x1200000000ull, 0x3, 0x0}),
                          t.x3_proto_err});
        lanes_.push_back({"ahb", Kind::AHB, AxilMaster(AXIL(t, ah)),
                          std::make_unique<AhbSlave>(AhbPins{t.ah_m_haddr, t.ah_m_htrans, t.ah_m_hwrite,
                                                             t.ah_m_hsize, t.ah_m_hburst, t.ah_m_hprot,
                                                             t.ah_m_hmastlock, t.ah_m_hwdata,
                                                             t.ah_m_hrdata, t.ah_m_hready, t.ah_m_hresp},
                                                     0x10000000, 0x3),
                          Sig()});
        lanes_.push_back({"apb4", Kind::APB4, AxilMaster(AXIL(t, p4)),
                          std::make_unique<ApbSlave>(ApbPins{t.p4_m_paddr, t.p4_m_psel, t.p4_m_penable,
                                                             t.p4_m_pwrite, t.p4_m_pwdata, t.p4_m_pstrb,
                                                             t.p4_m_pprot, t.p4_m_prdata, t.p4_m_pready,
                                                             t.p4_m_pslverr},
                                                     0xA000, true, 0x1),
                          Sig()});
        lanes_.push_back({"apb3", Kind::APB3, AxilMaster(AXIL(t, p3)),
                          std::make_unique<ApbSlave>(ApbPins{t.p3_m_paddr, t.p3_m_psel, t.p3_m_penable,
                                                             t.p3_m_pwrite, t.p3_m_pwdata, Sig(), Sig(),
                                                             t.p3_m_prdata, t.p3_m_pready,
                                                             t.p3_m_pslverr},
                                                     0x0, false, 0),
                          Sig()});
    }
    Lane *lane(const std::string &name) {
        for (Lane &l : lanes_)
            if (name == l.name)
                return &l;
        return nullptr;
    }
    void reset() {
        for (Lane &l : lanes_) {
            l.m.reset();
            l.s->reset();
        }
        top_->rst = 1;
        for (int i = 0; i < 4; ++i)
            tick();
        top_->rst = 0;
    }
    void tick() {
        top_->clk = 0;
        for (Lane &l : lanes_) {
            l.m.drive();
            l.s->drive();
        }
        top_->eval();
        if (!top_->rst)
            for (Lane &l : lanes_) {
                l.m.step();
                l.s->step();
            }
        top_->clk = 1;
        top_->eval();
        ++g_cycle;
    }
    // runs the lane's ops to the end; false on a hang
    bool run(Lane &l, std::vector<Op> ops, unsigned limit = 200000) {
        l.m.submit(std::move(ops));
        for (unsigned i = 0; i < limit; ++i) {
            if (l.m.finished())
                return true;
            tick();
        }
        fail("%s: the accesses did not complete within %u cycles", l.name, limit);
        return false;
    }

private:
    VerilatedContext ctx_;
    std::unique_ptr<Vadapters_tb_top> top_;
    std::vector<Lane> lanes_;
};

// ---- cases --------------------------------------------------------------------------------

const char *resp_name(unsigned r) {
    static const char *const n[] = {"OKAY", "EXOKAY", "SLVERR", "DECERR"};
    return n[r & 3];
}

// Shadow of the slave's register file as the shell sees it: what every read must return.
struct Shadow {
    std::array<uint32_t, kWords> w{};
    Shadow() {
        for (unsigned i = 0; i < kWords; ++i)
            w[i] = initial_word(i);
    }
};

Op wr(uint32_t addr, uint32_t data, unsigned strb = 0xF) {
    Op o;
    o.write = true;
    o.addr = addr;
    o.data = data;
    o.strb = strb;
    return o;
}
Op rd(uint32_t addr) {
    Op o;
    o.addr = addr;
    return o;
}
void jitter(Op &o, unsigned max) {
    o.aw_delay = rnd(max + 1);
    o.w_delay = rnd(max + 1);
    o.resp_delay = rnd(max + 1);
}

// Checks every op's response; reads against the shadow, which writes update.
void check_ops(const Lane &l, Shadow &sh, const std::vector<Op> &ops) {
    for (const Op &o : ops) {
        CHECK(o.done, "%s: an access never completed", l.name);
        const unsigned i = (o.addr >> 2) % kWords;
        if (o.write) {
            CHECK(o.resp == 0, "%s: write %03x answered %s", l.name, o.addr, resp_name(o.resp));
            sh.w[i] = merge(sh.w[i], o.data, o.strb);
        } else {
            CHECK(o.resp == 0, "%s: read %03x answered %s", l.name, o.addr, resp_name(o.resp));
            CHECK(o.rdata == sh.w[i], "%s: read %03x returned %08x, expected %08x", l.name, o.addr,
                  o.rdata, sh.w[i]);
        }
    }
}

void check_memory(const Lane &l, const Shadow &sh) {
    for (unsigned i = 0; i < kWords; ++i)
        if (l.s->mem[i] != sh.w[i]) {
            fail("%s: slave word %03x is %08x, expected %08x", l.name, i * 4, l.s->mem[i], sh.w[i]);
            return;
        }
}

void check_no_proto_err(const Lane &l) {
    if (l.proto_err.present())
        CHECK(l.proto_err.get() == 0, "%s: proto_err set though the slave kept the rules", l.name);
}

void case_rw(Bench &b, Lane &l) {
    l.s->stall = {30, 3};
    Shadow sh;
    std::vector<Op> ops;
    for (int i = 0; i < 300; ++i) {
        const uint32_t a = 4 * rnd(kErrBase / 4);
        Op o = chance(55) ? wr(a, uint32_t(g_rng())) : rd(a);
        jitter(o, 3);
        ops.push_back(o);
    }
    b.run(l, ops);
    check_ops(l, sh, l.m.ops());
    check_memory(l, sh);
    check_no_proto_err(l);
}

// Is this set of transfers exactly one write of the lanes in strb, each naturally aligned?
void check_ahb_pieces(const Lane &l, const std::vector<Xfer> &xs, uint32_t word, unsigned strb) {
    unsigned covered = 0;
    CHECK(xs.size() <= 2, "%s: WSTRB %x took %zu transfers", l.name, strb, xs.size());
    for (const Xfer &x : xs) {
        CHECK(x.write && (x.off & ~3u) == word, "%s: WSTRB %x: a transfer outside the word", l.name, strb);
        CHECK((covered & x.lanes) == 0, "%s: WSTRB %x: a byte lane written twice", l.name, strb);
        covered |= x.lanes;
    }
    CHECK(covered == strb, "%s: WSTRB %x: the transfers wrote lanes %x", l.name, strb, covered);
}

void case_strobes(Bench &b, Lane &l) {
    l.s->stall = {20, 2};
    Shadow sh;
    for (unsigned s = 0; s < 16; ++s) {
        const uint32_t a = 0x100 + 4 * s;
        const uint32_t v = 0xA1B2C3D4u ^ (s * 0x11111111u);
        b.run(l, {wr(a, 0x0F0E0D0Cu)});
        sh.w[a / 4] = 0x0F0E0D0Cu;
        const size_t before = l.s->xfers.size();
        b.run(l, {wr(a, v, s)});
        const Op w = l.m.ops()[0];
        const std::vector<Xfer> xs(l.s->xfers.begin() + long(before), l.s->xfers.end());
        const bool apb3_partial = l.kind == Kind::APB3 && s != 0xF;
        if (apb3_partial) {
            CHECK(w.resp == (s == 0 ? 0u : 2u), "%s: WSTRB %x on APB3 answered %s", l.name, s,
                  resp_name(w.resp));
            CHECK(xs.empty(), "%s: WSTRB %x on APB3 made a transfer", l.name, s);
        } else {
            CHECK(w.resp == 0, "%s: WSTRB %x answered %s", l.name, s, resp_name(w.resp));
            sh.w[a / 4] = merge(sh.w[a / 4], v, s);
            if (l.kind == Kind::AHB)
                check_ahb_pieces(l, xs, a, s);
            else if (l.kind == Kind::APB3 || l.kind == Kind::APB4 || s != 0)
                // AXI passes WSTRB 0000 on as a transfer (legal AXI), APB4 as PSTRB 0000
                CHECK(xs.size() == 1 && xs[0].lanes == (l.kind == Kind::APB3 ? 0xFu : s),
                      "%s: WSTRB %x: %zu transfers", l.name, s, xs.size());
        }
        b.run(l, {rd(a)});
        const Op r = l.m.ops()[0];
        CHECK(r.resp == 0 && r.rdata == sh.w[a / 4], "%s: after WSTRB %x read %08x (%s), expected %08x",
              l.name, s, r.rdata, resp_name(r.resp), sh.w[a / 4]);
    }
    check_memory(l, sh);
    check_no_proto_err(l);
}

void case_errors(Bench &b, Lane &l) {
    l.s->stall = {30, 3};
    Shadow sh;
    const bool axi = l.kind == Kind::AXI4 || l.kind == Kind::AXI3;
    for (uint32_t a : {kErrBase, kErrBase + 0x7C, kDecerrBase, 0xFFCu}) {
        const unsigned expect = axi && a >= kDecerrBase ? 3 : 2; // DECERR passes through on AXI
        b.run(l, {wr(a, 0xFFFFFFFF), rd(a)});
        const std::vector<Op> ops = l.m.ops();
        CHECK(ops[0].resp == expect, "%s: write to %03x answered %s, expected %s", l.name, a,
              resp_name(ops[0].resp), resp_name(expect));
        CHECK(ops[1].resp == expect, "%s: read of %03x answered %s, expected %s", l.name, a,
              resp_name(ops[1].resp), resp_name(expect));
        // the next access works
        b.run(l, {wr(0x40, a), rd(0x40)});
        sh.w[0x40 / 4] = a;
        check_ops(l, sh, l.m.ops());
    }
    check_memory(l, sh);
    check_no_proto_err(l);
    if (!axi)
        return;
    // the slave breaks a rule: SLVERR to the shell, proto_err latched
    auto *axs = static_cast<AxiSlave *>(l.s.get());
    struct Inj {
        AxiSlave::Inject what;
        bool write;
        const char *name;
    };
    for (const Inj &inj : {Inj{AxiSlave::BAD_BID, true, "BID"}, Inj{AxiSlave::EXOKAY_B, true, "EXOKAY on B"},
                           Inj{AxiSlave::BAD_RID, false, "RID"}, Inj{AxiSlave::EXOKAY_R, false, "EXOKAY on R"},
                           Inj{AxiSlave::NO_RLAST, false, "RLAST"}}) {
        b.reset();
        Shadow fresh;
        CHECK(l.proto_err.get() == 0, "%s: proto_err not cleared by reset", l.name);
        axs->inject = inj.what;
        b.run(l, {inj.write ? wr(0x80, 0x12345678) : rd(0x80)});
        CHECK(l.m.ops()[0].resp == 2, "%s: a slave's wrong %s answered %s, expected SLVERR", l.name,
              inj.name, resp_name(l.m.ops()[0].resp));
        CHECK(l.proto_err.get() == 1, "%s: a slave's wrong %s did not set proto_err", l.name, inj.name);
        // the adapter is still in step (after NO_RLAST it took both beats)
        if (inj.write)
            fresh.w[0x80 / 4] = 0x12345678;
        b.run(l, {wr(0x84, 0xCAFEF00D), rd(0x84), rd(0x80)});
        fresh.w[0x84 / 4] = 0xCAFEF00D;
        std::vector<Op> after = l.m.ops();
        after.pop_back(); // rd(0x80) separately: the write may or may not have landed
        check_ops(l, fresh, after);
        CHECK(l.m.ops()[2].resp == 0 && l.m.ops()[2].rdata == l.s->mem[0x80 / 4],
              "%s: after the wrong %s: read 80h gave %08x", l.name, inj.name, l.m.ops()[2].rdata);
    }
}

void case_b2b(Bench &b, Lane &l) {
    l.s->stall = {0, 0};
    Shadow sh;
    std::vector<Op> ops;
    for (int i = 0; i < 40; ++i) {
        const uint32_t a = 4 * rnd(64);
        ops.push_back(i % 2 ? rd(a) : wr(a, uint32_t(g_rng())));
    }
    b.run(l, ops);
    unsigned worst = 0;
    for (const Op &o : l.m.ops())
        worst = std::max(worst, unsigned(o.end - o.start));
    check_ops(l, sh, l.m.ops());
    // from VALID to the response taken, with no wait state anywhere: the adapter's own
    // latency (front: 1 cycle in, 1 out; AXI: AW+W, B; AHB: address, data; APB: SETUP, ACCESS)
    CHECK(worst <= 5, "%s: an access took %u cycles with no wait states", l.name, worst);
    std::printf("%s b2b: at most %u cycles per access without wait states\n", l.name, worst);
    // a write and a read at once (different words), the next pair right after
    ops.clear();
    for (int i = 0; i < 20; ++i) {
        const uint32_t a = 0x200 + 8 * unsigned(i);
        ops.push_back(wr(a, 0x1000u + unsigned(i)));
        Op r = rd(a + 4);
        r.overlap = true;
        ops.push_back(r);
    }
    b.run(l, ops);
    check_ops(l, sh, l.m.ops());
    check_memory(l, sh);
    check_no_proto_err(l);
}

void case_waits(Bench &b, Lane &l) {
    l.s->stall = {90, 20};
    Shadow sh;
    std::vector<Op> ops;
    for (int i = 0; i < 60; ++i) {
        const uint32_t a = 4 * rnd(kErrBase / 4);
        Op o = i % 3 == 2 ? rd(ops.empty() ? a : ops.back().addr) : wr(a, uint32_t(g_rng()), 0xF);
        jitter(o, 12);
        o.overlap = i % 5 == 4 && i % 3 == 2; // a read now and then beside a write
        ops.push_back(o);
    }
    // a read overlapping the write to its own word may see it before or after: keep
    // overlapping reads off the words written in flight
    for (size_t i = 1; i < ops.size(); ++i)
        if (ops[i].overlap && ops[i - 1].write)
            ops[i].addr = (ops[i - 1].addr + 4) % kErrBase;
    b.run(l, ops);
    check_ops(l, sh, l.m.ops());
    check_memory(l, sh);
    check_no_proto_err(l);
}

} // namespace

int main(int argc, char **argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s axi4|axi3|ahb|apb4|apb3\n", argv[0]);
        return 2;
    }
    Bench b;
    Lane *l = b.lane(argv[1]);
    if (!l) {
        std::fprintf(stderr, "%s: unknown lane '%s' (axi4 axi3 ahb apb4 apb3)\n", argv[0], argv[1]);
        return 2;
    }
    const std::pair<const char *, std::function<void(Bench &, Lane &)>> cases[] = {
        {"rw", case_rw}, {"strobes", case_strobes}, {"errors", case_errors}, {"b2b", case_b2b},
        {"waits", case_waits}};
    for (const auto &c : cases) {
        g_case = c.first;
        b.reset();
        const int before = g_failures;
        c.second(b, *l);
        std::printf("%s %s: %s\n", l->name, c.first, g_failures == before ? "ok" : "FAILED");
    }
    std::printf("%s: %llu cycles, %d failure(s)\n", l->name, static_cast<unsigned long long>(g_cycle),
                g_failures);
    return g_failures ? 1 : 0;
}
