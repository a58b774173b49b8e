// The fault-kind tables: the plain facts (model/fault/fault_kind_spec.h) and the engine's
// rows (model/fault/fault_kinds.h), one row each per fault::Kind and pointing at each
// other; names that round-trip, and each row's arm() reaching the block it names and no other.
#include <set>
#include <string>

#include "model/fault/fault_kinds.h"
#include "model_test.h"

using namespace satasim;

namespace {

// Which PortHooks callbacks a row's arm() called.
struct Calls {
    int lost_irq = 0, pmp_hang = 0, pmp_reg_abort = 0;
};

fault::PortHooks callback_hooks(Calls &c) {
    fault::PortHooks h;
    h.lost_irq = [&c](unsigned, uint64_t, const std::string &) { ++c.lost_irq; };
    h.pmp_hang = [&c](const std::string &) { ++c.pmp_hang; };
    h.pmp_reg_abort = [&c](unsigned, unsigned, const std::string &) { ++c.pmp_reg_abort; };
    return h;
}

} // namespace

MODEL_TEST(one_row_per_kind_in_enum_order) {
    const auto &t = fault::kind_table();
    const auto &s = fault::kind_specs();
    EXPECT_EQ(t.size(), size_t(fault::Kind::LineNoise) + 1);
    EXPECT_EQ(s.size(), t.size());
    std::set<std::string> names;
    for (size_t i = 0; i < t.size(); ++i) {
        EXPECT_TRUE(t[i].kind == fault::Kind(i));
        EXPECT_TRUE(i < s.size() && s[i].kind == fault::Kind(i));
        EXPECT_TRUE(t[i].arm != nullptr);
        // The engine's row points at the kind's own spec row.
        EXPECT_TRUE(t[i].spec != nullptr && t[i].spec == fault::kind_spec(t[i].kind) && t[i].spec->kind == t[i].kind);
        names.insert(i < s.size() ? s[i].name : "");
    }
    EXPECT_EQ(names.size(), t.size()); // names are unique
    EXPECT_TRUE(fault::kind_row(fault::Kind(200)) == nullptr);
    EXPECT_TRUE(fault::kind_spec(fault::Kind(200)) == nullptr);
    EXPECT_TRUE(std::string(fault::to_string(fault::Kind(200))) == "?");
}

MODEL_TEST(every_spec_row_has_one_engine_row) {
    for (const auto &s : fault::kind_specs()) {
        int rows = 0;
        for (const auto &r : fault::kind_table())
            rows += r.kind == s.kind ? 1 : 0;
        EXPECT_EQ(rows, 1);
        EXPECT_TRUE(fault::kind_row(s.kind) && fault::kind_row(s.kind)->spec == &s);
        // A kind bound to the PMP's control port arms the PMP block, and only such a kind.
        EXPECT_TRUE((s.binds == fault::Binds::PmpControl) == (fault::kind_row(s.kind)->block == fault::Block::Pmp));
    }
}

MODEL_TEST(names_round_trip) {
    for (const auto &r : fault::kind_specs()) {
        auto k = fault::kind_from_string(r.name);
        EXPECT_TRUE(k && *k == r.kind);
        EXPECT_TRUE(std::string(fault::to_string(r.kind)) == r.name);
    }
    // The names scenarios and traces use today.
    EXPECT_TRUE(fault::kind_from_string("media_error") == fault::Kind::MediaError);
    EXPECT_TRUE(fault::kind_from_string("phy_flap") == fault::Kind::PhyFlap);
    EXPECT_TRUE(std::string(fault::to_string(fault::Kind::PmpHang)) == "pmp_hang");
    EXPECT_TRUE(fault::kind_from_string("slow") == fault::Kind::Slow);
    EXPECT_TRUE(!fault::kind_from_string("Crc") && !fault::kind_from_string("") &&
                !fault::kind_from_string("crc "));
}

MODEL_TEST(controller_and_pmp_kinds_reach_their_callback_only) {
    for (const auto &r : fault::kind_table()) {
        if (r.block != fault::Block::Hba && r.block != fault::Block::Pmp)
            continue;
        fault::Fault f;
        f.kind = r.kind;
        Calls c;
        r.arm(fault::Firing{f, nullptr}, callback_hooks(c));
        // The taskfile kinds act on the channel (PortHooks::channel), not on these callbacks.
        EXPECT_EQ(c.lost_irq, r.kind == fault::Kind::LostIrq ? 1 : 0);
        EXPECT_EQ(c.pmp_hang, r.kind == fault::Kind::PmpHang ? 1 : 0);
        EXPECT_EQ(c.pmp_reg_abort, r.kind == fault::Kind::PmpRegAbort ? 1 : 0);
        EXPECT_TRUE(!r.spec->taskfile_only || r.block == fault::Block::Hba);
    }
    // Rows whose block is not bound do nothing (no disk, no link: no crash either).
    fault::Fault f;
    for (const auto &r : fault::kind_table()) {
        f.kind = r.kind;
        r.arm(fault::Firing{f, nullptr}, fault::PortHooks{});
    }
    EXPECT_TRUE(fault::kind_row(fault::Kind::PmpHang)->spec->binds == fault::Binds::PmpControl);
    EXPECT_TRUE(fault::kind_row(fault::Kind::PmpHang)->spec->time_only);
}

MODEL_TEST(media_error_takes_the_firing_commands_range) {
    fault::Fault f;
    f.kind = fault::Kind::MediaError;
    device::CommandInfo c{0x60, true, false, 0x1000, 8, 3, 1};
    fault::TraceFields out;
    fault::trace_params(fault::at_firing(f, &c), out);
    auto hex = [&](const char *k) -> int64_t {
        for (const auto &p : out)
            if (p.first == k)
                return p.second.i;
        return -1;
    };
    EXPECT_EQ(hex("lba_first"), 0x1000);
    EXPECT_EQ(hex("lba_last"), 0x1007);
    out.clear();
    fault::trace_params(fault::at_firing(f, nullptr), out); // time trigger: no range
    EXPECT_EQ(hex("lba_first"), -1);
}

MODEL_TEST(blocks_disarm_through_their_hooks) {
    int hba = 0, pmp = 0;
    fault::PortHooks h;
    h.clear_hba = [&] { ++hba; };
    h.clear_pmp = [&] { ++pmp; };
    for (const auto &b : fault::block_table())
        b.disarm(h);
    EXPECT_EQ(hba, 1);
    EXPECT_EQ(pmp, 1);
    EXPECT_EQ(fault::block_table().size(), size_t(4));
}

int sc_main(int, char **) { return test::run_all(); }
