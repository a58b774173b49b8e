// Testbench of the AXI4-Lite clock-domain crossing (model/ahci_rtl/adapters/satasim_axil_cdc.v,
// docs/rtl-controller.md, clocks) alone: its register side on one clock, its core side on
// another, the two stepped in time order by the shell's own clock schedule
// (model/link/phy_lane.h, PhyClocks with a bus clock beside the core clock).
//
//   cdc_test CASE    CASE: r50c150 r150c50 r100c150 r150c100 r150c150 (register clock and
//                    core clock in MHz)
//
// Register side: an AXI4-Lite master with a write stream and a read stream at once, each
// access's AW / W / AR raised after random delays (AW and W apart), BREADY / RREADY held
// off at random. Core side: a 16-register slave that raises its READYs and its B / R after
// random delays, answers SLVERR / DECERR on two of its registers, and checks the AXI rules
// the bridge must keep (VALID held until READY, payload unchanged meanwhile, one access at a
// time). Checked at the end: the writes the slave took are the master's, in order, each
// once (none lost, none doubled); the reads likewise, and each read returned to the master
// the value (and response) the slave gave for it; the master saw the register side keep
// its B / R VALID and payload until READY. And each crossing took its synchronizer's time:
// no core-side AW / AR VALID before 3 core edges after the request toggle flipped, no
// register-side B / R VALID before 3 register edges after the acknowledge toggle flipped
// (2 synchronizer flip-flops and the register behind them), so a missing synchronizer
// stage, invisible to the data checks of a zero-delay simulation, fails too. Exit status
// 0 only if every check held.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "Vsatasim_axil_cdc.h"
#include "Vsatasim_axil_cdc___024root.h"
#include "model/ahci_rtl/adapters/tb/tb_fail.h"
#include "model/link/phy_lane.h"
#include "verilated.h"

namespace {

using satasim::link::kEdgeCore;
using satasim::link::kEdgeReg;
using satasim::link::PhyClocks;
using satasim_tb::fail;
using satasim_tb::g_failures;
using satasim_tb::g_step;

constexpr unsigned kRegs = 16;      // the core slave's registers (offsets 0, 4, .. 3Ch)
constexpr unsigned kSlvErrReg = 12; // answers SLVERR, keeps its value
constexpr unsigned kDecErrReg = 13; // answers DECERR
constexpr unsigned kOps = 4000;     // accesses per stream
constexpr uint64_t kMaxSteps = 4000000;
constexpr unsigned kCrossEdges = 3; // SYNC (2) synchronizer flip-flops + the register behind

struct Access {
    bool write = false;
    uint32_t addr = 0, data = 0;
    uint8_t strb = 0xF;
    unsigned resp = 0;
};

bool same(const Access &a, const Access &b) {
    return a.write == b.write && a.addr == b.addr && a.data == b.data && a.strb == b.strb && a.resp == b.resp;
}

// The core side's register file and AXI4-Lite slave (moves on core clock edges).
class Slave {
  public:
    explicit Slave(std::mt19937 &rng) : rng_(rng) {}
    std::vector<Access> writes, reads; // as taken, with the response given

    // Before the edge: READYs and responses into the model.
    void drive(Vsatasim_axil_cdc &m) {
        m.m_awready = aw_ready_ = !aw_ && chance(60);
        m.m_wready = w_ready_ = !w_ && chance(60);
        m.m_arready = ar_ready_ = !ar_ && chance(60);
        if (!bvalid_ && aw_ && w_ && wait_-- == 0)
            bvalid_ = true;
        if (!rvalid_ && ar_ && wait_-- == 0)
            rvalid_ = true;
        m.m_bvalid = bvalid_;
        m.m_bresp = bvalid_ ? cur_.resp : 0;
        m.m_rvalid = rvalid_;
        m.m_rresp = rvalid_ ? cur_.resp : 0;
        m.m_rdata = rvalid_ ? cur_.data : 0xDEADBEEFu;
    }

    // After the edge: the handshakes of that edge, on the outputs sampled before it.
    void edge(const Vsatasim_axil_cdc &m) {
        held(aw_hold_, "AW", m.m_awvalid, m.m_awaddr, 0, 0, aw_ready_);
        held(w_hold_, "W", m.m_wvalid, 0, m.m_wdata, m.m_wstrb, w_ready_);
        held(ar_hold_, "AR", m.m_arvalid, m.m_araddr, 0, 0, ar_ready_);
        if (m.m_awvalid && aw_ready_) {
            if (aw_ || ar_)
                fail("core side: AW while an access is under way");
            aw_ = true;
            cur_ = Access{true, m.m_awaddr, cur_.data, cur_.strb, 0};
        }
        if (m.m_wvalid && w_ready_) {
            if (ar_ || w_)
                fail("core side: W while an access is under way");
            w_ = true;
            cur_.data = m.m_wdata;
            cur_.strb = m.m_wstrb;
        }
        if (m.m_arvalid && ar_ready_) {
            if (busy())
                fail("core side: AR while an access is under way");
            ar_ = true;
            cur_ = Access{false, m.m_araddr, 0, 0, 0};
            start_response();
        }
        if (aw_ && w_ && !started_)
            start_response();
        if (bvalid_ && m.m_bready) {
            writes.push_back(cur_);
            bvalid_ = aw_ = w_ = started_ = false;
        } else if (bvalid_ && !m.m_bready) {
            fail("core side: BREADY low while the write's B waits");
        }
        if (rvalid_ && m.m_rready) {
            reads.push_back(cur_);
            rvalid_ = ar_ = started_ = false;
        } else if (rvalid_ && !m.m_rready) {
            fail("core side: RREADY low while the read's R waits");
        }
    }

  private:
    struct Hold {
        bool valid = false;
        uint32_t addr = 0, data = 0, strb = 0;
    };
    bool chance(unsigned pct) { return rng_() % 100 < pct; }
    bool busy() const { return aw_ || w_ || ar_; }
    void held(Hold &h, const char *ch, bool valid, uint32_t addr, uint32_t data, uint32_t strb, bool ready) {
        if (h.valid && !valid)
            fail("core side: %sVALID dropped before %sREADY", ch, ch);
        if (h.valid && valid && (addr != h.addr || data != h.data || strb != h.strb))
            fail("core side: %s payload changed while %sVALID waited", ch, ch);
        h = Hold{valid && !ready, addr, data, strb};
    }
    // The access's effect and response, given once both halves of a write (or the AR) are in.
    void start_response() {
        started_ = true;
        wait_ = rng_() % 4;
        const unsigned r = (cur_.addr >> 2) % kRegs;
        if (cur_.addr >= 4 * kRegs || (cur_.addr & 3))
            fail("core side: address 0x%x outside the test's registers", cur_.addr);
        cur_.resp = r == kSlvErrReg ? 2 : r == kDecErrReg ? 3 : 0;
        if (cur_.write) {
            if (cur_.resp == 0)
                for (unsigned b = 0; b < 4; ++b)
                    if (cur_.strb >> b & 1)
                        regs_[r] = (regs_[r] & ~(0xFFu << 8 * b)) | (cur_.data & 0xFFu << 8 * b);
        } else {
            cur_.data = cur_.resp == 3 ? 0 : regs_[r];
        }
    }

    std::mt19937 &rng_;
    uint32_t regs_[kRegs] = {};
    bool aw_ready_ = false, w_ready_ = false, ar_ready_ = false;
    bool aw_ = false, w_ = false, ar_ = false, started_ = false;
    bool bvalid_ = false, rvalid_ = false;
    unsigned wait_ = 0;
    Access cur_;
    Hold aw_hold_, w_hold_, ar_hold_;
};

// The register side's AXI4-Lite master (moves on register clock edges): a write stream and
// a read stream, one access of each at a time.
class Master {
  public:
    explicit Master(std::mt19937 &rng) : rng_(rng) {}
    std::vector<Access> wr_issued, rd_issued, wr_done, rd_done;
    bool finished() const { return wr_done.size() == kOps && rd_done.size() == kOps; }

    void drive(Vsatasim_axil_cdc &m) {
        if (!w_active_ && wr_issued.size() < kOps && chance(30)) {
            Access a{true, rand_addr(), uint32_t(rng_()), uint8_t(rng_() % 16), 0};
            wr_issued.push_back(a);
            w_active_ = true;
            aw_delay_ = rng_() % 4;
            w_delay_ = rng_() % 4;
            aw_pend_ = w_pend_ = true;
        }
        if (!r_active_ && rd_issued.size() < kOps && chance(30)) {
            rd_issued.push_back(Access{false, rand_addr(), 0, 0, 0});
            r_active_ = true;
            ar_delay_ = rng_() % 4;
            ar_pend_ = true;
        }
        m.s_awvalid = aw_pend_ && aw_delay_ == 0;
        m.s_awaddr = w_active_ ? wr_issued.back().addr : 0;
        m.s_wvalid = w_pend_ && w_delay_ == 0;
        m.s_wdata = w_active_ ? wr_issued.back().data : 0;
        m.s_wstrb = w_active_ ? wr_issued.back().strb : 0;
        m.s_arvalid = ar_pend_ && ar_delay_ == 0;
        m.s_araddr = r_active_ ? rd_issued.back().addr : 0;
        m.s_bready = bready_ = chance(70); // back-pressure on the responses
        m.s_rready = rready_ = chance(70);
    }

    void edge(const Vsatasim_axil_cdc &m) {
        if (m.s_awvalid && m.s_awready)
            aw_pend_ = false;
        if (m.s_wvalid && m.s_wready)
            w_pend_ = false;
        if (m.s_arvalid && m.s_arready)
            ar_pend_ = false;
        aw_delay_ -= aw_delay_ > 0;
        w_delay_ -= w_delay_ > 0;
        ar_delay_ -= ar_delay_ > 0;
        // B / R: held until READY with their payload (AXI4 A3.2.1)
        if (b_wait_ && (!m.s_bvalid || m.s_bresp != b_resp_))
            fail("register side: BVALID or BRESP changed before BREADY");
        if (r_wait_ && (!m.s_rvalid || m.s_rresp != r_resp_ || m.s_rdata != r_data_))
            fail("register side: RVALID, RRESP or RDATA changed before RREADY");
        b_wait_ = m.s_bvalid && !bready_;
        b_resp_ = m.s_bresp;
        r_wait_ = m.s_rvalid && !rready_;
        r_resp_ = m.s_rresp;
        r_data_ = m.s_rdata;
        if (m.s_bvalid && bready_) {
            if (!w_active_ || aw_pend_ || w_pend_) {
                fail("register side: B without a write whose AW and W were taken");
            } else {
                Access a = wr_issued.back();
                a.resp = m.s_bresp;
                wr_done.push_back(a);
                w_active_ = false;
            }
        }
        if (m.s_rvalid && rready_) {
            if (!r_active_ || ar_pend_) {
                fail("register side: R without a read whose AR was taken");
            } else {
                Access a = rd_issued.back();
                a.data = m.s_rdata;
                a.resp = m.s_rresp;
                rd_done.push_back(a);
                r_active_ = false;
            }
        }
    }

  private:
    bool chance(unsigned pct) { return rng_() % 100 < pct; }
    uint32_t rand_addr() {
        // mostly a few hot registers (reads meet recent writes), now and then the error ones
        return 4 * (rng_() % 8 == 0 ? kSlvErrReg + rng_() % 2 : rng_() % 6);
    }
    std::mt19937 &rng_;
    bool w_active_ = false, r_active_ = false;
    bool aw_pend_ = false, w_pend_ = false, ar_pend_ = false;
    unsigned aw_delay_ = 0, w_delay_ = 0, ar_delay_ = 0;
    bool bready_ = false, rready_ = false;
    bool b_wait_ = false, r_wait_ = false;
    unsigned b_resp_ = 0, r_resp_ = 0;
    uint32_t r_data_ = 0;
};

int run(double reg_mhz, double core_mhz) {
    VerilatedContext ctx;
    auto m = std::make_unique<Vsatasim_axil_cdc>(&ctx, "cdc");
    std::mt19937 rng(0x5A7A51 ^ unsigned(reg_mhz * 1000 + core_mhz));
    Master master(rng);
    Slave slave(rng);
    PhyClocks clocks(32, 0);
    clocks.add_bus_clock(kEdgeReg, reg_mhz, core_mhz);
    // Power-on: each reset 8 cycles of its own clock, from the same instant.
    unsigned s_left = 8, m_left = 8;
    m->s_rst = m->m_rst = 1;
    uint64_t reg_edges = 0, core_edges = 0;
    // edges of the receiving clock since each toggle last flipped (the toggles are public)
    const auto &root = *m->rootp;
    uint8_t req_tgl = 0, ack_tgl = 0;
    unsigned core_since_req = kCrossEdges, reg_since_ack = kCrossEdges;
    bool m_valid_was = false, s_valid_was = false;
    for (g_step = 0; g_step < kMaxSteps && !master.finished() && g_failures == 0; ++g_step) {
        const unsigned e = clocks.next();
        const bool reg = e & kEdgeReg, core = e & kEdgeCore;
        const bool in_reset = m->s_rst || m->m_rst;
        if (reg && !in_reset)
            master.drive(*m);
        if (core && !in_reset)
            slave.drive(*m);
        m->s_clk = 0;
        m->m_clk = 0;
        m->eval();
        // outputs sampled: the handshakes of this step's edges are decided on them
        const bool m_valid = m->m_awvalid || m->m_arvalid, s_valid = m->s_bvalid || m->s_rvalid;
        if (m_valid && !m_valid_was && core_since_req < kCrossEdges)
            fail("core side: an access %u core edges after the request toggle flipped (synchronizer: %u)",
                 core_since_req, kCrossEdges);
        if (s_valid && !s_valid_was && reg_since_ack < kCrossEdges)
            fail("register side: a response %u register edges after the acknowledge toggle flipped "
                 "(synchronizer: %u)",
                 reg_since_ack, kCrossEdges);
        m_valid_was = m_valid;
        s_valid_was = s_valid;
        if (reg && !in_reset)
            master.edge(*m);
        if (core && !in_reset)
            slave.edge(*m);
        m->s_clk = reg;
        m->m_clk = core;
        m->eval();
        // a flip at this step's edge: the receiving clock's edges from the next step on count
        core_since_req = root.satasim_axil_cdc__DOT__req_tgl != req_tgl ? 0 : core_since_req + core;
        reg_since_ack = root.satasim_axil_cdc__DOT__ack_tgl != ack_tgl ? 0 : reg_since_ack + reg;
        req_tgl = root.satasim_axil_cdc__DOT__req_tgl;
        ack_tgl = root.satasim_axil_cdc__DOT__ack_tgl;
        reg_edges += reg;
        core_edges += core;
        if (reg && s_left && --s_left == 0)
            m->s_rst = 0;
        if (core && m_left && --m_left == 0)
            m->m_rst = 0;
    }
    m->final();
    if (!master.finished())
        fail("only %zu of %u writes and %zu of %u reads completed", master.wr_done.size(), kOps,
             master.rd_done.size(), kOps);
    // every access reached the core once, in order, and its response came back unchanged
    if (slave.writes.size() != master.wr_done.size())
        fail("the core took %zu writes, the register side completed %zu", slave.writes.size(), master.wr_done.size());
    if (slave.reads.size() != master.rd_done.size())
        fail("the core took %zu reads, the register side completed %zu", slave.reads.size(), master.rd_done.size());
    for (size_t i = 0; i < slave.writes.size() && i < master.wr_done.size(); ++i)
        if (!same(slave.writes[i], master.wr_done[i])) {
            fail("write %zu: the core took 0x%x <- 0x%08x/%x resp %u; the register side wrote 0x%x <- 0x%08x/%x, "
                 "got resp %u",
                 i, slave.writes[i].addr, slave.writes[i].data, slave.writes[i].strb, slave.writes[i].resp,
                 master.wr_done[i].addr, master.wr_done[i].data, master.wr_done[i].strb, master.wr_done[i].resp);
            break;
        }
    for (size_t i = 0; i < slave.reads.size() && i < master.rd_done.size(); ++i)
        if (!same(slave.reads[i], master.rd_done[i])) {
            fail("read %zu: the core answered 0x%x = 0x%08x resp %u; the register side got 0x%x = 0x%08x resp %u", i,
                 slave.reads[i].addr, slave.reads[i].data, slave.reads[i].resp, master.rd_done[i].addr,
                 master.rd_done[i].data, master.rd_done[i].resp);
            break;
        }
    std::printf("cdc reg %.0f MHz / core %.0f MHz: %zu writes, %zu reads in %llu register and %llu core cycles: %s\n",
                reg_mhz, core_mhz, master.wr_done.size(), master.rd_done.size(), (unsigned long long)reg_edges,
                (unsigned long long)core_edges, g_failures ? "FAILED" : "ok");
    return g_failures ? 1 : 0;
}

} // namespace

int main(int argc, char **argv) {
    const struct {
        const char *name;
        double reg, core;
    } cases[] = {{"r50c150", 50, 150},   {"r150c50", 150, 50},   {"r100c150", 100, 150},
                 {"r150c100", 150, 100}, {"r150c150", 150, 150}};
    if (argc == 2)
        for (const auto &c : cases)
            if (std::strcmp(argv[1], c.name) == 0)
                return run(c.reg, c.core);
    std::fprintf(stderr, "usage: cdc_test r50c150|r150c50|r100c150|r150c100|r150c150\n");
    return 2;
}
