// SiI3124 port interrupt logic (hardware.md 6.3, 6.5; libata-eh.md 8.2).
//
// PORT_IRQ_STAT bits 11:0 are the raw sources masked by the enable register, bits 27:16
// the raw sources. A port requests its HOST_IRQ_STAT bit while any masked bit is set; the
// interrupt line is the OR of those bits gated by the HOST_CTRL per-port enables.
//
// Clearing (MEM, hardware.md 9.7 — the clear-on-read details are inferred from driver
// behaviour): writing 1 to a PORT_IRQ_STAT bit (11:0 or its raw twin 27:16) always clears
// that source. The completion interrupt is additionally acknowledged by reading the slot
// status (PORT_SLOT_STAT or the HOST_SLOT_STAT mirror) unless PORT_CTRL_STAT.IRQ_WOC is
// set, in which case only the write clears it.
//
// The PCI-X erratum: with Sil24Config::pcix_irq_loss on a PCI-X bus, that acknowledging
// read is a split transaction — the status is sampled when the read is accepted, but the
// COMPLETE clear lands pcix_ack_window_ns later and wipes completions that happened in
// between, which the sampled status did not report: their interrupt is lost.
#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

using namespace reg;

void Sil24Hba::Port::raise(uint32_t bits) {
    irq_raw_ |= bits & IRQ_ALL;
    irq_update();
}

void Sil24Hba::Port::clear_irq(uint32_t bits) {
    irq_raw_ &= ~bits;
    irq_update();
}

void Sil24Hba::Port::set_serr(uint32_t bits) { serr_ |= bits; }

void Sil24Hba::Port::irq_update() { hba_.update_irq(); }

uint32_t Sil24Hba::Port::read_slot_stat() {
    const uint32_t v = slot_stat();
    if (!(ctrl_ & CS_IRQ_WOC)) {
        const Sil24Config &c = hba_.cfg_;
        if (c.pcix && c.pcix_irq_loss && c.pcix_ack_window_ns > 0) {
            ack_snapshot_ = completions_;
            ack_ev_.notify(c.pcix_ack_window_ns, sc_core::SC_NS);
        } else {
            clear_irq(IRQ_COMPLETE);
        }
    }
    return v;
}

// The delayed acknowledge of the erratum: whatever completed since the read is wiped too.
void Sil24Hba::Port::ack_complete_method() {
    if (ctrl_ & CS_IRQ_WOC)
        return;
    if (!(irq_raw_ & IRQ_COMPLETE))
        return;
    if (completions_ != ack_snapshot_)
        trace("sil24.irq_lost", {{"completions", TraceValue::integer(int64_t(completions_ - ack_snapshot_))},
                                 {"slot_stat", TraceValue::hex(slot_stat())}},
              "completion interrupt lost (PCI-X erratum)");
    clear_irq(IRQ_COMPLETE);
}

} // namespace satasim::sil24
