// SiI3124 port interrupt logic (docs/hardware.md 6.3, 6.5; docs/libata-eh.md 8.2).
//
// PORT_IRQ_STAT bits 11:0 are the raw sources masked by the enable register, bits 27:16
// the raw sources. A port requests its HOST_IRQ_STAT bit while any masked bit is set; the
// interrupt line is the OR of those bits gated by the HOST_CTRL per-port enables.
//
// Clearing (MEM, docs/hardware.md 9.7 — the clear-on-read details are inferred from driver
// behaviour): writing 1 to a PORT_IRQ_STAT bit (11:0 or its raw twin 27:16) always clears
// that source. The completion interrupt is additionally acknowledged by reading the slot
// status (PORT_SLOT_STAT or the HOST_SLOT_STAT mirror) unless PORT_CTRL_STAT.IRQ_WOC is
// set, in which case only the write clears it.
//
// The PCI-X erratum: with Sil24Config::pcix_irq_loss on a PCI-X bus, that acknowledging
// read is a split transaction — the status is sampled when the read is accepted, but the
// COMPLETE clear lands pcix_ack_window_ns later and wipes completions that happened in
// between, which the sampled status did not report: their interrupt is lost. The CPU has
// the read's data only once the clear has landed, so it never sees the line up in the
// window: in the model (where a read takes no time) the COMPLETE that was read is cleared
// at the read, and a completion inside the window does not raise COMPLETE at all.
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
        // What was read is acknowledged either way (the CPU has the data only once the
        // split completion, and with it the clear, has landed).
        clear_irq(IRQ_COMPLETE);
        if (c.pcix && c.pcix_irq_loss && c.pcix_ack_window_ns > 0) {
            const sc_core::sc_time w(c.pcix_ack_window_ns, sc_core::SC_NS);
            ack_snapshot_ = completions_;
            ack_until_ = sc_core::sc_time_stamp() + w;
            ack_ev_.cancel();
            ack_ev_.notify(w);
        }
    }
    return v;
}

bool Sil24Hba::Port::ack_in_flight() const {
    return !(ctrl_ & CS_IRQ_WOC) && sc_core::sc_time_stamp() < ack_until_;
}

// The delayed acknowledge has landed: completions since the last read of the slot status
// raised no interrupt (their COMPLETE was wiped), and no read reported them.
void Sil24Hba::Port::ack_complete_method() {
    if (completions_ != ack_snapshot_)
        trace("sil24.irq_lost", {{"completions", TraceValue::integer(int64_t(completions_ - ack_snapshot_))},
                                 {"slot_stat", TraceValue::hex(slot_stat())}},
              "completion interrupt lost (PCI-X erratum)");
    ack_snapshot_ = completions_;
}

} // namespace satasim::sil24
