// Link benchmark (issue 3), one run, one table. Build: the bench_link target (any build
// tree; use a Release tree for figures): build/bin/bench_link [seconds-per-item]
//
//  1. bare: one verilated link block ticked in a C++ loop (eval per clock edge), idle;
//  2. bare pair: the host and device blocks back to back (LinkRtlPair), moving 2049-dword
//     frames continuously: the reference for the full path, which ticks a pair;
//  3. full path: SataLink in dword mode inside SystemC, an SC_THREAD sending 8 KiB Data
//     FISes to an endpoint (transport callbacks, per-frame SystemC waits included);
//  4. idle-heavy: one 4 KiB Data FIS every 100 ms of simulated time for 60 s simulated;
//     simulated seconds per wall second, dword level and FIS level.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

// Verilator's headers before SystemC's (with SystemC first they expect sc_time_stamp()).
#include "Vsata_link.h"
#include "verilated.h"

#define SC_INCLUDE_DYNAMIC_PROCESSES
#include <systemc>

#include "model/link/link_rtl.h"
#include "model/link/sata_link.h"

using namespace satasim;
using namespace satasim::link;
using Clock = std::chrono::steady_clock;

namespace {

double secs(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
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

void link_up(SataLink &l) {
    l.host_comreset(true);
    sc_core::wait(1, sc_core::SC_MS);
    l.host_comreset(false);
    while (!l.phy_ready())
        sc_core::wait(10, sc_core::SC_US);
}

} // namespace

int sc_main(int argc, char **argv) {
    const double budget = argc > 1 ? std::atof(argv[1]) : 2.0;

    // 1. bare block
    double bare_rate;
    {
        VerilatedContext ctx;
        ctx.threads(1);
        Vsata_link m(&ctx, "bare");
        m.i_host = 1;
        m.i_phy_rdy = 1;
        m.i_phy_rx_data = prim::kSync;
        m.i_phy_rx_isk = 1;
        m.rst = 1;
        m.clk = 0;
        m.eval();
        m.clk = 1;
        m.eval();
        m.rst = 0;
        uint64_t n = 0;
        auto t0 = Clock::now();
        double el = 0;
        while (el < budget) {
            for (int i = 0; i < 100000; ++i) {
                m.clk = 0;
                m.eval();
                m.clk = 1;
                m.eval();
                m.i_phy_rx_data = m.o_phy_tx_data; // loop back: keeps the decoder busy
                m.i_phy_rx_isk = m.o_phy_tx_isk;
            }
            n += 100000;
            el = secs(t0, Clock::now());
        }
        bare_rate = double(n) / el;
        m.final();
    }

    // 2. bare pair moving frames
    double pair_rate;
    {
        LinkRtlPair p;
        std::vector<uint32_t> f(2049);
        for (size_t i = 0; i < f.size(); ++i)
            f[i] = uint32_t(i * 2654435761u);
        f[0] = 0x46;
        p.side(false).auto_verdict = true;
        auto t0 = Clock::now();
        uint64_t c0 = p.cycles();
        double el = 0;
        bool dir = true;
        while (el < budget) {
            for (int k = 0; k < 20; ++k) {
                auto &tx = p.side(dir);
                p.side(!dir).auto_verdict = true;
                tx.start_frame(f.data(), f.size());
                p.run_until([&] { return tx.tx_done && p.both_idle(); }, 100000);
                p.side(true).clear_frame();
                p.side(false).clear_frame();
                dir = !dir;
            }
            el = secs(t0, Clock::now());
        }
        pair_rate = double(p.cycles() - c0) / el;
    }

    // 3. + 4. SystemC paths
    SataLink::Config dc;
    dc.mode = SataLink::Mode::Dword;
    SataLink::Config fc;
    fc.mode = SataLink::Mode::Fis;
    SataLink busy("busy", dc), idle_d("idle_dword", dc), idle_f("idle_fis", fc);
    Sink h1, d1, h2, d2, h3, d3;
    busy.attach(&h1, &d1);
    idle_d.attach(&h2, &d2);
    idle_f.attach(&h3, &d3);
    double full_rate = 0, idle_d_ratio = 0, idle_f_ratio = 0;
    uint64_t full_frames = 0;
    sc_core::sc_spawn([&] {
        link_up(busy);
        link_up(idle_d);
        link_up(idle_f);
        sata::Fis big = data_fis(8192);
        auto t0 = Clock::now();
        uint64_t c0 = busy.dword_cycles();
        double el = 0;
        while (el < budget) {
            for (int k = 0; k < 20; ++k)
                busy.send_from_host(big);
            el = secs(t0, Clock::now());
        }
        full_rate = double(busy.dword_cycles() - c0) / el;
        full_frames = d1.frames;

        sata::Fis small = data_fis(4096);
        for (SataLink *l : {&idle_d, &idle_f}) {
            sc_core::sc_time s0 = sc_core::sc_time_stamp();
            auto w0 = Clock::now();
            for (int i = 0; i < 600; ++i) { // 60 s simulated
                l->send_from_host(small);
                sc_core::wait(100, sc_core::SC_MS);
            }
            double sim = (sc_core::sc_time_stamp() - s0).to_seconds();
            double wall = secs(w0, Clock::now());
            (l == &idle_d ? idle_d_ratio : idle_f_ratio) = sim / wall;
        }
        sc_core::sc_stop();
    });
    sc_core::sc_start();

    std::printf("| measurement | figure |\n| --- | --- |\n");
    std::printf("| bare verilated link block, C++ loop (eval per edge) | %.2f M dword-cycles/s |\n",
                bare_rate / 1e6);
    std::printf("| bare pair (host+device blocks back to back, frames) | %.2f M dword-cycles/s |\n",
                pair_rate / 1e6);
    std::printf("| full path: SataLink dword mode in SystemC, 8 KiB Data FISes (%llu frames) | "
                "%.2f M dword-cycles/s (%.0f%% of bare pair, %.0f%% of bare block) |\n",
                (unsigned long long)full_frames, full_rate / 1e6, 100 * full_rate / pair_rate,
                100 * full_rate / bare_rate);
    std::printf("| idle-heavy: 4 KiB frame every 100 ms, dword level | %.0fx real time |\n",
                idle_d_ratio);
    std::printf("| idle-heavy: same, FIS level | %.0fx real time |\n", idle_f_ratio);
    return 0;
}
