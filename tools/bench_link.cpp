// Link benchmark (issue 3): the cycle-level rates, measured in one run so the ratios compare
// like with like. Build: the bench_link target (use a Release tree for figures).
//   build/bin/bench_link [seconds-per-item] [--kv] [--cpu]
// --kv prints key=value lines (for tools/bench_link.py); --cpu divides by CPU seconds of
// this process instead of wall seconds (A/B comparisons on a loaded machine).
// tools/bench_link.py runs this and the simulator's QD32 benchmark and prints one table.
//
//  a. bare block: one verilated link block (rtl/sata_link.v, host role) ticked in a C++
//     loop while it transmits 2049-dword frames back to back; its peer is a C++ script that
//     answers R_RDY / R_IP / R_OK from the block's state (no second block). The reference.
//  b. bare pair: host and device blocks back to back (LinkRtlPair: one verilated model with
//     both, C++ cable and wire hook), moving 2049-dword frames in alternate directions.
//  c. full path: SataLink in dword mode inside SystemC, an SC_THREAD sending 8 KiB Data
//     FISes to an endpoint (transport callbacks, fault hook, per-frame SystemC waits).
//  d. idle-heavy: one 4 KiB Data FIS every 100 ms of simulated time for 60 s simulated;
//     simulated seconds per wall second, dword level and FIS level.
// a, b and c run in interleaved rounds (3 rounds of seconds-per-item / 3 each) and report
// the median round, so a load change on a shared machine hits all three alike.
// A dword-cycle is one dword clock of the link: one block for a, both ends for b and c.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

// Verilator's headers before SystemC's (with SystemC first they expect sc_time_stamp()).
#include "Vsata_link.h"
#include "Vsata_link___024root.h"
#include "verilated.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "model/link/link_rtl.h"
#include "model/link/sata_link.h"

using namespace satasim;
using namespace satasim::link;
namespace {

// Wall clock by default; --cpu times with the process's CPU clock instead (for comparing
// builds on a loaded machine: other processes then cost this one nothing but cache).
bool use_cpu_clock = false;

double now() {
    timespec ts{};
    clock_gettime(use_cpu_clock ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC, &ts);
    return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

struct Sink : LinkEndpoint {
    uint64_t frames = 0;
    bool receive_fis(const sata::Fis &) override {
        ++frames;
        return true;
    }
    void phy_changed(bool, Gen) override {}
};

sata::Fis data_fis(size_t bytes) {
    std::vector<uint8_t> p(bytes);
    for (size_t i = 0; i < bytes; ++i)
        p[i] = uint8_t(i * 7);
    return sata::make_data(p.data(), p.size());
}

std::vector<uint32_t> frame_dwords() {
    std::vector<uint32_t> f(2049);
    for (size_t i = 0; i < f.size(); ++i)
        f[i] = uint32_t(i * 2654435761u);
    f[0] = 0x46; // Data FIS header
    return f;
}

void link_up(SataLink &l) {
    l.host_comreset(true);
    sc_core::wait(1, sc_core::SC_MS);
    l.host_comreset(false);
    while (!l.phy_ready())
        sc_core::wait(10, sc_core::SC_US);
}

// a. One block transmitting frames to a scripted peer.
// A context without worker threads, set before any model is built on it.
struct OneThreadContext : VerilatedContext {
    OneThreadContext() { threads(1); }
};

class BareBlock {
  public:
    BareBlock() : m_(&ctx_, "bare"), f_(frame_dwords()) {
        m_.i_host = 1;
        m_.i_phy_rdy = 1;
        m_.i_rx_full = 0;
        m_.i_rx_dmat = 0;
        m_.i_rx_verdict = 0;
        m_.i_rx_accept = 1;
        m_.i_phy_rx_data = prim::kSync;
        m_.i_phy_rx_isk = 1;
        m_.i_tx_req = 0;
        m_.i_tx_valid = 0;
        m_.rst = 1;
        for (int i = 0; i < 2; ++i) {
            m_.clk = 0;
            m_.eval();
            m_.clk = 1;
            m_.eval();
        }
        m_.rst = 0;
        m_.i_tx_req = 1; // always a frame pending
    }
    ~BareBlock() { m_.final(); }
    // Ticks n cycles; returns frames completed.
    uint64_t run(uint64_t n) {
        uint64_t done = 0;
        for (uint64_t i = 0; i < n; ++i) {
            // The peer answers the block's (registered) state, one dword late.
            uint32_t rx;
            switch (RtlState(m_.o_state)) {
            case RtlState::TxXrdy:
                rx = prim::kRRdy;
                break;
            case RtlState::TxSof:
            case RtlState::TxData:
            case RtlState::TxCrc:
            case RtlState::TxEof:
                rx = prim::kRIp;
                break;
            case RtlState::TxWtrm:
                rx = prim::kROk;
                break;
            default:
                rx = prim::kSync;
                break;
            }
            m_.i_phy_rx_data = rx;
            m_.i_tx_valid = 1;
            m_.i_tx_data = f_[pos_];
            m_.i_tx_last = pos_ + 1 == f_.size();
            // One rising edge, evaluated as LinkRtlPair::tick() does (link_rtl.cpp).
#if defined(VERILATOR_VERSION_INTEGER) && VERILATOR_VERSION_INTEGER == 5006000
            m_.rootp->__Vtrigrprev__TOP__clk = 0;
            m_.clk = 1;
            m_.eval();
#else
            m_.clk = 0;
            m_.eval();
            m_.clk = 1;
            m_.eval();
#endif
            if (m_.o_tx_pop && pos_ + 1 < f_.size())
                ++pos_;
            if (m_.o_tx_done) {
                pos_ = 0;
                ++done;
            }
        }
        return done;
    }

  private:
    OneThreadContext ctx_;
    Vsata_link m_;
    std::vector<uint32_t> f_;
    size_t pos_ = 0;
};

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

} // namespace

int sc_main(int argc, char **argv) {
    double budget = 3.0;
    bool kv = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--kv") == 0)
            kv = true;
        else if (std::strcmp(argv[i], "--cpu") == 0)
            use_cpu_clock = true;
        else
            budget = std::atof(argv[i]);
    }
    constexpr int kRounds = 3;
    const double slice = budget / kRounds;

    SataLink::Config dc;
    dc.mode = SataLink::Mode::Dword;
    SataLink::Config fc;
    fc.mode = SataLink::Mode::Fis;
    SataLink busy("busy", dc), idle_d("idle_dword", dc), idle_f("idle_fis", fc);
    Sink h1, d1, h2, d2, h3, d3;
    busy.attach(&h1, &d1);
    idle_d.attach(&h2, &d2);
    idle_f.attach(&h3, &d3);
    std::vector<double> bare, pair, full;
    uint64_t bare_frames = 0, pair_frames = 0;
    double idle_d_ratio = 0, idle_f_ratio = 0;

    sc_core::sc_spawn([&] {
        link_up(busy);
        link_up(idle_d);
        link_up(idle_f);
        BareBlock block;
        LinkRtlPair p;
        const std::vector<uint32_t> f = frame_dwords();
        const sata::Fis big = data_fis(8192);
        bool dir = true;
        for (int r = 0; r < kRounds; ++r) {
            { // a
                uint64_t n = 0;
                const double t0 = now();
                double el = 0;
                while (el < slice) {
                    bare_frames += block.run(100000);
                    n += 100000;
                    el = now() - t0;
                }
                bare.push_back(double(n) / el);
            }
            { // b
                const uint64_t c0 = p.cycles();
                const double t0 = now();
                double el = 0;
                while (el < slice) {
                    for (int k = 0; k < 20; ++k) {
                        LinkRtlPair::Side &tx = p.side(dir);
                        p.side(!dir).auto_verdict = true;
                        tx.start_frame(f.data(), f.size());
                        p.run_until([&] { return tx.tx_done && p.both_idle(); }, 100000);
                        pair_frames += tx.tx_status == 0;
                        p.side(true).clear_frame();
                        p.side(false).clear_frame();
                        dir = !dir;
                    }
                    el = now() - t0;
                }
                pair.push_back(double(p.cycles() - c0) / el);
            }
            { // c
                const uint64_t c0 = busy.dword_cycles();
                const double t0 = now();
                double el = 0;
                while (el < slice) {
                    for (int k = 0; k < 20; ++k)
                        busy.send_from_host(big);
                    el = now() - t0;
                }
                full.push_back(double(busy.dword_cycles() - c0) / el);
            }
        }

        const sata::Fis small = data_fis(4096);
        for (SataLink *l : {&idle_d, &idle_f}) { // d
            const sc_core::sc_time s0 = sc_core::sc_time_stamp();
            const double w0 = now();
            for (int i = 0; i < 600; ++i) { // 60 s simulated
                l->send_from_host(small);
                sc_core::wait(100, sc_core::SC_MS);
            }
            const double sim = (sc_core::sc_time_stamp() - s0).to_seconds();
            const double wall = now() - w0;
            (l == &idle_d ? idle_d_ratio : idle_f_ratio) = sim / wall;
        }
        sc_core::sc_stop();
    });
    sc_core::sc_start();

    const double a = median(bare), b = median(pair), c = median(full);
    if (kv) {
        std::printf("bare_block=%.6g\nbare_pair=%.6g\nfull_path=%.6g\n", a, b, c);
        std::printf("idle_dword_x=%.6g\nidle_fis_x=%.6g\n", idle_d_ratio, idle_f_ratio);
        std::printf("full_frames=%llu\n", (unsigned long long)d1.frames);
        return 0;
    }
    std::printf("| measurement | figure | vs bare block |\n| --- | --- | --- |\n");
    std::printf("| a. bare link block, C++ loop, frames moving (%llu frames) | %.2f M dword-cycles/s "
                "| 100%% |\n",
                (unsigned long long)bare_frames, a / 1e6);
    std::printf("| b. bare pair, host+device back to back (%llu frames) | %.2f M dword-cycles/s | "
                "%.0f%% |\n",
                (unsigned long long)pair_frames, b / 1e6, 100 * b / a);
    std::printf("| c. full path, SataLink dword mode in SystemC (%llu frames) | %.2f M "
                "dword-cycles/s | %.0f%% |\n",
                (unsigned long long)d1.frames, c / 1e6, 100 * c / a);
    std::printf("| d. idle-heavy (4 KiB frame / 100 ms, 60 s), dword level | %.0fx real time | |\n",
                idle_d_ratio);
    std::printf("| d. idle-heavy, same, FIS level | %.0fx real time | |\n", idle_f_ratio);
    return 0;
}
