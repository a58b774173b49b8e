// The per-port interrupt lines and their rules (irq_lines.h).
#include "backend/rtl/irq_lines.h"

#include <algorithm>
#include <cstdio>

namespace satasim::harness::rtl {

namespace {
constexpr uint32_t kGhc = 0x04, kGhcHr = 1u << 0, kGhcIe = 1u << 1;
constexpr uint32_t kPortBase = 0x100, kPortStride = 0x80, kPxIS = 0x10, kPxIE = 0x14;
} // namespace

IrqLines::IrqLines(unsigned ports, Report report)
    : report_(std::move(report)), mask_(uint8_t((1u << ports) - 1)), pxie_(ports, 0) {}

int IrqLines::port_of(uint32_t off, uint32_t reg) const {
    if (off < kPortBase || (off - kPortBase) % kPortStride != reg)
        return -1;
    const uint32_t n = (off - kPortBase) / kPortStride;
    return n < pxie_.size() ? int(n) : -1;
}

void IrqLines::write(uint32_t off, uint32_t val) {
    if (off == kGhc) {
        if (val & kGhcHr) { // HBA reset: GHC.IE and every port's PxIE to their reset value, 0
            ghc_ie_ = false;
            std::fill(pxie_.begin(), pxie_.end(), 0u);
        } else {
            ghc_ie_ = (val & kGhcIe) != 0;
        }
    } else if (const int n = port_of(off, kPxIE); n >= 0) {
        pxie_[unsigned(n)] = val;
    }
}

void IrqLines::read(uint32_t off, uint32_t val, uint8_t lines_before, uint8_t lines_after) {
    const int n = port_of(off, kPxIS);
    if (n < 0)
        return;
    const unsigned bit = 1u << unsigned(n);
    const uint32_t enabled = val & pxie_[unsigned(n)];
    const bool pending = ghc_ie_ && enabled != 0;
    char msg[200];
    const char *rule = nullptr;
    if (pending && !(lines_after & bit)) {
        rule = "irq_line_low";
        std::snprintf(msg, sizeof msg,
                      "irq_port[%d] is low, yet PxIS 0x%08x & PxIE 0x%08x = 0x%08x with GHC.IE set: the interrupt "
                      "is lost",
                      n, unsigned(val), unsigned(pxie_[unsigned(n)]), unsigned(enabled));
    } else if (!pending && (lines_before & bit) && (lines_after & bit)) {
        rule = "irq_line_high";
        std::snprintf(msg, sizeof msg,
                      "irq_port[%d] is high across a read of PxIS 0x%08x (PxIE 0x%08x, GHC.IE %s): no enabled "
                      "interrupt is pending",
                      n, unsigned(val), unsigned(pxie_[unsigned(n)]), ghc_ie_ ? "set" : "clear");
    }
    if (rule)
        violation(n, rule, msg);
}

void IrqLines::core_edge(uint64_t cycle, bool irq, uint8_t lines, bool ghc_write) {
    lines &= mask_;
    if (lines) {
        line_high_at_ = cycle;
        line_ever_high_ = true;
        rise_open_ = false;
    }
    // (a line high at this edge has just set line_high_at_: no rise is opened)
    if (irq && !irq_was_ && !ghc_write && !(line_ever_high_ && cycle - line_high_at_ <= kSilentCycles)) {
        rise_open_ = true;
        rise_at_ = cycle;
    }
    irq_was_ = irq;
    if (rise_open_ && cycle - rise_at_ > kSilentCycles) {
        rise_open_ = false;
        violation(-1, "irq_lines_silent",
                  "irq rose at clk cycle " + std::to_string(rise_at_) + " and no irq_port line was high within " +
                      std::to_string(kSilentCycles) + " cycles of it: the interrupt reaches no per-port input");
    }
}

void IrqLines::violation(int port, const char *rule, const std::string &msg) {
    ++violations_;
    if (report_)
        report_(port, rule, msg);
}

} // namespace satasim::harness::rtl
