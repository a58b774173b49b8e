// FaultInjector: time triggers (from the workload start or power-on, repeat/every), the
// fault.inject record, reset(), and the command filter used by on_cmd triggers.
#include "model/fault/fault_injector.h"
#include "model_test.h"

using namespace satasim;
using sc_core::SC_MS;
using sc_core::sc_time;

namespace {

struct Capture : ModelTrace {
    std::vector<std::pair<uint64_t, TraceRecord>> recs; // (t_ns, record)
    void emit(const TraceRecord &r) override {
        recs.emplace_back(uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5), r);
    }
    int64_t field(size_t i, const char *k) const {
        for (const auto &f : recs[i].second.fields)
            if (f.first == k)
                return f.second.i;
        return -1;
    }
};

Capture g_trace;
fault::FaultInjector *g_inj = nullptr;

fault::FaultPlan make_plan() {
    fault::FaultPlan plan;
    fault::Fault a; // 2 ms after the workload start, three times 1 ms apart
    a.id = "flap";
    a.kind = fault::Kind::PhyFlap;
    a.trigger.at_ns = 2000000;
    a.trigger.repeat = 3;
    a.trigger.every_ns = 1000000;
    plan.push_back(a);
    fault::Fault b; // 1 ms after power-on, once
    b.id = "early";
    b.kind = fault::Kind::Hang;
    b.trigger.at_ns = 1000000;
    b.trigger.from_power_on = true;
    plan.push_back(b);
    return plan;
}

uint64_t now_ns() { return uint64_t(sc_core::sc_time_stamp().to_seconds() * 1e9 + 0.5); }

} // namespace

MODEL_TEST(time_triggers_count_from_workload_start) {
    g_trace.recs.clear();
    uint64_t t0 = now_ns();
    sc_core::wait(sc_time(5, SC_MS)); // "boot probe": only the power-on fault fires
    EXPECT_EQ(g_trace.recs.size(), size_t(1));
    EXPECT_EQ(g_trace.recs[0].first, t0 + 1000000);
    EXPECT_TRUE(g_trace.recs[0].second.name == "fault.inject" && g_trace.recs[0].second.src == "fault");
    EXPECT_TRUE(g_inj->time_firings_pending());
    uint64_t ws = now_ns();
    g_inj->workload_started();
    while (g_inj->time_firings_pending())
        sc_core::wait(g_inj->fired_event());
    EXPECT_EQ(g_trace.recs.size(), size_t(4));
    for (size_t i = 1; i < 4; ++i) {
        EXPECT_EQ(g_trace.recs[i].first, ws + 2000000 + (i - 1) * 1000000);
        EXPECT_EQ(g_trace.field(i, "firing"), int64_t(i));
    }
    EXPECT_EQ(g_inj->fired(0), 3u);
    EXPECT_EQ(g_inj->fired(1), 1u);
}

MODEL_TEST(reset_forgets_and_rearms) {
    g_inj->reset();
    EXPECT_EQ(g_inj->fired(0), 0u);
    EXPECT_EQ(g_inj->fired(1), 0u);
    g_trace.recs.clear();
    uint64_t t0 = now_ns();
    sc_core::wait(sc_time(10, SC_MS));
    // power-on faults count from the reset; the others wait for the next workload start
    EXPECT_EQ(g_trace.recs.size(), size_t(1));
    EXPECT_EQ(g_trace.recs[0].first, t0 + 1000000);
    EXPECT_EQ(g_inj->fired(0), 0u);
}

MODEL_TEST(command_filter) {
    device::CommandInfo rd{0x60, true, false, 1000, 8, 3, 1};
    device::CommandInfo wr{0x35, false, true, 2000, 16, -1, 2};
    device::CommandInfo fl{0xEA, false, false, 0, 0, -1, 3};
    fault::CommandMatch m;
    EXPECT_TRUE(fault::matches(m, rd) && fault::matches(m, wr) && fault::matches(m, fl));
    m.op = fault::CommandMatch::Op::Read;
    EXPECT_TRUE(fault::matches(m, rd) && !fault::matches(m, wr));
    m.op = fault::CommandMatch::Op::Ncq;
    EXPECT_TRUE(fault::matches(m, rd) && !fault::matches(m, wr));
    m.op = fault::CommandMatch::Op::Flush;
    EXPECT_TRUE(fault::matches(m, fl) && !fault::matches(m, rd));
    m = {};
    m.lba_first = 1007;
    m.lba_last = 1007;
    EXPECT_TRUE(fault::matches(m, rd) && !fault::matches(m, wr) && !fault::matches(m, fl));
    m.lba_first = 1008;
    m.lba_last = 1999;
    EXPECT_TRUE(!fault::matches(m, rd) && !fault::matches(m, wr));
    m = {};
    m.opcode = 0x35;
    EXPECT_TRUE(fault::matches(m, wr) && !fault::matches(m, rd));
}

int sc_main(int, char **) {
    fault::FaultInjector inj("fault", make_plan(), &g_trace);
    g_inj = &inj;
    inj.bind_port({0, -1}, fault::PortHooks{}); // no blocks: only the schedule and the records
    return test::run_all();
}
