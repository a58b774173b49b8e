// Fault hooks of the SiI3124 model (model/fault/README.md): lost completion interrupts.
// The slot still completes (its PORT_SLOT_STAT bit clears, the LRAM slot holds the result
// FIS) but PORT_IRQ_COMPLETE is not raised. Error and PHY interrupts are never affected.
// Also the port's protocol-violation records.
#include "model/sil24/sil24_port.h"

namespace satasim::sil24 {

void Sil24Hba::inject_lost_irq(unsigned port, unsigned count, uint64_t window_ns,
                               const std::string &id) {
    if (port < ports_.size())
        ports_[port]->inject_lost_irq(count, window_ns, id);
}

void Sil24Hba::clear_faults() {
    for (auto &p : ports_)
        p->clear_faults();
}

void Sil24Hba::Port::inject_lost_irq(unsigned count, uint64_t window_ns, const std::string &id) {
    lost_irq_.id = id;
    if (window_ns)
        lost_irq_.until = sc_core::sc_time_stamp() + sc_core::sc_time(double(window_ns), sc_core::SC_NS);
    else
        lost_irq_.count += count;
}

void Sil24Hba::Port::clear_faults() { lost_irq_ = LostIrq{}; }

bool Sil24Hba::Port::swallow_completion(unsigned slot) {
    const bool in_window = sc_core::sc_time_stamp() < lost_irq_.until;
    if (!in_window && lost_irq_.count == 0)
        return false;
    if (!in_window)
        --lost_irq_.count;
    trace("fault.effect", {{"id", TraceValue::str(lost_irq_.id)},
                           {"irq", TraceValue::str("COMPLETE")},
                           {"slot", TraceValue::integer(slot)},
                           {"slot_stat", TraceValue::hex(slot_stat() & reg::SLOT_MASK)}},
          "completion interrupt not raised");
    return true;
}

// The host broke a rule of the chip's programming model (model/fault/README.md).
void Sil24Hba::Port::violation(const char *rule, std::string msg) {
    trace("sil24.violation", {{"rule", TraceValue::str(rule)}}, std::move(msg));
}

// A bus-master access while the function's Bus Master Enable is off (PCI 3.0 6.2.2): the
// request never reaches the bus; the engine sees it as a master abort (Status bit 13).
bool Sil24Hba::Port::bus_master_ok(uint64_t addr, size_t len) {
    if (hba_.pci_.bus_master())
        return true;
    hba_.pci_.note_master_abort();
    trace("sil24.violation", {{"rule", TraceValue::str("dma_bus_master_off")},
                             {"addr", TraceValue::hex(addr)},
                             {"len", TraceValue::integer(int64_t(len))}},
          "DMA with the PCI function's bus master enable off");
    return false;
}

// A bus-master access the host memory refused: the host programmed an address outside
// every allocation (past the end of a buffer: its guard gap).
void Sil24Hba::Port::dma_violation(uint64_t addr, size_t len) {
    const bool gap = hba_.mem_.runs_past_allocation(addr, len);
    trace("sil24.violation", {{"rule", TraceValue::str(gap ? "dma_past_allocation" : "dma_unmapped")},
                            {"addr", TraceValue::hex(addr)},
                            {"len", TraceValue::integer(int64_t(len))}},
          gap ? "DMA into the guard gap after an allocation" : "DMA to unmapped host memory");
}

} // namespace satasim::sil24
