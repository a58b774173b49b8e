// Unit tests of the DUT shell's per-port interrupt lines (harness/src/backend/rtl/irq_lines.h):
// the host's accesses as the shell's register master makes them, the lines as a DUT drives
// them, and each rule's verdict, with the AHCI register semantics the rules rest on (GHC.IE,
// GHC.HR, PxIE per port). Prints each failure and exits non-zero on one.
#include <cstdio>
#include <string>
#include <vector>

#include "backend/rtl/irq_lines.h"
#include "model/tests/plain_check.h"

using satasim::harness::rtl::IrqLines;

namespace {

constexpr uint32_t kGhc = 0x04, kPxIS0 = 0x110, kPxIE0 = 0x114, kPxIS1 = 0x190, kPxIE1 = 0x194;
constexpr uint32_t kDhrs = 1u << 0, kSdbs = 1u << 3, kTfes = 1u << 30;

struct Bench {
    struct Seen {
        int port;
        std::string rule;
    };
    std::vector<Seen> seen;
    IrqLines lines;
    explicit Bench(unsigned ports)
        : lines(ports, [this](int n, const char *rule, const std::string &) { seen.push_back({n, rule}); }) {}
    // Interrupts on: GHC.IE, every port's PxIE = mask.
    void enable(unsigned ports, uint32_t mask) {
        lines.write(kGhc, 1u << 1 | 1u << 31);
        for (unsigned n = 0; n < ports; ++n)
            lines.write(kPxIE0 + 0x80 * n, mask);
    }
};

// A line that follows PxIS & PxIE under GHC.IE, with a cycle's lag either way, breaks no rule.
void a_faithful_line_passes() {
    Bench b(2);
    b.enable(2, kDhrs | kSdbs | kTfes);
    b.lines.read(kPxIS0, kDhrs, 0b01, 0b01); // pending, line high
    b.lines.read(kPxIS1, 0, 0b01, 0b01);     // port 1: nothing pending, its line low
    b.lines.write(kPxIS0, kDhrs);            // cleared ...
    b.lines.read(kPxIS0, 0, 0b01, 0b00);     // ... the line still high as the read began: a lag
    b.lines.read(kPxIS0, kSdbs, 0b00, 0b01); // a new bit set during the read
    b.lines.read(kPxIS1, 1u << 5, 0b10, 0b10); // PxIS.DPS is not enabled ...
    CHECK_EQ(b.seen.size(), 1u);               // ... so port 1's high line is spurious
    CHECK(!b.seen.empty() && b.seen[0].rule == "irq_line_high" && b.seen[0].port == 1);
    CHECK_EQ(b.lines.mask(), 0b11);
}

// An enabled pending bit under GHC.IE with the line low: irq_line_low, on that port only.
void a_lost_line_is_low() {
    Bench b(2);
    b.enable(2, kTfes);
    b.lines.read(kPxIS1, kTfes | kDhrs, 0b11, 0b01);
    CHECK_EQ(b.seen.size(), 1u);
    CHECK(!b.seen.empty() && b.seen[0].rule == "irq_line_low" && b.seen[0].port == 1);
    // Not enabled in PxIE: the same value read with the line low is right.
    b.lines.write(kPxIE1, kDhrs);
    b.lines.read(kPxIS1, kTfes, 0b00, 0b00);
    CHECK_EQ(b.seen.size(), 1u);
    CHECK_EQ(b.lines.violations(), 1u);
}

// GHC.IE clear gates every line: pending bits read with the line low are right, and a line
// high across the read is not; an HBA reset (GHC.HR) clears GHC.IE and every PxIE.
void global_enable_and_hba_reset() {
    Bench b(1);
    b.enable(1, kDhrs);
    b.lines.write(kGhc, 1u << 31); // GHC.IE cleared (AE kept)
    b.lines.read(kPxIS0, kDhrs, 0, 0);
    CHECK(b.seen.empty());
    b.lines.read(kPxIS0, kDhrs, 1, 1);
    CHECK(b.seen.size() == 1 && b.seen[0].rule == "irq_line_high");
    b.enable(1, kDhrs);
    b.lines.write(kGhc, 1u << 0 | 1u << 1); // HR (IE in the same write does not survive it)
    b.lines.read(kPxIS0, kDhrs, 0, 0);
    CHECK_EQ(b.seen.size(), 1u);
    b.lines.write(kGhc, 1u << 1); // IE again, but PxIE is still its reset value 0
    b.lines.read(kPxIS0, kDhrs, 0, 0);
    CHECK_EQ(b.seen.size(), 1u);
}

// Only PxIS reads of implemented ports are judged: IS, another register, or port 2 of a
// 2-port DUT, whatever the lines.
void only_pxis_reads_of_its_ports() {
    Bench b(2);
    b.enable(2, 0xFFFFFFFF);
    b.lines.read(0x08, 0x3, 0, 0);          // IS
    b.lines.read(kPxIE0, 0xFFFFFFFF, 0, 0); // PxIE
    b.lines.read(0x100 + 0x80 * 2 + 0x10, kDhrs, 0, 0);
    b.lines.read(kPxIS0 + 4 * 0x80, kDhrs, 0, 0);
    CHECK(b.seen.empty());
    CHECK_EQ(b.lines.mask(), 0b11);
    IrqLines eight(8, nullptr);
    CHECK_EQ(eight.mask(), 0xFF);
}

// The aggregate irq rising with no per-port line near it: irq_lines_silent, once per rise,
// judged kSilentCycles after it; a line up to that many cycles early or late is right, and
// a rise that the host's own GHC write causes (GHC.IE set over latched IS bits) is not judged.
void a_rise_no_line_carries_is_silent() {
    constexpr uint64_t k = IrqLines::kSilentCycles;
    Bench b(2);
    uint64_t c = 100;
    auto run = [&](unsigned n, bool irq, uint8_t lines, bool ghc = false) {
        for (unsigned i = 0; i < n; ++i)
            b.lines.core_edge(c++, irq, lines, ghc);
    };
    run(5, false, 0);
    run(1, false, 0b10); // port 1's line, then irq a cycle later (IS is a register)
    run(20, true, 0b10);
    run(5, false, 0);
    run(k, true, 0);     // irq rises with no line ...
    run(1, true, 0b01);  // ... and port 0's line comes k cycles late: still in time
    run(5, false, 0);
    CHECK(b.seen.empty());
    run(1, true, 0, true); // GHC.IE written over latched IS: no line is owed
    run(3 * k, true, 0);
    run(2, false, 0);
    CHECK(b.seen.empty());
    run(3 * k, true, 0); // a dead line
    CHECK_EQ(b.seen.size(), 1u);
    CHECK(!b.seen.empty() && b.seen[0].rule == "irq_lines_silent" && b.seen[0].port == -1);
    run(1, false, 0);
    run(k + 2, true, 0b100); // a line of a port the DUT does not have carries nothing
    CHECK_EQ(b.seen.size(), 2u);
}

} // namespace

int main() {
    const PlainCase cases[] = {{"a_faithful_line_passes", a_faithful_line_passes},
                               {"a_lost_line_is_low", a_lost_line_is_low},
                               {"global_enable_and_hba_reset", global_enable_and_hba_reset},
                               {"only_pxis_reads_of_its_ports", only_pxis_reads_of_its_ports},
                               {"a_rise_no_line_carries_is_silent", a_rise_no_line_carries_is_silent}};
    return run_plain_cases(cases);
}
