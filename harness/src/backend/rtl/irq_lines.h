// The per-port interrupt lines of a DUT whose profile says interface.irq_per_port
// (docs/rtl-controller.md, "Interrupts"). The stack's platform has one interrupt input (its
// request_irq), so the shell is the board's wiring: it ORs the lines into that input, like
// level lines sharing one handler. And it checks each line against what the host sees.
// Plain C++ (no SystemC: harness/tests/unit/irq_lines_test.cpp drives it alone).
//
// Line n is GHC.IE && (port n's PxIS & PxIE) != 0: the level form of multiple-message MSI,
// where each port has its own vector (AHCI 1.3.1 3.1.2 GHC.IE, 3.3.5 PxIS, 3.3.6 PxIE;
// 10.7 interrupts, section number unconfirmed; docs/hardware.md 5.1). A port's line drops
// when its PxIS is cleared, without the write to IS that the single line needs.
//
// The shell knows GHC.IE and every PxIE from the host's writes (an HBA reset, GHC.HR,
// clears them: AHCI 1.3.1 10.4.3), and learns PxIS from the host's reads of it. Only the
// host clears PxIS, PxIE and GHC.IE, and the shell's register master does one access at a
// time, so the bits a read of PxIS returns were set from the read's start to its end. Two
// rules follow, each a line that disagrees with the register for a whole read (a line that
// lags its register by less than a register read's latency never breaks them):
//   irq_line_low   a read of port n's PxIS shows a bit PxIE enables, GHC.IE is set, and
//                  line n is low when the read completes: the interrupt is lost
//   irq_line_high  line n is high when a read of port n's PxIS begins and when it completes,
//                  yet the read shows no enabled bit or GHC.IE is clear: a spurious or stuck line
// A top that also has the one line irq (GHC.IE && IS != 0) gives a third: IS bit n is set
// only by port n's PxIS & PxIE, so irq rising means a port's line is high about then:
//   irq_lines_silent  irq rose, not by the host's write to GHC, and no line was high within
//                  kSilentCycles clk cycles either side: the interrupt reaches no per-port input
// (what catches a dead line on a port whose PxIS the host reads only after its timeout has
// disabled PxIE).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace satasim::harness::rtl {

class IrqLines {
  public:
    // port -1: a rule about no one port (irq_lines_silent)
    using Report = std::function<void(int port, const char *rule, const std::string &msg)>;

    static constexpr uint64_t kSilentCycles = 16;

    IrqLines(unsigned ports, Report report);

    // The host's register accesses, each after it completed (offsets in the AHCI map).
    void write(uint32_t off, uint32_t val);
    // lines_before / lines_after: bit n, line n when the read was issued / completed.
    void read(uint32_t off, uint32_t val, uint8_t lines_before, uint8_t lines_after);

    // Each clk edge of a top with both outputs: the sampled irq and lines; ghc_write: the
    // host's write to GHC is under way (its GHC.IE may raise irq with no line, rightly).
    void core_edge(uint64_t cycle, bool irq, uint8_t lines, bool ghc_write);

    // The host's interrupt input: any line high.
    uint8_t mask() const { return mask_; }
    uint64_t violations() const { return violations_; }

  private:
    // The port whose register `reg` (offset in its 80h block) `off` is, or -1.
    int port_of(uint32_t off, uint32_t reg) const;
    void violation(int port, const char *rule, const std::string &msg);

    Report report_;
    uint8_t mask_;
    bool ghc_ie_ = false;
    std::vector<uint32_t> pxie_;
    bool irq_was_ = false;
    uint64_t line_high_at_ = 0;        // the last clk cycle with a line high
    bool line_ever_high_ = false;
    bool rise_open_ = false;           // an irq rise waits for a line
    uint64_t rise_at_ = 0;
    uint64_t violations_ = 0;
};

} // namespace satasim::harness::rtl
